import { Registry } from 'prom-client';
import type { D2RequestInit, D2Response, D2Target, ServiceProperties } from '../d2';
import { createLogger, type Logger } from '../logging';
import { createFailoutCounter, type FailoutCounter } from './counters';
import { FailoutError, isFailoutError } from './errors';
import type { FailoutConfigProvider, FailoutRedirectStrategy } from './types';

/** Options of one request: D2's, plus the routing key that picks the request's bucket. */
export type FailoutRequestInit = D2RequestInit & {
  /** A member id, a session id…: the same key always lands in the same bucket. Random bucket without. */
  routingKey?: string;
};

/** Options of {@link FailoutClient.resolve}. */
export interface FailoutResolveOptions {
  /** As {@link FailoutRequestInit.routingKey}: picks the request's bucket; random bucket without. */
  readonly routingKey?: string;
}

/** What {@link FailoutClient} needs of the client it wraps (`D2Client` fits). */
export interface FailoutDelegate {
  /** Sends a `d2://<service>/<path>` request to a host of the service's own cluster (not redirected). */
  request(url: string | URL, init?: D2RequestInit): Promise<D2Response>;
  /** Sends a `d2://<service>/<path>` request to a host of `cluster` (the peer chosen by the strategy). */
  requestToCluster(cluster: string, url: string | URL, init?: D2RequestInit): Promise<D2Response>;
  /** The host {@link FailoutDelegate.request} would send to, without sending. */
  resolve(url: string | URL): Promise<D2Target>;
  /** The host {@link FailoutDelegate.requestToCluster} would send to, without sending. */
  resolveInCluster(cluster: string, url: string | URL): Promise<D2Target>;
  /** Closes the wrapped client; called once by {@link FailoutClient.close}. */
  close(): Promise<void>;
}

/** What {@link FailoutClient} needs of the load balancer state (`LoadBalancerState` fits). */
export interface FailoutServiceLookup {
  /** The service's properties (its `clusterName`); undefined when not followed, not loaded, absent or unreadable. */
  getServiceProperties(service: string): ServiceProperties | undefined;
  /** True once the service is loaded, whether or not it exists. */
  isServiceLoaded(service: string): boolean;
  /** Follows the service (one hold per call); resolves once it is loaded and, when it exists, its cluster too. */
  listenToService(service: string): Promise<void>;
  /** Releases one hold taken by {@link FailoutServiceLookup.listenToService}. */
  stopListenToService(service: string): void;
}

/** Options for {@link FailoutClient}. */
export interface FailoutClientOptions {
  /** The client requests go through; owned: `close()` closes it (a delegator, as in rest.li). */
  readonly d2: FailoutDelegate;
  /** Maps a service to its cluster; shared, not owned. */
  readonly state: FailoutServiceLookup;
  /** Gives each cluster's failout config; shared, not owned (never started or shut down by the client). */
  readonly provider: Pick<FailoutConfigProvider, 'getFailoutConfig'>;
  /** Picks the target cluster of a request whose cluster is failed out. */
  readonly strategy: FailoutRedirectStrategy;
  /** Clock for `isFailedOut`; default `Date.now`. */
  readonly now?: () => number;
  /** How long a request waits for its service to load before going out unchanged. Default 10 s. */
  readonly discoveryTimeoutMs?: number;
  /** Where the counters register; default a private registry, so nothing is global. */
  readonly registry?: Registry;
  /** Default a `failout-client` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** Counters of a {@link FailoutClient}. */
export interface FailoutClientStats {
  /** Requests of a failed-out cluster sent to a peer. */
  redirected: {
    /** The failed-out cluster. */
    cluster: string;
    /** The peer cluster the requests went to. */
    peer: string;
    /** Requests so far. */
    count: number;
  }[];
  /** Requests sent unchanged because a lookup or the strategy failed. */
  failOpen: {
    /** The service's cluster, or `(unknown)` when the lookup failed before it was known. */
    cluster: string;
    /** What failed. */
    reason: FailOpenReason;
    /** Requests so far. */
    count: number;
  }[];
  /** Requests rejected because the strategy found no eligible peer and fails closed. */
  failClosed: {
    /** The failed-out cluster. */
    cluster: string;
    /** Requests so far. */
    count: number;
  }[];
  /** Redirect strategy calls that threw (or returned no cluster name); each also counts as a `strategyError` fail-open. */
  strategyErrors: {
    /** The failed-out cluster. */
    cluster: string;
    /** Calls so far. */
    count: number;
  }[];
}

/** Why a request went out unchanged although it might have been redirected. */
export type FailOpenReason = 'strategyError' | 'lookupError';

/** Where a request goes: a peer cluster, or undefined for the original request. */
type Route = string | undefined;

/** The cluster label of a fail-open whose cluster could not be told. */
const UNKNOWN_CLUSTER = '(unknown)';


/**
 * A D2 client delegator that redirects the requests of failed-out clusters (rest.li `FailoutClient`):
 * service → its cluster (from the load balancer state) → the cluster's failout config (from the
 * provider) → when failed out, the strategy names the target cluster, once per request.
 *
 * - The rewrite happens once, before the delegate's retries or backup requests (it is the outermost
 *   wrapper, as in rest.li's builder); the request is sent exactly once (rest.li bug #804), also when
 *   the send fails: no second attempt on the original cluster.
 * - When the cluster cannot be told (service lookup fails or times out, provider throws), the original
 *   request goes out, as rest.li does on a load balancer error.
 * - When the strategy throws, the error is logged and counted and the original request goes out
 *   (rest.li lets it escape); a `FailoutError` `noEligiblePeer` (fail closed) is the one exception: it
 *   is counted and rejects the request.
 * - {@link resolve} runs the same decision without sending (benchmarks, diagnostics).
 *
 * Concurrency: all on the event loop. With the service loaded the decision is synchronous: no extra
 * await over the bare client.
 */
export class FailoutClient {
  private readonly d2: FailoutDelegate;
  private readonly state: FailoutServiceLookup;
  private readonly provider: Pick<FailoutConfigProvider, 'getFailoutConfig'>;
  private readonly strategy: FailoutRedirectStrategy;
  private readonly now: () => number;
  private readonly discoveryTimeoutMs: number;
  private readonly log: Logger;
  /** Services this client holds in the state (one hold each, released by close). */
  private readonly serviceLoads = new Map<string, Promise<void>>();
  private readonly redirected: FailoutCounter<'cluster' | 'peer'>;
  private readonly failOpen: FailoutCounter<'cluster' | 'reason'>;
  private readonly failClosed: FailoutCounter<'cluster'>;
  private readonly strategyErrors: FailoutCounter<'cluster'>;
  private lifecycle: 'open' | 'closed' = 'open';

  constructor(options: FailoutClientOptions) {
    this.d2 = options.d2;
    this.state = options.state;
    this.provider = options.provider;
    this.strategy = options.strategy;
    this.now = options.now ?? Date.now;
    this.discoveryTimeoutMs = options.discoveryTimeoutMs ?? 10_000;
    this.log = options.logger ?? createLogger('failout-client');
    const registry = options.registry ?? new Registry();
    this.redirected = createFailoutCounter({ registry, name: 'failout_client_redirected_total', help: 'Requests of a failed-out cluster sent to a peer', labelNames: ['cluster', 'peer'] });
    this.failOpen = createFailoutCounter({ registry, name: 'failout_client_fail_open_total', help: 'Requests sent unchanged because a lookup or the strategy failed', labelNames: ['cluster', 'reason'] });
    this.failClosed = createFailoutCounter({ registry, name: 'failout_client_fail_closed_total', help: 'Requests rejected: offline bucket, no eligible peer, failing closed', labelNames: ['cluster'] });
    this.strategyErrors = createFailoutCounter({ registry, name: 'failout_client_strategy_errors_total', help: 'Redirect strategy calls that threw', labelNames: ['cluster'] });
  }

  /**
   * Sends a `d2://<service>/<path>` request: to a peer when the service's cluster is failed out and
   * the strategy says so, else as the wrapped client would.
   * @throws FailoutError `noEligiblePeer` when the strategy fails closed; the delegate's errors as they are.
   */
  request(url: string | URL, init: FailoutRequestInit = {}): Promise<D2Response> {
    const key = init.routingKey;
    // Strip the key only when present: no copy of the options on the common path.
    const sendInit: D2RequestInit = 'routingKey' in init ? withoutKey(init) : init;
    let route: Route | Promise<Route>;
    try {
      route = this.route(url, key);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (typeof route === 'object') return route.then((r) => this.send(r, url, sendInit));
    return this.send(route, url, sendInit);
  }

  /** The host a request would go to, by the same decision as {@link request}, without sending. */
  resolve(url: string | URL, options: FailoutResolveOptions = {}): Promise<D2Target> {
    let route: Route | Promise<Route>;
    try {
      route = this.route(url, options.routingKey);
    } catch (err) {
      return Promise.reject(err as Error);
    }
    if (typeof route === 'object') return route.then((r) => this.resolveTo(r, url));
    return this.resolveTo(route, url);
  }

  /** Counters since construction. */
  stats(): FailoutClientStats {
    return {
      redirected: this.redirected.entries().map((e) => ({ cluster: e.labels.cluster, peer: e.labels.peer, count: e.value })),
      failOpen: this.failOpen.entries().map((e) => ({ cluster: e.labels.cluster, reason: e.labels.reason as FailOpenReason, count: e.value })),
      failClosed: this.failClosed.entries().map((e) => ({ cluster: e.labels.cluster, count: e.value })),
      strategyErrors: this.strategyErrors.entries().map((e) => ({ cluster: e.labels.cluster, count: e.value })),
    };
  }

  /** Releases the service holds this client took, then closes the wrapped client. Safe to call twice. */
  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const service of this.serviceLoads.keys()) this.state.stopListenToService(service);
    this.serviceLoads.clear();
    await this.d2.close();
  }

  private send(route: Route, url: string | URL, init: D2RequestInit): Promise<D2Response> {
    return route === undefined ? this.d2.request(url, init) : this.d2.requestToCluster(route, url, init);
  }

  private resolveTo(route: Route, url: string | URL): Promise<D2Target> {
    return route === undefined ? this.d2.resolve(url) : this.d2.resolveInCluster(route, url);
  }

  /** The decision: synchronous when the service is loaded, a promise while it loads. */
  private route(url: string | URL, key: string | undefined): Route | Promise<Route> {
    const text = typeof url === 'string' ? url : url.href;
    const service = serviceOf(text);
    // Not a d2 URL: the delegate rejects it with its own error.
    if (service === undefined || this.lifecycle === 'closed') return undefined;
    let properties: ServiceProperties | undefined;
    try {
      properties = this.state.getServiceProperties(service);
    } catch (err) {
      return this.lookupFailed(err, service, undefined);
    }
    if (properties) return this.decide(text, service, properties.clusterName, key);
    // Loaded and absent: the delegate reports the unknown service.
    if (this.state.isServiceLoaded(service)) return undefined;
    return this.loadService(service).then(
      () => {
        const loaded = this.state.getServiceProperties(service);
        return loaded ? this.decide(text, service, loaded.clusterName, key) : undefined;
      },
      (err: unknown) => this.lookupFailed(err, service, undefined),
    );
  }

  private decide(url: string, service: string, cluster: string, key: string | undefined): Route {
    let config;
    try {
      config = this.provider.getFailoutConfig(cluster);
    } catch (err) {
      return this.lookupFailed(err, service, cluster);
    }
    if (config === undefined) return undefined;
    const now = this.now();
    if (!config.isFailedOut(now)) return undefined;
    let target: unknown;
    try {
      target = this.strategy.redirect(config, key === undefined ? { url, service, cluster, now } : { url, service, cluster, key, now });
    } catch (err) {
      if (isFailoutError(err, 'noEligiblePeer')) {
        this.failClosed.inc(cluster);
        throw err;
      }
      return this.strategyFailed(err, service, cluster);
    }
    if (target === cluster) return undefined;
    if (typeof target !== 'string' || target === '') {
      return this.strategyFailed(new FailoutError('strategyFailed', `strategy returned ${String(target)}`, { cluster }), service, cluster);
    }
    this.redirected.inc(cluster, target);
    return target;
  }

  private strategyFailed(err: unknown, service: string, cluster: string): undefined {
    this.strategyErrors.inc(cluster);
    this.failOpen.inc(cluster, 'strategyError');
    this.log.warn({ err, service, cluster }, 'failout redirect strategy failed; original request will be used');
    return undefined;
  }

  private lookupFailed(err: unknown, service: string, cluster: string | undefined): undefined {
    this.failOpen.inc(cluster ?? UNKNOWN_CLUSTER, 'lookupError');
    this.log.warn({ err, service, cluster }, 'failed to build request URI; original request URI will be used');
    return undefined;
  }

  /** Follows the service once per client and waits (bounded) for it to load. */
  private loadService(service: string): Promise<void> {
    let load = this.serviceLoads.get(service);
    if (!load) {
      try {
        load = this.state.listenToService(service);
      } catch (err) {
        // A closed state or a service name that cannot be a node: the delegate will say which.
        return Promise.reject(err as Error);
      }
      // Registered before awaiting: concurrent first requests share one hold, and close() releases it.
      this.serviceLoads.set(service, load);
      load.catch(() => undefined);
    }
    return withTimeout(load, this.discoveryTimeoutMs, service);
  }
}

/** The authority of a `d2://` URL (a scan, not a regex: this runs on every request); undefined otherwise. */
function serviceOf(text: string): string | undefined {
  // `d2://`, scheme case-insensitive, checked by char code: no substring per request.
  if (text.length < 6 || (text.charCodeAt(0) | 0x20) !== 0x64 /* d */ || !text.startsWith('2://', 1)) return undefined;
  let end = 5;
  while (end < text.length) {
    const c = text.charCodeAt(end);
    if (c === 0x2f /* / */ || c === 0x3f /* ? */ || c === 0x23 /* # */) break;
    end++;
  }
  return end === 5 ? undefined : text.slice(5, end);
}

function withoutKey(init: FailoutRequestInit): D2RequestInit {
  const { routingKey: _routingKey, ...rest } = init;
  return rest;
}

function withTimeout(load: Promise<void>, ms: number, service: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new FailoutError('lookupFailed', `service ${service} not loaded within ${ms} ms`)), ms);
  });
  return Promise.race([load, timeout]).finally(() => clearTimeout(timer));
}
