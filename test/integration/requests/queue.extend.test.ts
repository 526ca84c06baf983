/**
 * Issue 16, extend and the no-op restore on the real pipeline: FIFO queue (fauxqs) → local poller →
 * the real handler → ZooKeeper. `extend` moves only the end, in one write with its record; an extend
 * with nothing to extend or a bad end is a recorded rejection that never blocks the group; a restore of
 * a serving cluster is recorded as unchanged without a write.
 */
import { startLocalSqs, type LocalSqs } from '../../../lib/local/sqs';
import type { ZkSession } from '../../../lib/zk';
import { closeSessions, eventually, openSession } from '../../helpers/zk';
import { failoutBody, queueDepth, readCluster, readRecord, realHandler, restoreBody, seedClusters, send, startPollers, stopPollers, testPaths, type TestPaths } from '../../helpers/requests-queue';

let sqs: LocalSqs;
let session: ZkSession;
let paths: TestPaths;

const PEER = 'greetings-lva1';
const HOUR = 3_600_000;

function extendBody(cluster: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: `ext-${Date.now()}-${Math.random().toString(36).slice(2)}`, action: 'extend', cluster, duration: 'PT3H', requestedBy: 'test@example.com', ...overrides };
}

beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => {
  await sqs.stop();
});
beforeEach(async () => {
  session = await openSession();
  paths = testPaths();
  await seedClusters(session, paths, ['greetings-lor1', PEER, 'ext-a', 'ext-b', 'ext-c', 'ext-d']);
});
afterEach(async () => {
  await stopPollers();
  await closeSessions();
});

it('moves the end of every window of the active failout in one write, and nothing else', async () => {
  const queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(session, paths) });
  const out = failoutBody('greetings-lor1', [PEER], { duration: 'PT1H', ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] });
  await send(sqs.client, queue.queueUrl, out);
  await eventually(async () => (await readRecord(session, paths, String(out.requestId)))?.status === 'applied', 10_000, 'the failout');
  const before = await readCluster(session, paths, 'greetings-lor1');

  const extend = extendBody('greetings-lor1', { duration: 'PT3H' });
  const sentAt = Date.now();
  await send(sqs.client, queue.queueUrl, extend);
  await eventually(async () => (await readRecord(session, paths, String(extend.requestId))) !== undefined, 10_000, 'the extend');

  const after = await readCluster(session, paths, 'greetings-lor1');
  expect(await readRecord(session, paths, String(extend.requestId))).toMatchObject({ status: 'applied', action: 'extend', clusterVersion: after.version });
  expect(after.version).toBe(before.version + 1);
  type Buckets = { failoutBucketConfigs: { onlineAt: number }[] };
  const moved = (after.json.failoutProperties as Buckets).failoutBucketConfigs;
  const end = moved[0]!.onlineAt;
  expect(end).toBeGreaterThanOrEqual(sentAt + 3 * HOUR);
  expect(end).toBeLessThan(sentAt + 3 * HOUR + 10_000);
  // Everything but the end is as it was.
  const unEnded = (json: Record<string, unknown>) => ({ ...json, failoutProperties: { ...(json.failoutProperties as Record<string, unknown>), failoutBucketConfigs: (json.failoutProperties as Buckets).failoutBucketConfigs.map((b) => ({ ...b, onlineAt: 0 })) } });
  expect(unEnded(after.json)).toEqual(unEnded(before.json));
  expect(moved.map((b) => b.onlineAt)).toEqual([end, end]);
});

it('records a bad extend (nothing to extend, end past or too far, bad schema) and applies the next request of the same cluster', async () => {
  const queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 30 });
  const cases: [string, Record<string, unknown>, string][] = [
    ['ext-a', extendBody('ext-a'), 'notFailedOut'],
    ['ext-b', extendBody('ext-b', { duration: 'PT73H' }), 'windowTooLong'],
    ['ext-c', extendBody('ext-c', { duration: undefined, onlineAt: Date.now() - HOUR }), 'badWindow'],
    ['ext-d', extendBody('ext-d', { peers: [{ cluster: PEER }] }), 'badSchema'],
  ];
  const sent = [];
  for (const [cluster, bad, reason] of cases) {
    const good = failoutBody(cluster, [PEER]);
    await send(sqs.client, queue.queueUrl, bad, { group: cluster });
    await send(sqs.client, queue.queueUrl, good, { group: cluster });
    sent.push({ cluster, reason, bad, good });
  }
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(session, paths) });

  await eventually(async () => (await queueDepth(sqs.client, queue.queueUrl)) === 0, 20_000, 'an empty queue');
  for (const { cluster, reason, bad, good } of sent) {
    const record = await readRecord(session, paths, String(bad.requestId));
    expect({ cluster, status: record?.status, reason: record?.reason, action: record?.action }).toEqual({ cluster, status: 'rejected', reason, action: 'extend' });
    expect({ cluster, next: (await readRecord(session, paths, String(good.requestId)))?.status }).toEqual({ cluster, next: 'applied' });
  }
  expect(await queueDepth(sqs.client, queue.dlqUrl)).toBe(0);
});

it('records a restore of a serving cluster as unchanged, without a write', async () => {
  const queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(session, paths) });
  const before = await readCluster(session, paths, 'greetings-lor1');
  const restore = restoreBody('greetings-lor1');
  await send(sqs.client, queue.queueUrl, restore);
  await eventually(async () => (await readRecord(session, paths, String(restore.requestId))) !== undefined, 10_000, 'the restore');

  expect(await readRecord(session, paths, String(restore.requestId))).toMatchObject({ status: 'applied', action: 'restore', unchanged: true, clusterVersion: before.version });
  expect((await readCluster(session, paths, 'greetings-lor1')).version).toBe(before.version);
});
