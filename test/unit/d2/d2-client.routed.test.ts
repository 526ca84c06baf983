/**
 * D2Client.resolveRouted against the in-memory ZooKeeper (issue 13): the URL is parsed and the service
 * looked up once, by the client, and a ClusterRouter picks the cluster in between. What FailoutClient
 * used to do itself before it became a router — wait for a service that is not loaded, hold it once
 * until close, leave a URL that is not d2 or a service that does not load to the client's own errors —
 * is asserted here, where it now lives. Nothing is sent: resolve picks a host without HTTP.
 */
import { D2Client, D2Error, LoadBalancerState, type ClusterRouter, type ServiceProperties } from '../../../lib/d2';
import { servicePath } from '../../../lib/d2/paths';
import { putHomeAndPeer } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';
const URL = 'd2://greetings/hello?x=1';

let zk: InMemoryZk;
let session: InMemoryZkSession;
let writer: InMemoryZkSession;
let state: LoadBalancerState;
let client: D2Client;

beforeEach(async () => {
  zk = new InMemoryZk();
  session = zk.session();
  writer = zk.session();
  state = new LoadBalancerState({ session, basePath: BASE });
  // Loads here never wait long, but a loaded machine can stall them past a short bound: only the
  // timeout test below uses one (its own client).
  client = new D2Client({ state, discoveryTimeoutMs: 10_000, random: () => 0 });
  await putHomeAndPeer(writer, BASE);
});

afterEach(async () => {
  await client.close();
  state.close();
});

/** What a router was asked. */
interface RouteCall {
  readonly service: string;
  readonly cluster: string;
  readonly ownClusterLoaded: boolean;
  readonly url: string;
  readonly key: string | undefined;
}

/** A router that answers `answer` (or throws it) and records what it was asked. */
function recordingRouter(answer: (calls: number) => ReturnType<ClusterRouter['route']> | Error): ClusterRouter & { calls: RouteCall[] } {
  const calls: RouteCall[] = [];
  return {
    calls,
    route: (service: string, properties: ServiceProperties, url: string, key: string | undefined) => {
      calls.push({ service, cluster: properties.clusterName, ownClusterLoaded: state.isClusterLoaded(properties.clusterName), url, key });
      const result = answer(calls.length);
      if (result instanceof Error) throw result;
      return result;
    },
  };
}

describe('D2Client.resolveRouted', () => {
  it.each<[string, () => ReturnType<ClusterRouter['route']>, string]>([
    ['undefined keeps the service cluster', () => undefined, 'home'],
    ["the service's own cluster keeps it", () => 'home', 'home'],
    ['a peer moves it there', () => 'peer', 'peer'],
    ['a promise of a peer is awaited', () => Promise.resolve('peer'), 'peer'],
    ['a promise of undefined keeps it', () => Promise.resolve(undefined), 'home'],
  ])('picks a host in the cluster the router names: %s', async (_what, answer, cluster) => {
    // Prepare
    const router = recordingRouter(answer);

    // Act
    const target = await client.resolveRouted(URL, router, 'member-7');

    // Assess
    expect(target).toEqual({
      service: 'greetings',
      cluster,
      host: `http://${cluster}-1:8080`,
      url: `http://${cluster}-1:8080/greetings/hello?x=1`,
      origin: `http://${cluster}-1:8080`,
      path: '/greetings/hello?x=1',
    });
    expect(router.calls).toEqual([{ service: 'greetings', cluster: 'home', ownClusterLoaded: true, url: URL, key: 'member-7' }]);
  });

  it('waits for a service that is not loaded yet, asks the router once per request, and holds the service once until close', async () => {
    // Prepare
    const router = recordingRouter(() => 'peer');

    // Act: two first requests at once, before anything is loaded.
    const targets = await Promise.all([client.resolveRouted('d2://greetings/a', router, undefined), client.resolveRouted(new globalThis.URL('d2://greetings/b'), router, 'k')]);
    const listening = state.isListeningToService('greetings');
    await client.close();

    // Assess: one hold (a second would survive close's single release).
    expect(targets.map((t) => [t.cluster, t.path])).toEqual([
      ['peer', '/greetings/a'],
      ['peer', '/greetings/b'],
    ]);
    expect(router.calls.map((c) => [c.url, c.key])).toEqual([
      ['d2://greetings/a', undefined],
      ['d2://greetings/b', 'k'],
    ]);
    expect(listening).toBe(true);
    expect(state.isListeningToService('greetings')).toBe(false);
    expect(state.isListeningToCluster('home')).toBe(false);
  });

  it.each<[string, () => Promise<unknown>, string]>([
    ['a URL that is not d2', () => client.resolveRouted('http://example.com/x', recordingRouter(() => 'peer'), undefined), 'malformed'],
    ['a d2 URL without a service', () => client.resolveRouted('d2:///x', recordingRouter(() => 'peer'), undefined), 'malformed'],
    ['a service that does not exist', () => client.resolveRouted('d2://nobody/x', recordingRouter(() => 'peer'), undefined), 'unknownService'],
  ])('rejects %s with a typed error', async (_what, act, kind) => {
    // Act
    const outcome = act();

    // Assess
    await expect(outcome).rejects.toBeInstanceOf(D2Error);
    await expect(outcome).rejects.toMatchObject({ kind });
  });

  it.each<[string, string]>([
    ['a URL that is not d2', 'http://example.com/x'],
    ['a service that does not exist', 'd2://nobody/x'],
  ])('never asks the router about %s', async (_what, url) => {
    // Prepare
    const router = recordingRouter(() => 'peer');

    // Act
    await client.resolveRouted(url, router, undefined).catch(() => undefined);

    // Assess
    expect(router.calls).toEqual([]);
  });

  it('rejects with discoveryTimeout, without asking the router, when the service does not load in time', async () => {
    // Prepare: the service's first read never gets an answer.
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    session.inject({ op: ['exists', 'getData'], path: servicePath(BASE, 'greetings'), source: 'watch', before: () => stuck });
    const router = recordingRouter(() => 'peer');
    const impatient = new D2Client({ state, discoveryTimeoutMs: 100, random: () => 0 });

    // Act
    const outcome = impatient.resolveRouted(URL, router, undefined);

    // Assess
    await expect(outcome).rejects.toMatchObject({ name: 'D2Error', kind: 'discoveryTimeout' });
    expect(router.calls).toEqual([]);
    release();
    await impatient.close();
  });

  it.each<[string, () => ReturnType<ClusterRouter['route']> | Error]>([
    ['throws', () => new Error('fail closed')],
    ['rejects', () => Promise.reject(new Error('fail closed'))],
  ])('rejects with the error when the router %s', async (_what, answer) => {
    // Prepare
    const router = recordingRouter(answer);

    // Act
    const outcome = client.resolveRouted(URL, router, undefined);

    // Assess
    await expect(outcome).rejects.toThrow('fail closed');
    expect(router.calls).toHaveLength(1);
  });

  it('picks in the service cluster without a router, as resolve does', async () => {
    // Act
    const routed = await client.resolveRouted(URL, undefined, 'ignored');
    const plain = await client.resolve(URL);

    // Assess
    expect([routed.cluster, plain.cluster]).toEqual(['home', 'home']);
  });
});
