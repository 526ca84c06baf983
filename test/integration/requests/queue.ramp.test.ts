/**
 * Issue 16, ramps on the real pipeline: FIFO queue (fauxqs) → local poller → the real handler →
 * ZooKeeper. A ramp is one request and one write of staggered bucket configs; a bad ramp is a
 * recorded rejection that never blocks its cluster's group; restore ends the whole ramp.
 */
import { eventually } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readCluster, readRecord, realHandler, restoreBody, seedClusters, send, startPollers, useQueueFixture } from '../../helpers/requests-queue';

const MINUTE = 60_000;
const PEER = 'greetings-lva1';

// Every cluster here fails out to one peer: it needs the hosts to take them all (issue 21 judges them together).
const CLUSTERS = ['greetings-lor1', PEER, 'ramp-a', 'ramp-b', 'ramp-c', 'ramp-d', 'ramp-e'];
const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, CLUSTERS);
  await announceHosts(session, paths, PEER, CLUSTERS.length - 1);
});

it('writes a ramp in one write as staggered bucket configs ending together, and restore ends all of it', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  const before = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  const body = failoutBody('greetings-lor1', [PEER], {
    duration: 'PT2H',
    ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 50, duration: 'PT10M' }, { percent: 100 }],
  });
  await send(fx.sqs.client, queue.queueUrl, body);

  await eventually(async () => (await readRecord(fx.session, fx.paths, String(body.requestId))) !== undefined, 10_000, 'the record');
  const after = await readCluster(fx.session, fx.paths, 'greetings-lor1');
  expect(await readRecord(fx.session, fx.paths, String(body.requestId))).toMatchObject({ status: 'applied', clusterVersion: after.version });
  expect(after.version).toBe(before.version + 1);
  const configs = (after.json.failoutProperties as { failoutBucketConfigs: { bucketOfflineRange: unknown; offlineAt: number; onlineAt: number; requestId: string }[] })
    .failoutBucketConfigs;
  expect(configs.map((c) => c.bucketOfflineRange)).toEqual([
    { from: 0, to: 9 },
    { from: 10, to: 49 },
    { from: 50, to: 99 },
  ]);
  const start = configs[0]!.offlineAt;
  expect(configs.map((c) => c.offlineAt - start)).toEqual([0, 5 * MINUTE, 15 * MINUTE]);
  expect(new Set(configs.map((c) => c.onlineAt))).toEqual(new Set([start + 120 * MINUTE]));
  expect(new Set(configs.map((c) => c.requestId))).toEqual(new Set([body.requestId]));

  const restore = restoreBody('greetings-lor1');
  await send(fx.sqs.client, queue.queueUrl, restore);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(restore.requestId)))?.status === 'applied', 10_000, 'the restore');
  expect((await readCluster(fx.session, fx.paths, 'greetings-lor1')).json.failoutProperties ?? null).toBeNull();
});

it('records every bad ramp as badRamp and applies the next request of the same cluster', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 30 });
  const cases: [string, unknown, string][] = [
    ['ramp-a', [{ percent: 10, duration: 'PT5M' }, { percent: 90 }], 'badRamp'],
    ['ramp-b', [{ percent: 50, duration: 'PT5M' }, { percent: 20, duration: 'PT5M' }, { percent: 100 }], 'badRamp'],
    ['ramp-c', [{ percent: 10, duration: 'PT1H' }, { percent: 100 }], 'badRamp'],
    ['ramp-d', [{ percent: 10 }, { percent: 100 }], 'badRamp'],
    ['ramp-e', '10%:5m,100%', 'badSchema'],
  ];
  const sent = [];
  for (const [cluster, ramp, reason] of cases) {
    const bad = failoutBody(cluster, [PEER], { duration: 'PT1H', ramp });
    const good = failoutBody(cluster, [PEER], { duration: 'PT1H', ramp: [{ percent: 50, duration: 'PT1M' }, { percent: 100 }] });
    await send(fx.sqs.client, queue.queueUrl, bad, { group: cluster });
    await send(fx.sqs.client, queue.queueUrl, good, { group: cluster });
    sent.push({ cluster, reason, bad, good });
  }
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });

  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 20_000, 'an empty queue');
  for (const { cluster, reason, bad, good } of sent) {
    const record = await readRecord(fx.session, fx.paths, String(bad.requestId));
    expect({ cluster, status: record?.status, reason: record?.reason }).toEqual({ cluster, status: 'rejected', reason });
    expect(record?.message).toMatch(/^ramp/);
    expect({ cluster, next: (await readRecord(fx.session, fx.paths, String(good.requestId)))?.status }).toEqual({ cluster, next: 'applied' });
  }
  expect(await queueDepth(fx.sqs.client, queue.dlqUrl)).toBe(0);
});
