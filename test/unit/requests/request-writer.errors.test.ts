/**
 * RequestWriter's error paths against the in-memory ZooKeeper: how each ZooKeeper error kind is
 * classified (transient, not authorized, passed through), what each failing op of the one multi means
 * (conflict → retry, missing records parent → create it, existing record → duplicate), and when the
 * CAS retry budget is spent. The happy paths against a real server are in
 * test/integration/requests/request-writer.test.ts.
 */
import { clusterPath } from '../../../lib/d2';
import { RequestWriter } from '../../../lib/requests';
import { type RequestWriterOptions } from '../../../lib/requests/request-writer';
import { OPEN_ACL, readableByAllWritableBy, type ZkErrorKind } from '../../../lib/zk';
import { put, putUri } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession, type WireOp } from '../../helpers/in-memory-zk';
import { failoutInput, NOW } from '../../helpers/requests';

const WRITER = { user: 'failout-writer', password: 'secret-1' };
const D2 = '/d2';
const REQUESTS = '/failout/requests';
const CLUSTER = 'greetings-lor1';
const CLUSTER_PATH = clusterPath(D2, CLUSTER);
const CLUSTER_JSON = JSON.stringify({ clusterName: CLUSTER, someFutureKey: { kept: true } });

interface World {
  readonly zk: InMemoryZk;
  /** Another writer (the bridge, a second worker) holding the same credential. */
  readonly other: InMemoryZkSession;
  /** The writer's own session. */
  readonly session: InMemoryZkSession;
  /** Backoff delays the writer asked for. */
  readonly sleeps: number[];
  writer(options?: Partial<RequestWriterOptions>): RequestWriter;
}

/** The cluster (writable only by WRITER), two peers with one host each, and the records parent unless told otherwise. */
async function world(options: { recordsParent?: boolean; credentials?: boolean } = {}): Promise<World> {
  const zk = new InMemoryZk({ clock: () => NOW });
  const other = zk.session({ credentials: [WRITER] });
  await other.ensurePath(clusterPath(D2), OPEN_ACL);
  await other.create(CLUSTER_PATH, Buffer.from(CLUSTER_JSON), { acl: readableByAllWritableBy([WRITER]) });
  for (const peer of ['greetings-lva1', 'greetings-ltx1']) {
    await put(other, clusterPath(D2, peer), JSON.stringify({ clusterName: peer }));
    await putUri(other, D2, peer, 'host-1', `http://${peer}-1:8080/`);
  }
  if (options.recordsParent !== false) await other.ensurePath(REQUESTS, readableByAllWritableBy([WRITER]));
  const session = zk.session(options.credentials === false ? {} : { credentials: [WRITER] });
  const sleeps: number[] = [];
  const writer = (overrides: Partial<RequestWriterOptions> = {}): RequestWriter =>
    new RequestWriter({
      session,
      d2BasePath: D2,
      requestsPath: REQUESTS,
      recordAcl: readableByAllWritableBy([WRITER]),
      clock: () => NOW,
      random: () => 0.5,
      sleep: async (ms) => {
        sleeps.push(ms);
      },
      ...overrides,
    });
  return { zk, other, session, sleeps, writer };
}

async function clusterVersion(w: World): Promise<number> {
  return (await w.other.get(CLUSTER_PATH)).stat.version;
}

function body(requestId: string, overrides: Record<string, unknown> = {}): string {
  return JSON.stringify(failoutInput({ requestId, ...overrides }));
}

/** A concurrent writer's change of the cluster (its version moves on). */
function bumpCluster(w: World): () => Promise<void> {
  return async () => {
    await w.other.set(CLUSTER_PATH, Buffer.from(CLUSTER_JSON));
  };
}

describe('RequestWriter classifies what ZooKeeper throws', () => {
  it.each<[ZkErrorKind, WireOp, string, Record<string, unknown>]>([
    ['connectionLoss', 'getData', 'transient', { name: 'TransientRequestError', kind: 'transient', reason: 'connectionLoss' }],
    ['connectionLoss', 'getChildren', 'transient', { name: 'TransientRequestError', kind: 'transient', reason: 'connectionLoss' }],
    ['connectionLoss', 'multi', 'transient', { name: 'TransientRequestError', kind: 'transient', reason: 'connectionLoss' }],
    ['sessionExpired', 'multi', 'transient', { name: 'TransientRequestError', kind: 'transient', reason: 'sessionExpired' }],
    ['timeout', 'getData', 'transient', { name: 'TransientRequestError', kind: 'transient', reason: 'timeout' }],
    ['closed', 'multi', 'transient (sessionClosed)', { name: 'TransientRequestError', kind: 'transient', reason: 'sessionClosed' }],
    ['noAuth', 'multi', 'notAuthorized', { name: 'RequestError', kind: 'notAuthorized' }],
    // Anything else is not the writer's to interpret: it surfaces unchanged.
    ['invalidAcl', 'multi', 'the ZkError itself', { name: 'ZkError', kind: 'invalidAcl' }],
    ['other', 'getData', 'the ZkError itself', { name: 'ZkError', kind: 'other' }],
  ])('%s on %s is %s, and nothing is written', async (kind, op, _becomes, expected) => {
    // Prepare
    const w = await world();
    w.session.failNext(kind, { op });

    // Act
    const result = w.writer().process(body('zk-error'), { messageId: 'm-1' });

    // Assess
    await expect(result).rejects.toMatchObject(expected);
    expect(await clusterVersion(w)).toBe(0);
    expect(await w.other.exists(`${REQUESTS}/zk-error`)).toBeUndefined();
  });

  it('is notAuthorized when the cluster ACL refuses a session without the digest credential', async () => {
    const w = await world({ credentials: false });
    await expect(w.writer().process(body('no-cred'), { messageId: 'm' })).rejects.toMatchObject({ name: 'RequestError', kind: 'notAuthorized', cause: { kind: 'noAuth', opIndex: 1 } });
    expect(await clusterVersion(w)).toBe(0);
    expect(await w.other.exists(`${REQUESTS}/no-cred`)).toBeUndefined();
  });

  it.each<ZkErrorKind>(['connectionLoss', 'sessionExpired', 'closed'])('readRecord: %s is transient', async (kind) => {
    const w = await world();
    w.session.failNext(kind, { op: 'getData' });
    await expect(w.writer().readRecord('any')).rejects.toMatchObject({ name: 'TransientRequestError' });
  });

  it('readRecord: a record that is not a record this code wrote is corruptRecord; an absent one is undefined', async () => {
    const w = await world();
    await w.other.create(`${REQUESTS}/junk`, Buffer.from('{"not":"a record"}'), { acl: OPEN_ACL });
    await expect(w.writer().readRecord('junk')).rejects.toMatchObject({ name: 'RequestError', kind: 'corruptRecord' });
    expect(await w.writer().readRecord('never')).toBeUndefined();
  });
});

describe('RequestWriter reads the failing op of its multi', () => {
  it('retries after badVersion at the version check (a concurrent write) and applies on top of it', async () => {
    const w = await world();
    w.session.beforeNext({ op: 'multi' }, bumpCluster(w));
    const outcome = await w.writer().process(body('cas-1'), { messageId: 'm' });
    expect(outcome).toMatchObject({ status: 'applied', attempts: 2, record: { clusterVersion: 2 } });
    expect(await clusterVersion(w)).toBe(2);
    expect(w.sleeps).toEqual([5]);
  });

  it('retries after noNode at the version check (the cluster vanished) and then records unknownCluster', async () => {
    const w = await world();
    w.session.beforeNext({ op: 'multi' }, async () => {
      await w.other.remove(CLUSTER_PATH);
    });
    const outcome = await w.writer().process(body('gone-1'), { messageId: 'm' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'unknownCluster', attempts: 2, record: { clusterVersion: null } });
  });

  it('creates a missing records parent once (with the record ACL) and applies in the same attempt', async () => {
    const w = await world({ recordsParent: false });
    const outcome = await w.writer().process(body('first-ever'), { messageId: 'm' });
    expect(outcome).toMatchObject({ status: 'applied', attempts: 1 });
    expect(w.session.requests.filter((r) => r.op === 'multi')).toHaveLength(2);
    const stranger = w.zk.session();
    await expect(stranger.create(`${REQUESTS}/forged`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'noAuth' });
  });

  it('answers nodeExists at the record create as a duplicate carrying the first record, and writes nothing', async () => {
    const w = await world();
    const first = await w.writer().process(body('dup-1'), { messageId: 'm-1' });
    const second = await w.writer().process(body('dup-1'), { messageId: 'm-2' });
    expect(second).toMatchObject({ status: 'duplicate', attempts: 1, record: first.record });
    expect(await clusterVersion(w)).toBe(1);
  });

  it('decides again when the existing record vanishes before it is read (an operator cleaning up)', async () => {
    const w = await world();
    await w.writer().process(body('vanish-1'), { messageId: 'm-1' });
    w.session.beforeNext({ op: 'getData', path: `${REQUESTS}/vanish-1` }, async () => {
      await w.other.remove(`${REQUESTS}/vanish-1`);
    });
    const outcome = await w.writer().process(body('vanish-1'), { messageId: 'm-2' });
    expect(outcome).toMatchObject({ status: 'applied', attempts: 2, record: { messageId: 'm-2' } });
  });

  it('applies exactly once when the reply to an applied multi is lost: the redelivery is a duplicate', async () => {
    const w = await world();
    w.session.failNext('connectionLoss', { op: 'multi', afterApply: true });
    await expect(w.writer().process(body('lost-reply'), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError', reason: 'connectionLoss' });
    const again = await w.writer().process(body('lost-reply'), { messageId: 'm-2' });
    expect(again).toMatchObject({ status: 'duplicate', record: { status: 'applied', messageId: 'm-1' } });
    expect(await clusterVersion(w)).toBe(1);
  });

  it('records a rejection behind a check of the version it judged, and judges again when that version moves', async () => {
    const w = await world();
    await w.other.set(CLUSTER_PATH, Buffer.from('{ not json'));
    w.session.beforeNext({ op: 'multi' }, bumpCluster(w));
    const outcome = await w.writer().process(body('malformed-1'), { messageId: 'm' });
    // The concurrent write repaired the document: the second judgement applies.
    expect(outcome).toMatchObject({ status: 'applied', attempts: 2 });
  });

  it('records malformedCluster with the judged version when the cluster document is not JSON', async () => {
    const w = await world();
    await w.other.set(CLUSTER_PATH, Buffer.from('{ not json'));
    const outcome = await w.writer().process(body('malformed-2'), { messageId: 'm' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'malformedCluster', record: { clusterVersion: 1 } });
    expect((await w.other.get(CLUSTER_PATH)).data.toString()).toBe('{ not json');
  });
});

describe('RequestWriter spends its CAS retry budget', () => {
  it.each([
    ['maxAttempts', { maxAttempts: 4 }, () => NOW, 4, [5, 10, 20]],
    ['maxElapsedMs', { maxAttempts: 100, maxElapsedMs: 2_500 }, (() => {
      let t = NOW;
      return () => (t += 1_000);
    })(), 2, [5]],
  ] as const)('gives up on %s with retryBudgetSpent while the cluster keeps changing', async (_what, budget, clock, attempts, sleeps) => {
    // Prepare
    const w = await world();
    w.session.beforeNext({ op: 'multi', times: Infinity }, bumpCluster(w));

    // Act
    const result = w.writer({ retryBudget: budget, clock }).process(body('busy-1'), { messageId: 'm' });

    // Assess
    await expect(result).rejects.toMatchObject({ name: 'TransientRequestError', reason: 'retryBudgetSpent', requestId: 'busy-1', cluster: CLUSTER });
    expect(w.session.requests.filter((r) => r.op === 'multi')).toHaveLength(attempts);
    expect(w.sleeps).toEqual(sleeps);
    expect(await w.other.exists(`${REQUESTS}/busy-1`)).toBeUndefined();
  });

  it('caps the backoff at maxDelayMs (full jitter: uniform below the cap)', async () => {
    const w = await world();
    w.session.beforeNext({ op: 'multi', times: 5 }, bumpCluster(w));
    const outcome = await w.writer({ retryBudget: { baseDelayMs: 10, maxDelayMs: 30 }, random: () => 0.999 }).process(body('cap-1'), { messageId: 'm' });
    expect(outcome).toMatchObject({ status: 'applied', attempts: 6 });
    expect(w.sleeps).toEqual([9, 19, 29, 29, 29]);
  });
});
