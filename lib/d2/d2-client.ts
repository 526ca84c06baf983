import { Pool, type Dispatcher } from 'undici';
import { createLogger, type Logger } from '../logging';
import { rewriteD2Uri } from './codecs/uri-rewrite';
import { D2Error } from './errors';
import type { LoadBalancerState } from './load-balancer-state';
import type { ClusterProperties, MergedUriProperties, ServiceProperties } from './model';
import { WeightedRoundRobin } from './weighted-round-robin';

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
  /** Hosts warmed: those with weight above zero, not banned, with an http or https URI; 0 for an unknown cluster. */
  readonly hosts: number;
  /** Requests that got a response (any status: the connection is open). */
  readonly succeeded: number;
  /** Requests that failed or hit the deadline. */
  readonly failed: number;
  /** Wall time of the whole warm-up, including loading the cluster, in milliseconds. */
  readonly durationMs: number;
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
  /** Default a `d2-client` logger from `createLogger`. */
  readonly logger?: Logger;
}

interface Host {
  readonly uri: string;
  readonly origin: string;
  /** Length of `scheme://authority` in `uri`: what precedes the wire path in a rewritten URL. */
  readonly prefixLength: number;
}

/** One cluster's candidates for one scheme preference, valid while the state hands out the same objects. */
interface Selection {
  readonly uris: MergedUriProperties | undefined;
  readonly cluster: ClusterProperties | undefined;
  readonly rotation: WeightedRoundRobin<Host>;
}

const AUTHORITY = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/[^/?#]*/;
const SENDABLE = new Set(['http', 'https']);

/**
 * Sends `d2://<service>/<path>` requests: service → its cluster (or a given cluster) → a host by
 * smooth weighted round robin over the URIs with weight above zero → HTTP through one undici Pool per
 * host origin (rest.li `SimpleLoadBalancer#getClient` + `D2URIRewriter`, without degrader or partitions).
 *
 * - Hosts: the merged URIs' weight (partition 0, else the lowest partition), minus the cluster's
 *   `bannedUris`; the service's `prioritizedSchemes` are tried in order and the first with a host wins
 *   (none listed: http and https). Only http and https hosts are sendable.
 * - Errors: `D2Error` `malformed` (not a d2 URL), `unknownService`, `unknownCluster` (no readable
 *   cluster properties), `noHosts`, `closed`; `discoveryTimeout` when discovery data does not load in
 *   `discoveryTimeoutMs`. HTTP statuses are returned, not thrown.
 * - A service or cluster the client touched stays followed (one hold each) until `close()`.
 *
 * Concurrency: all on the event loop; selections are rebuilt lazily when the state hands out a new URI
 * or cluster object, and pools of hosts no selection uses any more are closed gracefully.
 */
export class D2Client {
  private readonly state: LoadBalancerState;
  private readonly log: Logger;
  private readonly discoveryTimeoutMs: number;
  private readonly random: () => number;
  private readonly pools = new Map<string, Pool>();
  private readonly selections = new Map<string, Selection>();
  private readonly schemeKeys = new WeakMap<readonly string[], string>();
  private readonly serviceLoads = new Map<string, Promise<void>>();
  private readonly clusterLoads = new Map<string, Promise<void>>();
  /** Clusters warmed by this client: their pools stay open while the state still lists their hosts. */
  private readonly warmed = new Set<string>();
  private lifecycle: 'open' | 'closed' = 'open';

  constructor(private readonly options: D2ClientOptions) {
    this.state = options.state;
    this.log = options.logger ?? createLogger('d2-client');
    this.discoveryTimeoutMs = options.discoveryTimeoutMs ?? 10_000;
    this.random = options.random ?? Math.random;
  }

  /** Sends a request for `d2://<service>/<path>` to a host of the service's cluster. */
  async request(url: string | URL, init: D2RequestInit = {}): Promise<D2Response> {
    return this.send(await this.resolve(url), init);
  }

  /** Sends a request for `d2://<service>/<path>` to a host of `cluster`, keeping the service's path. */
  async requestToCluster(cluster: string, url: string | URL, init: D2RequestInit = {}): Promise<D2Response> {
    return this.send(await this.resolveInCluster(cluster, url), init);
  }

  /** Chooses the host a request would go to, without sending; advances the rotation like a request. */
  async resolve(url: string | URL): Promise<D2Target> {
    const d2 = parseD2Url(url);
    // Synchronous when everything is loaded: no extra awaits on the hot path.
    const service = this.loadedService(d2.service) ?? (await this.serviceProperties(d2.service));
    if (!this.state.isClusterLoaded(service.clusterName)) await this.clusterLoaded(service.clusterName);
    return this.pick(d2.service, service, service.clusterName, d2.text);
  }

  /** Like {@link resolve}, for a given cluster instead of the service's own. */
  async resolveInCluster(cluster: string, url: string | URL): Promise<D2Target> {
    const d2 = parseD2Url(url);
    const service = this.loadedService(d2.service) ?? (await this.serviceProperties(d2.service));
    if (!this.clusterLoads.has(cluster) || !this.state.isClusterLoaded(cluster)) await this.clusterLoaded(cluster, true);
    return this.pick(d2.service, service, cluster, d2.text);
  }

  /**
   * Opens connections to every host of `cluster` ahead of traffic, through the pools requests use:
   * `connectionsPerHost` concurrent GETs of `path` per host, `concurrency` hosts at a time, all within
   * `timeoutMs`. An unknown or empty cluster warms nothing.
   */
  async warmUp(cluster: string, options: WarmUpOptions = {}): Promise<WarmUpResult> {
    this.assertOpen();
    const started = performance.now();
    const deadline = AbortSignal.timeout(options.timeoutMs ?? 5_000);
    const listening = this.state.listenToCluster(cluster);
    try {
      await this.withTimeout(listening, `cluster ${cluster}`);
      const hosts = eligibleHosts(this.state.getUris(cluster), this.state.getClusterProperties(cluster), []).map((h) => h.item);
      if (hosts.length > 0) this.warmed.add(cluster);
      const perHost = Math.max(1, options.connectionsPerHost ?? 1);
      const counts = { succeeded: 0, failed: 0 };
      const warmHost = async (host: Host): Promise<void> => {
        const path = joinPath(host.uri.slice(host.prefixLength), options.path ?? '/');
        const results = await Promise.all(Array.from({ length: perHost }, () => this.warmOne(host, path, deadline)));
        for (const ok of results) counts[ok ? 'succeeded' : 'failed']++;
      };
      await runLimited(hosts, Math.max(1, options.concurrency ?? 16), warmHost);
      return { cluster, hosts: hosts.length, ...counts, durationMs: performance.now() - started };
    } finally {
      this.state.stopListenToCluster(cluster);
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
    for (const service of this.serviceLoads.keys()) this.state.stopListenToService(service);
    for (const cluster of this.clusterLoads.keys()) this.state.stopListenToCluster(cluster);
    this.serviceLoads.clear();
    this.clusterLoads.clear();
    this.selections.clear();
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => closePool(pool, this.options.closeGraceMs ?? 1_000)));
  }

  private async send(target: D2Target, init: D2RequestInit): Promise<D2Response> {
    this.assertOpen();
    const { method = 'GET', ...rest } = init;
    const response = await this.pool(target.origin).request({ ...rest, method, path: target.path });
    return Object.assign(response, { target });
  }

  private async warmOne(host: Host, path: string, deadline: AbortSignal): Promise<boolean> {
    if (deadline.aborted) return false;
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
    if (this.lifecycle !== 'open' || !this.serviceLoads.has(service) || !this.state.isServiceLoaded(service)) return undefined;
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

  /** Waits until the cluster is loaded; `hold` keeps it followed by this client (routing to a peer). */
  private async clusterLoaded(cluster: string, hold = false): Promise<void> {
    if (!hold && this.state.isClusterLoaded(cluster)) return;
    let load = this.clusterLoads.get(cluster);
    if (!load) {
      load = this.state.listenToCluster(cluster);
      this.clusterLoads.set(cluster, load);
      load.catch(() => undefined);
    }
    if (!this.state.isClusterLoaded(cluster)) await this.withTimeout(load, `cluster ${cluster}`);
  }

  private pick(serviceName: string, service: ServiceProperties, cluster: string, d2Url: string): D2Target {
    const selection = this.selection(cluster, service.prioritizedSchemes);
    if (!selection.cluster) throw new D2Error('unknownCluster', `unknown cluster ${JSON.stringify(cluster)} (service ${serviceName})`);
    const host = selection.rotation.next();
    if (!host) throw new D2Error('noHosts', `cluster ${JSON.stringify(cluster)} has no hosts for service ${JSON.stringify(serviceName)}`);
    const url = rewriteD2Uri(host.uri, service.path, d2Url);
    const hash = url.indexOf('#', host.prefixLength);
    const path = url.slice(host.prefixLength, hash < 0 ? undefined : hash);
    return { service: serviceName, cluster, host: host.uri, url, origin: host.origin, path: path === '' ? '/' : path };
  }

  private selection(cluster: string, schemes: readonly string[]): Selection {
    // Keyed by the schemes array's identity first: it is stable for as long as the service object is.
    let schemesKey = this.schemeKeys.get(schemes);
    if (schemesKey === undefined) {
      schemesKey = schemes.join(',');
      this.schemeKeys.set(schemes, schemesKey);
    }
    const key = `${cluster}\u0000${schemesKey}`;
    const uris = this.state.getUris(cluster);
    const properties = this.state.getClusterProperties(cluster);
    const cached = this.selections.get(key);
    if (cached && cached.uris === uris && cached.cluster === properties) return cached;
    const hosts = eligibleHosts(uris, properties, schemes);
    const rotation = new WeightedRoundRobin(hosts, { random: this.random });
    const selection = { uris, cluster: properties, rotation };
    this.selections.set(key, selection);
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

  /** Closes (gracefully) the pools of hosts that neither a selection nor a warmed cluster offers any more. */
  private prunePools(): void {
    const used = new Set<string>();
    for (const selection of this.selections.values()) for (const host of selection.rotation.candidates()) used.add(host.origin);
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
      timer = setTimeout(() => reject(new D2Error('discoveryTimeout', `${what} not loaded from ZooKeeper within ${ms} ms`)), ms);
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

/** Hosts that may take traffic, with their weights; see D2Client for the rules. */
function eligibleHosts(
  uris: MergedUriProperties | undefined,
  cluster: ClusterProperties | undefined,
  schemes: readonly string[],
): { item: Host; weight: number }[] {
  if (!uris) return [];
  const banned = new Set(cluster?.bannedUris ?? []);
  const byScheme = new Map<string, { item: Host; weight: number }[]>();
  for (const host of uris.hosts) {
    const match = AUTHORITY.exec(host.uri);
    const scheme = match?.[1]?.toLowerCase();
    if (!match || !scheme || !SENDABLE.has(scheme) || !(host.weight > 0) || banned.has(host.uri)) continue;
    let origin: string;
    try {
      origin = new URL(host.uri).origin;
    } catch {
      continue;
    }
    const list = byScheme.get(scheme) ?? [];
    list.push({ item: { uri: host.uri, origin, prefixLength: match[0].length }, weight: host.weight });
    byScheme.set(scheme, list);
  }
  if (schemes.length === 0) return [...byScheme.values()].flat();
  for (const scheme of schemes) {
    const list = byScheme.get(scheme.toLowerCase());
    if (list && list.length > 0) return list;
  }
  return [];
}

function joinPath(base: string, path: string): string {
  const left = base.replace(/[?#].*$/s, '').replace(/\/+$/, '');
  return `${left}${path.startsWith('/') ? path : `/${path}`}`;
}

/** Runs `work` over `items` with at most `limit` in flight. */
async function runLimited<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

async function closePool(pool: Pool, graceMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), graceMs)));
  const outcome = await Promise.race([pool.close().then(() => 'closed' as const), grace]).catch(() => 'late' as const);
  clearTimeout(timer);
  if (outcome === 'late') await pool.destroy().catch(() => undefined);
}
