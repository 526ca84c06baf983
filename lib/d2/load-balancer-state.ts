import type { ZkSession } from '../zk';
import { createLogger, type Logger } from '../logging';
import { parseClusterProperties } from './codecs/cluster';
import { parseServiceProperties } from './codecs/service';
import { D2Error, type D2Entity } from './errors';
import type { ClusterProperties, FailoutPropertiesJson, MergedUriProperties, ServiceProperties } from './model';
import { assertNodeName, clusterPath, normalizeBasePath, servicePath, urisPath } from './paths';
import { ZooKeeperPropertyStore, type PropertyStoreStats, type PropertySubscriber } from './property-store';
import { ZooKeeperUriStore, type UriStoreStats } from './uri-store';

/**
 * Hears clusters come and go (rest.li `LoadBalancerClusterListener`). `onClusterAdded` fires on every
 * good update of a followed cluster's properties, not only the first; `onClusterRemoved` when its node
 * is deleted, when nobody follows it any more, and for every known cluster at shutdown. Calls are
 * synchronous on the event loop; a listener that throws is logged and does not stop the others.
 */
export interface LoadBalancerClusterListener {
  /** The cluster's properties were loaded or updated (every good update, and at once on registration). */
  onClusterAdded(cluster: string): void;
  /** The cluster's node was deleted, nobody follows it any more, or the state is shutting down. */
  onClusterRemoved(cluster: string): void;
}

/** Options for {@link LoadBalancerState}. */
export interface LoadBalancerStateOptions {
  /** The ZooKeeper session the stores read and watch through; shared, not owned (shutdown leaves it open). */
  readonly session: ZkSession;
  /** D2 base path; default `/d2`, trailing slashes stripped. */
  readonly basePath?: string;
  /** Called for every unreadable document (after it is logged and counted); the last good state stays. */
  readonly onMalformed?: (entity: D2Entity, name: string, error: Error) => void;
  /** Used by the state and its stores; default a `d2-state` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** Counters of the three stores behind a {@link LoadBalancerState}. */
export interface LoadBalancerStateStats {
  /** The cluster properties store (`<basePath>/clusters`). */
  clusters: PropertyStoreStats;
  /** The service properties store (`<basePath>/services`). */
  services: PropertyStoreStats;
  /** The announced URIs store (`<basePath>/uris`). */
  uris: UriStoreStats;
}

/** A settable promise that never rejects (nobody may be awaiting it). */
interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/** One followed cluster. `holds` counts listenToCluster calls (services hold their cluster too). */
interface ClusterWatch {
  holds: number;
  propertiesLoaded: boolean;
  urisLoaded: boolean;
  /** Listeners heard `onClusterAdded` and not `onClusterRemoved` since. */
  announced: boolean;
  readonly ready: Gate;
  readonly unsubscribe: (() => void)[];
}

/** One followed service, and the cluster it holds on the listeners' behalf. */
interface ServiceWatch {
  holds: number;
  loaded: boolean;
  cluster: string | undefined;
  readonly ready: Gate;
  unsubscribe: () => void;
}

/**
 * The rest.li `SimpleLoadBalancerState` role: follows services, clusters and their announced URIs in
 * ZooKeeper on demand and answers from memory.
 *
 * - `listenToCluster(name)` resolves once both the cluster's properties and its URIs are loaded, also
 *   when the cluster does not exist (its getters then return undefined). Calls are counted:
 *   `stopListenToCluster` releases one, and the watches stop (and the cached data is dropped) when the
 *   last is released — so a failout peer watch that is torn down cannot pull the data from under a
 *   service that started using the same cluster meanwhile (a race rest.li has).
 * - `listenToService(name)` resolves once the service is loaded and, if it exists, its cluster too; the
 *   service holds its cluster for as long as it is followed, and moves the hold when `clusterName` changes.
 * - Cluster listeners registered late hear `onClusterAdded` for every cluster already known, at once
 *   (rest.li replays nothing).
 * - Unreadable documents never replace good ones (see {@link ZooKeeperPropertyStore}).
 *
 * Concurrency: all state changes on the event loop, from store callbacks and public calls.
 */
export class LoadBalancerState {
  private readonly clusterStore: ZooKeeperPropertyStore<ClusterProperties>;
  private readonly serviceStore: ZooKeeperPropertyStore<ServiceProperties>;
  private readonly uriStore: ZooKeeperUriStore;
  private readonly clusters = new Map<string, ClusterWatch>();
  private readonly services = new Map<string, ServiceWatch>();
  private readonly listeners = new Set<LoadBalancerClusterListener>();
  private readonly log: Logger;
  private lifecycle: 'started' | 'shutdown' = 'started';
  /** The normalized base path (for callers that build paths next to ours). */
  readonly basePath: string;

  constructor(options: LoadBalancerStateOptions) {
    this.log = options.logger ?? createLogger('d2-state');
    this.basePath = normalizeBasePath(options.basePath);
    const report = options.onMalformed;
    this.clusterStore = new ZooKeeperPropertyStore({
      session: options.session,
      directory: clusterPath(this.basePath),
      kind: 'cluster',
      parse: (data) => parseClusterProperties(data),
      onMalformed: report && ((name, err) => report('cluster', name, err)),
      logger: this.log,
    });
    this.serviceStore = new ZooKeeperPropertyStore({
      session: options.session,
      directory: servicePath(this.basePath),
      kind: 'service',
      parse: (data) => parseServiceProperties(data),
      onMalformed: report && ((name, err) => report('service', name, err)),
      logger: this.log,
    });
    this.uriStore = new ZooKeeperUriStore({
      session: options.session,
      directory: urisPath(this.basePath),
      onMalformed: report && ((cluster, child, err) => report('uri', `${cluster}/${child}`, err)),
      logger: this.log,
    });
  }

  /**
   * Follows a cluster's properties and URIs; resolves once both are loaded (also for a cluster that
   * does not exist). Each call takes one hold; see {@link stopListenToCluster}.
   * @throws D2Error `closed` after shutdown; `malformed` for a name that is not a znode name.
   */
  async listenToCluster(cluster: string): Promise<void> {
    this.holdCluster(cluster);
    await this.clusters.get(cluster)?.ready.promise;
    this.assertRunning();
  }

  /** Releases one hold taken by {@link listenToCluster}; the last release stops the watches. */
  stopListenToCluster(cluster: string): void {
    const watch = this.clusters.get(cluster);
    if (!watch || --watch.holds > 0) return;
    this.clusters.delete(cluster);
    for (const unsubscribe of watch.unsubscribe) unsubscribe();
    watch.ready.open();
    if (watch.announced) this.notify((l) => l.onClusterRemoved(cluster), cluster);
  }

  /** True while at least one hold on the cluster is taken (also while it is still loading). */
  isListeningToCluster(cluster: string): boolean {
    return this.clusters.has(cluster);
  }

  /** True once the cluster's properties and URIs are loaded (the point where listenToCluster resolves). */
  isClusterLoaded(cluster: string): boolean {
    const watch = this.clusters.get(cluster);
    return !!watch && watch.propertiesLoaded && watch.urisLoaded;
  }

  /**
   * Follows a service; resolves once it is loaded and, when it exists, its cluster and URIs too.
   * Each call takes one hold; see {@link stopListenToService}.
   * @throws D2Error `closed` after shutdown; `malformed` for a name that is not a znode name.
   */
  async listenToService(service: string): Promise<void> {
    this.assertRunning();
    assertNodeName(service, 'service name');
    let watch = this.services.get(service);
    if (!watch) watch = this.startService(service);
    watch.holds++;
    await watch.ready.promise;
    const cluster = watch.cluster;
    if (cluster !== undefined) await this.clusters.get(cluster)?.ready.promise;
    this.assertRunning();
  }

  /** Releases one hold taken by {@link listenToService}; the last release drops the service's cluster hold. */
  stopListenToService(service: string): void {
    const watch = this.services.get(service);
    if (!watch || --watch.holds > 0) return;
    this.services.delete(service);
    watch.unsubscribe();
    watch.ready.open();
    if (watch.cluster !== undefined) this.stopListenToCluster(watch.cluster);
  }

  /** True while at least one hold on the service is taken. */
  isListeningToService(service: string): boolean {
    return this.services.has(service);
  }

  /** True once the service is loaded (whether or not it exists). */
  isServiceLoaded(service: string): boolean {
    return this.services.get(service)?.loaded === true;
  }

  /**
   * Adds a cluster listener and, at once, calls its `onClusterAdded` for every cluster already known.
   * Registering the same listener twice is a no-op. Returns the unregister function.
   */
  registerClusterListener(listener: LoadBalancerClusterListener): () => void {
    if (!this.listeners.has(listener)) {
      this.listeners.add(listener);
      for (const [cluster, watch] of this.clusters) {
        if (watch.announced) this.call(() => listener.onClusterAdded(cluster), cluster);
      }
    }
    return () => this.unregisterClusterListener(listener);
  }

  /** Removes a cluster listener (no `onClusterRemoved` calls are made for it). */
  unregisterClusterListener(listener: LoadBalancerClusterListener): void {
    this.listeners.delete(listener);
  }

  /** The cluster's properties, or undefined when it is not followed, not loaded, absent or unreadable. */
  getClusterProperties(cluster: string): ClusterProperties | undefined {
    return this.clusterStore.get(cluster);
  }

  /** The service's properties, or undefined when it is not followed, not loaded, absent or unreadable. */
  getServiceProperties(service: string): ServiceProperties | undefined {
    return this.serviceStore.get(service);
  }

  /**
   * The cluster's merged URIs; undefined when not followed, not loaded, or `/d2/uris/<cluster>` does not
   * exist. The object is replaced (never mutated) on every change, so identity tells a new snapshot.
   */
  getUris(cluster: string): MergedUriProperties | undefined {
    return this.uriStore.get(cluster);
  }

  /**
   * The cluster's raw `failoutProperties` as the codec gives them: undefined when the cluster is not
   * known (not followed, absent or never readable), `null` when it has none (absent, `null` or `{}`).
   * The failout module parses the list items.
   */
  getFailoutProperties(cluster: string): FailoutPropertiesJson | null | undefined {
    const properties = this.clusterStore.get(cluster);
    return properties === undefined ? undefined : properties.failoutProperties;
  }

  /** Clusters followed and known (their listeners heard onClusterAdded), sorted. */
  knownClusters(): string[] {
    return [...this.clusters].filter(([, w]) => w.announced).map(([name]) => name).sort();
  }

  /** Store counters, including unreadable documents seen. */
  stats(): LoadBalancerStateStats {
    return { clusters: this.clusterStore.stats(), services: this.serviceStore.stats(), uris: this.uriStore.stats() };
  }

  /**
   * Stops everything: listeners hear `onClusterRemoved` for every known cluster (as in rest.li), all
   * watches close, and pending listenTo* calls reject with a `closed` D2Error. The session stays open
   * (it belongs to the caller). Safe to call twice.
   */
  shutdown(): void {
    if (this.lifecycle === 'shutdown') return;
    this.lifecycle = 'shutdown';
    for (const [cluster, watch] of this.clusters) {
      if (watch.announced) this.notify((l) => l.onClusterRemoved(cluster), cluster);
      watch.ready.open();
    }
    for (const watch of this.services.values()) watch.ready.open();
    this.clusters.clear();
    this.services.clear();
    this.listeners.clear();
    this.clusterStore.close();
    this.serviceStore.close();
    this.uriStore.close();
  }

  private assertRunning(): void {
    if (this.lifecycle === 'shutdown') throw new D2Error('closed', 'load balancer state is shut down');
  }

  /** Takes one hold on a cluster, starting its watches on the first. */
  private holdCluster(cluster: string): void {
    this.assertRunning();
    assertNodeName(cluster, 'cluster name');
    const existing = this.clusters.get(cluster);
    if (existing) {
      existing.holds++;
      return;
    }
    const watch: ClusterWatch = { holds: 1, propertiesLoaded: false, urisLoaded: false, announced: false, ready: gate(), unsubscribe: [] };
    // In the map before subscribing: a store may replay synchronously.
    this.clusters.set(cluster, watch);
    const current = (): boolean => this.clusters.get(cluster) === watch;
    const properties: PropertySubscriber<ClusterProperties> = {
      onInitialize: (_name, value) => {
        if (!current()) return;
        watch.propertiesLoaded = true;
        if (value) this.announce(cluster, watch);
        this.checkClusterReady(watch);
      },
      onAdd: () => {
        if (current()) this.announce(cluster, watch);
      },
      onRemove: () => {
        if (!current() || !watch.announced) return;
        watch.announced = false;
        this.notify((l) => l.onClusterRemoved(cluster), cluster);
      },
    };
    const uris: PropertySubscriber<MergedUriProperties> = {
      onInitialize: () => {
        if (!current()) return;
        watch.urisLoaded = true;
        this.checkClusterReady(watch);
      },
      onAdd: () => undefined,
      onRemove: () => undefined,
    };
    watch.unsubscribe.push(this.clusterStore.subscribe(cluster, properties), this.uriStore.subscribe(cluster, uris));
  }

  private announce(cluster: string, watch: ClusterWatch): void {
    watch.announced = true;
    this.notify((l) => l.onClusterAdded(cluster), cluster);
  }

  private checkClusterReady(watch: ClusterWatch): void {
    if (watch.propertiesLoaded && watch.urisLoaded) watch.ready.open();
  }

  private startService(service: string): ServiceWatch {
    const watch: ServiceWatch = { holds: 0, loaded: false, cluster: undefined, ready: gate(), unsubscribe: () => undefined };
    this.services.set(service, watch);
    const current = (): boolean => this.services.get(service) === watch;
    const follow = (value: ServiceProperties | undefined): void => {
      if (!current()) return;
      this.moveClusterHold(service, watch, value?.clusterName);
      watch.loaded = true;
      watch.ready.open();
    };
    watch.unsubscribe = this.serviceStore.subscribe(service, {
      onInitialize: (_name, value) => follow(value),
      onAdd: (_name, value) => follow(value),
      onRemove: () => follow(undefined),
    });
    return watch;
  }

  /** Points a service's cluster hold at `next` (undefined: none), releasing the previous one. */
  private moveClusterHold(service: string, watch: ServiceWatch, next: string | undefined): void {
    if (next === watch.cluster) return;
    const previous = watch.cluster;
    watch.cluster = undefined;
    if (next !== undefined) {
      try {
        this.holdCluster(next);
        watch.cluster = next;
      } catch (err) {
        // An empty or slash-bearing clusterName parses (rest.li accepts it) but names no cluster node.
        this.log.warn({ err, service, cluster: next }, 'service names a cluster that cannot exist');
      }
    }
    if (previous !== undefined) this.stopListenToCluster(previous);
  }

  private notify(call: (listener: LoadBalancerClusterListener) => void, cluster: string): void {
    for (const listener of [...this.listeners]) this.call(() => call(listener), cluster);
  }

  private call(fn: () => void, cluster: string): void {
    try {
      fn();
    } catch (err) {
      this.log.error({ err, cluster }, 'cluster listener threw');
    }
  }
}
