import { D2Client, LoadBalancerState, type FailoutProperties } from '../../../lib/d2';
import { clusterPath } from '../../../lib/d2/paths';
import { D2ConnectionWarmUpHandler } from '../../../lib/failout/d2-connection-warm-up-handler';
import { FailoutClient } from '../../../lib/failout/failout-client';
import { FailoutClusterInfoProvider } from '../../../lib/failout/failout-cluster-info-provider';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { ZooKeeperFailoutConfigProvider, type ZooKeeperFailoutConfigProviderOptions } from '../../../lib/failout/failout-config-provider';
import { ZooKeeperFailoutConfigProviderFactory } from '../../../lib/failout/failout-config-provider-factory';
import type { ConnectionWarmUpHandler } from '../../../lib/failout/types';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeServers, startServer } from '../../helpers/http';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// ZooKeeperFailoutConfigProvider over a real ZooKeeper: rest.li's ZKFailoutConfigProviderTest and
// TestLoadBalancerWithFailout, plus replay, last-good configs, scheduled windows and warm-up order.

const CLUSTER = 'cluster-1';

/** A `failoutProperties` value: `peers` to redirect to, and one window (`{}`: always) or none (`null`). */
function failout(peers: readonly string[], window: { offlineAt?: number; onlineAt?: number } | null = {}): FailoutProperties {
  return {
    redirects: peers.map((peer) => ({ peer })),
    ignoredRedirectEntries: 0,
    buckets: window ? [{ partition: 'main', ...window }] : [],
  };
}

/** A handler that records what the manager asked of it. */
function recordingHandler(calls: string[]): ConnectionWarmUpHandler {
  return {
    warmUpConnections: (peer) => {
      calls.push(`warm:${peer}`);
      return Promise.resolve();
    },
    cancelPendingRequests: (peer) => void calls.push(`cancel:${peer}`),
    close: () => void calls.push('close'),
  };
}

describe('ZooKeeperFailoutConfigProvider', () => {
  let session: ZkSession;
  let base: string;
  let state: LoadBalancerState;
  let provider: ZooKeeperFailoutConfigProvider | undefined;
  let handlerCalls: string[];
  let handlersCreated: number;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('failout');
    state = new LoadBalancerState({ session, basePath: base });
    handlerCalls = [];
    handlersCreated = 0;
  });

  afterEach(async () => {
    provider?.close();
    provider = undefined;
    state.close();
    await closeServers();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  function startProvider(options: Partial<ZooKeeperFailoutConfigProviderOptions> = {}): ZooKeeperFailoutConfigProvider {
    provider = new ZooKeeperFailoutConfigProvider({
      state,
      peerWatchTeardownDelayMs: 100,
      warmUpHandlerFactory: () => {
        handlersCreated++;
        return recordingHandler(handlerCalls);
      },
      ...options,
    });
    provider.start();
    return provider;
  }

  async function writeFailout(properties: FailoutProperties | null): Promise<void> {
    await putCluster(session, base, clusterDoc(CLUSTER, { failoutProperties: properties }));
  }

  it('gives no config and creates no manager for a cluster without failout properties (testNewCluster)', async () => {
    // rest.li creates a manager and a warm-up handler for every cluster; here only clusters with
    // failout properties get one, so the handler factory is not called at all.
    // Prepare
    const p = startProvider();
    await writeFailout(null);

    // Act
    await state.listenToCluster(CLUSTER);

    // Assess
    expect(p.getFailoutConfig(CLUSTER)).toBeUndefined();
    expect(p.getClusters()).toEqual([]);
    expect(handlersCreated).toBe(0);
  });

  it('follows every change of the failout properties with one manager (testModifyClusterConfig)', async () => {
    // Prepare
    const p = startProvider();
    await writeFailout(failout([], null));
    await state.listenToCluster(CLUSTER);
    const initial = p.getFailoutConfig(CLUSTER);
    const seen = (peers: number, failedOut: boolean) => () => {
      const config = p.getFailoutConfig(CLUSTER);
      return config?.getPeerClusters().size === peers && config.isFailedOut() === failedOut;
    };

    // Act
    await writeFailout(failout(['peer1']));
    await eventually(seen(1, true), 5000, 'failout to peer1');
    await eventually(() => p.peerStates(CLUSTER).get('peer1') === 'missing', 5000, 'peer1 loaded');
    await writeFailout(failout(['peer1', 'peer2']));
    await eventually(seen(2, true), 5000, 'failout to peer1 and peer2');
    await eventually(() => p.peerStates(CLUSTER).size === 2, 5000, 'peer2 watched');
    await writeFailout(failout(['peer1', 'peer2'], null));
    await eventually(seen(2, false), 5000, 'failout over');

    // Assess
    expect(initial?.isFailedOut()).toBe(false);
    expect(initial?.getPeerClusters().size).toBe(0);
    expect(handlersCreated).toBe(1);
    // Neither peer cluster exists: watched, never warmed up; both cancelled when the failout ended.
    expect(handlerCalls).toEqual(['cancel:peer1', 'cancel:peer2']);
    await eventually(() => !state.isListeningToCluster('peer1') && !state.isListeningToCluster('peer2'), 5000, 'peer holds released');
  });

  it('drops the config when the failout properties are removed (testRemoveClusterConfig)', async () => {
    // Prepare
    const p = startProvider();
    await writeFailout(failout(['peer1']));
    await state.listenToCluster(CLUSTER);
    const before = p.getFailoutConfig(CLUSTER)?.isFailedOut();

    // Act
    await writeFailout(null);
    await eventually(() => p.getFailoutConfig(CLUSTER) === undefined, 5000, 'config removed');

    // Assess
    expect(before).toBe(true);
    await eventually(() => p.getClusters().length === 0, 5000, 'idle manager dropped');
    expect(handlerCalls).toEqual(['cancel:peer1', 'close']);
  });

  it('sees a failout written to ZooKeeper within 3 s, and its removal (TestLoadBalancerWithFailout)', async () => {
    // Prepare
    const factory = new ZooKeeperFailoutConfigProviderFactory({ peerWatchTeardownDelayMs: 100 });
    const p = factory.create(state);
    p.start();
    await writeFailout(null);
    await state.listenToCluster(CLUSTER);

    // Act
    await writeFailout(failout([], null));
    await eventually(() => p.getFailoutConfig(CLUSTER) !== undefined, 3000, 'failout config');
    await writeFailout(null);

    // Assess
    await eventually(() => p.getFailoutConfig(CLUSTER) === undefined, 3000, 'failout config removed');
    p.close();
  });

  it('hears clusters that were known before it started (replay to a late listener)', async () => {
    // Prepare
    await writeFailout(failout(['peer1']));
    await state.listenToCluster(CLUSTER);

    // Act
    const p = startProvider();

    // Assess: at once, with no further event.
    expect(p.getFailoutConfig(CLUSTER)?.isFailedOut()).toBe(true);
    expect(p.getClusters()).toEqual([CLUSTER]);
  });

  it('keeps the last good config when an update is malformed', async () => {
    // Prepare
    const p = startProvider();
    await writeFailout(failout(['peer1']));
    await state.listenToCluster(CLUSTER);
    const good = p.getFailoutConfig(CLUSTER);

    // Act
    // Raw text: the codec's writer refuses a weight of -1, as every reader does.
    await put(session, clusterPath(base, CLUSTER), JSON.stringify({ clusterName: CLUSTER, failoutProperties: { failoutRedirectConfigs: [{ peer: 'peer2', weight: -1 }], failoutBucketConfigs: [] } }));
    await eventually(() => p.malformedUpdates() === 1, 5000, 'malformed update seen');

    // Assess
    expect(p.getFailoutConfig(CLUSTER)).toBe(good);
    expect(p.peerStates(CLUSTER).has('peer1')).toBe(true);
  });

  it('lets a window that starts and ends in the future take effect and end with no further write', async () => {
    // Prepare
    const p = startProvider();
    await putCluster(session, base, clusterDoc('peer1'));
    await putUri(session, base, 'peer1', 'h1', 'http://127.0.0.1:9', 1);
    const now = Date.now();
    await writeFailout(failout(['peer1'], { offlineAt: now + 300, onlineAt: now + 900 }));

    // Act
    await state.listenToCluster(CLUSTER);
    const atStart = p.getFailoutConfig(CLUSTER)?.isFailedOut();
    await eventually(() => p.getFailoutConfig(CLUSTER)?.isFailedOut() === true, 2000, 'window started');
    await eventually(() => p.getFailoutConfig(CLUSTER)?.isFailedOut() === false, 2000, 'window ended');

    // Assess
    expect(atStart).toBe(false);
    // The peer was watched and warmed ahead of the window (default lead 30 s) and released after it.
    expect(handlerCalls[0]).toBe('warm:peer1');
    await eventually(() => !state.isListeningToCluster('peer1'), 3000, 'peer released after the window');
    expect(handlerCalls).toEqual(['warm:peer1', 'cancel:peer1']);
  });

  it('shuts the warm-up handler down when the cluster node is deleted', async () => {
    // Prepare
    const p = startProvider();
    await writeFailout(failout(['peer1']));
    await state.listenToCluster(CLUSTER);

    // Act
    await session.remove(clusterPath(base, CLUSTER));

    // Assess
    await eventually(() => p.getClusters().length === 0, 5000, 'manager removed');
    expect(handlerCalls).toEqual(['cancel:peer1', 'close']);
    expect(state.isListeningToCluster('peer1')).toBe(false);
  });

  it('opens connections to the peer before the first request FailoutClient redirects arrives', async () => {
    // Prepare
    const server = await startServer('peer-1');
    await putService(session, base, serviceDoc('svc', CLUSTER, '/svc'));
    await putCluster(session, base, clusterDoc('peer-1'));
    await putUri(session, base, 'peer-1', 'h1', server.uri, 1);
    await writeFailout(null);
    const client = new D2Client({ state });
    const p = startProvider({
      warmUpHandlerFactory: () => new D2ConnectionWarmUpHandler({ client, maxJitterMs: 0, path: '/warm-up' }),
    });
    await state.listenToCluster(CLUSTER);

    try {
      // Act
      await writeFailout(failout(['peer-1']));
      await eventually(() => p.peerStates(CLUSTER).get('peer-1') === 'warm', 5000, 'peer warmed up');
      const beforeRequest = { connections: server.connections(), paths: [...server.paths] };
      const failoutClient = new FailoutClient({
        d2: client,
        provider: p,
        strategy: new WeightedFailoutRedirectStrategy({ view: new FailoutClusterInfoProvider(state, p) }),
      });
      const response = await failoutClient.request('d2://svc/hello');
      await response.body.dump();
      expect(response.target.cluster).toBe('peer-1');

      // Assess
      expect(beforeRequest).toEqual({ connections: 1, paths: ['/warm-up'] });
      expect(server.paths).toEqual(['/warm-up', '/svc/hello']);
      expect(server.connections()).toBe(1);
    } finally {
      p.close();
      await client.close();
    }
  });
});
