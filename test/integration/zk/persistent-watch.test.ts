import { OPEN_ACL, type ChildrenState, type DataState, type ZkSession } from '../../../lib/zk';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

// Persistent watches over one-shot ZooKeeper watches: every state, latest last, never backwards.

describe('persistent data watch', () => {
  let session: ZkSession;
  let base: string;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('watch');
    await session.ensurePath(base, OPEN_ACL);
  });

  afterEach(async () => {
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('delivers absent, created, changed and deleted in order', async () => {
    // Prepare
    const path = `${base}/node`;
    const seen: string[] = [];
    const watch = session.watchData(path, (s) => seen.push(s.exists ? `data:${s.data.toString()}` : 'absent'));
    await watch.ready;

    // Act
    await session.create(path, Buffer.from('a'), { acl: OPEN_ACL });
    await eventually(() => seen.length === 2, 5000, 'created');
    await session.set(path, Buffer.from('b'));
    await eventually(() => seen.length === 3, 5000, 'changed');
    await session.remove(path);
    await eventually(() => seen.length === 4, 5000, 'deleted');

    // Assess
    expect(seen).toEqual(['absent', 'data:a', 'data:b', 'absent']);
    watch.close();
  });

  it('ends on the last of 200 rapid writes and never goes backwards', async () => {
    // Prepare
    const path = `${base}/rapid`;
    await session.create(path, Buffer.from('0'), { acl: OPEN_ACL });
    const delivered: number[] = [];
    const versions: bigint[] = [];
    const watch = session.watchData(path, (s: DataState) => {
      if (!s.exists) return;
      delivered.push(Number(s.data.toString()));
      versions.push(s.stat.mzxid);
    });
    await watch.ready;

    // Act: 200 writes without waiting for notifications in between.
    const writer = await openSession();
    await Promise.all(Array.from({ length: 200 }, (_, i) => writer.set(path, Buffer.from(String(i + 1)))));

    // Assess
    await eventually(() => delivered.at(-1) === 200, 10000, 'last write delivered');
    for (let i = 1; i < versions.length; i++) expect(versions[i]! > versions[i - 1]!).toBe(true);
    for (let i = 1; i < delivered.length; i++) expect(delivered[i]!).toBeGreaterThan(delivered[i - 1]!);
    watch.close();
  });

  it('stops delivering after close', async () => {
    // Prepare
    const path = `${base}/closed`;
    const seen: DataState[] = [];
    const watch = session.watchData(path, (s) => seen.push(s));
    await watch.ready;

    // Act
    watch.close();
    await session.create(path, Buffer.from('x'), { acl: OPEN_ACL });
    await new Promise((r) => setTimeout(r, 100));

    // Assess
    expect(seen).toHaveLength(1);
    expect(session.watchCount).toBe(0);
  });

  it('settles `ready` after the first state however late it is asked, and on close before any read; runs close listeners once', async () => {
    // Prepare
    const path = `${base}/ready`;
    const seen: DataState[] = [];
    const read = session.watchData(path, (s) => seen.push(s));
    const early = read.ready;
    const unread = session.watchData(`${base}/never-read`, () => undefined);
    const closes: string[] = [];
    unread.onClose(() => closes.push('first'));

    // Act
    unread.close();
    unread.close();
    unread.onClose(() => closes.push('after close'));
    await early;
    const late = read.ready;

    // Assess
    expect(seen).toEqual([{ exists: false }]);
    await expect(Promise.race([late.then(() => 'settled'), new Promise((r) => setImmediate(() => r('pending')))])).resolves.toBe('settled');
    await expect(Promise.race([unread.ready.then(() => 'settled'), new Promise((r) => setImmediate(() => r('pending')))])).resolves.toBe('settled');
    expect(closes).toEqual(['first']);
    expect(session.watchCount).toBe(1);
    read.close();
    expect(session.watchCount).toBe(0);
  });
});

describe('persistent children watch', () => {
  let session: ZkSession;
  let base: string;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('children');
  });

  afterEach(async () => {
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('follows the parent from absent through children added and removed', async () => {
    // Prepare
    const states: ChildrenState[] = [];
    const childrenNow = (): string => {
      const last = states.at(-1);
      return last?.exists ? last.children.join() : '<absent>';
    };
    const watch = session.watchChildren(base, (s) => states.push(s));
    await watch.ready;

    // Act
    await session.create(`${base}/a`, undefined, { parents: true, acl: OPEN_ACL });
    await eventually(() => childrenNow() === 'a', 5000, 'a');
    await session.create(`${base}/b`, undefined, { acl: OPEN_ACL });
    await eventually(() => childrenNow() === 'a,b', 5000, 'b');
    await session.remove(`${base}/a`);
    await eventually(() => childrenNow() === 'b', 5000, 'a removed');

    // Assess
    expect(states[0]).toEqual({ exists: false });
    expect(childrenNow()).toBe('b');
    watch.close();
  });
});
