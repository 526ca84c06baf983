import { D2Client, D2Error, LoadBalancerState, urisPath, ZooKeeperAnnouncer, type ClusterRouter } from '../../../lib/d2';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster, putPartitionedUri, putProfileService, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeServers, startServer, type RecordingServer } from '../../helpers/http';
import { closeSessions, openSession, proxyOf, uniqueBase } from '../../helpers/zk';

// D2Client over a real ZooKeeper and real HTTP servers: d2://service → cluster → weighted host.

describe('D2Client resolution', () => {
  let session: ZkSession;
  let base: string;
  let state: LoadBalancerState;
  let client: D2Client;
  const announcers: ZooKeeperAnnouncer[] = [];

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('d2');
    state = new LoadBalancerState({ session, basePath: base });
    // A fixed starting point makes the rotation exact: 60 picks over weights 1:2:3 are 10/20/30.
    client = new D2Client({ state, random: () => 0 });
  });

  afterEach(async () => {
    await client.close();
    for (const announcer of announcers.splice(0)) await announcer.close();
    state.close();
    await closeServers();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  async function announce(cluster: string, server: RecordingServer, weight: number): Promise<void> {
    // Stands in for the bridge, which creates the cluster directory (announcers may not): open, explicitly.
    await session.ensurePath(urisPath(base, cluster), OPEN_ACL);
    const announcer = new ZooKeeperAnnouncer({ session, basePath: base, cluster, uri: server.uri, weight });
    announcers.push(announcer);
    await announcer.markUp();
  }

  async function counts(servers: RecordingServer[], requests: number, url: string): Promise<number[]> {
    for (let i = 0; i < requests; i++) {
      const response = await client.request(url);
      await response.body.dump();
    }
    return servers.map((s) => s.paths.length);
  }

  it('spreads requests over the cluster hosts in proportion to their weights', async () => {
    // Prepare
    const servers = await Promise.all(['a', 'b', 'c'].map((name) => startServer(name)));
    await putCluster(session, base, clusterDoc('greetings-lor1'));
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1', '/greetings'));
    await Promise.all(servers.map((server, i) => announce('greetings-lor1', server, i + 1)));

    // Act
    const seen = await counts(servers, 60, 'd2://greetings/hello?name=ada');

    // Assess
    expect(seen).toEqual([10, 20, 30]);
    expect(servers[0]!.paths[0]).toBe('/greetings/hello?name=ada');
  });

  it('answers with status, headers and body, and names the host it chose', async () => {
    // Prepare
    const server = await startServer('only');
    await putCluster(session, base, clusterDoc('c1'));
    await putService(session, base, serviceDoc('svc', 'c1', '/svc'));
    await putUri(session, base, 'c1', 'host-1', server.uri);

    // Act
    const response = await client.request('d2://svc/x/y?z=1', { method: 'POST', body: 'hi', headers: { 'content-type': 'text/plain' } });
    const body = (await response.body.json()) as { server: string; path: string };

    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers['x-served-by']).toBe('only');
    expect(body).toEqual({ server: 'only', path: '/svc/x/y?z=1' });
    expect(response.target).toMatchObject({ service: 'svc', cluster: 'c1', host: server.uri, url: `${server.uri}/svc/x/y?z=1` });
  });

  it('skips hosts with weight zero and banned hosts', async () => {
    // Prepare
    const [live, drained, banned] = await Promise.all([startServer('live'), startServer('drained'), startServer('banned')]);
    await putCluster(session, base, clusterDoc('c1', { bannedUris: [banned!.uri] }));
    await putService(session, base, serviceDoc('svc', 'c1'));
    await putUri(session, base, 'c1', 'live', live!.uri, 1);
    await putUri(session, base, 'c1', 'drained', drained!.uri, 0);
    await putUri(session, base, 'c1', 'banned', banned!.uri, 5);

    // Act
    const seen = await counts([live!, drained!, banned!], 9, 'd2://svc/');

    // Assess
    expect(seen).toEqual([9, 0, 0]);
  });

  it('rejects an unknown service with a typed unknownService error', async () => {
    // Act
    const outcome = client.request('d2://no-such-service/x');

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(D2Error);
    await expect(outcome).rejects.toMatchObject({ kind: 'unknownService' });
  });

  it.each([
    ['no announced hosts', async () => undefined],
    ['only hosts of weight zero', async () => void (await putUri(session, base, 'empty', 'h', 'http://127.0.0.1:9', 0))],
  ])('rejects a cluster with %s with a typed noHosts error', async (_label, addUris) => {
    // Prepare
    await putCluster(session, base, clusterDoc('empty'));
    await putService(session, base, serviceDoc('svc', 'empty'));
    await addUris();

    // Act
    const outcome = client.request('d2://svc/x');

    // Assess
    await expect(outcome).rejects.toMatchObject({ name: 'D2Error', kind: 'noHosts' });
  });

  it('rejects a service whose cluster does not exist with a typed unknownCluster error', async () => {
    // Prepare
    await putService(session, base, serviceDoc('svc', 'missing'));

    // Act
    const outcome = client.resolve('d2://svc/x');

    // Assess
    await expect(outcome).rejects.toMatchObject({ kind: 'unknownCluster' });
  });

  it('routes to a given cluster while keeping the service path', async () => {
    // Prepare
    const [home, peer] = await Promise.all([startServer('home'), startServer('peer')]);
    await putCluster(session, base, clusterDoc('greetings-lor1'));
    await putCluster(session, base, clusterDoc('greetings-lva1'));
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1', '/greetings'));
    await putUri(session, base, 'greetings-lor1', 'h', home!.uri);
    await putUri(session, base, 'greetings-lva1', 'h', peer!.uri);

    // Act
    const response = await client.requestToCluster('greetings-lva1', 'd2://greetings/hi');
    await response.body.dump();

    // Assess
    expect(peer!.paths).toEqual(['/greetings/hi']);
    expect(home!.paths).toEqual([]);
    expect(response.target.cluster).toBe('greetings-lva1');
  });

  it('sends to the cluster a router picks, once it has seen the loaded service, keeping the service path', async () => {
    // Prepare
    const [home, peer] = await Promise.all([startServer('home'), startServer('peer')]);
    await putCluster(session, base, clusterDoc('greetings-lor1'));
    await putCluster(session, base, clusterDoc('greetings-lva1'));
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1', '/greetings'));
    await putUri(session, base, 'greetings-lor1', 'h', home!.uri);
    await putUri(session, base, 'greetings-lva1', 'h', peer!.uri);
    const asked: string[] = [];
    const router: ClusterRouter = {
      route: (service, properties, url, key) => {
        asked.push(`${service}|${properties.clusterName}|${String(state.isClusterLoaded(properties.clusterName))}|${url}|${String(key)}`);
        return key === 'move' ? 'greetings-lva1' : undefined;
      },
    };

    // Act
    const moved = await client.requestRouted('d2://greetings/hi?x=1', { method: 'POST', body: 'b' }, router, 'move');
    await moved.body.dump();
    const kept = await client.requestRouted('d2://greetings/hi', {}, router, 'stay');
    await kept.body.dump();

    // Assess
    expect([moved.target.cluster, kept.target.cluster]).toEqual(['greetings-lva1', 'greetings-lor1']);
    expect(peer!.paths).toEqual(['/greetings/hi?x=1']);
    expect(home!.paths).toEqual(['/greetings/hi']);
    expect(asked).toEqual(['greetings|greetings-lor1|true|d2://greetings/hi?x=1|move', 'greetings|greetings-lor1|true|d2://greetings/hi|stay']);
  });

  it('resolves without sending, advancing the rotation', async () => {
    // Prepare
    const [a, b] = await Promise.all([startServer('a'), startServer('b')]);
    await putCluster(session, base, clusterDoc('c1'));
    await putService(session, base, serviceDoc('svc', 'c1', ''));
    await putUri(session, base, 'c1', 'a', a!.uri);
    await putUri(session, base, 'c1', 'b', b!.uri);

    // Act
    const hosts = [];
    for (let i = 0; i < 4; i++) hosts.push((await client.resolve('d2://svc/p')).host);

    // Assess
    expect(new Set(hosts)).toEqual(new Set([a!.uri, b!.uri]));
    expect(hosts.filter((h) => h === a!.uri)).toHaveLength(2);
    expect(a!.paths.length + b!.paths.length).toBe(0);
  });

  it('warms connections to every host, which later requests reuse', async () => {
    // Prepare
    const servers = await Promise.all(['a', 'b', 'c'].map((name) => startServer(name)));
    await putCluster(session, base, clusterDoc('c1'));
    await putService(session, base, serviceDoc('svc', 'c1'));
    await Promise.all(servers.map((s, i) => putUri(session, base, 'c1', `h${i}`, s.uri)));

    // Act
    const result = await client.warmUp('c1', { path: '/healthz', connectionsPerHost: 2, concurrency: 2 });
    await counts(servers, 6, 'd2://svc/x');

    // Assess
    expect(result).toMatchObject({ cluster: 'c1', hosts: 3, succeeded: 6, failed: 0 });
    for (const server of servers) {
      expect(server.paths.slice(0, 2)).toEqual(['/healthz', '/healthz']);
      expect(server.connections()).toBe(2);
    }
  });

  it('opens no connection for a warm-up still running when the client closes', async () => {
    // Prepare
    const servers = await Promise.all(['a', 'b', 'c'].map((name) => startServer(name)));
    await putCluster(session, base, clusterDoc('c1'));
    await Promise.all(servers.map((s, i) => putUri(session, base, 'c1', `h${i}`, s.uri)));

    // Act
    const warming = client.warmUp('c1', { path: '/healthz', concurrency: 1 });
    await client.close();
    const result = await warming;

    // Assess
    expect(result).toMatchObject({ cluster: 'c1', succeeded: 0 });
    expect(client.poolOrigins()).toEqual([]);
    expect(servers.map((s) => s.connections())).toEqual([0, 0, 0]);
  });

  it('warms nothing, without failing, for a cluster that does not exist', async () => {
    // Act
    const result = await client.warmUp('ghost', { timeoutMs: 1000 });

    // Assess
    expect(result).toMatchObject({ cluster: 'ghost', hosts: 0, succeeded: 0, failed: 0 });
    expect(state.isListeningToCluster('ghost')).toBe(false);
  });

  it('waits at most discoveryTimeoutMs for ZooKeeper, then loads the service once it is back', async () => {
    // Prepare
    const server = await startServer('s');
    await putCluster(session, base, clusterDoc('c1'));
    await putService(session, base, serviceDoc('svc', 'c1'));
    await putUri(session, base, 'c1', 'h', server.uri);
    const reader = await openSession();
    const readerState = new LoadBalancerState({ session: reader, basePath: base });
    const impatient = new D2Client({ state: readerState, discoveryTimeoutMs: 300 });
    proxyOf(reader).refuse();

    // Act
    const cutOff = await impatient.resolve('d2://svc/x').catch((err: unknown) => err);
    proxyOf(reader).accept();
    let target;
    for (let i = 0; i < 50 && !target; i++) target = await impatient.resolve('d2://svc/x').catch(() => undefined);

    // Assess
    expect(cutOff).toMatchObject({ name: 'D2Error', kind: 'discoveryTimeout' });
    expect(target?.host).toBe(server.uri);
    await impatient.close();
    readerState.close();
  });

  it('follows a new host as soon as it is announced', async () => {
    // Prepare
    const [first, second] = await Promise.all([startServer('first'), startServer('second')]);
    await putCluster(session, base, clusterDoc('c1'));
    await putService(session, base, serviceDoc('svc', 'c1'));
    await putUri(session, base, 'c1', 'first', first!.uri);
    await (await client.request('d2://svc/warm')).body.dump();

    // Act
    await putUri(session, base, 'c1', 'second', second!.uri);
    let hosts = 0;
    for (let i = 0; i < 100 && hosts < 2; i++) {
      hosts = state.getUris('c1')?.hosts.length ?? 0;
      await new Promise((r) => setTimeout(r, 20));
    }
    await counts([first!, second!], 4, 'd2://svc/x');

    // Assess
    expect(hosts).toBe(2);
    expect(second!.paths.length).toBeGreaterThanOrEqual(2);
  });

  it('sends each request of a RANGE partitioned cluster to a host of its partition', async () => {
    // Prepare: the quick-start's ProfileService (a million ids per partition); `low` serves partitions
    // 0 and 1, `high` partitions 2 and 3 (its lowest partition, 2, is not 0).
    const [low, high] = await Promise.all([startServer('low'), startServer('high')]);
    await putProfileService(session, base);
    await putPartitionedUri(session, base, 'ProfileService', 'low', low!.uri, { 0: 1, 1: 1 });
    await putPartitionedUri(session, base, 'ProfileService', 'high', high!.uri, { 2: 1, 3: 0.5 });

    // Act
    const served: string[] = [];
    for (const id of [5, 1500000, 2500000, 3999999, 7, 2000000]) {
      const response = await client.request(`d2://profiles/profiles/${id}`);
      served.push(String(response.headers['x-served-by']));
      await response.body.dump();
    }

    // Assess
    expect(served).toEqual(['low', 'low', 'high', 'high', 'low', 'high']);
    expect(high!.paths[0]).toBe('/profile-war/profiles/2500000');
  });
});
