import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { startLocalSqs, type LocalSqs } from '../../../lib/local/sqs';
import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { TransientRequestError } from '../../../lib/requests/errors';
import { closeSessions, eventually, openSession } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readCluster, readRecord, realHandler, seedClusters, send, startPollers, stopPollers, testPaths, type OutcomeLog } from '../../helpers/requests-queue';

let sqs: LocalSqs;

beforeAll(async () => {
  sqs = await startLocalSqs();
});
afterAll(async () => {
  await sqs.close();
});
afterEach(async () => {
  await stopPollers();
  await closeSessions();
});

describe('with its own ZooKeeper, stopped mid-run', () => {
  let zk: ZooKeeperServer;
  beforeAll(async () => {
    zk = await startZooKeeper({ sessionTimeouts: { minMs: 1000, maxMs: 30_000 } });
  });
  afterAll(async () => {
    await zk.close();
  });

  it('retries the messages that met the outage and applies every one after ZooKeeper returns, none lost, none doubled', async () => {
    // A short connect wait makes operations fail fast during the outage (transient → SQS redelivers after 1 s)
    // instead of waiting for the server; the session outlives the 3 s outage.
    const session = await openSession({ connectString: zk.connectString, sessionTimeoutMs: 20_000, connectWaitMs: 300 });
    const paths = testPaths();
    const clusters = ['z-a', 'z-b', 'z-c'];
    await seedClusters(session, paths, [...clusters, 'z-peer']);
    // Every cluster here fails out to one peer: it needs the hosts to take them all (issue 21 judges them together).
    await announceHosts(session, paths, 'z-peer', clusters.length);
    const initial = new Map(await Promise.all(clusters.map(async (c) => [c, (await readCluster(session, paths, c)).version] as const)));
    const queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 1, maxReceiveCount: 50 });
    const log: OutcomeLog = { outcomes: [] };
    startPollers(2, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(session, paths, log) });

    const bodies: Record<string, unknown>[] = [];
    const sending = (async () => {
      for (let i = 0; i < 20; i++) {
        for (const cluster of clusters) {
          const body = failoutBody(cluster, ['z-peer'], { reason: `${cluster}#${i}` });
          bodies.push(body);
          await send(sqs.client, queue.queueUrl, body);
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    await eventually(() => log.outcomes.length >= 10, 10_000, 'some requests applied');
    await zk.halt();
    await new Promise((r) => setTimeout(r, 3000));
    await zk.start();
    await sending;

    await eventually(async () => (await queueDepth(sqs.client, queue.queueUrl)) === 0, 40_000, 'an empty queue');
    for (const body of bodies) expect({ id: body.requestId, status: (await readRecord(session, paths, String(body.requestId)))?.status }).toEqual({ id: body.requestId, status: 'applied' });
    for (const cluster of clusters) {
      const { json, version } = await readCluster(session, paths, cluster);
      // One setData per request: a doubled effect would add versions, a lost one would miss some.
      expect({ cluster, writes: version - initial.get(cluster)! }).toEqual({ cluster, writes: 20 });
      expect(JSON.stringify(json.failoutProperties)).toContain(`"${cluster}#19"`);
    }
    expect(await queueDepth(sqs.client, queue.dlqUrl)).toBe(0);
  });
});

it('moves a message that keeps failing to the DLQ after maxReceiveCount, and then applies the next one of its cluster', async () => {
  const session = await openSession();
  const paths = testPaths();
  await seedClusters(session, paths, ['d-poison', 'd-fine', 'd-peer']);
  await announceHosts(session, paths, 'd-peer', 2);
  const queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 1, maxReceiveCount: 3 });
  const log: OutcomeLog = { outcomes: [] };
  let attempts = 0;
  const handler = realHandler(session, paths, log, async (body, meta, next) => {
    if (body.includes('"poison-me"')) {
      attempts++;
      throw new TransientRequestError('retryBudgetSpent', 'injected: keeps failing');
    }
    return next(body, meta);
  });
  const poison = failoutBody('d-poison', ['d-peer'], { reason: 'poison-me' });
  const after = failoutBody('d-poison', ['d-peer'], { reason: 'after' });
  const fine = failoutBody('d-fine', ['d-peer']);
  for (const body of [poison, after, fine]) await send(sqs.client, queue.queueUrl, body);
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => handler });

  await eventually(async () => (await readRecord(session, paths, String(fine.requestId)))?.status === 'applied', 5000, 'the other cluster');
  await eventually(async () => (await readRecord(session, paths, String(after.requestId)))?.status === 'applied', 20_000, 'the next request of the poisoned cluster');
  expect(attempts).toBe(3);
  expect(await readRecord(session, paths, String(poison.requestId))).toBeUndefined();
  const dead = await sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queue.dlqUrl, MaxNumberOfMessages: 10, MessageSystemAttributeNames: ['All'] }));
  expect(dead.Messages?.map((m) => JSON.parse(m.Body ?? '{}').requestId)).toEqual([poison.requestId]);
  expect(dead.Messages?.[0]?.Attributes?.MessageGroupId).toBe('d-poison');
});
