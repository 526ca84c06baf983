import { Counter, Registry } from 'prom-client';
import type { LoadBalancerClusterListener, LoadBalancerState } from '../d2';
import { createLogger, type Logger } from '../logging';
import { FailedoutClusterManager, type FailoutScheduler, type PeerWatchStatus } from './failed-out-cluster-manager';
import { LastGoodFailoutConfigs } from './last-good-failout-configs';
import type { ConnectionWarmUpHandler, FailoutConfig, FailoutConfigProvider } from './types';

/** Options for {@link ZooKeeperFailoutConfigProvider}. */
export interface ZooKeeperFailoutConfigProviderOptions {
  /** Shared, not owned: the provider registers on it and takes peer holds, but never shuts it down. */
  readonly state: LoadBalancerState;
  /**
   * Called once per manager (per cluster that gets failout properties); the manager owns and shuts
   * down what it returns. Undefined, or returning undefined: peers are watched but not warmed up
   * (rest.li `createConnectionWarmUpHandler`).
   */
  readonly warmUpHandlerFactory?: () => ConnectionWarmUpHandler | undefined;
  /** See {@link FailedoutClusterManager}: how long a dropped peer stays watched. Default 60 s. */
  readonly peerWatchTeardownDelayMs?: number;
  /** See {@link FailedoutClusterManager}: peers of a window starting this soon are warmed first. Default 30 s. */
  readonly peerWarmUpLeadMs?: number;
  /** Timers of the managers (peer teardowns, window boundaries). Default the global, unref'd timers. */
  readonly scheduler?: FailoutScheduler;
  /** Where `failout_config_malformed_total` goes; default a private registry. */
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
 * - `onClusterAdded` (every update) parses the properties through {@link LastGoodFailoutConfigs}: a
 *   malformed update is logged and counted, and the last good config stays in effect. A manager is
 *   created only for a cluster with failout properties (rest.li creates one, and a warm-up handler,
 *   for every cluster). When the properties go away the manager tears its peers down (with the delay)
 *   and is dropped once idle.
 * - `onClusterRemoved` drops the manager at once and shuts it down, releasing its holds and its
 *   warm-up handler (rest.li leaks the handler). Every manager also hears about every cluster update,
 *   so a peer that was missing gets warmed up when it appears.
 *
 * Concurrency: event loop only; listener calls are synchronous from LoadBalancerState.
 */
export class ZooKeeperFailoutConfigProvider implements FailoutConfigProvider, LoadBalancerClusterListener {
  private readonly state: LoadBalancerState;
  private readonly options: ZooKeeperFailoutConfigProviderOptions;
  private readonly managers = new Map<string, FailedoutClusterManager>();
  private readonly configs: LastGoodFailoutConfigs;
  private readonly log: Logger;
  private lifecycle: 'latent' | 'started' | 'shutdown' = 'latent';

  constructor(options: ZooKeeperFailoutConfigProviderOptions) {
    this.state = options.state;
    this.options = options;
    this.log = options.logger ?? createLogger('failout-provider');
    const malformed = malformedCounter(options.registry ?? new Registry());
    this.configs = new LastGoodFailoutConfigs({ logger: this.log, onMalformed: (cluster) => malformed.inc({ cluster }) });
  }

  /** Registers on the state (hearing every known cluster at once). Starting twice is a no-op. */
  start(): void {
    if (this.lifecycle !== 'latent') return;
    this.lifecycle = 'started';
    this.state.registerClusterListener(this);
  }

  /** Unregisters and shuts every manager down (releasing its peer holds). Idempotent. */
  shutdown(): void {
    if (this.lifecycle === 'shutdown') return;
    this.lifecycle = 'shutdown';
    this.state.unregisterClusterListener(this);
    const managers = [...this.managers.values()];
    this.managers.clear();
    for (const manager of managers) manager.shutdown();
  }

  /** The config while the cluster has failout properties, active or not (evaluate `isFailedOut` per use). */
  getFailoutConfig(cluster: string): FailoutConfig | undefined {
    return this.managers.get(cluster)?.getFailoutConfig();
  }

  /** Clusters that have a manager (a copy): failout properties, or peers still being torn down. */
  getClusters(): string[] {
    return [...this.managers.keys()];
  }

  /** The peer watches of a cluster's manager (a copy; for tests and metrics). */
  peerStates(cluster: string): Map<string, PeerWatchStatus> {
    return this.managers.get(cluster)?.peerStates() ?? new Map();
  }

  /** Malformed updates ignored so far. */
  malformedUpdates(): number {
    return this.configs.stats().malformed;
  }

  /** LoadBalancerClusterListener: the cluster's properties were (re)loaded. */
  onClusterAdded(cluster: string): void {
    if (this.lifecycle !== 'started') return;
    const raw = this.state.getFailoutProperties(cluster);
    // Undefined: the state no longer knows the cluster (a stale call); its removal comes separately.
    if (raw !== undefined) {
      const config = this.configs.update(cluster, raw);
      let manager = this.managers.get(cluster);
      if (!manager && config !== undefined) manager = this.createManager(cluster);
      manager?.updateFailoutConfig(config);
    }
    for (const manager of [...this.managers.values()]) manager.peerClusterUpdated(cluster);
  }

  /** LoadBalancerClusterListener: the cluster is gone (deleted, no longer followed, or shutdown). */
  onClusterRemoved(cluster: string): void {
    this.configs.remove(cluster);
    const manager = this.managers.get(cluster);
    if (!manager) return;
    this.managers.delete(cluster);
    manager.updateFailoutConfig(undefined);
    manager.shutdown();
  }

  private createManager(cluster: string): FailedoutClusterManager {
    const manager: FailedoutClusterManager = new FailedoutClusterManager({
      cluster,
      state: this.state,
      warmUpHandler: this.createWarmUpHandler(cluster),
      peerWatchTeardownDelayMs: this.options.peerWatchTeardownDelayMs,
      peerWarmUpLeadMs: this.options.peerWarmUpLeadMs,
      scheduler: this.options.scheduler,
      logger: this.log,
      onIdle: () => {
        // Failout properties gone and every peer released: nothing left to manage.
        if (this.managers.get(cluster) !== manager) return;
        this.managers.delete(cluster);
        manager.shutdown();
      },
    });
    this.managers.set(cluster, manager);
    return manager;
  }

  private createWarmUpHandler(cluster: string): ConnectionWarmUpHandler | undefined {
    try {
      return this.options.warmUpHandlerFactory?.();
    } catch (err) {
      this.log.error({ err, cluster }, 'warm-up handler factory threw; peers will not be warmed up');
      return undefined;
    }
  }
}

function malformedCounter(registry: Registry): Counter<'cluster'> {
  const name = 'failout_config_malformed_total';
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<'cluster'>;
  return new Counter({ name, help: 'Malformed failoutProperties updates ignored (last good config kept)', labelNames: ['cluster'], registers: [registry] });
}
