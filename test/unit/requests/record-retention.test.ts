/**
 * Issue 14: request records are pruned after a retention (default 30 days) by the worker's own sweep,
 * and a reader can tell "pruned" from "never recorded": the CLI's request ids are UUIDv7 (their first
 * 48 bits are the time they were made), and each complete sweep leaves a prune mark among the records
 * (`.prune-mark`: "every record last written before `prunedBefore` is gone"). A record that is absent,
 * whose id was made before the mark, was pruned (or never processed before the retention ran out).
 */
import { lookUpRequestRecord, newRequestId, requestIdTime } from '../../../lib/requests';
import { DEFAULT_RECORD_RETENTION, decodePruneMark } from '../../../lib/requests/record-retention';
import { RecordSweeper, type RecordSweeperOptions } from '../../../lib/requests/record-sweeper';
import { digestAcl, OPEN_ACL, readableByAllWritableBy } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { NOW } from '../../helpers/requests';

const DAY = 86_400_000;
const REQUESTS = '/failout/requests';

interface World {
  readonly session: InMemoryZkSession;
  /** The server's and the sweeper's clock; tests move it. */
  readonly clock: { now: number };
  /** Creates a record as the writer would, at the current time. */
  record(id: string): Promise<void>;
  sweeper(options?: Partial<RecordSweeperOptions>): RecordSweeper;
}

async function world(): Promise<World> {
  const clock = { now: NOW - 40 * DAY };
  const zk = new InMemoryZk({ clock: () => clock.now });
  const session = zk.session();
  await session.ensurePath(REQUESTS, OPEN_ACL);
  return {
    session,
    clock,
    record: async (id) => void (await session.create(`${REQUESTS}/${id}`, Buffer.from(JSON.stringify({ requestId: id })), { acl: OPEN_ACL })),
    sweeper: (options = {}) => new RecordSweeper({ session, acl: OPEN_ACL, requestsPath: REQUESTS, clock: () => clock.now, ...options }),
  };
}

async function names(session: InMemoryZkSession): Promise<string[]> {
  return (await session.children(REQUESTS)).children;
}

async function mark(session: InMemoryZkSession) {
  const node = await session.read(`${REQUESTS}/.prune-mark`);
  return node.exists ? decodePruneMark(node.data) : undefined;
}

describe('RecordSweeper', () => {
  it('deletes the records last written before the retention, keeps the rest, and leaves a prune mark', async () => {
    const w = await world();
    await w.record('old-1');
    w.clock.now = NOW - 31 * DAY;
    await w.record('old-2');
    w.clock.now = NOW - 29 * DAY;
    await w.record('recent');
    w.clock.now = NOW;

    const result = await w.sweeper().sweep();
    expect(DEFAULT_RECORD_RETENTION.retentionMs).toBe(30 * DAY);
    expect(result).toEqual({ examined: 3, deleted: 2, complete: true, prunedBefore: NOW - 30 * DAY });
    expect(await names(w.session)).toEqual(['.prune-mark', 'recent']);
    expect(await mark(w.session)).toEqual({ prunedBefore: NOW - 30 * DAY, retentionMs: 30 * DAY, sweptAt: NOW });
  });

  it('replaces the mark on the next sweep, and never sweeps the mark itself', async () => {
    const w = await world();
    await w.record('old');
    w.clock.now = NOW;
    await w.sweeper().sweep();
    w.clock.now = NOW + 60 * DAY;
    expect(await w.sweeper().sweep()).toEqual({ examined: 0, deleted: 0, complete: true, prunedBefore: NOW + 30 * DAY });
    expect(await names(w.session)).toEqual(['.prune-mark']);
    expect(await mark(w.session)).toEqual({ prunedBefore: NOW + 30 * DAY, retentionMs: 30 * DAY, sweptAt: NOW + 60 * DAY });
  });

  it('creates the mark with the ACL it is given (a record ACL: write-once, needing only create and delete on the parent)', async () => {
    const writer = { user: 'failout-writer', password: 'secret-1' };
    const zk = new InMemoryZk({ clock: () => NOW });
    const admin = zk.session({ credentials: [writer] });
    // The parent as a secured tree has it: the writer may create and delete children, not set data.
    await admin.ensurePath(REQUESTS, [...readableByAllWritableBy([]), { ...digestAcl(writer.user, writer.password), perms: ['create', 'delete'] }]);
    const session = zk.session({ credentials: [writer] });
    const acl = readableByAllWritableBy([]);
    await new RecordSweeper({ session, acl, requestsPath: REQUESTS, clock: () => NOW }).sweep();
    await new RecordSweeper({ session, acl, requestsPath: REQUESTS, clock: () => NOW + DAY }).sweep();
    expect((await session.getAcl(`${REQUESTS}/.prune-mark`)).acl).toEqual(acl);
    expect(decodePruneMark((await session.get(`${REQUESTS}/.prune-mark`)).data)).toMatchObject({ sweptAt: NOW + DAY });
  });

  it('honours a configured retention', async () => {
    const w = await world();
    await w.record('a');
    w.clock.now += 2 * DAY;
    await w.record('b');
    w.clock.now += 2 * DAY;
    expect(await w.sweeper({ retentionMs: 3 * DAY }).sweep()).toMatchObject({ deleted: 1 });
    expect(await names(w.session)).toEqual(['.prune-mark', 'b']);
  });

  it('stops after maxDeletes and does not move the mark, since older records may remain', async () => {
    const w = await world();
    for (const id of ['a', 'b', 'c']) await w.record(id);
    w.clock.now = NOW;
    expect(await w.sweeper({ maxDeletes: 2 }).sweep()).toMatchObject({ deleted: 2, complete: false });
    expect(await mark(w.session)).toBeUndefined();
    expect(await w.sweeper({ maxDeletes: 2 }).sweep()).toMatchObject({ deleted: 1, complete: true });
  });

  it('sweeps at most once per interval, also across workers (the mark says when the last sweep ran)', async () => {
    const w = await world();
    await w.record('old');
    w.clock.now = NOW;
    const first = w.sweeper({ intervalMs: 3_600_000 });
    expect(await first.sweepIfDue()).toMatchObject({ deleted: 1 });
    expect(await first.sweepIfDue()).toBeUndefined();
    // Another worker (a fresh Lambda container) reads the mark and skips too.
    expect(await w.sweeper({ intervalMs: 3_600_000 }).sweepIfDue()).toBeUndefined();
    w.clock.now += 3_600_001;
    expect(await first.sweepIfDue()).toMatchObject({ examined: 0 });
  });

  it('does nothing when there is no records parent yet', async () => {
    const zk = new InMemoryZk({ clock: () => NOW });
    const sweeper = new RecordSweeper({ session: zk.session(), acl: OPEN_ACL, requestsPath: '/nowhere', clock: () => NOW });
    expect(await sweeper.sweep()).toEqual({ examined: 0, deleted: 0, complete: true, prunedBefore: NOW - 30 * DAY });
  });

  it('replaces a mark it cannot read (the name is reserved: nothing else writes it)', async () => {
    const w = await world();
    await w.session.create(`${REQUESTS}/.prune-mark`, Buffer.from('not a mark'), { acl: OPEN_ACL });
    w.clock.now = NOW;
    await w.sweeper().sweep();
    expect(await mark(w.session)).toEqual({ prunedBefore: NOW - 30 * DAY, retentionMs: 30 * DAY, sweptAt: NOW });
  });
});

describe('request ids and their time', () => {
  it('makes UUIDv7 ids that carry the time they were made', () => {
    const id = newRequestId(NOW);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(requestIdTime(id)).toBe(NOW);
    expect(newRequestId(NOW)).not.toBe(id);
  });

  it.each(['6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a', 'req-1', 'INC-4711-restore'])('knows no time for %s', (id) => {
    expect(requestIdTime(id)).toBeUndefined();
  });
});

describe('lookUpRequestRecord', () => {
  it('finds a record, calls an absent id made before the mark pruned, and anything else absent', async () => {
    const w = await world();
    const oldId = newRequestId(w.clock.now);
    await w.record(oldId);
    w.clock.now = NOW;
    const kept = newRequestId(NOW);
    await w.session.create(`${REQUESTS}/${kept}`, Buffer.from(JSON.stringify({ requestId: kept, status: 'applied', cluster: 'c', action: 'restore', appliedAt: NOW, clusterVersion: 2 })), { acl: OPEN_ACL });
    await w.sweeper().sweep();

    expect(await lookUpRequestRecord(w.session, REQUESTS, kept)).toMatchObject({ state: 'found', record: { requestId: kept, status: 'applied' } });
    const pruneMark = { prunedBefore: NOW - 30 * DAY, retentionMs: 30 * DAY, sweptAt: NOW };
    expect(await lookUpRequestRecord(w.session, REQUESTS, oldId)).toEqual({ state: 'pruned', madeAt: NOW - 40 * DAY, pruneMark });
    expect(await lookUpRequestRecord(w.session, REQUESTS, newRequestId(NOW - DAY))).toEqual({ state: 'absent', pruneMark });
    // An id without a time (a custom --request-id, another producer's) cannot be told apart.
    expect(await lookUpRequestRecord(w.session, REQUESTS, 'custom-id')).toEqual({ state: 'absent', pruneMark });
  });

  it('says absent with no mark when nothing was ever swept', async () => {
    const w = await world();
    expect(await lookUpRequestRecord(w.session, REQUESTS, newRequestId(NOW - 90 * DAY))).toEqual({ state: 'absent', pruneMark: undefined });
    expect(await lookUpRequestRecord(w.session, '/nowhere', 'x')).toEqual({ state: 'absent', pruneMark: undefined });
  });
});
