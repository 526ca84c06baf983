import { Registry } from 'prom-client';
import type { ClusterRouter, D2RequestInit, D2Response, D2Target, ServiceProperties } from '../d2';
import { createLogger, type Logger } from '../logging';
import { approximateNow } from './approximate-clock';
import { createFailoutCounter, type FailoutCounter } from './counters';
import { FailoutError, isFailoutError } from './errors';
import type { FailoutConfig, FailoutConfigProvider, FailoutRedirectStrategy, FailoutRequest } from './types';
import type { Lifecycle } from '../lifecycle';

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

/**
 * What {@link FailoutClient} needs of the client it wraps (`D2Client` fits): sends and resolves with the
 * cluster picked by a {@link ClusterRouter} after the client's own service lookup, so the URL is parsed
 * and the service looked up once for the decision and the host pick alike.
 */
export interface FailoutDelegate {
  /** Sends a `d2://<service>/<path>` request to a host of the cluster `router` picks. */
  requestRouted(url: string | URL, init: D2RequestInit, router: ClusterRouter, key: string | undefined): Promise<D2Response>;
  /** The host {@link FailoutDelegate.requestRouted} would send to, without sending. */
  resolveRouted(url: string | URL, router: ClusterRouter, key: string | undefined): Promise<D2Target>;
  /** Closes the wrapped client; called once by {@link FailoutClient.close}. */
  close(): Promise<void>;
}

/** Options for {@link FailoutClient}. */
export interface FailoutClientOptions {
  /** The client requests go through; owned: `close()` closes it (a delegator, as in rest.li). */
  readonly d2: FailoutDelegate;
  /**
   * Gives each cluster's failout config, and says when its peers are still loading; shared, not owned
   * (never started or closed by the client).
   */
  readonly provider: Pick<FailoutConfigProvider, 'getFailoutConfig' | 'whenPeersLoaded'>;
  /** Picks the target cluster of a request whose cluster is failed out. */
  readonly strategy: FailoutRedirectStrategy;
  /** Clock for `isFailedOut`; default the wall clock read at most once per event-loop turn and per 64 decisions (`approximateNow`). */
  readonly now?: () => number;
  /**
   * How long a decision waits for a failed-out cluster's peers to load before deciding on what is
   * known (a peer still loading then counts as having no hosts: fail open, or closed). Default 10 s.
   */
  readonly discoveryTimeoutMs?: number;
  /**
   * Where the counters register; default a private registry, so nothing is global. Clients on one
   * registry share its counters (summed, same labels); `stats()` stays per client.
   */
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
  /** Requests of a failed-out cluster sent to it: a lookup or the strategy failed, or no peer was eligible. */
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

/**
 * Why a request went out unchanged although it might have been redirected: the strategy threw, a
 * lookup failed, or the strategy kept it because no peer was eligible (and it fails open).
 */
export type FailOpenReason = 'strategyError' | 'lookupError' | 'noEligiblePeer';

/** Where a request goes: a peer cluster, or undefined for the original request. */
type Route = string | undefined;

/** The cluster label of a fail-open whose cluster could not be told. */
const UNKNOWN_CLUSTER = '(unknown)';

/**
 * A D2 client delegator that redirects the requests of failed-out clusters (rest.li `FailoutClient`):
 * service → its cluster (looked up once, by the wrapped client) → the cluster's failout config (from the
 * provider) → when failed out, the strategy names the target cluster, once per request.
 *
 * - The rewrite happens once, before the delegate's retries or backup requests (it is the outermost
 *   wrapper, as in rest.li's builder); the request is sent exactly once (rest.li bug #804), also when
 *   the send fails: no second attempt on the original cluster.
 * - The decision is made on loaded data: the service's own cluster (its failout config) is loaded
 *   before it, and while the failed-out cluster's peers are still loading (a service that starts
 *   during a failout) it waits for them, up to `discoveryTimeoutMs` — as rest.li's rewritten URI makes
 *   D2 wait for the peer. Only then does a peer without hosts count as ineligible. The decision after
 *   such a wait reads the cluster's config again: a restore or another failout written meanwhile is
 *   the one that counts.
 * - When the provider throws, the original request goes out, as rest.li does on a load balancer error.
 * - When the strategy keeps a request because no peer is eligible (`FailoutRequest.onNoEligiblePeer`),
 *   it counts as a `noEligiblePeer` fail-open, whatever registry the strategy's own counters use.
 * - When the strategy throws, the error is logged and counted and the original request goes out
 *   (rest.li lets it escape); a `FailoutError` `noEligiblePeer` (fail closed) is the one exception: it
 *   is counted and rejects the request.
 * - {@link resolve} runs the same decision without sending (benchmarks, diagnostics).
 *
 * Concurrency: all on the event loop. With everything loaded the decision is synchronous: no extra
 * await over the bare client.
 */
export class FailoutClient implements ClusterRouter {
  private readonly d2: FailoutDelegate;
  private readonly provider: Pick<FailoutConfigProvider, 'getFailoutConfig' | 'whenPeersLoaded'>;
  private readonly strategy: FailoutRedirectStrategy;
  private readonly now: () => number;
  private readonly discoveryTimeoutMs: number;
  private readonly log: Logger;
  private readonly redirected: FailoutCounter<'cluster' | 'peer'>;
  private readonly failOpen: FailoutCounter<'cluster' | 'reason'>;
  private readonly failClosed: FailoutCounter<'cluster'>;
  private readonly strategyErrors: FailoutCounter<'cluster'>;
  private lifecycle: Lifecycle = 'running';
  /** Given to the strategy with each request: bound once, so a request costs no closure. */
  private readonly countNoEligiblePeer = (cluster: string): void => this.failOpen.inc2(cluster, 'noEligiblePeer');

  constructor(options: FailoutClientOptions) {
    this.d2 = options.d2;
    this.provider = options.provider;
    this.strategy = options.strategy;
    this.now = options.now ?? approximateNow;
    this.discoveryTimeoutMs = options.discoveryTimeoutMs ?? 10_000;
    this.log = options.logger ?? createLogger('failout-client');
    const registry = options.registry ?? new Registry();
    this.redirected = createFailoutCounter({ registry, name: 'failout_client_redirected_total', help: 'Requests of a failed-out cluster sent to a peer', labelNames: ['cluster', 'peer'] });
    this.failOpen = createFailoutCounter({
      registry,
      name: 'failout_client_fail_open_total',
      help: 'Requests of a failed-out cluster sent to it: a lookup or the strategy failed, or no peer was eligible (reason)',
      labelNames: ['cluster', 'reason'],
    });
    this.failClosed = createFailoutCounter({ registry, name: 'failout_client_fail_closed_total', help: 'Requests rejected: offline bucket, no eligible peer, failing closed', labelNames: ['cluster'] });
    this.strategyErrors = createFailoutCounter({ registry, name: 'failout_client_strategy_errors_total', help: 'Redirect strategy calls that threw', labelNames: ['cluster'] });
  }

  /**
   * Sends a `d2://<service>/<path>` request: to a peer when the service's cluster is failed out and
   * the strategy says so, else as the wrapped client would.
   * @throws FailoutError `noEligiblePeer` when the strategy fails closed; the delegate's errors as they are.
   */
  request(url: string | URL, init: FailoutRequestInit = {}): Promise<D2Response> {
    // Strip the key only when present: no copy of the options on the common path.
    if (!('routingKey' in init)) return this.d2.requestRouted(url, init, this, undefined);
    return this.d2.requestRouted(url, withoutKey(init), this, init.routingKey);
  }

  /** The host a request would go to, by the same decision as {@link request}, without sending. */
  resolve(url: string | URL, options?: FailoutResolveOptions): Promise<D2Target> {
    return this.d2.resolveRouted(url, this, options?.routingKey);
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

  /** Closes the wrapped client. Safe to call twice. */
  async close(): Promise<void> {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    await this.d2.close();
  }

  /**
   * ClusterRouter: the failout decision, called by the wrapped client with the service it looked up.
   * Synchronous when the peers are loaded, a promise while they load.
   */
  route(service: string, properties: ServiceProperties, url: string, key: string | undefined): string | undefined | Promise<string | undefined> {
    if (this.lifecycle === 'closed') return undefined;
    const cluster = properties.clusterName;
    let config: FailoutConfig | undefined;
    let loading: Promise<void> | undefined;
    let now: number;
    try {
      config = this.provider.getFailoutConfig(cluster);
      // The clock is read only for a cluster that has a failout config: most have none.
      if (config === undefined || !config.isFailedOut((now = this.now()))) return undefined;
      loading = this.provider.whenPeersLoaded?.(cluster);
    } catch (err) {
      return this.lookupFailed(err, service, cluster);
    }
    const schemes = properties.prioritizedSchemes;
    if (loading === undefined) return this.redirect(config, url, service, cluster, key, now, schemes);
    const decide = (): Route => this.decideAfterWait(url, service, cluster, key, schemes);
    return withTimeout(loading, this.discoveryTimeoutMs, cluster).then(decide, (err: unknown) => {
      this.log.warn({ err, service, cluster }, 'failout peers still loading; deciding on what is known');
      return decide();
    });
  }

  /**
   * The decision once the wait for the peers is over: on the config in effect then, not the one the
   * wait began with. A restore (or a new failout of the cluster) written meanwhile must count: the
   * request has not gone anywhere yet.
   */
  private decideAfterWait(url: string, service: string, cluster: string, key: string | undefined, schemes: readonly string[]): Route {
    if (this.lifecycle === 'closed') return undefined;
    let config: FailoutConfig | undefined;
    const now = this.now();
    try {
      config = this.provider.getFailoutConfig(cluster);
      if (config === undefined || !config.isFailedOut(now)) return undefined;
    } catch (err) {
      return this.lookupFailed(err, service, cluster);
    }
    return this.redirect(config, url, service, cluster, key, now, schemes);
  }

  private redirect(config: FailoutConfig, url: string, service: string, cluster: string, key: string | undefined, now: number, schemes: readonly string[]): Route {
    let target: unknown;
    try {
      const onNoEligiblePeer = this.countNoEligiblePeer;
      const request: FailoutRequest = key === undefined ? { url, service, cluster, now, schemes, onNoEligiblePeer } : { url, service, cluster, key, now, schemes, onNoEligiblePeer };
      target = this.strategy.redirect(config, request);
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
    this.redirected.inc2(cluster, target);
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
}

function withoutKey(init: FailoutRequestInit): D2RequestInit {
  const { routingKey: _routingKey, ...rest } = init;
  return rest;
}

function withTimeout(load: Promise<void>, ms: number, cluster: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new FailoutError('lookupFailed', `peers of ${cluster} not loaded within ${ms} ms`, { cluster })), ms);
  });
  return Promise.race([load, timeout]).finally(() => clearTimeout(timer));
}
