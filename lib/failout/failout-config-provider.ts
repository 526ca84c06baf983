import { Counter, Gauge, Registry } from 'prom-client';
import type { ClusterChange, FailoutProperties, LoadBalancerClusterListener, LoadBalancerState } from '../d2';
import { createLogger, type Logger } from '../logging';
import { FailedoutClusterManager, type FailoutScheduler, type PeerWatchStatus } from './failed-out-cluster-manager';
import { createFailoutConfig } from './failout-config';
import type { ConnectionWarmUpHandler, FailoutConfig, FailoutConfigProvider, WarmUpHandlerFactory } from './types';
import type { Lifecycle } from '../lifecycle';

/** Options for {@link ZooKeeperFailoutConfigProvider}. */
export interface ZooKeeperFailoutConfigProviderOptions {
  /** Shared, not owned: the provider registers on it and takes peer holds, but never closes it. */
  readonly state: LoadBalancerState;
  /**
   * Called once per manager (per cluster that gets failout properties) with that cluster's name; the
   * manager owns and closes what it returns. Undefined, or returning undefined: peers are watched
   * but not warmed up (rest.li `createConnectionWarmUpHandler`). `buildD2Client` supplies one that
   * warms the pools of the client it builds.
   */
  readonly warmUpHandlerFactory?: WarmUpHandlerFactory;
  /** See {@link FailedoutClusterManager}: how long a dropped peer stays watched. Default 60 s. */
  readonly peerWatchTeardownDelayMs?: number;
  /** See {@link FailedoutClusterManager}: peers of a window starting this soon are warmed first. Default 30 s. */
  readonly peerWarmUpLeadMs?: number;
  /** See {@link FailedoutClusterManager}: peers warmed at the lead are warmed again this soon before the start. Default 2 s. */
  readonly peerWarmUpAheadMs?: number;
  /** Timers of the managers (peer teardowns, window boundaries). Default the global, unref'd timers. */
  readonly scheduler?: FailoutScheduler;
  /**
   * Where the provider's metrics go: `failout_config_malformed_total{cluster}` and the gauge
   * `failout_peer_watches{cluster,peer,status}` (1 per peer watch of a failed-out cluster, by status: a
   * `missing` peer during a failout has no hosts to take the traffic). Default a private registry.
   */
  readonly registry?: Registry;
  /** Used by the provider and its managers; default a `failout-provider` logger from `createLogger`. */
  readonly logger?: Logger;
}

/**
 * Follows the `failoutProperties` of every cluster the load balancer state knows (rest.li
 * `ZKFailoutConfigProvider`; like it, it depends on LoadBalancerState only, whatever feeds it).
 *
 * - `start()` registers as a cluster listener; LoadBalancerState replays the clusters it already knows
 *   at once (rest.li does not, so a late provider missed them until their next change).
 * - A `properties` change builds the config from the typed failout properties the change carries. A
 *   malformed failout makes its cluster document unreadable: the state keeps the last good properties
 *   and tells a `malformed` change instead, counted in `failout_config_malformed_total` — the last good
 *   config stays in effect. A manager is created only for a cluster with failout properties (rest.li
 *   creates one, and a warm-up handler, for every cluster). When the properties go away the manager
 *   tears its peers down (with the delay) and is dropped once idle.
 * - A `removed` change (the cluster's node deleted, or the cluster no longer followed) drops its config
 *   at once, so requests are no longer redirected, and tears the peers down as when the properties go
 *   away: each peer stays watched `peerWatchTeardownDelayMs`, so requests already redirected to it can
 *   finish, then the manager is dropped and its warm-up handler closed (rest.li's `onClusterRemoved`
 *   also resets the config with the delay, but leaks the handler). A cluster re-created during the
 *   delay gets the same manager back, keeping its holds. When the state closes (a `removed` change for
 *   every cluster), every manager is closed at once: nothing can be followed any more.
 * - Changes of a peer (`properties`, `uris`, `removed`) reach only the managers that watch that peer,
 *   through a peer → managers index, so a peer parked without hosts is warmed up when its first host
 *   arrives, and a warm peer that loses its hosts or its node shows as `missing`.
 *
 * Concurrency: event loop only; listener calls are synchronous from LoadBalancerState.
 */
export class ZooKeeperFailoutConfigProvider implements FailoutConfigProvider, LoadBalancerClusterListener {
  private readonly state: LoadBalancerState;
  private readonly options: ZooKeeperFailoutConfigProviderOptions;
  private readonly managers = new Map<string, FailedoutClusterManager>();
  /** Peer → the managers watching it (a manager adds itself when it starts a watch, leaves on release). */
  private readonly peerIndex = new Map<string, Set<FailedoutClusterManager>>();
  /** The last cluster looked up and its manager (undefined: none); reset whenever `managers` changes. */
  private lastCluster: string | undefined;
  private lastManager: FailedoutClusterManager | undefined;
  private readonly malformed: Counter<'cluster'>;
  private readonly log: Logger;
  private lifecycle: Lifecycle = 'idle';

  constructor(options: ZooKeeperFailoutConfigProviderOptions) {
    this.state = options.state;
    this.options = options;
    this.log = options.logger ?? createLogger('failout-provider');
    const registry = options.registry ?? new Registry();
    this.malformed = malformedCounter(registry);
    peerWatchGauge(registry, this);
  }

  /** Registers on the state (hearing every known cluster at once). Starting twice is a no-op. */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    this.state.registerClusterListener(this);
  }

  /** Unregisters and closes every manager (releasing its peer holds). Idempotent. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.state.unregisterClusterListener(this);
    const managers = [...this.managers.values()];
    this.managers.clear();
    this.managersChanged();
    for (const manager of managers) manager.close();
    this.peerIndex.clear();
  }

  /** The config while the cluster has failout properties, active or not (evaluate `isFailedOut` per use). */
  getFailoutConfig(cluster: string): FailoutConfig | undefined {
    return this.manager(cluster)?.getFailoutConfig();
  }

  /** See {@link FailoutConfigProvider.whenPeersLoaded}: the cluster's manager waits on its own peer watches. */
  whenPeersLoaded(cluster: string): Promise<void> | undefined {
    return this.manager(cluster)?.whenPeersLoaded();
  }

  /** The cluster's manager. Both calls of a redirected request ask for the same one: it is remembered. */
  private manager(cluster: string): FailedoutClusterManager | undefined {
    if (cluster === this.lastCluster) return this.lastManager;
    const manager = this.managers.get(cluster);
    this.lastCluster = cluster;
    this.lastManager = manager;
    return manager;
  }

  /** Forgets the remembered lookup; called on every change of `managers`. */
  private managersChanged(): void {
    this.lastCluster = undefined;
    this.lastManager = undefined;
  }

  /** Clusters that have a manager (a copy): failout properties, or peers still being torn down. */
  getClusters(): string[] {
    return [...this.managers.keys()];
  }

  /** The peer watches of a cluster's manager (a copy; for tests and metrics). */
  peerStates(cluster: string): Map<string, PeerWatchStatus> {
    return this.managers.get(cluster)?.peerStates() ?? new Map();
  }

  /**
   * Unreadable cluster documents the state has ignored so far, keeping their last good properties (a
   * malformed failout makes its document unreadable). The state's counter: every followed cluster counts.
   */
  malformedUpdates(): number {
    return this.state.stats().clusters.malformed;
  }

  /** LoadBalancerClusterListener: one change of one followed cluster. */
  onClusterChange(change: ClusterChange): void {
    if (this.lifecycle !== 'running') return;
    switch (change.kind) {
      case 'properties':
        this.propertiesChanged(change.cluster, change.properties.failoutProperties);
        this.tellPeerManagers(change.cluster);
        return;
      case 'uris':
        this.tellPeerManagers(change.cluster);
        return;
      case 'removed':
        this.clusterRemoved(change.cluster, change.reason === 'closed');
        // A watched peer whose node is gone has no hosts to take traffic any more.
        this.tellPeerManagers(change.cluster);
        return;
      case 'malformed':
        this.malformed.inc({ cluster: change.cluster });
        return;
    }
  }

  private propertiesChanged(cluster: string, failout: FailoutProperties | null): void {
    let manager = this.managers.get(cluster);
    const config = createFailoutConfig(cluster, failout, manager?.getFailoutConfig());
    if (!manager && config !== undefined) manager = this.createManager(cluster);
    manager?.updateFailoutConfig(config);
  }

  /**
   * The cluster is gone: no config any more. Its peers are torn down with the delay (the manager's
   * `onIdle` forgets it once they are released), unless the state is closing: then at once.
   */
  private clusterRemoved(cluster: string, stateClosing: boolean): void {
    const manager = this.managers.get(cluster);
    if (!manager) return;
    if (!stateClosing) {
      manager.updateFailoutConfig(undefined);
      return;
    }
    this.managers.delete(cluster);
    this.managersChanged();
    manager.updateFailoutConfig(undefined);
    manager.close();
  }

  private tellPeerManagers(peer: string): void {
    const managers = this.peerIndex.get(peer);
    if (managers) for (const manager of [...managers]) manager.peerChanged(peer);
  }

  private createManager(cluster: string): FailedoutClusterManager {
    const manager: FailedoutClusterManager = new FailedoutClusterManager({
      cluster,
      state: this.state,
      warmUpHandler: this.createWarmUpHandler(cluster),
      peerWatchTeardownDelayMs: this.options.peerWatchTeardownDelayMs,
      peerWarmUpLeadMs: this.options.peerWarmUpLeadMs,
      peerWarmUpAheadMs: this.options.peerWarmUpAheadMs,
      scheduler: this.options.scheduler,
      logger: this.log,
      onPeerWatched: (peer) => {
        let managers = this.peerIndex.get(peer);
        if (!managers) this.peerIndex.set(peer, (managers = new Set()));
        managers.add(manager);
      },
      onPeerReleased: (peer) => {
        const managers = this.peerIndex.get(peer);
        if (managers?.delete(manager) && managers.size === 0) this.peerIndex.delete(peer);
      },
      onIdle: () => {
        // Failout properties gone and every peer released: nothing left to manage.
        if (this.managers.get(cluster) !== manager) return;
        this.managers.delete(cluster);
        this.managersChanged();
        manager.close();
      },
    });
    this.managers.set(cluster, manager);
    this.managersChanged();
    return manager;
  }

  private createWarmUpHandler(cluster: string): ConnectionWarmUpHandler | undefined {
    try {
      return this.options.warmUpHandlerFactory?.(cluster);
    } catch (err) {
      this.log.error({ err, cluster }, 'warm-up handler factory threw; peers will not be warmed up');
      return undefined;
    }
  }
}

/**
 * The peer watches of every manager, read when the registry is scraped (never on the request path).
 * Several providers on one registry (a client per state) add up.
 */
function peerWatchGauge(registry: Registry, provider: ZooKeeperFailoutConfigProvider): void {
  const name = 'failout_peer_watches';
  let entry = gaugeSources.get(registry);
  if (!entry) {
    const providers = new Set<WeakRef<ZooKeeperFailoutConfigProvider>>();
    const gauge = new Gauge({
      name,
      help: 'Peer watches of failed-out clusters by status (listening, warming, warm, missing: no hosts, failed, tearingDown)',
      labelNames: ['cluster', 'peer', 'status'],
      registers: [registry],
      collect() {
        gauge.reset();
        for (const ref of [...providers]) {
          const p = ref.deref();
          if (!p) {
            providers.delete(ref);
            continue;
          }
          for (const cluster of p.getClusters()) {
            for (const [peer, status] of p.peerStates(cluster)) gauge.inc({ cluster, peer, status });
          }
        }
      },
    });
    entry = { providers };
    gaugeSources.set(registry, entry);
  }
  entry.providers.add(new WeakRef(provider));
}

/** The providers whose peer watches each registry's gauge reports. */
const gaugeSources = new WeakMap<Registry, { providers: Set<WeakRef<ZooKeeperFailoutConfigProvider>> }>();

function malformedCounter(registry: Registry): Counter<'cluster'> {
  const name = 'failout_config_malformed_total';
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<'cluster'>;
  return new Counter({
    name,
    help: 'Cluster documents (failoutProperties included) that could not be read; the last good config stays in effect',
    labelNames: ['cluster'],
    registers: [registry],
  });
}
