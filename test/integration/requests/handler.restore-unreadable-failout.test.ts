/**
 * A failout in place, then another tool writes the cluster's `failoutProperties` unreadable (a weight
 * the failout codec refuses). D2 clients keep their last good state: the failout, until its window
 * ends. Before, the worker refused every request for that cluster (`malformedCluster`), restore
 * included, so nothing could end the failout. Now, through the real handler over a real writer on
 * ZooKeeper, a restore writes the document back without `failoutProperties` (every other member as the
 * cluster codec keeps it: unknown keys, big integers' digits), its record says it removed an unreadable
 * failout and why, a warning is logged and `UnreadableFailoutRemoved` counted, and a D2 client
 * (LoadBalancerState) sees the cluster restored. A failout of it, and a restore of a document that is
 * no JSON, stay refused (`malformedCluster`) and write nothing.
 */
import type { Context } from 'aws-lambda';
import { clusterPath, LoadBalancerState, parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { decodeFailoutView, viewPathFor } from '../../../lib/requests';
import { RequestWriter, type Outcome } from '../../../lib/requests/request-writer';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { put, putClustersWithHost } from '../../helpers/d2';
import { failoutInput, restoreInput, sqsRecord } from '../../helpers/requests';
import { captureOutput, recordingHandler, type CapturedOutput } from '../../helpers/powertools-output';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// helpers/cli (through helpers/requests-queue) may turn metrics off; this test reads them.
delete process.env.POWERTOOLS_METRICS_DISABLED;
process.env.POWERTOOLS_METRICS_NAMESPACE = 'failout-test';
process.env.POWERTOOLS_SERVICE_NAME = 'failout-requests-test';

const context = { functionName: 'failout-requests', awsRequestId: 'aws-req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
const CLUSTER = 'greetings-lor1';
/** The cluster's other members: an unknown key holding an integer no double holds. */
const OTHER_MEMBERS = `"clusterName":"${CLUSTER}","properties":{"owner":"team-x"},"someFutureKey":{"n":123456789012345678901234567890,"kept":true}`;
const BAD_FAILOUT = '{"failoutRedirectConfigs":[{"peer":"greetings-lva1","weight":0}],"failoutBucketConfigs":[{"offlineAt":1}]}';

let base: string;
let session: ZkSession;
let state: LoadBalancerState | undefined;
let output: CapturedOutput;

const d2Base = (): string => `${base}/d2`;
const requestsPath = (): string => `${base}/requests`;

beforeEach(async () => {
  base = uniqueBase('unreadable-failout');
  session = await openSession();
  await put(session, clusterPath(d2Base(), CLUSTER), `{${OTHER_MEMBERS}}`);
  await putClustersWithHost(session, d2Base(), ['greetings-lva1', 'greetings-ltx1']);
  output = captureOutput();
});

afterEach(async () => {
  output.restore();
  state?.close();
  state = undefined;
  await session.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

function handlerOver(outcomes: Outcome[]): ReturnType<typeof recordingHandler> {
  return recordingHandler(new RequestWriter({ session, d2BasePath: d2Base(), requestsPath: requestsPath(), recordAcl: OPEN_ACL, retention: false }), outcomes);
}

it('restores a failed-out cluster whose failoutProperties another tool made unreadable: written without them, recorded, counted, and a D2 client sees it', async () => {
  // Prepare: a failout through the worker, a D2 client following the cluster, then the bad write
  const outcomes: Outcome[] = [];
  const handler = handlerOver(outcomes);
  await handler({ Records: [sqsRecord(failoutInput({ requestId: 'out-1' }), CLUSTER, 'm-1')] }, context);
  expect(outcomes[0]).toMatchObject({ status: 'applied' });
  state = new LoadBalancerState({ session, basePath: d2Base() });
  await state.listenToCluster(CLUSTER);
  const held = state.getFailoutProperties(CLUSTER);
  expect(held?.buckets[0]?.requestId).toBe('out-1');
  await put(session, clusterPath(d2Base(), CLUSTER), `{${OTHER_MEMBERS},"failoutProperties":${BAD_FAILOUT}}`);
  await eventually(() => state!.stats().clusters.malformed === 1, 5000, 'the client refused the bad write');
  expect(state.getFailoutProperties(CLUSTER)).toEqual(held);
  const before = await session.get(clusterPath(d2Base(), CLUSTER));

  // Act: a failout is still refused; the restore is applied
  const response = await handler(
    { Records: [sqsRecord(failoutInput({ requestId: 'out-2' }), CLUSTER, 'm-2'), sqsRecord(restoreInput({ requestId: 'restore-1', reason: 'INC-4711' }), CLUSTER, 'm-3')] },
    context,
  );

  // Assess
  expect(response.batchItemFailures).toEqual([]);
  expect(outcomes.slice(1).map((o) => [o.requestId, o.status, o.status === 'rejected' ? o.reason : undefined])).toEqual([
    ['out-2', 'rejected', 'malformedCluster'],
    ['restore-1', 'applied', undefined],
  ]);
  const record = outcomes[2]!.record;
  expect(record).toMatchObject({ status: 'applied', action: 'restore', clusterVersion: before.stat.version + 1, unreadableFailout: expect.stringMatching(/failoutProperties.*weight/) });
  expect(record.unchanged).toBeUndefined();
  const after = await session.get(clusterPath(d2Base(), CLUSTER));
  expect(after.data.toString('utf8')).toBe(serializeClusterProperties(parseClusterProperties(`{${OTHER_MEMBERS}}`)));
  expect(after.data.toString('utf8')).toContain('"someFutureKey":{"n":123456789012345678901234567890,"kept":true}');
  expect(decodeFailoutView((await session.get(viewPathFor(requestsPath()))).data).has(CLUSTER)).toBe(false);
  await eventually(() => state!.getFailoutProperties(CLUSTER) === null, 5000, 'the D2 client sees the cluster restored');
  expect(state.getClusterProperties(CLUSTER)?.extra).toMatchObject({ someFutureKey: expect.anything() });

  const lines = output.lines();
  expect(lines.find((l) => l.requestId === 'restore-1' && l.level === 'WARN')).toMatchObject({ outcome: 'applied', cluster: CLUSTER, unreadableFailout: expect.stringMatching(/weight/) });
  const emf = lines.filter((l) => l._aws !== undefined);
  expect(emf.map((l) => l.UnreadableFailoutRemoved).filter((v) => v !== undefined)).toEqual([1]);
});

it('still refuses a restore of a cluster document that is no JSON at all (malformedCluster), and writes nothing', async () => {
  // Prepare
  const outcomes: Outcome[] = [];
  const handler = handlerOver(outcomes);
  const text = `{${OTHER_MEMBERS},"failoutProperties":{`;
  await put(session, clusterPath(d2Base(), CLUSTER), text);
  const before = await session.get(clusterPath(d2Base(), CLUSTER));

  // Act
  await handler({ Records: [sqsRecord(restoreInput({ requestId: 'restore-2' }), CLUSTER, 'm-4')] }, context);

  // Assess
  expect(outcomes[0]).toMatchObject({ status: 'rejected', reason: 'malformedCluster' });
  const after = await session.get(clusterPath(d2Base(), CLUSTER));
  expect({ text: after.data.toString('utf8'), version: after.stat.version }).toEqual({ text, version: before.stat.version });
});
