import type { LoadBalancerState } from '../d2';

// The contracts lib/failout's parts share (rest.li D2's clusterfailout package, in TypeScript).
// Implementations live one per file next to this one.

/** A peer that takes a failed-out cluster's traffic, with its relative weight (a positive integer). */
export interface FailoutPeer {
  readonly cluster: string;
  readonly weight: number;
}

/** An inclusive range of the 100 request buckets (0–99). */
export interface BucketRange {
  readonly from: number;
  readonly to: number;
}

/**
 * One offline window of a cluster (`failoutBucketConfigs` entry): buckets in `buckets` are offline
 * from `offlineAt` until `onlineAt` (epoch ms; no `onlineAt` means until restored).
 */
export interface FailoutWindow {
  readonly partition: string;
  readonly buckets: BucketRange;
  readonly offlineAt: number;
  readonly onlineAt: number | undefined;
  readonly requestId: string | undefined;
  readonly requestedBy: string | undefined;
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
  readonly service: string;
  /** The cluster the service maps to (the failed-out one). */
  readonly cluster: string;
  /** Caller-supplied routing key (a member id, a session id): the same key lands in the same bucket. */
  readonly key?: string;
  /** The time the caller judged the config failed out at (epoch ms); strategies use it rather than read the clock again. */
  readonly now?: number;
}

/**
 * Decides where a request for a failed-out cluster goes (rest.li `FailoutRedirectStrategy`, which
 * rewrites the URI; here it names the cluster). Returns `config.cluster` to keep the request there.
 */
export interface FailoutRedirectStrategy {
  redirect(config: FailoutConfig, request: FailoutRequest): string;
}

/** What the redirect strategy needs to know about other clusters (peer eligibility). */
export interface FailoutClusterView {
  getFailoutConfig(cluster: string): FailoutConfig | undefined;
  /** Hosts with weight > 0 that the client would send to; 0 for an unknown cluster. */
  getHostCount(cluster: string): number;
}

/**
 * Opens connections to a peer before its traffic arrives (rest.li
 * `FailedoutClusterConnectionWarmUpHandler`). Must tolerate a peer with no hosts or no cluster.
 */
export interface ConnectionWarmUpHandler {
  warmUpConnections(peer: string, config: FailoutConfig | undefined): Promise<void>;
  /** Stops warm-ups of this peer that have not finished. */
  cancelPendingRequests(peer: string): void;
  /** Stops everything; later calls do nothing. */
  shutdown(): void;
}

/** Gives the failout config of every cluster the load balancer state knows (rest.li `FailoutConfigProvider`). */
export interface FailoutConfigProvider {
  /** The config while the cluster has failout properties (active or not), else undefined. */
  getFailoutConfig(cluster: string): FailoutConfig | undefined;
  /** Clusters that have a manager (a copy). */
  getClusters(): string[];
  start(): void;
  shutdown(): void;
}

/** Creates the provider for a load balancer state (rest.li `FailoutConfigProviderFactory`). */
export interface FailoutConfigProviderFactory {
  create(state: LoadBalancerState): FailoutConfigProvider;
}
