/**
 * Issue 16, extend and the no-op restore on the real pipeline: FIFO queue (fauxqs) → local poller →
 * the real handler → ZooKeeper. `extend` moves only the end, in one write with its record; an extend
 * with nothing to extend or a bad end is a recorded rejection that never blocks the group; a restore of
 * a serving cluster is recorded as unchanged without a write.
 */
import { eventually } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readCluster, readRecord, realHandler, restoreBody, seedClusters, send, startPollers, useQueueFixture } from '../../helpers/requests-queue';

const PEER = 'greetings-lva1';
const HOUR = 3_600_000;

function extendBody(cluster: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: `ext-${Date.now()}-${Math.random().toString(36).slice(2)}`, action: 'extend', cluster, duration: 'PT3H', requestedBy: 'test@example.com', ...overrides };
}

// Every cluster here fails out to one peer: it needs the hosts to take them all (issue 21 judges them together).
const CLUSTERS = ['greetings-lor1', PEER, 'ext-a', 'ext-b', 'ext-c', 'ext-d'];
const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, CLUSTERS);
  await announceHosts(session, paths, PEER, CLUSTERS.length - 1);
});

it('moves the end of every window of the active failout in one write, and nothing else', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const out = failoutBody('greetings-lor1', [PEER], { duration: 'PT1H', ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] });
  await send(fx.sqs.client, queue.queueUrl, out);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(out.requestId)))?.status === 'applied', 10_000, 'the failout');
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');

  const extend = extendBody('greetings-lor1', { duration: 'PT3H' });
  const sentAt = Date.now();
  await send(fx.sqs.client, queue.queueUrl, extend);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(extend.requestId))) !== undefined, 10_000, 'the extend');

  const after = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  expect(await readRecord(fx.session, fx.paths, String(extend.requestId))).toMatchObject({ status: 'applied', action: 'extend', clusterVersion: after.version });
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
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 30 });
  const cases: [string, Record<string, unknown>, string][] = [
    ['ext-a', extendBody('ext-a'), 'notFailedOut'],
    ['ext-b', extendBody('ext-b', { duration: 'PT73H' }), 'windowTooLong'],
    ['ext-c', extendBody('ext-c', { duration: undefined, onlineAt: Date.now() - HOUR }), 'badWindow'],
    ['ext-d', extendBody('ext-d', { peers: [{ cluster: PEER }] }), 'badSchema'],
  ];
  const sent = [];
  for (const [cluster, bad, reason] of cases) {
    const good = failoutBody(cluster, [PEER]);
    await send(fx.sqs.client, queue.queueUrl, bad, { group: cluster });
    await send(fx.sqs.client, queue.queueUrl, good, { group: cluster });
    sent.push({ cluster, reason, bad, good });
  }
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });

  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 20_000, 'an empty queue');
  for (const { cluster, reason, bad, good } of sent) {
    const record = await readRecord(fx.session, fx.paths, String(bad.requestId));
    expect({ cluster, status: record?.status, reason: record?.reason, action: record?.action }).toEqual({ cluster, status: 'rejected', reason, action: 'extend' });
    expect({ cluster, next: (await readRecord(fx.session, fx.paths, String(good.requestId)))?.status }).toEqual({ cluster, next: 'applied' });
  }
  expect(await queueDepth(fx.sqs.client, queue.dlqUrl)).toBe(0);
});

it('records a restore of a serving cluster as unchanged, without a write', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  const restore = restoreBody('greetings-lor1');
  await send(fx.sqs.client, queue.queueUrl, restore);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(restore.requestId))) !== undefined, 10_000, 'the restore');

  expect(await readRecord(fx.session, fx.paths, String(restore.requestId))).toMatchObject({ status: 'applied', action: 'restore', unchanged: true, clusterVersion: before.version });
  expect((await readCluster(fx.session, fx.paths, 'greetings-lor1')).version).toBe(before.version);
});
