import { Registry } from 'prom-client';
import { LoadBalancerState, type FailoutProperties } from '../../../lib/d2';
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { FailedoutClusterManager } from '../../../lib/failout/failed-out-cluster-manager';
import { ZooKeeperFailoutConfigProvider } from '../../../lib/failout/failout-config-provider';
import { changeRecorder } from '../../helpers/cluster-changes';
import { clusterDoc, put, putCluster, putUri } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { failoutProps } from './config-factories';
import { ManualScheduler, RecordingWarmUpHandler, flush } from './fakes';

// ZooKeeperFailoutConfigProvider's peer → managers index (issue 13), over a real LoadBalancerState on
// the in-memory ZooKeeper: a peer's `properties` and `uris` changes reach only the managers watching
// that peer, a manager that released the peer is told no more, a missing peer is warmed up when its
// first host arrives, and `malformed` changes are counted in the registry given.

const BASE = '/d2';
const TEARDOWN_MS = 60_000;

let zk: InMemoryZk;
let writer: InMemoryZkSession;
let state: LoadBalancerState;
let scheduler: ManualScheduler;
let registry: Registry;
let handlers: Map<string, RecordingWarmUpHandler>;
let provider: ZooKeeperFailoutConfigProvider;
let told: jest.SpiedFunction<FailedoutClusterManager['peerChanged']>;

beforeEach(() => {
  zk = new InMemoryZk();
  writer = zk.session();
  state = new LoadBalancerState({ session: zk.session(), basePath: BASE });
  scheduler = new ManualScheduler();
  registry = new Registry();
  handlers = new Map();
  provider = new ZooKeeperFailoutConfigProvider({
    state,
    scheduler,
    registry,
    peerWatchTeardownDelayMs: TEARDOWN_MS,
    warmUpHandlerFactory: (cluster) => {
      const handler = new RecordingWarmUpHandler();
      handlers.set(cluster, handler);
      return handler;
    },
  });
  provider.start();
  told = jest.spyOn(FailedoutClusterManager.prototype, 'peerChanged');
});

afterEach(() => {
  told.mockRestore();
  provider.close();
  state.close();
});

/** `manager-cluster:peer` for every peerChanged call since the last {@link resetTold}. */
function toldCalls(): string[] {
  return told.mock.calls.map((call, i) => `${(told.mock.contexts[i] as FailedoutClusterManager).cluster}:${call[0]}`);
}

function resetTold(): void {
  told.mockClear();
}

async function settle(): Promise<void> {
  await zk.idle();
  await flush();
}

async function writeCluster(cluster: string, failout: FailoutProperties | null = null): Promise<void> {
  await putCluster(writer, BASE, clusterDoc(cluster, { failoutProperties: failout }));
}

/** Clusters `a` (failed out to p1) and `b` (failed out to p2), both followed; p1 and p2 exist without hosts. */
async function twoFailouts(): Promise<void> {
  await writeCluster('p1');
  await writeCluster('p2');
  await writeCluster('a', failoutProps(['p1']));
  await writeCluster('b', failoutProps(['p2']));
  await Promise.all([state.listenToCluster('a'), state.listenToCluster('b')]);
  await settle();
}

describe('ZooKeeperFailoutConfigProvider peer index', () => {
  it.each<[string, () => Promise<unknown>]>([
    ['its first host is announced (uris)', () => putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80')],
    ['its properties are written (properties)', () => writeCluster('p1')],
  ])('tells only the managers watching a peer when %s', async (_what, act) => {
    // Prepare
    await twoFailouts();
    await writeCluster('c', failoutProps(['p1', 'p2']));
    await state.listenToCluster('c');
    await settle();
    resetTold();

    // Act
    await act();
    await settle();

    // Assess
    expect(toldCalls().sort()).toEqual(['a:p1', 'c:p1']);
  });

  it('tells no manager about a followed cluster that is nobody’s peer', async () => {
    // Prepare
    await twoFailouts();
    await writeCluster('other');
    await state.listenToCluster('other');
    const heard = changeRecorder();
    state.registerClusterListener(heard);
    heard.events.length = 0;
    resetTold();

    // Act
    await putUri(writer, BASE, 'other', 'h1', 'http://other-1:80');
    await writeCluster('other');
    await settle();

    // Assess
    expect(heard.events.sort()).toEqual(['properties:other:v=-', 'uris:other:http://other-1:80*1']);
    expect(toldCalls()).toEqual([]);
  });

  it('keeps telling a manager about a peer it is tearing down, and stops once the teardown released it', async () => {
    // Prepare: somebody else keeps p1 followed, so its changes are still heard after the manager lets go.
    await twoFailouts();
    await state.listenToCluster('p1');
    await writeCluster('a', failoutProps(['p2']));
    await settle();
    resetTold();

    // Act
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await settle();
    const whileTearingDown = toldCalls();
    scheduler.runAll();
    resetTold();
    await putUri(writer, BASE, 'p1', 'h2', 'http://p1-2:80');
    await settle();

    // Assess
    expect(whileTearingDown).toEqual(['a:p1']);
    expect(state.getUris('p1')?.hosts).toHaveLength(2);
    expect(toldCalls()).toEqual([]);
    expect(provider.peerStates('a').has('p1')).toBe(false);
    expect(state.isListeningToCluster('p1')).toBe(true);
  });

  it("stops telling a manager whose cluster's node was deleted once the teardown released its peers", async () => {
    // Prepare: the deletion tears a's peers down with the delay, like the end of its failout.
    await twoFailouts();
    await state.listenToCluster('p1');
    await writer.remove(clusterPath(BASE, 'a'));
    await settle();
    scheduler.runAll();
    resetTold();

    // Act
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await settle();

    // Assess
    expect(provider.getClusters()).toEqual(['b']);
    expect(state.getUris('p1')?.hosts).toHaveLength(1);
    expect(toldCalls()).toEqual([]);
  });

  it.each<[string, () => Promise<void>]>([
    ['exists without hosts', () => writeCluster('p1')],
    ['does not exist yet', async () => undefined],
  ])('warms up a peer that %s once its first host arrives, and only that peer', async (_what, arrange) => {
    // Prepare
    await arrange();
    await writeCluster('p2');
    await writeCluster('a', failoutProps(['p1', 'p2']));
    await state.listenToCluster('a');
    await settle();
    const before = new Map(provider.peerStates('a'));

    // Act
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await settle();

    // Assess
    expect(before).toEqual(new Map([['p1', 'missing'], ['p2', 'missing']]));
    expect(provider.peerStates('a')).toEqual(new Map([['p1', 'warm'], ['p2', 'missing']]));
    expect(handlers.get('a')?.calls).toEqual(['warm:p1']);
  });

  it('warms only the new host of a warm peer that loses its hosts and gets new ones (a redeploy)', async () => {
    // Prepare
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await writeCluster('a', failoutProps(['p1']));
    await state.listenToCluster('a');
    await settle();

    // Act
    await writer.remove(`${urisPath(BASE, 'p1')}/h1`);
    await settle();
    await putUri(writer, BASE, 'p1', 'h2', 'http://p1-2:80');
    await settle();

    // Assess
    expect(provider.peerStates('a').get('p1')).toBe('warm');
    expect(handlers.get('a')?.calls).toEqual(['warm:p1', 'warm:p1']);
    expect(handlers.get('a')?.hosts).toEqual([['http://p1-1:80'], ['http://p1-2:80']]);
  });

  it('warms a host added to a warm peer, and not the peer again on a weight change', async () => {
    // Prepare
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await writeCluster('a', failoutProps(['p1']));
    await state.listenToCluster('a');
    await settle();

    // Act
    await putUri(writer, BASE, 'p1', 'h2', 'http://p1-2:80');
    await settle();
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80', 2);
    await settle();

    // Assess
    expect(provider.peerStates('a').get('p1')).toBe('warm');
    expect(handlers.get('a')?.hosts).toEqual([['http://p1-1:80'], ['http://p1-2:80']]);
  });
});

describe('ZooKeeperFailoutConfigProvider peer watch status', () => {
  it.each<[string, () => Promise<void>]>([
    ['its last host leaves', () => writer.remove(`${urisPath(BASE, 'p1')}/h1`)],
    ['its cluster node is deleted', () => writer.remove(clusterPath(BASE, 'p1'))],
  ])('reports a warm peer missing once %s, in the failout_peer_watches gauge too', async (_what, act) => {
    // Prepare
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await writeCluster('a', failoutProps(['p1']));
    await state.listenToCluster('a');
    await settle();
    const before = provider.peerStates('a').get('p1');

    // Act
    await act();
    await settle();

    // Assess
    expect(before).toBe('warm');
    expect(provider.peerStates('a').get('p1')).toBe('missing');
    expect(await registry.metrics()).toContain('failout_peer_watches{cluster="a",peer="p1",status="missing"} 1');
    expect(handlers.get('a')?.calls).toEqual(['warm:p1']);
  });
});

describe('ZooKeeperFailoutConfigProvider malformed cluster documents', () => {
  it('counts each one per cluster in the registry it was given, keeping the last good config', async () => {
    // Prepare
    await twoFailouts();
    const good = provider.getFailoutConfig('a');

    // Act
    await put(writer, clusterPath(BASE, 'a'), '{ nope');
    await settle();
    await put(writer, clusterPath(BASE, 'a'), JSON.stringify({ clusterName: 'a', failoutProperties: { failoutRedirectConfigs: [{ peer: 'p1', weight: -1 }], failoutBucketConfigs: [] } }));
    await settle();
    await put(writer, clusterPath(BASE, 'p1'), '{ nope');
    await settle();
    const text = await registry.metrics();

    // Assess
    expect(text).toContain('failout_config_malformed_total{cluster="a"} 2');
    expect(text).toContain('failout_config_malformed_total{cluster="p1"} 1');
    expect(provider.malformedUpdates()).toBe(3);
    expect(provider.getFailoutConfig('a')).toBe(good);
  });
});

describe('ZooKeeperFailoutConfigProvider per-cluster wiring', () => {
  it('makes one warm-up handler per failed-out cluster, for that cluster', async () => {
    // Act
    await twoFailouts();

    // Assess
    expect([...handlers.keys()].sort()).toEqual(['a', 'b']);
  });

  it("says while a failed-out cluster's peers load, and resolves once they have", async () => {
    // Prepare
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await writeCluster('a', failoutProps(['p1']));
    await state.listenToCluster('a');

    // Act
    const loading = provider.whenPeersLoaded('a');
    await loading;
    const hostsWhenResolved = state.getUris('p1')?.hosts.length;
    await settle();

    // Assess
    expect(loading).toBeInstanceOf(Promise);
    expect(hostsWhenResolved).toBe(1);
    expect(provider.whenPeersLoaded('a')).toBeUndefined();
    expect(provider.whenPeersLoaded('nobody')).toBeUndefined();
  });
});

describe("ZooKeeperFailoutConfigProvider when a failed-out cluster's node is deleted", () => {
  /** `a` failed out to p1 (which has a host), followed; p1 is held by a's manager alone. */
  async function failedOutA(): Promise<void> {
    await writeCluster('p1');
    await putUri(writer, BASE, 'p1', 'h1', 'http://p1-1:80');
    await writeCluster('a', failoutProps(['p1']));
    await state.listenToCluster('a');
    await settle();
  }

  it('drops the config at once but keeps the peer watched for the teardown delay, then releases it', async () => {
    // Prepare
    await failedOutA();

    // Act
    await writer.remove(clusterPath(BASE, 'a'));
    await settle();
    const during = {
      config: provider.getFailoutConfig('a'),
      peers: provider.peerStates('a'),
      followed: state.isListeningToCluster('p1'),
      timers: scheduler.pending(),
      calls: [...(handlers.get('a')?.calls ?? [])],
    };
    scheduler.runAll();

    // Assess
    expect(during).toEqual({
      config: undefined,
      peers: new Map([['p1', 'tearingDown']]),
      followed: true,
      timers: [TEARDOWN_MS],
      calls: ['warm:p1', 'cancel:p1'],
    });
    expect(state.isListeningToCluster('p1')).toBe(false);
    expect(provider.getClusters()).toEqual([]);
    expect(handlers.get('a')?.calls).toEqual(['warm:p1', 'cancel:p1', 'close']);
  });

  it('keeps the held peer when the cluster is re-created during the delay, and holds it once', async () => {
    // Prepare
    await failedOutA();
    await writer.remove(clusterPath(BASE, 'a'));
    await settle();

    // Act
    await writeCluster('a', failoutProps(['p1']));
    await settle();
    scheduler.runAll();
    const afterDelay = { followed: state.isListeningToCluster('p1'), peers: provider.peerStates('a'), redirects: provider.getFailoutConfig('a') !== undefined };
    await writeCluster('a');
    await settle();
    scheduler.runAll();

    // Assess: the one manager kept its one hold, and one drop released it.
    expect(afterDelay).toEqual({ followed: true, peers: new Map([['p1', 'warm']]), redirects: true });
    expect([...handlers.keys()]).toEqual(['a']);
    expect(state.isListeningToCluster('p1')).toBe(false);
    expect(provider.getClusters()).toEqual([]);
  });

  it('releases everything at once, leaving no timer, when the provider closes during the delay', async () => {
    // Prepare
    await failedOutA();
    await writer.remove(clusterPath(BASE, 'a'));
    await settle();

    // Act
    provider.close();

    // Assess
    expect(state.isListeningToCluster('p1')).toBe(false);
    expect(scheduler.pending()).toEqual([]);
    expect(handlers.get('a')?.calls).toEqual(['warm:p1', 'cancel:p1', 'close']);
  });

  it('releases everything at once, leaving no timer, when the state closes', async () => {
    // Prepare
    await failedOutA();

    // Act
    state.close();

    // Assess
    expect(provider.getClusters()).toEqual([]);
    expect(scheduler.pending()).toEqual([]);
    expect(handlers.get('a')?.calls).toEqual(['warm:p1', 'cancel:p1', 'close']);
  });
});
