import { MAX_RECORD_BYTES } from '../../../lib/requests/request-record';
import { eventually } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readRecord, realHandler, seedClusters, send, startPollers, type OutcomeLog, useQueueFixture } from '../../helpers/requests-queue';

const PEER = 'peer-ok';
const HOUR = 3_600_000;

/** One case: a body (or raw text) that must be rejected with `reason`, sent to the cluster's group. */
interface RejectionCase {
  readonly reason: string;
  readonly cluster: string;
  readonly body: (cluster: string) => Record<string, unknown> | string;
}

const CASES: RejectionCase[] = [
  { reason: 'badJson', cluster: 'r-json', body: () => '{"version": 1, "action": ' },
  { reason: 'badSchema', cluster: 'r-schema', body: (c) => failoutBody(c, [PEER], { version: 2, peers: 'everyone' }) },
  { reason: 'badName', cluster: 'r-name', body: (c) => failoutBody(c, ['../etc']) },
  { reason: 'peerIsCluster', cluster: 'r-self', body: (c) => failoutBody(c, [c]) },
  { reason: 'duplicatePeer', cluster: 'r-dup', body: (c) => failoutBody(c, [PEER, PEER]) },
  { reason: 'tooManyPeers', cluster: 'r-many', body: (c) => failoutBody(c, Array.from({ length: 11 }, (_, i) => `p${i}`)) },
  { reason: 'missingEnd', cluster: 'r-noend', body: (c) => failoutBody(c, [PEER], { duration: undefined }) },
  { reason: 'badWindow', cluster: 'r-past', body: (c) => failoutBody(c, [PEER], { duration: undefined, offlineAt: Date.now() - 2 * HOUR, onlineAt: Date.now() - HOUR }) },
  { reason: 'windowTooLong', cluster: 'r-long', body: (c) => failoutBody(c, [PEER], { duration: 'PT73H' }) },
  { reason: 'oversize', cluster: 'r-big', body: (c) => failoutBody(c, [PEER], { reason: 'x'.repeat(20_000) }) },
  // Issue 14: what used to throw (retried into the DLQ while the group waited) or bloat ZooKeeper.
  { reason: 'badWindow', cluster: 'r-1969', body: (c) => failoutBody(c, [PEER], { duration: undefined, offlineAt: '1969-12-31T23:00:00Z', onlineAt: new Date(Date.now() + HOUR).toISOString() }) },
  { reason: 'badWindow', cluster: 'r-0000', body: (c) => failoutBody(c, [PEER], { duration: undefined, offlineAt: '0000-01-01T00:00:00Z', onlineAt: Date.now() + HOUR }) },
  { reason: 'badSchema', cluster: 'r-zeros', body: (c) => failoutBody(c, [], { peers: Array(7000).fill(0) }) },
  { reason: 'badSchema', cluster: 'r-esc', body: (c) => failoutBody(c, [PEER], { reason: 'INC\u001b[2J\u001b[Hall clear' }) },
  { reason: 'unknownCluster', cluster: 'r-ghost', body: (c) => failoutBody(c, [PEER]) },
  { reason: 'unknownPeer', cluster: 'r-nopeer', body: (c) => failoutBody(c, ['peer-ghost']) },
  { reason: 'peerFailedOut', cluster: 'r-peerout', body: (c) => failoutBody(c, ['peer-out']) },
  { reason: 'noPeerWithHosts', cluster: 'r-nohosts', body: (c) => failoutBody(c, ['peer-empty']) },
  // Issue 16: r-capacity has 3 hosts, peer-small 1: all of r-capacity's traffic would quadruple it.
  // Its own peer: peer-ok is failed out by r-ghost's follow-up while the cases run.
  { reason: 'insufficientPeerCapacity', cluster: 'r-capacity', body: (c) => failoutBody(c, ['peer-small']) },
];

const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, [PEER, 'peer-out', 'peer-small', ...CASES.map((c) => c.cluster).filter((c) => c !== 'r-ghost')]);
  await seedClusters(session, paths, ['peer-empty'], { hosts: false });
  await announceHosts(session, paths, 'r-capacity', 3);
});

it('records every permanent rejection with its reason, acknowledges it, and applies the next request of the same cluster', async () => {
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 30 });
  const log: OutcomeLog = { outcomes: [] };
  // peer-out is itself failed out first (its own group), so r-peerout's request finds it so.
  const peerOut = failoutBody('peer-out', [PEER]);
  await send(fx.sqs.client, queue.queueUrl, peerOut);
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(peerOut.requestId)))?.status === 'applied', 10_000, 'peer-out failed out');

  const sent: { c: RejectionCase; messageId: string; bad: Record<string, unknown> | string; good: Record<string, unknown> }[] = [];
  for (const c of CASES) {
    const bad = c.body(c.cluster);
    const messageId = await send(fx.sqs.client, queue.queueUrl, bad, { group: c.cluster });
    const good = failoutBody(c.cluster === 'r-ghost' ? PEER : c.cluster, [c.cluster === 'r-ghost' ? 'peer-out' : PEER], { force: true });
    // The follow-up goes to the SAME group, right behind the rejected one.
    await send(fx.sqs.client, queue.queueUrl, good, { group: c.cluster });
    sent.push({ c, messageId, bad, good });
  }

  await eventually(async () => (await queueDepth(fx.sqs.client, queue.queueUrl)) === 0, 20_000, 'an empty queue');
  for (const { c, messageId, bad, good } of sent) {
    // Bodies that cannot be read (bad JSON) are recorded under the SQS message id; an oversize body
    // under its request id when it has one (issue 14: so its sender's --wait finds it).
    const id = typeof bad === 'string' ? messageId : String(bad.requestId);
    const record = await readRecord(fx.session, fx.paths, id);
    const stored = await fx.session.get(`${fx.paths.requestsPath}/${id}`);
    expect({ case: c.reason, cluster: c.cluster, bytes: stored.data.length <= MAX_RECORD_BYTES }).toEqual({ case: c.reason, cluster: c.cluster, bytes: true });
    expect({ case: c.reason, status: record?.status, reason: record?.reason }).toEqual({ case: c.reason, status: 'rejected', reason: c.reason });
    expect(record?.message).toEqual(expect.any(String));
    expect({ case: c.reason, next: (await readRecord(fx.session, fx.paths, String(good.requestId)))?.status }).toEqual({ case: c.reason, next: 'applied' });
  }
  // Each rejection was processed once: acknowledged at once, never retried.
  const rejected = log.outcomes.filter((o) => o.status === 'rejected');
  expect(rejected).toHaveLength(CASES.length);
  expect(await queueDepth(fx.sqs.client, queue.dlqUrl)).toBe(0);
});

it('rejects a failout that would triple a small peer with the numbers, and applies it with force', async () => {
  // Prepare: big (2 hosts) fails out onto small (1 host): 2 hosts' load onto 1 host triples it (limit 2.0).
  await seedClusters(fx.session, fx.paths, ['big', 'small']);
  await announceHosts(fx.session, fx.paths, 'big', 2);
  const queue = await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 30 });
  const plain = failoutBody('big', ['small']);
  const forced = failoutBody('big', ['small'], { force: true });

  // Act
  await send(fx.sqs.client, queue.queueUrl, plain);
  await send(fx.sqs.client, queue.queueUrl, forced);
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(forced.requestId))) !== undefined, 10_000, 'the forced request recorded');

  // Assess
  const rejected = await readRecord(fx.session, fx.paths, String(plain.requestId));
  expect(rejected).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
  expect(rejected?.message).toBe(
    'peers[0].cluster: "small" would carry 3× its load per host (from host counts: 1 hosts + 2 hosts\' worth moved from 2 hosts), above maxPeerLoadFactor 2 (force overrides)',
  );
  expect(await readRecord(fx.session, fx.paths, String(forced.requestId))).toMatchObject({ status: 'applied' });
  expect(await queueDepth(fx.sqs.client, queue.dlqUrl)).toBe(0);
});
