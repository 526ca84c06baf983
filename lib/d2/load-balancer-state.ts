import type { ZkWatcher } from '../zk';
import { createLogger, type Logger } from '../logging';
import { D2Error, type D2Entity } from './errors';
import type { ClusterProperties, FailoutProperties, MergedUriProperties, ServiceProperties } from './model';
import { assertNodeName, normalizeBasePath } from './paths';
import type { PropertyStoreStats, PropertySubscriber } from './property-store';
import { zooKeeperSources, type D2SourceFactory, type D2Sources } from './sources';
import type { UriStoreStats } from './uri-store';
import type { Lifecycle } from '../lifecycle';

/**
 * What changed about one followed cluster, as {@link LoadBalancerState} tells its cluster listeners:
 * - `properties`: a good value of the cluster's properties was loaded or written (every one, not only
 *   the first); `properties` is that value.
 * - `uris`: the cluster's announced hosts changed (a host came, went or changed weight); `uris` is the
 *   new merged snapshot, undefined when `<basePath>/uris/<cluster>` is gone.
 * - `removed`: the cluster's node was deleted, nobody follows it any more, or the state closes.
 * - `malformed`: a write of the cluster's properties could not be read (for a `$` name, a write of
 *   the node its links end at); the last good value stays in effect and no `properties` change
 *   follows (`error` says what is wrong).
 *
 * Each change carries the value, so a listener never reads the state back to guess what happened.
 */
export type ClusterChange =
  | {
      /** New properties. */
      readonly kind: 'properties';
      /** The cluster. */
      readonly cluster: string;
      /** The properties now in effect. */
      readonly properties: ClusterProperties;
    }
  | {
      /** New announced hosts. */
      readonly kind: 'uris';
      /** The cluster. */
      readonly cluster: string;
      /** The merged hosts now in effect; undefined when the cluster's URI node is gone. */
      readonly uris: MergedUriProperties | undefined;
    }
  | {
      /** The cluster is gone (deleted, unfollowed, or the state closed). */
      readonly kind: 'removed';
      /** The cluster. */
      readonly cluster: string;
      /**
       * Why: `deleted`, its node is gone; `unfollowed`, its last hold was released; `closed`, the state
       * is closing (told for every known cluster; nothing can be followed any more).
       */
      readonly reason: 'deleted' | 'unfollowed' | 'closed';
    }
  | {
      /** An unreadable write; the last good properties stay. */
      readonly kind: 'malformed';
      /** The cluster. */
      readonly cluster: string;
      /** Why the write could not be read. */
      readonly error: Error;
    };

/**
 * Hears what happens to followed clusters (rest.li `LoadBalancerClusterListener`, whose
 * `onClusterAdded(name)` made every listener read the state back and guess; URI changes were lost that
 * way). Calls are synchronous on the event loop, in the order the stores saw the changes; a listener
 * that throws is logged and does not stop the others.
 */
export interface LoadBalancerClusterListener {
  /** One change of one followed cluster; see {@link ClusterChange}. */
  onClusterChange(change: ClusterChange): void;
}

/** Options for {@link LoadBalancerState}. */
export interface LoadBalancerStateOptions {
  /**
   * The ZooKeeper session the stores read and watch through; shared, not owned (close leaves it open).
   * Required unless `sources` is given.
   */
  readonly session?: ZkWatcher;
  /**
   * Where the data comes from instead of ZooKeeper watches on `session`: `xdsSources(xdsClient)`
   * (rest.li's D2 over xDS), `dualReadSources(...)`, or any factory keeping the PropertySource
   * contract. The state builds its sources with it once and closes them when it closes.
   */
  readonly sources?: D2SourceFactory;
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
  /** Listeners heard `properties` and not `removed` since. */
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
 * ZooKeeper (or over xDS, or both: see {@link LoadBalancerStateOptions.sources}) on demand and answers
 * from memory.
 *
 * - `listenToCluster(name)` resolves once both the cluster's properties and its URIs are loaded, also
 *   when the cluster does not exist (its getters then return undefined). Calls are counted:
 *   `stopListenToCluster` releases one, and the watches stop (and the cached data is dropped) when the
 *   last is released — so a failout peer watch that is torn down cannot pull the data from under a
 *   service that started using the same cluster meanwhile (a race rest.li has).
 * - `listenToService(name)` resolves once the service is loaded and, if it exists, its cluster too; the
 *   service holds its cluster for as long as it is followed, and moves the hold when `clusterName` changes.
 * - Cluster listeners registered late hear the `properties` and `uris` of every cluster already known, at once
 *   (rest.li replays nothing).
 * - Unreadable documents never replace good ones (see `ZooKeeperPropertyStore`).
 *
 * Concurrency: all state changes on the event loop, from store callbacks and public calls.
 */
export class LoadBalancerState {
  private readonly clusterStore: D2Sources['clusters'];
  private readonly serviceStore: D2Sources['services'];
  private readonly uriStore: D2Sources['uris'];
  private readonly clusters = new Map<string, ClusterWatch>();
  private readonly services = new Map<string, ServiceWatch>();
  /**
   * Replaced, never changed, when a listener comes or goes: a notification iterates the list it started
   * with and skips a listener removed meanwhile, with no copy per change.
   */
  private listeners: readonly LoadBalancerClusterListener[] = [];
  private readonly log: Logger;
  private lifecycle: Lifecycle = 'running';
  private changes = 0;
  /** The normalized base path (for callers that build paths next to ours). */
  readonly basePath: string;
  /** The sources' {@link D2Sources.whenFresh} (ZooKeeper's; absent over xDS). */
  private readonly fresh: (() => Promise<void> | undefined) | undefined;

  /**
   * Bumped on every change of any followed cluster's properties or URIs (and when one is released):
   * while it stays the same, everything derived from clusters (host counts, selections) still holds,
   * so hot paths compare one number instead of looking the data up again.
   */
  get version(): number {
    return this.changes;
  }

  constructor(options: LoadBalancerStateOptions) {
    this.log = options.logger ?? createLogger('d2-state');
    this.basePath = normalizeBasePath(options.basePath);
    const report = options.onMalformed;
    const factory = options.sources ?? (options.session ? zooKeeperSources(options.session) : undefined);
    if (!factory) throw new TypeError('LoadBalancerState needs a ZooKeeper `session` or `sources`');
    const tellMalformed = (entity: D2Entity, name: string, error: Error): void => {
      if (entity === 'cluster' && this.clusters.has(name)) this.notify({ kind: 'malformed', cluster: name, error });
    };
    const sources = factory({
      basePath: this.basePath,
      onMalformed: (entity, name, error) => {
        report?.(entity, name, error);
        tellMalformed(entity, name, error);
      },
      // The same document under a `$` name that follows it: told, not reported or counted again.
      onLinkedMalformed: tellMalformed,
      logger: this.log,
    });
    this.clusterStore = sources.clusters;
    this.serviceStore = sources.services;
    this.uriStore = sources.uris;
    this.fresh = sources.whenFresh;
  }

  /**
   * Follows a cluster's properties and URIs; resolves once both are loaded (also for a cluster that
   * does not exist). Each call takes one hold; see {@link stopListenToCluster}.
   * @throws D2Error `closed` after close; `malformed` for a name that is not a znode name.
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
    this.changes++;
    for (const unsubscribe of watch.unsubscribe) unsubscribe();
    watch.ready.open();
    if (watch.announced) this.notify({ kind: 'removed', cluster, reason: 'unfollowed' });
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
   * After the ZooKeeper session was replaced (expiry): resolves once everything followed has been read
   * again on the new session; undefined otherwise (and over xDS). rest.li rebuilds its whole load
   * balancer on expiry, so a request made once the session is back sees what ZooKeeper holds now — a
   * failout or restore written while the session was expired included; callers that route wait on it.
   */
  whenFresh(): Promise<void> | undefined {
    return this.fresh?.();
  }

  /**
   * Resolves when a followed cluster that is still loading has loaded (or is released); undefined when
   * it is loaded already or nobody follows it. Takes no hold: for callers that wait on somebody else's.
   */
  whenClusterLoaded(cluster: string): Promise<void> | undefined {
    const watch = this.clusters.get(cluster);
    if (!watch || (watch.propertiesLoaded && watch.urisLoaded)) return undefined;
    return watch.ready.promise;
  }

  /**
   * Follows a service; resolves once it is loaded and, when it exists, its cluster and URIs too.
   * Each call takes one hold; see {@link stopListenToService}.
   * @throws D2Error `closed` after close; `malformed` for a name that is not a znode name.
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
   * Adds a cluster listener and, at once, tells it the `properties` (and the `uris`, when it has
   * announced hosts) of every cluster already known (rest.li replays nothing, so a late listener missed them). Registering
   * the same listener twice is a no-op. Returns the unregister function.
   */
  registerClusterListener(listener: LoadBalancerClusterListener): () => void {
    if (!this.listeners.includes(listener)) {
      this.listeners = [...this.listeners, listener];
      for (const [cluster, watch] of this.clusters) {
        const properties = this.clusterStore.get(cluster);
        if (!watch.announced || properties === undefined) continue;
        this.call(listener, { kind: 'properties', cluster, properties });
        // As the live path: `uris` only for a cluster that has announced hosts.
        const uris = watch.urisLoaded ? this.uriStore.get(cluster) : undefined;
        if (uris !== undefined) this.call(listener, { kind: 'uris', cluster, uris });
      }
    }
    return () => this.unregisterClusterListener(listener);
  }

  /** Removes a cluster listener (it hears no `removed` changes). */
  unregisterClusterListener(listener: LoadBalancerClusterListener): void {
    this.listeners = this.listeners.filter((l) => l !== listener);
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
   * The cluster's typed `failoutProperties` from its last good document (the codec validated them):
   * undefined when the cluster is not known (not followed, absent or never readable), `null` when it has
   * none (absent, `null` or `{}`). A malformed failout makes its document unreadable, so the last good
   * value stays in effect.
   */
  getFailoutProperties(cluster: string): FailoutProperties | null | undefined {
    const properties = this.clusterStore.get(cluster);
    return properties === undefined ? undefined : properties.failoutProperties;
  }

  /** Clusters followed and known (their listeners heard `properties` and not `removed` since), sorted. */
  knownClusters(): string[] {
    return [...this.clusters].filter(([, w]) => w.announced).map(([name]) => name).sort();
  }

  /** Store counters, including unreadable documents seen. */
  stats(): LoadBalancerStateStats {
    return { clusters: this.clusterStore.stats(), services: this.serviceStore.stats(), uris: this.uriStore.stats() };
  }

  /**
   * Stops everything: listeners hear `removed` for every known cluster (as in rest.li), all
   * watches close, and pending listenTo* calls reject with a `closed` D2Error. The session stays open
   * (it belongs to the caller). Safe to call twice.
   */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const [cluster, watch] of this.clusters) {
      if (watch.announced) this.notify({ kind: 'removed', cluster, reason: 'closed' });
      watch.ready.open();
    }
    for (const watch of this.services.values()) watch.ready.open();
    this.clusters.clear();
    this.services.clear();
    this.listeners = [];
    this.clusterStore.close();
    this.serviceStore.close();
    this.uriStore.close();
  }

  private assertRunning(): void {
    if (this.lifecycle === 'closed') throw new D2Error('closed', 'load balancer state is shut down');
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
        this.changes++;
        watch.propertiesLoaded = true;
        if (value) this.announce(cluster, watch, value);
        this.checkClusterReady(watch);
      },
      onAdd: (_name, value) => {
        if (!current()) return;
        this.changes++;
        this.announce(cluster, watch, value);
      },
      onRemove: () => {
        if (!current()) return;
        this.changes++;
        if (!watch.announced) return;
        watch.announced = false;
        this.notify({ kind: 'removed', cluster, reason: 'deleted' });
      },
    };
    // Every URI change is told: a failout peer parked without hosts must hear its first host arrive.
    const urisChanged = (value: MergedUriProperties | undefined): void => {
      if (!current()) return;
      this.changes++;
      if (watch.urisLoaded) this.notify({ kind: 'uris', cluster, uris: value });
    };
    const uris: PropertySubscriber<MergedUriProperties> = {
      onInitialize: (_name, value) => {
        if (!current()) return;
        this.changes++;
        watch.urisLoaded = true;
        if (value) urisChanged(value);
        this.checkClusterReady(watch);
      },
      onAdd: (_name, value) => urisChanged(value),
      onRemove: () => urisChanged(undefined),
    };
    watch.unsubscribe.push(this.clusterStore.subscribe(cluster, properties), this.uriStore.subscribe(cluster, uris));
  }

  private announce(cluster: string, watch: ClusterWatch, properties: ClusterProperties): void {
    watch.announced = true;
    this.notify({ kind: 'properties', cluster, properties });
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

  private notify(change: ClusterChange): void {
    // The list as it was when the change came; `includes` asks the list now (a listener may unregister another).
    for (const listener of this.listeners) if (this.listeners.includes(listener)) this.call(listener, change);
  }

  private call(listener: LoadBalancerClusterListener, change: ClusterChange): void {
    try {
      listener.onClusterChange(change);
    } catch (err) {
      this.log.error({ err, cluster: change.cluster, change: change.kind }, 'cluster listener threw');
    }
  }
}
