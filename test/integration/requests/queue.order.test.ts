import { TransientRequestError } from '../../../lib/requests/errors';
import { eventually } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readCluster, realHandler, seedClusters, send, startPollers, type OutcomeLog, useQueueFixture } from '../../helpers/requests-queue';

const CLUSTERS = ['c-a', 'c-b', 'c-c', 'peer-1'];

// Every cluster here fails out to one peer: it needs the hosts to take them all (issue 21 judges them together).
const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, CLUSTERS);
  await announceHosts(session, paths, 'peer-1', CLUSTERS.length - 1);
});

function reasonsByCluster(log: OutcomeLog, bodies: Map<string, Record<string, unknown>>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const o of log.outcomes) {
    const body = bodies.get(o.requestId);
    if (!body || o.status !== 'applied') continue;
    out.set(String(body.cluster), [...(out.get(String(body.cluster)) ?? []), String(body.reason)]);
  }
  return out;
}

it('applies the requests of one cluster in queue order across many batches, with two pollers', async () => {
  const queue = await fx.sqs.createFifoQueuePair();
  const log: OutcomeLog = { outcomes: [] };
  const bodies = new Map<string, Record<string, unknown>>();
  const sent: Record<string, string[]> = { 'c-a': [], 'c-b': [] };
  for (let i = 0; i < 30; i++) {
    for (const cluster of ['c-a', 'c-b']) {
      const body = failoutBody(cluster, ['peer-1'], { reason: `${cluster}#${i}` });
      bodies.set(String(body.requestId), body);
      sent[cluster]!.push(String(body.reason));
      await send(fx.sqs.client, queue.queueUrl, body);
    }
  }
  // Batches of 3 force the 60 requests across many invocations and both pollers.
  startPollers(2, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths, log), batchSize: 3 });

  await eventually(() => log.outcomes.length === 60, 30_000, 'every request');
  const applied = reasonsByCluster(log, bodies);
  expect(applied.get('c-a')).toEqual(sent['c-a']);
  expect(applied.get('c-b')).toEqual(sent['c-b']);
  for (const cluster of ['c-a', 'c-b']) {
    const { json } = await readCluster(fx.session, fx.paths, cluster);
    expect(JSON.stringify(json.failoutProperties)).toContain(`${cluster}#29`);
  }
});

it('lets other clusters proceed while one cluster retries a transient failure, then applies its requests in order', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 1, maxReceiveCount: 10 });
  const log: OutcomeLog = { outcomes: [] };
  let failuresLeft = 2;
  const handler = realHandler(fx.session, fx.paths, log, async (body, meta, next) => {
    if (body.includes('"c-a#0"') && failuresLeft > 0) {
      failuresLeft--;
      throw new TransientRequestError('connectionLoss', 'injected: ZooKeeper unreachable for c-a');
    }
    return next(body, meta);
  });
  const bodies = new Map<string, Record<string, unknown>>();
  for (let i = 0; i < 3; i++) {
    for (const cluster of ['c-a', 'c-b', 'c-c']) {
      const body = failoutBody(cluster, ['peer-1'], { reason: `${cluster}#${i}` });
      bodies.set(String(body.requestId), body);
      await send(fx.sqs.client, queue.queueUrl, body);
    }
  }
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => handler });

  // c-b and c-c finish while c-a's first request is still failing.
  await eventually(() => (reasonsByCluster(log, bodies).get('c-c')?.length ?? 0) === 3 && (reasonsByCluster(log, bodies).get('c-b')?.length ?? 0) === 3, 10_000, 'the other clusters');
  expect(reasonsByCluster(log, bodies).get('c-a') ?? []).toEqual([]);
  await eventually(() => (reasonsByCluster(log, bodies).get('c-a')?.length ?? 0) === 3, 15_000, 'the retried cluster');
  expect(reasonsByCluster(log, bodies).get('c-a')).toEqual(['c-a#0', 'c-a#1', 'c-a#2']);
  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 5000, 'an empty queue');
  expect(await queueDepth(fx.sqs.client, queue.dlqUrl)).toBe(0);
});
