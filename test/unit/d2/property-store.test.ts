/**
 * ZooKeeperPropertyStore against the in-memory ZooKeeper: the PropertyEventBus contract (initialize
 * once and first, then add / remove), the last good value kept through malformed writes, re-reads
 * after a reconnect or a session reset, and what a failed watch read leaves behind. The same contract
 * over a real server is in test/integration/d2/property-store.test.ts.
 */
import { D2Error } from '../../../lib/d2';
import { ZooKeeperPropertyStore, type PropertySubscriber } from '../../../lib/d2/property-store';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

const DIR = '/d2/clusters';
const PATH = `${DIR}/c1`;

/** A property is `{ v }`: anything else (or no JSON) is malformed, as the codecs say. */
interface Prop {
  readonly v: string;
}

function parse(data: Buffer): Prop {
  const value: unknown = JSON.parse(data.toString('utf8'));
  if (typeof value !== 'object' || value === null || typeof (value as { v?: unknown }).v !== 'string') throw new D2Error('malformed', 'no v');
  return value as Prop;
}

function recorder(): PropertySubscriber<Prop> & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    onInitialize: (name, value) => events.push(`init:${name}:${value?.v ?? 'none'}`),
    onAdd: (name, value) => events.push(`add:${name}:${value.v}`),
    onRemove: (name) => events.push(`remove:${name}`),
  };
}

const GOOD = (v: string): Buffer => Buffer.from(JSON.stringify({ v }));
const BAD = Buffer.from('{"v": 42}');
const NOT_JSON = Buffer.from('{ nope');

let zk: InMemoryZk;
let session: InMemoryZkSession;
let writer: InMemoryZkSession;
let store: ZooKeeperPropertyStore<Prop>;
let malformed: string[];

beforeEach(async () => {
  zk = new InMemoryZk();
  session = zk.session();
  writer = zk.session();
  await writer.ensurePath(DIR, OPEN_ACL);
  malformed = [];
  store = new ZooKeeperPropertyStore({ session, directory: DIR, kind: 'cluster', parse, onMalformed: (name) => malformed.push(name) });
});

afterEach(() => store.close());

/** Subscribes a recorder to c1 and waits for the first read. */
async function follow(): Promise<PropertySubscriber<Prop> & { events: string[] }> {
  const r = recorder();
  store.subscribe('c1', r);
  await zk.idle();
  return r;
}

describe('ZooKeeperPropertyStore initializes once, first', () => {
  it.each<[string, Buffer | undefined, string, string, number]>([
    ['absent', undefined, 'init:c1:none', 'absent', 0],
    ['good', GOOD('1'), 'init:c1:1', 'present', 0],
    ['malformed (wrong shape)', BAD, 'init:c1:none', 'unreadable', 1],
    ['malformed (not JSON)', NOT_JSON, 'init:c1:none', 'unreadable', 1],
  ])('for a node that is %s', async (_what, data, event, status, malformedCount) => {
    // Prepare
    if (data) await writer.create(PATH, data, { acl: OPEN_ACL });

    // Act
    const r = await follow();

    // Assess
    expect(r.events).toEqual([event]);
    expect(store.snapshot('c1')?.status).toBe(status);
    expect(store.stats()).toMatchObject({ watched: 1, malformed: malformedCount });
    expect(malformed).toHaveLength(malformedCount);
  });

  it('hears nothing and stays loading until the first read is in', () => {
    const r = recorder();
    store.subscribe('c1', r);
    expect(r.events).toEqual([]);
    expect(store.snapshot('c1')?.status).toBe('loading');
  });
});

describe('ZooKeeperPropertyStore keeps the last good value', () => {
  it.each<[string, Buffer]>([
    ['a write of the wrong shape', BAD],
    ['a write that is not JSON', NOT_JSON],
  ])('through %s, reporting it and publishing nothing, until a good write replaces it', async (_what, bad) => {
    // Prepare
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const r = await follow();

    // Act
    const badStat = await writer.set(PATH, bad);
    await zk.idle();

    // Assess
    expect(r.events).toEqual(['init:c1:1']);
    expect(store.get('c1')).toEqual({ v: '1' });
    expect(store.snapshot('c1')).toMatchObject({ status: 'present', value: { v: '1' }, rejected: { version: badStat.mzxid, error: expect.any(Error) } });
    expect(malformed).toEqual(['c1']);

    await writer.set(PATH, GOOD('2'));
    await zk.idle();
    expect(r.events).toEqual(['init:c1:1', 'add:c1:2']);
    expect(store.snapshot('c1')).toMatchObject({ status: 'present', value: { v: '2' }, rejected: undefined });
  });

  it('publishes remove for a node deleted while unreadable, and add when it comes back good', async () => {
    await writer.create(PATH, BAD, { acl: OPEN_ACL });
    const r = await follow();
    await writer.remove(PATH);
    await zk.idle();
    await writer.create(PATH, GOOD('3'), { acl: OPEN_ACL });
    await zk.idle();
    expect(r.events).toEqual(['init:c1:none', 'remove:c1', 'add:c1:3']);
  });

  it('publishes one add with the latest value for writes made in one turn', async () => {
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const r = await follow();
    await writer.set(PATH, GOOD('2'));
    await writer.set(PATH, BAD);
    await writer.set(PATH, GOOD('4'));
    await zk.idle();
    expect(r.events).toEqual(['init:c1:1', 'add:c1:4']);
    expect(store.stats().malformed).toBe(0);
  });
});

describe('ZooKeeperPropertyStore across connection trouble', () => {
  it.each<[string, () => Promise<void>, () => void]>([
    ['a reconnect of the same session', async () => session.disconnect(), () => session.reconnect()],
    ['a session reset after expiry', () => session.expire({ reconnect: false }), () => session.reconnect()],
    ['a session reset after loss', () => session.expire({ reason: 'lost', reconnect: false }), () => session.reconnect()],
  ])('catches up with changes made while cut off, on %s', async (_what, cut, restore) => {
    // Prepare
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const r = await follow();
    await cut();

    // Act
    await writer.set(PATH, GOOD('2'));
    await zk.idle();
    const whileCut = [...r.events];
    restore();
    await zk.idle();

    // Assess
    expect(whileCut).toEqual(['init:c1:1']);
    expect(r.events).toEqual(['init:c1:1', 'add:c1:2']);
  });

  it('hears a deletion made while the session was expired, once it is reset', async () => {
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const r = await follow();
    await session.expire({ reconnect: false });
    await writer.remove(PATH);
    session.reconnect();
    await zk.idle();
    expect(r.events).toEqual(['init:c1:1', 'remove:c1']);
    expect(store.get('c1')).toBeUndefined();
  });

  it.each<[string, 'connectionLoss' | 'sessionExpired' | 'timeout']>([
    ['connectionLoss', 'connectionLoss'],
    ['sessionExpired', 'sessionExpired'],
    ['timeout', 'timeout'],
  ])('keeps the cached value when a re-read fails with %s, and catches up on the next connected', async (_what, kind) => {
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const r = await follow();
    session.failNext(kind, { source: 'watch' });
    await writer.set(PATH, GOOD('2'));
    await zk.idle();
    expect(store.get('c1')).toEqual({ v: '1' });
    session.disconnect();
    session.reconnect();
    await zk.idle();
    expect(r.events).toEqual(['init:c1:1', 'add:c1:2']);
    expect(zk.watchErrors).toEqual([]);
  });

  it('loads a node it may not read as unreadable (initialized with nothing, counted) instead of loading for ever: the watch reports noAuth', async () => {
    const owner = zk.session({ credentials: [{ user: 'o', password: 'p' }] });
    await owner.create(PATH, GOOD('secret'), { acl: [{ perms: ['read', 'write', 'create', 'delete', 'admin'], scheme: 'auth', id: '' }] });
    const r = await follow();
    expect(r.events).toEqual(['init:c1:none']);
    expect(store.snapshot('c1')?.status).toBe('unreadable');
    expect(store.stats().malformed).toBe(1);
    expect(zk.watchErrors).toEqual([{ path: PATH, error: expect.objectContaining({ kind: 'noAuth' }) }]);
  });
});

describe('ZooKeeperPropertyStore subscriptions', () => {
  it('replays the cached state to a late subscriber at once, and a throwing subscriber stops nobody', async () => {
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    store.subscribe('c1', { onInitialize: () => { throw new Error('boom'); }, onAdd: () => undefined, onRemove: () => undefined });
    const first = await follow();
    const late = recorder();
    store.subscribe('c1', late);
    expect(late.events).toEqual(['init:c1:1']);
    await writer.set(PATH, GOOD('2'));
    await zk.idle();
    expect(first.events).toEqual(['init:c1:1', 'add:c1:2']);
  });

  it('stops the watch and forgets the value when the last subscriber leaves; a new one reads fresh', async () => {
    await writer.create(PATH, GOOD('1'), { acl: OPEN_ACL });
    const unsubscribe = store.subscribe('c1', recorder());
    await zk.idle();
    unsubscribe();
    expect(session.watchCount).toBe(0);
    expect(store.snapshot('c1')).toBeUndefined();
    await writer.set(PATH, GOOD('2'));
    const r = await follow();
    expect(r.events).toEqual(['init:c1:2']);
  });

  it('refuses subscriptions after close, and a name that is not a znode name', async () => {
    expect(() => store.subscribe('a/b', recorder())).toThrow(expect.objectContaining({ name: 'D2Error', kind: 'malformed' }));
    store.close();
    expect(() => store.subscribe('c1', recorder())).toThrow(expect.objectContaining({ name: 'D2Error', kind: 'closed' }));
  });
});
