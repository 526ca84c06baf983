import type { Registry } from 'prom-client';
import type { LoadBalancerState } from '../d2';
import type { Logger } from '../logging';

// The contracts lib/failout's parts share (rest.li D2's clusterfailout package, in TypeScript).
// Implementations live one per file next to this one.

/** A peer that takes a failed-out cluster's traffic, with its relative weight (a positive integer). */
export interface FailoutPeer {
  /** The peer cluster's name (the entry's `peer`, or its alias `fabric`). */
  readonly cluster: string;
  /** Relative share of the redirected traffic; a positive integer, default 1. */
  readonly weight: number;
}

/** An inclusive range of the 100 request buckets (0–99). */
export interface BucketRange {
  /** First bucket of the range (0–99, inclusive). */
  readonly from: number;
  /** Last bucket of the range (0–99, inclusive, `>= from`). */
  readonly to: number;
}

/**
 * One offline window of a cluster (`failoutBucketConfigs` entry): buckets in `buckets` are offline
 * from `offlineAt` until `onlineAt` (epoch ms; no `onlineAt` means until restored).
 */
export interface FailoutWindow {
  /** The partition named by the entry, default `main`; kept, but does not narrow the decision (requests carry no partition). */
  readonly partition: string;
  /** The offline buckets (`bucketOfflineRange`); all of 0–99 when the entry names none. */
  readonly buckets: BucketRange;
  /** When the window starts (epoch ms); 0 when the entry names none ("offline since always"). */
  readonly offlineAt: number;
  /** When the window ends (epoch ms, later than `offlineAt`); undefined: offline until the entry is removed. */
  readonly onlineAt: number | undefined;
  /** Free-form id of the failout request that wrote the entry (metadata only), if any. */
  readonly requestId: string | undefined;
  /** Who asked for the failout (metadata only), if given. */
  readonly requestedBy: string | undefined;
  /** Why the cluster was failed out (metadata only), if given. */
  readonly reason: string | undefined;
}

/**
 * The parsed view of a cluster's `failoutProperties` (rest.li `FailoutConfig`). Time-dependent: a
 * window that starts or ends later takes effect or ends with no further write, so callers evaluate
 * `isFailedOut` on every request.
 */
export interface FailoutConfig {
  /** The cluster this config belongs to. */
  readonly cluster: string;
  /** Peers in the order written, with weights. */
  readonly peers: readonly FailoutPeer[];
  /** Offline windows in the order written (`failoutBucketConfigs`); empty when the cluster is never failed out. */
  readonly windows: readonly FailoutWindow[];
  /** Some window has `offlineAt <= now` and (no `onlineAt` or `now < onlineAt`). */
  isFailedOut(now?: number): boolean;
  /** Some window active at `now` covers `bucket`. */
  isBucketFailedOut(bucket: number, now?: number): boolean;
  /** The peers' cluster names (rest.li `getPeerClusters`). */
  getPeerClusters(): ReadonlySet<string>;
}

/** What a redirect strategy knows of one request. */
export interface FailoutRequest {
  /** The original `d2://service/path` URL. */
  readonly url: string;
  /** The D2 service named by the URL. */
  readonly service: string;
  /** The cluster the service maps to (the failed-out one). */
  readonly cluster: string;
  /** Caller-supplied routing key (a member id, a session id): the same key lands in the same bucket. */
  readonly key?: string;
  /** The time the caller judged the config failed out at (epoch ms); strategies use it rather than read the clock again. */
  readonly now?: number;
  /**
   * The service's `prioritizedSchemes` (empty: any sendable scheme): a peer is eligible only with a
   * host this service would send to.
   */
  readonly schemes?: readonly string[];
  /**
   * A strategy calls this when it keeps the request on `cluster` because no peer is eligible (fail
   * open), so the caller counts it with its other fail-opens (`FailoutClient`:
   * `failout_client_fail_open_total{reason="noEligiblePeer"}`); the return value says nothing of it.
   */
  readonly onNoEligiblePeer?: (cluster: string) => void;
}

/**
 * Decides where a request for a failed-out cluster goes (rest.li `FailoutRedirectStrategy`, which
 * rewrites the URI; here it names the cluster). Returns `config.cluster` to keep the request there.
 */
export interface FailoutRedirectStrategy {
  /** The cluster `request` goes to: a peer of `config.cluster`, or `config.cluster` itself to keep it there. */
  redirect(config: FailoutConfig, request: FailoutRequest): string;
}

/** What the redirect strategy needs to know about other clusters (peer eligibility). */
export interface FailoutClusterView {
  /**
   * Changes whenever `getFailoutConfig` or `getHostCount` could answer differently (their windows'
   * time dependence aside), so a strategy may keep their answers while it holds; undefined: never
   * keep them.
   */
  readonly version?: number;
  /** The failout config of `cluster`, or undefined when it has no failout properties. */
  getFailoutConfig(cluster: string): FailoutConfig | undefined;
  /**
   * Hosts the client would send to: weight > 0, not banned, and in the first of `schemes` that has
   * any (no schemes: http and https); 0 for an unknown cluster. With `url` (a request's `d2://` URL),
   * a RANGE or HASH partitioned cluster counts only the hosts of that request's partition.
   */
  getHostCount(cluster: string, schemes?: readonly string[], url?: string): number;
  /**
   * Whether the cluster is RANGE or HASH partitioned, so that whether it has a host for a request
   * depends on the request's URL (ask `getHostCount` with it). Optional: without it, none is.
   */
  isPartitioned?(cluster: string): boolean;
}

/**
 * Opens connections to a peer before its traffic arrives (rest.li
 * `FailedoutClusterConnectionWarmUpHandler`). Must tolerate a peer with no hosts or no cluster.
 */
export interface ConnectionWarmUpHandler {
  /**
   * Opens connections to the hosts of `peer`; `config` is the failout config of the cluster that redirects
   * to it (undefined when none). Resolves when done, failed or cancelled: failures are counted, never thrown.
   * `hosts`, when given, are the announced URIs to warm (the peer's hosts not warmed yet, e.g. those a
   * redeploy announced); a handler that ignores it warms every host of the peer.
   */
  warmUpConnections(peer: string, config: FailoutConfig | undefined, hosts?: readonly string[]): Promise<void>;
  /** Stops warm-ups of this peer that have not finished. */
  cancelPendingRequests(peer: string): void;
  /** Stops everything; later calls do nothing. */
  close(): void;
}

/** Gives the failout config of every cluster the load balancer state knows (rest.li `FailoutConfigProvider`). */
export interface FailoutConfigProvider {
  /** The config while the cluster has failout properties (active or not), else undefined. */
  getFailoutConfig(cluster: string): FailoutConfig | undefined;
  /** Clusters that have a manager (a copy). */
  getClusters(): string[];
  /**
   * While `cluster` is failed out and some of its peers are still loading: resolves once they have
   * loaded, so that the redirect decision sees their hosts. Undefined when nothing is loading.
   * Optional: without it, a decision made while a peer loads treats the peer as having no hosts.
   */
  whenPeersLoaded?(cluster: string): Promise<void> | undefined;
  /** Starts following the load balancer state's clusters. */
  start(): void;
  /** Stops following the state and releases every cluster's manager. */
  close(): void;
}

/**
 * Creates the warm-up handler of one failed-out cluster's manager (rest.li
 * `createConnectionWarmUpHandler`, which takes nothing and so could only warm some other client's
 * pools); undefined: its peers are watched, not warmed.
 */
export type WarmUpHandlerFactory = (cluster: string) => ConnectionWarmUpHandler | undefined;

/**
 * What `buildD2Client` hands the provider factory: the client being built, so that warm-ups open the
 * very connections its requests then use, and the settings and registry of its config.
 */
export interface FailoutProviderContext {
  /** Warms peers through the client being built; undefined when the config turns warm-up off. */
  readonly warmUpHandlerFactory?: WarmUpHandlerFactory;
  /** How long a peer stays watched after the failout that needed it ends, in ms. */
  readonly peerWatchTeardownDelayMs?: number;
  /** Where the provider's counters go (the config's registry). */
  readonly registry?: Registry;
  /** The config's logger, if it gave one. */
  readonly logger?: Logger;
}

/** Creates the provider for a load balancer state (rest.li `FailoutConfigProviderFactory`). */
export interface FailoutConfigProviderFactory {
  /**
   * A new, not yet started provider over `state`. `context` comes from `buildD2Client`; a factory's
   * own explicit options take precedence over it.
   */
  create(state: LoadBalancerState, context?: FailoutProviderContext): FailoutConfigProvider;
}
