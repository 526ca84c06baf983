/**
 * Issue 21, the deployed wiring of "Alarms that can act": the failout-requests bundle as the CDK app
 * ships it, in a process of its own with `FAILOUT_ALARMS_CLOUDWATCH=1` (as infra sets it), its
 * CloudWatch client pointed at a loopback endpoint speaking DescribeAlarms' protocol
 * (`AWS_ENDPOINT_URL_CLOUDWATCH`). A firing stop alarm is refused; CloudWatch refusing the call blocks
 * nothing: the request is applied, its record says `alarmsUnchecked`, the function warns and counts it.
 */
import type { SQSBatchResponse } from 'aws-lambda';
import { bundleFunction, type FunctionBundle } from '../../../lib/local/function-bundle';
import { LambdaProcess } from '../../../lib/local/lambda-process';
import { startFakeCloudWatch, type FakeCloudWatch } from '../../helpers/alarm-sources';
import { failoutInput, sqsRecord } from '../../helpers/requests';
import { readCluster, readRecord, seedClusters, testPaths, type TestPaths } from '../../helpers/requests-queue';
import { closeSessions, openSession, sharedConnectString } from '../../helpers/zk';

const LOR1 = 'greetings-lor1';
const LVA1 = 'greetings-lva1';

describe('the failout-requests bundle with CloudWatch alarms', () => {
  let bundle: FunctionBundle;
  let cloudwatch: FakeCloudWatch;
  let lambda: LambdaProcess;
  let paths: TestPaths;

  beforeAll(async () => {
    bundle = await bundleFunction('failout-requests');
    cloudwatch = await startFakeCloudWatch();
  }, 60_000);
  afterAll(async () => {
    await cloudwatch.close();
  });
  beforeEach(async () => {
    paths = testPaths();
    await seedClusters(await openSession(), paths, [LOR1, LVA1]);
    lambda = await LambdaProcess.start({
      bundle: bundle.file,
      functionName: 'failout-requests',
      env: {
        ZK_CONNECT: sharedConnectString(),
        D2_BASE_PATH: paths.d2Base,
        FAILOUT_REQUESTS_PATH: paths.requestsPath,
        // These tests are about alarms, not access (lambda-bundle.test.ts runs it under its identity).
        FAILOUT_ALLOW_OPEN_ACL: '1',
        FAILOUT_ALARMS_CLOUDWATCH: '1',
        POWERTOOLS_SERVICE_NAME: 'failout-requests',
        POWERTOOLS_METRICS_NAMESPACE: 'failout',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_CLOUDWATCH: cloudwatch.endpoint,
      },
    });
  });
  afterEach(async () => {
    await lambda.close();
    cloudwatch.fail(undefined);
    await closeSessions();
  });

  it('refuses a failout whose stop alarm CloudWatch reports in ALARM, and one CloudWatch does not have', async () => {
    // Prepare
    cloudwatch.set('lva1-errors', 'ALARM');
    const session = await openSession();
    const firing = failoutInput({ requestId: `cw-firing-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1 }], stopAlarms: ['lva1-errors'] });
    const typo = failoutInput({ requestId: `cw-typo-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1 }], stopAlarms: ['lva1-erors'] });

    // Act
    const response = (await lambda.invoke({ Records: [sqsRecord(firing, LOR1), sqsRecord(typo, LOR1)] })) as SQSBatchResponse;

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await readRecord(session, paths, String(firing.requestId))).toMatchObject({ status: 'rejected', reason: 'stopAlarmFiring' });
    expect(await readRecord(session, paths, String(typo.requestId))).toMatchObject({ status: 'rejected', reason: 'unknownAlarm' });
    expect(cloudwatch.calls).toEqual(expect.arrayContaining([['lva1-errors'], ['lva1-erors']]));
    expect((await readCluster(session, paths, LOR1)).json.failoutProperties ?? null).toBeNull();
  }, 60_000);

  it('applies the failout when DescribeAlarms is refused: record alarmsUnchecked, a warning, the AlarmsUnchecked metric', async () => {
    // Prepare
    cloudwatch.fail({ type: 'AccessDeniedException', message: 'not authorized to perform cloudwatch:DescribeAlarms' });
    const session = await openSession();
    const input = failoutInput({ requestId: `cw-down-${Date.now()}`, cluster: LOR1, peers: [{ cluster: LVA1 }], stopAlarms: ['lva1-errors'] });

    // Act
    const response = (await lambda.invoke({ Records: [sqsRecord(input, LOR1)] })) as SQSBatchResponse;

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    expect(await readRecord(session, paths, String(input.requestId))).toMatchObject({ status: 'applied', alarmsUnchecked: true });
    const output = lambda.output().join('\n');
    expect(output).toMatch(/"message":"alarms not checked[^"]*".*"alarmSourceError":"CloudWatch DescribeAlarms failed: not authorized/);
    expect(output).toMatch(/"AlarmsUnchecked":1/);
  }, 60_000);
});
