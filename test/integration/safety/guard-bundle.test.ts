/**
 * The deployed wiring is the tested wiring (issue 14, for issue 16's guard): the failout-guard Lambda
 * bundled as the CDK app ships it, in a process of its own with the environment CDK gives it (plus the
 * local SQS endpoint), reading a tree secured by the role policy without any credential, invoked with
 * EventBridge alarm events. Checked at the queue: the restore message, its group and deduplication id.
 */
import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { clusterPath, parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { bundleFunction, type FunctionBundle } from '../../../lib/local/function-bundle';
import { LambdaProcess } from '../../../lib/local/lambda-process';
import { startLocalSqs, type LocalSqs } from '../../../lib/local/sqs';
import { aclLayout, policyAcl } from '../../../lib/requests/acl';
import { alarmStateChangeEvent, guardRequestId } from '../../../lib/safety';
import type { ZkSession } from '../../../lib/zk';
import { CREDENTIALS, ROLES } from '../../helpers/access';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

const ALARM = 'greetings-lva1-errors';
const HOUR = 3_600_000;

describe('the failout-guard bundle CDK ships', () => {
  let bundle: FunctionBundle;
  let sqs: LocalSqs;
  let admin: ZkSession;
  let root: string;
  let queueUrl: string;
  const lambdas: LambdaProcess[] = [];

  beforeAll(async () => {
    bundle = await bundleFunction('failout-guard');
    sqs = await startLocalSqs();
  }, 60_000);

  afterAll(async () => {
    await sqs.close();
  });

  beforeEach(async () => {
    root = uniqueBase('guard');
    queueUrl = (await sqs.createFifoQueuePair()).queueUrl;
    admin = await openSession({ credentials: [CREDENTIALS.admin] });
    // A secured tree, as the bridge and `failout zk secure` leave it: anyone may read, only roles write.
    const acl = policyAcl(ROLES, aclLayout({ d2BasePath: `${root}/d2`, requestsPath: `${root}/failout/requests` }));
    const now = Date.now();
    const clusters: Record<string, unknown> = {
      'greetings-lor1': { failoutRedirectConfigs: [{ peer: 'greetings-lva1' }], failoutBucketConfigs: [{ offlineAt: now - HOUR, onlineAt: now + HOUR, requestId: 'r-1', stopAlarms: [ALARM] }] },
      'greetings-ltx1': { failoutRedirectConfigs: [{ peer: 'greetings-lva1' }], failoutBucketConfigs: [{ offlineAt: now - HOUR, onlineAt: now + HOUR, requestId: 'r-2', stopAlarms: ['other'] }] },
      'greetings-lva1': null,
    };
    for (const [cluster, failoutProperties] of Object.entries(clusters)) {
      const doc = serializeClusterProperties(parseClusterProperties({ clusterName: cluster, ...(failoutProperties === null ? {} : { failoutProperties }) }));
      await admin.create(clusterPath(`${root}/d2`, cluster), Buffer.from(doc), { parents: true, acl });
    }
  });

  afterEach(async () => {
    for (const lambda of lambdas.splice(0)) await lambda.close();
    await admin.removeRecursive(root).catch(() => undefined);
    await closeSessions();
  });

  /** The environment infra/lib/failout-guard.ts gives the function, pointed at this test's tree and queue. */
  async function startGuard(extra: Record<string, string> = {}): Promise<LambdaProcess> {
    const lambda = await LambdaProcess.start({
      bundle: bundle.file,
      functionName: 'failout-guard',
      env: {
        ZK_CONNECT: sharedConnectString(),
        D2_BASE_PATH: `${root}/d2`,
        FAILOUT_QUEUE_URL: queueUrl,
        POWERTOOLS_SERVICE_NAME: 'failout-guard',
        POWERTOOLS_METRICS_NAMESPACE: 'failout',
        POWERTOOLS_METRICS_DISABLED: 'true',
        POWERTOOLS_LOG_LEVEL: 'SILENT',
        AWS_REGION: 'us-east-1',
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        AWS_ENDPOINT_URL_SQS: sqs.endpoint,
        ...extra,
      },
    });
    lambdas.push(lambda);
    return lambda;
  }

  it('reads the secured tree without a credential and puts one restore on the queue, grouped by cluster, deduplicated by its request id', async () => {
    // Prepare
    const guard = await startGuard();
    const at = Date.now();
    const event = alarmStateChangeEvent({ id: 'evt-1', alarmName: ALARM, state: 'ALARM', previousState: 'OK', at, reason: 'test' });
    const requestId = guardRequestId('greetings-lor1', { id: 'evt-1', alarmName: ALARM, changedAt: (event.detail as { state: { timestamp: string } }).state.timestamp });

    // Act
    const response = await guard.call(event);
    const received = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, MessageSystemAttributeNames: ['MessageGroupId', 'MessageDeduplicationId'] }));

    // Assess
    expect(response).toEqual({ outcome: 'handled', alarmName: ALARM, clusters: 3, restores: [{ cluster: 'greetings-lor1', requestId }], unreadable: [] });
    expect(received.Messages).toHaveLength(1);
    const message = received.Messages![0]!;
    expect(message.Attributes).toMatchObject({ MessageGroupId: 'greetings-lor1', MessageDeduplicationId: requestId });
    expect(JSON.parse(message.Body!)).toEqual({
      version: 1,
      requestId,
      action: 'restore',
      cluster: 'greetings-lor1',
      requestedBy: 'failout-guard',
      reason: `stopped by alarm ${ALARM}`,
      stoppedByAlarm: ALARM,
      // When the alarm changed state: the worker judges a drill run by it even after the run's window (issue 21).
      alarmAt: at,
    });
  });

  it("restores a drill run's cluster when the alarm changed state during the run, though its window ended before the event came, naming the drill and when", async () => {
    // Prepare: a drill's window of 10 minutes that ended a minute ago; the alarm changed state in it.
    const now = Date.now();
    const window = { offlineAt: now - 11 * 60_000, onlineAt: now - 60_000, requestId: 'drill-weekly-1', drill: 'weekly', stopAlarms: [ALARM, 'deploys'] };
    const doc = serializeClusterProperties(parseClusterProperties({ clusterName: 'greetings-ltx2', failoutProperties: { failoutRedirectConfigs: [{ peer: 'greetings-lva1' }], failoutBucketConfigs: [window] } }));
    await admin.create(clusterPath(`${root}/d2`, 'greetings-ltx2'), Buffer.from(doc), { acl: policyAcl(ROLES, aclLayout({ d2BasePath: `${root}/d2`, requestsPath: `${root}/failout/requests` })) });
    const guard = await startGuard();
    const at = now - 5 * 60_000;

    // Act
    const response = await guard.call(alarmStateChangeEvent({ id: 'evt-late', alarmName: ALARM, state: 'ALARM', previousState: 'OK', at, reason: 'test' }));
    const received = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));

    // Assess: the operator's open failout of lor1 as ever, and the drill's ended window with its verdict.
    expect(response).toMatchObject({ outcome: 'handled', restores: [{ cluster: 'greetings-lor1' }, { cluster: 'greetings-ltx2' }] });
    const bodies = (received.Messages ?? []).map((m) => JSON.parse(m.Body!) as Record<string, unknown>);
    expect(bodies.find((b) => b.cluster === 'greetings-ltx2')).toMatchObject({ action: 'restore', stoppedByAlarm: ALARM, alarmAt: at, drill: 'weekly' });
  });

  it('answers a malformed event with a clear error, sends nothing, and keeps its process', async () => {
    // Prepare
    const guard = await startGuard();

    // Act
    const response = await guard.call({ 'detail-type': 'CloudWatch Alarm State Change', source: 'aws.cloudwatch', detail: { state: { value: 'ALARM' } } });
    const received = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, WaitTimeSeconds: 1 }));

    // Assess
    expect(response).toMatchObject({ outcome: 'malformed', error: expect.stringMatching(/^not a CloudWatch alarm state change event: .*id.*detail\.alarmName/) });
    expect(received.Messages ?? []).toEqual([]);
    expect(guard.coldStarts).toBe(1);
  });

  it('fails the invocation (so EventBridge retries) when ZooKeeper is out of reach, and still answers an OK transition', async () => {
    // Prepare: nothing listens on port 1.
    const guard = await startGuard({ ZK_CONNECT: '127.0.0.1:1', ZK_CONNECT_TIMEOUT_MS: '1000' });
    const alarm = alarmStateChangeEvent({ id: 'evt-2', alarmName: ALARM, state: 'ALARM', previousState: 'OK', at: Date.now(), reason: 'test' });
    const ok = alarmStateChangeEvent({ id: 'evt-3', alarmName: ALARM, state: 'OK', previousState: 'ALARM', at: Date.now(), reason: 'test' });

    // Act
    const failed = guard.call(alarm);

    // Assess
    await expect(failed).rejects.toThrow();
    await expect(guard.call(ok)).resolves.toEqual({ outcome: 'ignored', alarmName: ALARM, state: 'OK' });
  });
});
