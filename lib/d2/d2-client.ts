import { Pool, type Dispatcher } from 'undici';
import { forEachLimit } from '../concurrency';
import { createLogger, type Logger } from '../logging';
import { rewriteD2Uri } from './codecs/uri-rewrite';
import { eligibleHosts, type Host } from './eligible-hosts';
import { isPartitioned, partitionOf } from './partitions';
import { D2Error } from './errors';
import type { ClusterChange, LoadBalancerState } from './load-balancer-state';
import type { ClusterProperties, MergedUriProperties, ServiceProperties } from './model';
import { WeightedRoundRobin } from './weighted-round-robin';
import type { Lifecycle } from '../lifecycle';
import { outcomeOf } from '../metrics';
import type { Registry } from 'prom-client';
import { D2RequestMetrics } from './request-metrics';

/** Options of one request: undici's `request` options without the parts D2 decides. */
export type D2RequestInit = Omit<Dispatcher.RequestOptions, 'origin' | 'path' | 'method' | 'opaque'> & {
  /** Default `GET`. */
  method?: Dispatcher.HttpMethod;
};

/** Where a `d2://` URL went: the chosen host and the URL sent to it. */
export interface D2Target {
  /** The service named by the `d2://` URL. */
  readonly service: string;
  /** The cluster the host was chosen from: the service's own, or the one given (e.g. a failout peer). */
  readonly cluster: string;
  /** The announced URI of the chosen host, e.g. `http://10.0.0.7:8080`. */
  readonly host: string;
  /** The full target URL (host + service path + request path and query), rest.li `D2URIRewriter`. */
  readonly url: string;
  /** `scheme://host:port` of the pool the request goes through. */
  readonly origin: string;
  /** Path and query sent on the wire (the URL minus origin and fragment). */
  readonly path: string;
}

/** undici's response (status, headers, body, trailers) plus where it came from. Consume or dump `body`. */
export type D2Response = Dispatcher.ResponseData & {
  /** The host chosen and the URL sent to it. */
  readonly target: D2Target;
};

/** Options for {@link D2Client.warmUp}. */
export interface WarmUpOptions {
  /** Announced URIs of the hosts to warm (others are left alone); default every host of the cluster. */
  readonly hosts?: readonly string[];
  /** Path requested on each host, appended to its announced URI. Default `/`. */
  readonly path?: string;
  /** Deadline for the whole warm-up; requests still open then are aborted and count as failed. Default 5 s. */
  readonly timeoutMs?: number;
  /** Hosts warmed at the same time. Default 16. */
  readonly concurrency?: number;
  /** Connections opened per host (that many requests in flight at once on its pool). Default 1. */
  readonly connectionsPerHost?: number;
}

/** What a warm-up did. Failures are counted, never thrown: a warm-up must not fail a failout. */
export interface WarmUpResult {
  /** The cluster warmed up. */
  readonly cluster: string;
  /** Hosts warmed: those with weight above zero, not banned, with an http or https URI (and among `hosts`, when given); 0 for an unknown cluster. */
  readonly hosts: number;
  /** Requests that got a response (any status: the connection is open). */
  readonly succeeded: number;
  /** Requests that failed or hit the deadline. */
  readonly failed: number;
  /** Wall time of the whole warm-up, including loading the cluster, in milliseconds. */
  readonly durationMs: number;
}

/**
 * Picks the cluster of a request once its service is known (a `FailoutClient` redirecting a failed-out
 * cluster's requests). D2Client calls it between its one service lookup and its host pick, so a
 * routed request parses its URL and looks its service up once.
 */
export interface ClusterRouter {
  /**
   * The cluster the request goes to: undefined (or the service's own cluster) keeps it; a promise
   * while the decision waits for discovery data. Throwing (or rejecting) fails the request.
   * @param service - the service named by the URL.
   * @param properties - its properties; its own cluster (`clusterName`) is loaded.
   * @param url - the `d2://` URL as given.
   * @param key - the caller's routing key, passed through.
   */
  route(service: string, properties: ServiceProperties, url: string, key: string | undefined): string | undefined | Promise<string | undefined>;
}

/** Options for {@link D2Client}. */
export interface D2ClientOptions {
  /** Where discovery data comes from; shared, not owned (close it yourself after the client). */
  readonly state: LoadBalancerState;
  /** Options for every per-host undici Pool. */
  readonly poolOptions?: Pool.Options;
  /** How long a call waits for a service or cluster to load from ZooKeeper. Default 10 s. */
  readonly discoveryTimeoutMs?: number;
  /** Randomness for each host rotation's starting point; default `Math.random` (see WeightedRoundRobin). */
  readonly random?: () => number;
  /** How long `close()` lets in-flight requests finish before destroying pools. Default 1 s. */
  readonly closeGraceMs?: number;
  /**
   * A cluster that nobody followed when a request was routed to it (`requestToCluster`, a router's
   * choice) is followed by the client itself until no request has gone there for this long. Default
   * 60 s (rest.li's peer watch teardown delay). A cluster somebody else follows, such as a failout
   * peer that its manager watches, is used without a hold of the client's own, so the client never
   * keeps a failout's peer watch alive after the failout ends.
   */
  readonly borrowedClusterIdleMs?: number;
  /** Default a `d2-client` logger from `createLogger`. */
  readonly logger?: Logger;
  /**
   * Where the per-target request metrics register (lib/metrics `request-metrics.ts`: requests by
   * cluster and outcome, time to headers by cluster); default none. `buildD2Client` passes its registry.
   */
  readonly registry?: Registry;
}


/** One cluster's candidates for one scheme preference, valid while the state hands out the same objects. */
interface Selection {
  readonly uris: MergedUriProperties | undefined;
  readonly cluster: ClusterProperties | undefined;
  readonly schemes: readonly string[];
  /** Every host by its own weight (partition 0, else its lowest): what an unpartitioned cluster picks from, and host counts. */
  readonly rotation: WeightedRoundRobin<Host>;
  /** A RANGE or HASH cluster's hosts per partition id, built when a request first goes to that partition. */
  readonly partitions: Map<number, WeightedRoundRobin<Host>>;
}

/** A hold the client took on a cluster nobody else followed, and when a request last went there. */
interface BorrowedCluster {
  readonly load: Promise<void>;
  lastUsed: number;
  timer: NodeJS.Timeout | undefined;
}

const NO_SCHEMES: readonly string[] = Object.freeze([]);

/**
 * Sends `d2://<service>/<path>` requests: service → its cluster (or a given cluster) → a host by
 * smooth weighted round robin over the URIs with weight above zero → HTTP through one undici Pool per
 * host origin (rest.li `SimpleLoadBalancer#getClient` + `D2URIRewriter`, without degrader).
 *
 * - Hosts: the merged URIs' weight (partition 0, else the lowest partition), minus the cluster's
 *   `bannedUris`; the service's `prioritizedSchemes` are tried in order and the first with a host wins
 *   (none listed: http and https). Only http and https hosts are sendable.
 * - A RANGE or HASH partitioned cluster (`partitionProperties`) sends a request only to the hosts of
 *   its partition, weighted by their weight there: the partition comes from the request URL by
 *   `partitionKeyRegex` (`partitions.ts`; partition 0 when it cannot be told), as rest.li's
 *   `PartitionAccessor` does. A redirected request takes the partition of the cluster it goes to.
 * - Errors: `D2Error` `malformed` (not a d2 URL), `unknownService`, `unknownCluster` (no readable
 *   cluster properties), `noHosts`, `closed`; `discoveryTimeout` when discovery data does not load in
 *   `discoveryTimeoutMs`. HTTP statuses are returned, not thrown.
 * - A service the client touched stays followed (one hold each) until `close()`; its cluster is held by
 *   the service. Another cluster a request was routed to is followed only while nobody else does, and
 *   released after `borrowedClusterIdleMs` without requests (see {@link D2ClientOptions}).
 *
 * Concurrency: all on the event loop; selections are rebuilt lazily when the state hands out a new URI
 * or cluster object, and pools of hosts no selection uses any more are closed gracefully, also when
 * a cluster stops being followed (a failout peer after its watch teardown).
 */
export class D2Client {
  private readonly state: LoadBalancerState;
  private readonly log: Logger;
  private readonly discoveryTimeoutMs: number;
  private readonly random: () => number;
  private readonly pools = new Map<string, Pool>();
  /** Selections by scheme list (joined) and cluster. */
  private readonly selections = new Map<string, Map<string, Selection>>();
  /** The same inner maps by the scheme array's identity: stable for as long as a service object is, so no key is built per request. */
  private readonly selectionsBySchemes = new WeakMap<readonly string[], Map<string, Selection>>();
  /** {@link hostCount}'s answers by scheme array and cluster, with the state version they hold for. */
  private readonly hostCounts = new WeakMap<readonly string[], Map<string, { version: number; count: number }>>();
  private readonly serviceLoads = new Map<string, Promise<void>>();
  /** Clusters this client follows itself because nobody else did when a request was routed there. */
  private readonly borrowed = new Map<string, BorrowedCluster>();
  private readonly borrowedIdleMs: number;
  /** Clusters warmed by this client: their pools stay open while the state still lists their hosts. */
  private readonly warmed = new Set<string>();
  private lifecycle: Lifecycle = 'running';
  /** Per-target request metrics, when a registry was given. */
  private readonly metrics: D2RequestMetrics | undefined;
  /** Unregisters the listener that hears a cluster nobody follows any more (see {@link forgetCluster}). */
  private readonly unlisten: () => void;
  /** The cluster whose warm-up hold {@link warmUp} is releasing right now (its `removed` is its own doing). */
  private releasingWarmUpHold: string | undefined;

  constructor(private readonly options: D2ClientOptions) {
    this.state = options.state;
    this.log = options.logger ?? createLogger('d2-client');
    this.discoveryTimeoutMs = options.discoveryTimeoutMs ?? 10_000;
    this.random = options.random ?? Math.random;
    this.borrowedIdleMs = Math.max(0, options.borrowedClusterIdleMs ?? 60_000);
    this.metrics = options.registry === undefined ? undefined : new D2RequestMetrics(options.registry);
    this.unlisten = this.state.registerClusterListener({
      onClusterChange: (change: ClusterChange) => {
        if (change.kind === 'removed') this.forgetCluster(change.cluster);
      },
    });
  }

  /** Sends a request for `d2://<service>/<path>` to a host of the service's cluster. */
  async request(url: string | URL, init: D2RequestInit = {}): Promise<D2Response> {
    return this.send(await this.resolveRouted(url, undefined, undefined), init);
  }

  /** Sends a request for `d2://<service>/<path>` to a host of `cluster`, keeping the service's path. */
  async requestToCluster(cluster: string, url: string | URL, init: D2RequestInit = {}): Promise<D2Response> {
    return this.send(await this.resolveInCluster(cluster, url), init);
  }

  /** Sends a request to the cluster `router` picks (see {@link ClusterRouter}); `key` is passed to it. */
  async requestRouted(url: string | URL, init: D2RequestInit, router: ClusterRouter, key: string | undefined): Promise<D2Response> {
    return this.send(await this.resolveRouted(url, router, key), init);
  }

  /** Chooses the host a request would go to, without sending; advances the rotation like a request. */
  resolve(url: string | URL): Promise<D2Target> {
    return this.resolveRouted(url, undefined, undefined);
  }

  /** Like {@link resolve}, for a given cluster instead of the service's own. */
  async resolveInCluster(cluster: string, url: string | URL): Promise<D2Target> {
    const d2 = parseD2Url(url);
    const fresh = this.state.whenFresh();
    if (fresh !== undefined) await this.settled(fresh);
    const service = this.loadedService(d2.service) ?? (await this.serviceProperties(d2.service));
    await this.useCluster(cluster);
    return this.pick(d2.service, service, cluster, d2.text);
  }

  /**
   * Like {@link resolve}, with the cluster chosen by `router` (undefined: the service's own). The URL
   * is parsed and the service looked up once, for the router and the host pick alike.
   */
  async resolveRouted(url: string | URL, router: ClusterRouter | undefined, key: string | undefined): Promise<D2Target> {
    const d2 = parseD2Url(url);
    // Just after a new ZooKeeper session, decide on what was read on it (see LoadBalancerState.whenFresh).
    const fresh = this.state.whenFresh();
    if (fresh !== undefined) await this.settled(fresh);
    // Synchronous when everything is loaded: no extra awaits on the hot path.
    const service = this.loadedService(d2.service) ?? (await this.serviceProperties(d2.service));
    const own = service.clusterName;
    // The router decides on the own cluster's properties (its failout), so they are loaded first.
    if (!this.state.isClusterLoaded(own)) await this.ownClusterLoaded(own);
    if (router === undefined) return this.pick(d2.service, service, own, d2.text);
    let chosen = router.route(d2.service, service, d2.text, key);
    if (typeof chosen === 'object') chosen = await chosen;
    if (chosen === undefined || chosen === own) return this.pick(d2.service, service, own, d2.text);
    // A host in the chosen cluster means its data is loaded and followed (the failout manager's peer
    // watch): pick at once. Otherwise make it usable (borrowing a hold if nobody follows it) and pick.
    const selection = this.selection(chosen, service.prioritizedSchemes);
    const host = selection.cluster === undefined ? undefined : this.rotationFor(selection, d2.text).next();
    if (host !== undefined) {
      if (this.borrowed.size !== 0) this.touchBorrowed(chosen);
      return this.target(d2.service, service, chosen, d2.text, host);
    }
    const used = this.useCluster(chosen);
    if (used !== undefined) await used;
    return this.pick(d2.service, service, chosen, d2.text);
  }

  /**
   * Hosts of `cluster` a request with these `schemes` (a service's `prioritizedSchemes`) could go to:
   * the same rules, and the same cached selection, as the host pick. 0 when the cluster is unknown.
   * With `url` (the request's `d2://` URL), a RANGE or HASH partitioned cluster counts only the hosts
   * of the partition that request would go to there.
   */
  hostCount(cluster: string, schemes: readonly string[] = NO_SCHEMES, url?: string): number {
    if (url !== undefined) {
      const selection = this.selection(cluster, schemes);
      const partitioning = selection.cluster?.partitionProperties;
      if (partitioning !== undefined && isPartitioned(partitioning)) return this.rotationFor(selection, url).size;
    }
    // Asked for every peer of every redirected request: while the state's version holds, the last
    // answer does, with no lookup of the cluster's data.
    const counts = this.hostCountsFor(schemes);
    const version = this.state.version;
    const cached = counts.get(cluster);
    if (cached !== undefined && cached.version === version) return cached.count;
    const count = this.selection(cluster, schemes).rotation.size;
    if (cached !== undefined) {
      cached.version = version;
      cached.count = count;
    } else {
      counts.set(cluster, { version, count });
    }
    return count;
  }

  /**
   * Opens connections to every host of `cluster` (or those of `hosts`) ahead of traffic, through the pools requests use:
   * `connectionsPerHost` concurrent GETs of `path` per host, `concurrency` hosts at a time, all within
   * `timeoutMs`. An unknown or empty cluster warms nothing; once the client is closed, hosts not yet
   * warmed are not (they count as failed).
   */
  async warmUp(cluster: string, options: WarmUpOptions = {}): Promise<WarmUpResult> {
    this.assertOpen();
    const started = performance.now();
    const deadline = AbortSignal.timeout(options.timeoutMs ?? 5_000);
    const listening = this.state.listenToCluster(cluster);
    try {
      await this.withTimeout(listening, `cluster ${cluster}`);
      const only = options.hosts === undefined ? undefined : new Set(options.hosts);
      const hosts = eligibleHosts(this.state.getUris(cluster), this.state.getClusterProperties(cluster), [])
        .map((h) => h.item)
        .filter((host) => only === undefined || only.has(host.uri));
      if (hosts.length > 0) this.warmed.add(cluster);
      const perHost = Math.max(1, options.connectionsPerHost ?? 1);
      const counts = { succeeded: 0, failed: 0 };
      const warmHost = async (host: Host): Promise<void> => {
        const path = joinPath(host.uri.slice(host.prefixLength), options.path ?? '/');
        const results = await Promise.all(Array.from({ length: perHost }, () => this.warmOne(host, path, deadline)));
        for (const ok of results) counts[ok ? 'succeeded' : 'failed']++;
      };
      await forEachLimit(hosts, Math.max(1, options.concurrency ?? 16), warmHost);
      return { cluster, hosts: hosts.length, ...counts, durationMs: performance.now() - started };
    } finally {
      // The warm-up's own hold: releasing it must not close the pools it just warmed for the traffic
      // to come (a cluster nobody follows yet keeps them, see `warmed`).
      this.releasingWarmUpHold = cluster;
      try {
        this.state.stopListenToCluster(cluster);
      } finally {
        this.releasingWarmUpHold = undefined;
      }
    }
  }

  /** Open pools by origin (for tests and metrics). */
  poolOrigins(): string[] {
    return [...this.pools.keys()];
  }

  /**
   * Releases every service and cluster hold, then closes the pools, letting in-flight requests finish
   * for `closeGraceMs` before destroying them. Safe to call twice; the state stays open.
   */
  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.unlisten();
    for (const service of this.serviceLoads.keys()) this.state.stopListenToService(service);
    for (const [cluster, borrowed] of this.borrowed) {
      clearTimeout(borrowed.timer);
      this.state.stopListenToCluster(cluster);
    }
    this.serviceLoads.clear();
    this.borrowed.clear();
    this.selections.clear();
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => closePool(pool, this.options.closeGraceMs ?? 1_000)));
  }

  private async send(target: D2Target, init: D2RequestInit): Promise<D2Response> {
    this.assertOpen();
    const { method = 'GET', ...rest } = init;
    const metrics = this.metrics;
    if (metrics === undefined) return Object.assign(await this.pool(target.origin).request({ ...rest, method, path: target.path }), { target });
    const started = performance.now();
    let response: Dispatcher.ResponseData;
    try {
      response = await this.pool(target.origin).request({ ...rest, method, path: target.path });
    } catch (err) {
      metrics.record(target.cluster, 'error', (performance.now() - started) / 1000);
      throw err;
    }
    metrics.record(target.cluster, outcomeOf(response.statusCode), (performance.now() - started) / 1000);
    return Object.assign(response, { target });
  }

  private async warmOne(host: Host, path: string, deadline: AbortSignal): Promise<boolean> {
    // A closed client opens nothing: a pool made now would outlive close() with its connections.
    if (deadline.aborted || this.lifecycle === 'closed') return false;
    try {
      const response = await this.pool(host.origin).request({ method: 'GET', path, signal: deadline });
      await response.body.dump();
      return true;
    } catch (err) {
      this.log.debug({ err, host: host.uri }, 'warm-up request failed');
      return false;
    }
  }

  /** The service's properties when this client follows it and it is loaded; undefined to take the slow path. */
  private loadedService(service: string): ServiceProperties | undefined {
    if (this.lifecycle !== 'running' || !this.serviceLoads.has(service) || !this.state.isServiceLoaded(service)) return undefined;
    const properties = this.state.getServiceProperties(service);
    if (!properties) throw new D2Error('unknownService', `unknown service ${JSON.stringify(service)}`);
    return properties;
  }

  /** The service's properties, following it (once per client) and waiting for it when not loaded. */
  private async serviceProperties(service: string): Promise<ServiceProperties> {
    this.assertOpen();
    let load = this.serviceLoads.get(service);
    if (!load) {
      load = this.state.listenToService(service);
      // Registered before awaiting: a second caller waits on the same load, and close() releases it.
      this.serviceLoads.set(service, load);
      load.catch(() => undefined);
    }
    if (!this.state.isServiceLoaded(service)) await this.withTimeout(load, `service ${service}`);
    const properties = this.state.getServiceProperties(service);
    if (!properties) throw new D2Error('unknownService', `unknown service ${JSON.stringify(service)}`);
    return properties;
  }

  /** Waits for `pending`, at most `discoveryTimeoutMs`; then goes on with what is known. */
  private async settled(pending: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.discoveryTimeoutMs)));
    await Promise.race([pending, late]).finally(() => clearTimeout(timer));
  }

  /**
   * Waits (bounded) for the service's own cluster, which the service's hold keeps followed. A cluster
   * that is not followed (a `clusterName` that cannot name a node) reads as unknown in the pick.
   */
  private async ownClusterLoaded(cluster: string): Promise<void> {
    const loading = this.state.whenClusterLoaded(cluster);
    if (loading !== undefined) await this.withTimeout(loading, `cluster ${cluster}`);
  }

  /**
   * Makes `cluster` usable for a request: at once (undefined) when loaded, marking a borrowed hold as
   * used; otherwise borrows a hold (released after `borrowedClusterIdleMs` without use) and waits for it.
   */
  private useCluster(cluster: string): Promise<void> | undefined {
    const borrowed = this.touchBorrowed(cluster);
    if (this.state.isClusterLoaded(cluster)) return undefined;
    if (borrowed !== undefined) return this.withTimeout(borrowed.load, `cluster ${cluster}`);
    return this.borrow(cluster);
  }

  /** Marks a borrowed hold on `cluster` as used now; returns it (undefined when the cluster is not borrowed). */
  private touchBorrowed(cluster: string): BorrowedCluster | undefined {
    const borrowed = this.borrowed.size === 0 ? undefined : this.borrowed.get(cluster);
    if (borrowed !== undefined) borrowed.lastUsed = performance.now();
    return borrowed;
  }

  private borrow(cluster: string): Promise<void> {
    this.assertOpen();
    const load = this.state.listenToCluster(cluster);
    load.catch(() => undefined);
    // listenToCluster takes its hold synchronously or none at all (bad name, closed state).
    if (this.state.isListeningToCluster(cluster)) {
      const borrowed: BorrowedCluster = { load, lastUsed: performance.now(), timer: undefined };
      this.borrowed.set(cluster, borrowed);
      // Counted from the load's end: a slow load must not be released before its first pick.
      const schedule = (): void => {
        if (this.borrowed.get(cluster) !== borrowed) return;
        borrowed.lastUsed = performance.now();
        this.scheduleReturn(cluster, borrowed);
      };
      load.then(schedule, schedule);
    }
    return this.withTimeout(load, `cluster ${cluster}`);
  }

  /** Releases a borrowed hold once it has gone `borrowedClusterIdleMs` without use. */
  private scheduleReturn(cluster: string, borrowed: BorrowedCluster): void {
    const idleFor = performance.now() - borrowed.lastUsed;
    borrowed.timer = setTimeout(
      () => {
        if (this.borrowed.get(cluster) !== borrowed) return;
        if (performance.now() - borrowed.lastUsed < this.borrowedIdleMs) {
          this.scheduleReturn(cluster, borrowed);
          return;
        }
        this.borrowed.delete(cluster);
        this.state.stopListenToCluster(cluster);
      },
      Math.max(0, this.borrowedIdleMs - idleFor),
    );
    borrowed.timer.unref();
  }

  private pick(serviceName: string, service: ServiceProperties, cluster: string, d2Url: string): D2Target {
    const selection = this.selection(cluster, service.prioritizedSchemes);
    if (!selection.cluster) throw new D2Error('unknownCluster', `unknown cluster ${JSON.stringify(cluster)} (service ${serviceName})`);
    const host = this.rotationFor(selection, d2Url).next();
    if (!host) {
      const partition = isPartitioned(selection.cluster.partitionProperties) ? ` in partition ${partitionOf(selection.cluster.partitionProperties, d2Url)}` : '';
      throw new D2Error('noHosts', `cluster ${JSON.stringify(cluster)} has no hosts${partition} for service ${JSON.stringify(serviceName)}`);
    }
    return this.target(serviceName, service, cluster, d2Url, host);
  }

  /** The rotation a request for `d2Url` picks from: its partition's in a RANGE or HASH cluster, else every host's. */
  private rotationFor(selection: Selection, d2Url: string): WeightedRoundRobin<Host> {
    const partitioning = selection.cluster?.partitionProperties;
    if (partitioning === undefined || !isPartitioned(partitioning)) return selection.rotation;
    const partition = partitionOf(partitioning, d2Url);
    let rotation = selection.partitions.get(partition);
    if (rotation === undefined) {
      rotation = new WeightedRoundRobin(eligibleHosts(selection.uris, selection.cluster, selection.schemes, partition), { random: this.random });
      selection.partitions.set(partition, rotation);
    }
    return rotation;
  }

  /** The target of a request sent to `host` (rest.li `D2URIRewriter`). */
  private target(serviceName: string, service: ServiceProperties, cluster: string, d2Url: string, host: Host): D2Target {
    const url = rewriteD2Uri(host.uri, service.path, d2Url);
    const hash = url.indexOf('#', host.prefixLength);
    const path = url.slice(host.prefixLength, hash < 0 ? undefined : hash);
    return { service: serviceName, cluster, host: host.uri, url, origin: host.origin, path: path === '' ? '/' : path };
  }

  private hostCountsFor(schemes: readonly string[]): Map<string, { version: number; count: number }> {
    let counts = this.hostCounts.get(schemes);
    if (counts === undefined) this.hostCounts.set(schemes, (counts = new Map()));
    return counts;
  }

  private selection(cluster: string, schemes: readonly string[]): Selection {
    let byCluster = this.selectionsBySchemes.get(schemes);
    if (byCluster === undefined) {
      const key = schemes.join(',');
      byCluster = this.selections.get(key);
      if (byCluster === undefined) this.selections.set(key, (byCluster = new Map()));
      this.selectionsBySchemes.set(schemes, byCluster);
    }
    const uris = this.state.getUris(cluster);
    const properties = this.state.getClusterProperties(cluster);
    const cached = byCluster.get(cluster);
    if (cached && cached.uris === uris && cached.cluster === properties) return cached;
    const hosts = eligibleHosts(uris, properties, schemes);
    const rotation = new WeightedRoundRobin(hosts, { random: this.random });
    const selection: Selection = { uris, cluster: properties, schemes, rotation, partitions: new Map() };
    byCluster.set(cluster, selection);
    if (cached) this.prunePools();
    return selection;
  }

  private pool(origin: string): Pool {
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, this.options.poolOptions);
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /**
   * A cluster is gone from the state (nobody follows it any more, e.g. a failout's peer after its
   * watch teardown, or its node was deleted): its cached selections would otherwise keep its hosts'
   * pools, and their connections, open for good, since nothing asks for the cluster again. Pools that
   * another followed cluster's selection still offers stay.
   */
  private forgetCluster(cluster: string): void {
    if (this.lifecycle !== 'running' || cluster === this.releasingWarmUpHold) return;
    let forgot = this.warmed.delete(cluster);
    for (const byCluster of this.selections.values()) forgot = byCluster.delete(cluster) || forgot;
    if (forgot) this.prunePools();
  }

  /** Closes (gracefully) the pools of hosts that neither a selection nor a warmed cluster offers any more. */
  private prunePools(): void {
    const used = new Set<string>();
    for (const byCluster of this.selections.values()) {
      for (const selection of byCluster.values()) {
        for (const host of selection.rotation.candidates()) used.add(host.origin);
        for (const rotation of selection.partitions.values()) for (const host of rotation.candidates()) used.add(host.origin);
      }
    }
    for (const cluster of this.warmed) {
      // Warm connections wait for traffic that has not arrived yet (a failout about to start).
      const hosts = eligibleHosts(this.state.getUris(cluster), this.state.getClusterProperties(cluster), []);
      if (hosts.length === 0) this.warmed.delete(cluster);
      for (const host of hosts) used.add(host.item.origin);
    }
    for (const [origin, pool] of this.pools) {
      if (used.has(origin)) continue;
      this.pools.delete(origin);
      pool.close().catch((err: unknown) => this.log.warn({ err, origin }, 'closing an unused pool failed'));
    }
  }

  private withTimeout(load: Promise<void>, what: string): Promise<void> {
    const ms = this.discoveryTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new D2Error('discoveryTimeout', `${what} not loaded by D2 discovery within ${ms} ms`)), ms);
    });
    return Promise.race([load, timeout]).finally(() => clearTimeout(timer));
  }

  private assertOpen(): void {
    if (this.lifecycle === 'closed') throw new D2Error('closed', 'D2 client is closed');
  }
}

/** Splits `d2://<service>[/path][?query][#fragment]`; the service is the authority (rest.li). */
function parseD2Url(url: string | URL): { service: string; text: string } {
  const text = typeof url === 'string' ? url : url.href;
  if (!/^d2:\/\//i.test(text)) throw new D2Error('malformed', `not a d2:// URL: ${JSON.stringify(text)}`);
  let end = 5;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (c === 0x2f /* / */ || c === 0x3f /* ? */ || c === 0x23 /* # */) break;
    end++;
  }
  if (end === 5) throw new D2Error('malformed', `d2 URL without a service name: ${JSON.stringify(text)}`);
  return { service: text.slice(5, end), text };
}


function joinPath(base: string, path: string): string {
  const left = base.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  return `${left}${path.startsWith('/') ? path : `/${path}`}`;
}

async function closePool(pool: Pool, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const outcome = await Promise.race([pool.close().then(() => 'closed' as const), grace]).catch(() => 'late' as const);
  clearTimeout(timer);
  if (outcome === 'late') await pool.destroy().catch(() => undefined);
}
