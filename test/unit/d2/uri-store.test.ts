/**
 * ZooKeeperUriStore against the in-memory ZooKeeper: the first view waits for the children list and
 * every child's first read, later changes are coalesced into one add per turn, an unreadable
 * announcement keeps its last good value (or is left out) while the other hosts stay, and the view
 * catches up after a reconnect or a session reset.
 */
import { serializeUriProperties, urisPath, type MergedUriProperties } from '../../../lib/d2';
import type { PropertySubscriber } from '../../../lib/d2/property-store';
import { ZooKeeperUriStore } from '../../../lib/d2/uri-store';
import { putUri } from '../../helpers/d2';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

const BASE = '/d2';
const DIR = urisPath(BASE);
const C1 = urisPath(BASE, 'c1');

/** `uri*weight` per host, in the merged order; `none` for no view. */
function hostsOf(view: MergedUriProperties | undefined): string {
  if (!view) return 'none';
  return `[${Object.entries(view.partitionDesc)
    .map(([uri, partitions]) => `${uri}*${partitions[0] ?? '?'}`)
    .join(',')}]`;
}

function recorder(): PropertySubscriber<MergedUriProperties> & { events: string[] } {
  const events: string[] = [];
  return {
    events,
    onInitialize: (name, value) => events.push(`init:${name}:${hostsOf(value)}`),
    onAdd: (name, value) => events.push(`add:${name}:${hostsOf(value)}`),
    onRemove: (name) => events.push(`remove:${name}`),
  };
}

function announcement(uri: string, weight = 1): Buffer {
  return Buffer.from(serializeUriProperties({ clusterName: 'c1', partitionDesc: { [uri]: { 0: weight } }, uriSpecificProperties: {} }));
}

let zk: InMemoryZk;
let session: InMemoryZkSession;
let writer: InMemoryZkSession;
let store: ZooKeeperUriStore;
let malformed: string[];

beforeEach(async () => {
  zk = new InMemoryZk();
  session = zk.session();
  writer = zk.session();
  await writer.ensurePath(DIR, OPEN_ACL);
  malformed = [];
  store = new ZooKeeperUriStore({ session, directory: DIR, onMalformed: (cluster, child) => malformed.push(`${cluster}/${child}`) });
});

afterEach(() => store.close());

async function follow(): Promise<PropertySubscriber<MergedUriProperties> & { events: string[] }> {
  const r = recorder();
  store.subscribe('c1', r);
  await zk.idle();
  return r;
}

describe('ZooKeeperUriStore initializes once every announcement is read', () => {
  it.each<[string, (() => Promise<unknown>)[], string, Record<string, string>, number]>([
    ['no directory', [], 'init:c1:none', {}, 0],
    ['an empty directory', [() => writer.ensurePath(C1, OPEN_ACL)], 'init:c1:[]', {}, 0],
    ['two good announcements', [() => putUri(writer, BASE, 'c1', 'a', 'http://a:1/'), () => putUri(writer, BASE, 'c1', 'b', 'http://b:1/', 2)], 'init:c1:[http://a:1/*1,http://b:1/*2]', { a: 'present', b: 'present' }, 0],
    [
      'a good and a malformed announcement',
      [() => putUri(writer, BASE, 'c1', 'a', 'http://a:1/'), () => writer.create(`${C1}/bad`, Buffer.from('{ nope'), { acl: OPEN_ACL })],
      'init:c1:[http://a:1/*1]',
      { a: 'present', bad: 'unreadable' },
      1,
    ],
    ['only a malformed announcement', [() => writer.create(`${C1}/bad`, Buffer.from('[]'), { parents: true, acl: OPEN_ACL })], 'init:c1:[]', { bad: 'unreadable' }, 1],
  ])('for %s', async (_what, arrange, event, children, malformedCount) => {
    // Prepare
    for (const step of arrange) await step();

    // Act
    const r = await follow();

    // Assess
    expect(r.events).toEqual([event]);
    expect(store.childStatuses('c1')).toEqual(children);
    expect(store.stats().malformed).toBe(malformedCount);
    expect(malformed).toHaveLength(malformedCount);
  });

  it.each(['connectionLoss', 'sessionExpired', 'timeout'] as const)(
    'holds the first view while a child first read failed with %s, and publishes it after the next connected',
    async (kind) => {
      await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
      session.failNext(kind, { op: 'getData', path: `${C1}/a`, source: 'watch' });
      const r = await follow();
      expect(r.events).toEqual([]);
      expect(store.snapshot('c1')?.status).toBe('loading');
      session.disconnect();
      session.reconnect();
      await zk.idle();
      expect(r.events).toEqual(['init:c1:[http://a:1/*1]']);
    },
  );
});

describe('ZooKeeperUriStore keeps the other hosts and the last good announcement', () => {
  it.each<[string, Buffer]>([
    ['not JSON', Buffer.from('{ nope')],
    ['JSON of the wrong shape', Buffer.from('{"partitionDesc": 7}')],
  ])('keeps a child last good value through a write that is %s, publishing nothing new', async (_what, bad) => {
    // Prepare
    await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
    await putUri(writer, BASE, 'c1', 'b', 'http://b:1/');
    const r = await follow();

    // Act
    const stat = await writer.set(`${C1}/a`, bad);
    await zk.idle();

    // Assess
    expect(r.events).toEqual(['init:c1:[http://a:1/*1,http://b:1/*1]']);
    expect(store.childStatuses('c1')).toEqual({ a: 'present', b: 'present' });
    expect(store.snapshot('c1')?.rejected).toEqual({ version: stat.mzxid, error: expect.any(Error) });
    expect(malformed).toEqual(['c1/a']);

    await writer.set(`${C1}/a`, announcement('http://a:1/', 5));
    await zk.idle();
    expect(r.events.at(-1)).toBe('add:c1:[http://a:1/*5,http://b:1/*1]');
  });

  it('publishes one add per turn for a burst of announcements', async () => {
    await writer.ensurePath(C1, OPEN_ACL);
    const r = await follow();
    await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
    await putUri(writer, BASE, 'c1', 'b', 'http://b:1/');
    await putUri(writer, BASE, 'c1', 'c', 'http://c:1/');
    await zk.idle();
    expect(r.events).toEqual(['init:c1:[]', 'add:c1:[http://a:1/*1,http://b:1/*1,http://c:1/*1]']);
  });

  it('lets the newest announcement of a URI win (creation order), and drops the host of an expired announcer', async () => {
    const announcer = zk.session();
    await writer.create(`${C1}/old`, announcement('http://h:1/', 1), { parents: true, acl: OPEN_ACL });
    await announcer.create(`${C1}/new`, announcement('http://h:1/', 9), { mode: 'ephemeral', acl: OPEN_ACL });
    await announcer.create(`${C1}/other`, announcement('http://o:1/'), { mode: 'ephemeral', acl: OPEN_ACL });
    const r = await follow();
    await announcer.expire({ reconnect: false });
    await zk.idle();
    expect(r.events).toEqual(['init:c1:[http://h:1/*9,http://o:1/*1]', 'add:c1:[http://h:1/*1]']);
  });

  it('publishes remove when the directory goes, and add (not an empty view) once it is back and read', async () => {
    await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
    const r = await follow();
    await writer.remove(`${C1}/a`);
    await writer.remove(C1);
    await zk.idle();
    await putUri(writer, BASE, 'c1', 'b', 'http://b:1/');
    await zk.idle();
    expect(r.events).toEqual(['init:c1:[http://a:1/*1]', 'remove:c1', 'add:c1:[http://b:1/*1]']);
  });
});

describe('ZooKeeperUriStore across connection trouble', () => {
  it.each<[string, () => Promise<void>]>([
    ['a reconnect of the same session', async () => session.disconnect()],
    ['a session reset after expiry', () => session.expire({ reconnect: false })],
  ])('catches up with announcements made while cut off, on %s', async (_what, cut) => {
    // Prepare
    await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
    const r = await follow();
    await cut();

    // Act
    await putUri(writer, BASE, 'c1', 'b', 'http://b:1/');
    await writer.set(`${C1}/a`, announcement('http://a:1/', 3));
    await zk.idle();
    const whileCut = [...r.events];
    session.reconnect();
    await zk.idle();

    // Assess
    expect(whileCut).toEqual(['init:c1:[http://a:1/*1]']);
    expect(r.events).toEqual(['init:c1:[http://a:1/*1]', 'add:c1:[http://a:1/*3,http://b:1/*1]']);
  });

  it('stops every watch (the list and each child) when the last subscriber leaves', async () => {
    await putUri(writer, BASE, 'c1', 'a', 'http://a:1/');
    await putUri(writer, BASE, 'c1', 'b', 'http://b:1/');
    const unsubscribe = store.subscribe('c1', recorder());
    await zk.idle();
    expect(session.watchCount).toBe(3);
    unsubscribe();
    expect(session.watchCount).toBe(0);
    expect(store.stats()).toMatchObject({ watched: 0, children: 0 });
  });
});
