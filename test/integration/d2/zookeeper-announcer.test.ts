import { LoadBalancerState, ZooKeeperAnnouncer, parseUriProperties } from '../../../lib/d2';
import { urisPath } from '../../../lib/d2/paths';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { putUri } from '../../helpers/d2';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

// A server's announcement: an ephemeral child that follows the announcer's and the session's life.

describe('ZooKeeperAnnouncer', () => {
  let observer: ZkSession;
  let base: string;
  const announcers: ZooKeeperAnnouncer[] = [];

  beforeEach(async () => {
    observer = await openSession();
    base = uniqueBase('ann');
    // The cluster directory comes from the bridge (announcers may not create it); here the observer
    // stands in for it, with the open ACL, explicitly. Announcing under a secured one is in
    // test/integration/access/roles.test.ts.
    await observer.ensurePath(urisPath(base, 'c1'), OPEN_ACL);
  });

  afterEach(async () => {
    for (const announcer of announcers.splice(0)) await announcer.close();
    await observer.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  function announcer(session: ZkSession, uri: string, weight = 1): ZooKeeperAnnouncer {
    const created = new ZooKeeperAnnouncer({ session, basePath: base, cluster: 'c1', uri, weight });
    announcers.push(created);
    return created;
  }

  async function children(): Promise<string[]> {
    try {
      return (await observer.children(urisPath(base, 'c1'))).children;
    } catch {
      return [];
    }
  }

  it('creates an ephemeral sequential child holding the URI properties', async () => {
    // Prepare
    const session = await openSession();
    const server = announcer(session, 'http://127.0.0.1:8080', 2);

    // Act
    const path = await server.markUp();
    const { data, stat } = await observer.get(path);

    // Assess
    expect(path).toMatch(new RegExp(`^${base}/uris/c1/ephemoral-\\d{10}$`));
    expect(stat.ephemeralOwner).not.toBe(0n);
    expect(parseUriProperties(data)).toMatchObject({ clusterName: 'c1', partitionDesc: { 'http://127.0.0.1:8080': { 0: 2 } } });
    expect(data.toString()).toContain('"weights":{"http://127.0.0.1:8080":2.0}');
  });

  it('refuses to announce into a missing cluster directory, and does not create it', async () => {
    // Prepare
    const session = await openSession();
    const server = new ZooKeeperAnnouncer({ session, basePath: base, cluster: 'no-directory', uri: 'http://127.0.0.1:8090' });
    announcers.push(server);

    // Act
    const markUp = server.markUp();

    // Assess
    await expect(markUp).rejects.toMatchObject({ name: 'ZkError', kind: 'noNode' });
    expect(await observer.exists(urisPath(base, 'no-directory'))).toBeUndefined();
  });

  it('removes its node on markDown and on close', async () => {
    // Prepare
    const session = await openSession();
    const first = announcer(session, 'http://127.0.0.1:8081');
    const second = announcer(session, 'http://127.0.0.1:8082');
    await first.markUp();
    await second.markUp();

    // Act
    await first.markDown();
    const afterMarkDown = await children();
    await second.close();

    // Assess
    expect(afterMarkDown).toHaveLength(1);
    expect(await children()).toEqual([]);
  });

  it('disappears when its session closes', async () => {
    // Prepare
    const session = await openSession();
    await announcer(session, 'http://127.0.0.1:8083').markUp();

    // Act
    await session.close();

    // Assess
    await eventually(async () => (await children()).length === 0, 5000, 'ephemeral node gone');
  });

  it('announces again after its session expires', async () => {
    // Prepare
    const session = await openSession({ sessionTimeoutMs: 2000 });
    const server = announcer(session, 'http://127.0.0.1:8084');
    const before = await server.markUp();
    const generation = session.sessionGeneration;

    // Act
    await expireSession(session);
    await eventually(() => session.sessionGeneration > generation, 15000, 'a new session');
    await eventually(() => server.nodePath !== undefined && server.nodePath !== before, 10000, 're-announcement');

    // Assess: the old node went with the old session, the new one belongs to the new session.
    expect(await observer.exists(before)).toBeUndefined();
    expect(await children()).toEqual([server.nodePath!.split('/').pop()]);
    expect((await observer.get(server.nodePath!)).stat.ephemeralOwner.toString(16)).toBe(session.sessionId!.replace(/^0+/, ''));
  });

  it('replaces a stale ephemeral announcement of its own URI on markUp, leaving persistent ones alone', async () => {
    // Prepare
    const oldSession = await openSession();
    await announcer(oldSession, 'http://127.0.0.1:8085').markUp();
    await putUri(observer, base, 'c1', 'bridge-written', 'http://127.0.0.1:8085');
    const session = await openSession();

    // Act
    const path = await announcer(session, 'http://127.0.0.1:8085').markUp();

    // Assess
    expect((await children()).sort()).toEqual(['bridge-written', path.split('/').pop()].sort());
  });

  it('is seen by a LoadBalancerState as a host of the cluster', async () => {
    // Prepare
    const session = await openSession();
    const state = new LoadBalancerState({ session: observer, basePath: base });
    await state.listenToCluster('c1');

    // Act
    await announcer(session, 'http://127.0.0.1:8086', 3).markUp();
    await eventually(() => (state.getUris('c1')?.hosts.length ?? 0) === 1, 5000, 'host seen');

    // Assess
    expect(state.getUris('c1')?.hosts[0]).toMatchObject({ uri: 'http://127.0.0.1:8086', weight: 3 });
    state.close();
  });
});
