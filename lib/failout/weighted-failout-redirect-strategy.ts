import { Registry } from 'prom-client';
import { WeightedRoundRobin } from '../d2';
import { createLogger, type Logger } from '../logging';
import { bucketOf } from './bucket';
import { createFailoutCounter, type FailoutCounter } from './counters';
import { FailoutError } from './errors';
import type { FailoutClusterView, FailoutConfig, FailoutRedirectStrategy, FailoutRequest } from './types';

/** Options for {@link WeightedFailoutRedirectStrategy}. */
export interface WeightedFailoutRedirectStrategyOptions {
  /** Peer eligibility: their failout configs and host counts. */
  readonly view: FailoutClusterView;
  /** Clock for the offline windows; default `Date.now`. */
  readonly now?: () => number;
  /**
   * Randomness in [0, 1) for the bucket of a request without a key and for each rotation's starting
   * point (so that many clients do not send their first redirected requests to the same peer);
   * default `Math.random`.
   */
  readonly random?: () => number;
  /**
   * With no eligible peer: `false` (default) keeps the request on its cluster (fail open, counted);
   * `true` throws `FailoutError` `noEligiblePeer` (fail closed, counted).
   */
  readonly failClosed?: boolean;
  /** Where the counters register; default a private registry, so nothing is global. */
  readonly registry?: Registry;
  /** Default a `failout-strategy` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** Why a listed peer did not take a request. */
export type PeerSkipReason = 'self' | 'failedOut' | 'noHosts';

/** Counters of a {@link WeightedFailoutRedirectStrategy}. */
export interface WeightedFailoutRedirectStrategyStats {
  /** Requests whose bucket was offline and that no peer could take, by cluster and outcome. */
  noEligiblePeer: {
    /** The failed-out cluster. */
    cluster: string;
    /** `failOpen`: kept on the cluster; `failClosed`: rejected with `noEligiblePeer`. */
    outcome: 'failOpen' | 'failClosed';
    /** Requests so far. */
    count: number;
  }[];
  /** Peers passed over, by cluster, peer and reason. */
  skipped: {
    /** The failed-out cluster. */
    cluster: string;
    /** The peer passed over. */
    peer: string;
    /** Why it was passed over. */
    reason: PeerSkipReason;
    /** Times so far. */
    count: number;
  }[];
}

/** The rotations of one config, by the set of eligible peers (a bit mask over `config.peers`). */
type Rotations = Map<number, WeightedRoundRobin<string>>;

/**
 * The default {@link FailoutRedirectStrategy}: the request's key hashes into one of 100 buckets
 * ({@link bucketOf}; random without a key). A bucket that no active window of the cluster covers stays
 * on the cluster. Otherwise a peer is chosen by smooth weighted round robin among the eligible peers:
 * a peer is skipped when it is the cluster itself, when it is failed out for the same bucket (no chained
 * failout), or when it has no hosts. With no eligible peer the request stays (fail open) unless
 * `failClosed` is set.
 *
 * One rotation is kept per config object and eligible-peer set, so the split follows the weights among
 * whoever is eligible, and a new config (a new object from the provider) starts fresh rotations.
 *
 * Concurrency: synchronous, on the event loop; rotations change only inside `redirect`.
 */
export class WeightedFailoutRedirectStrategy implements FailoutRedirectStrategy {
  private readonly view: FailoutClusterView;
  private readonly now: () => number;
  private readonly random: () => number;
  private readonly failClosed: boolean;
  private readonly log: Logger;
  private readonly rotations = new WeakMap<FailoutConfig, Rotations>();
  private readonly noEligible: FailoutCounter<'cluster' | 'outcome'>;
  private readonly skippedPeers: FailoutCounter<'cluster' | 'peer' | 'reason'>;

  constructor(options: WeightedFailoutRedirectStrategyOptions) {
    this.view = options.view;
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.failClosed = options.failClosed ?? false;
    this.log = options.logger ?? createLogger('failout-strategy');
    const registry = options.registry ?? new Registry();
    this.noEligible = createFailoutCounter({
      registry,
      name: 'failout_strategy_no_eligible_peer_total',
      help: 'Requests in an offline bucket that no peer could take, by outcome (failOpen: sent to the cluster; failClosed: rejected)',
      labelNames: ['cluster', 'outcome'],
    });
    this.skippedPeers = createFailoutCounter({
      registry,
      name: 'failout_strategy_peer_skipped_total',
      help: 'Peers passed over for a redirected request, by reason (self, failedOut for the bucket, noHosts)',
      labelNames: ['cluster', 'peer', 'reason'],
    });
  }

  /**
   * The cluster to send the request to: `config.cluster` to stay, else a peer.
   * @throws FailoutError `noEligiblePeer` when the bucket is offline, no peer is eligible and
   *   `failClosed` is set.
   */
  redirect(config: FailoutConfig, request: FailoutRequest): string {
    const now = request.now ?? this.now();
    const bucket = bucketOf(request.key, this.random);
    if (!config.isBucketFailedOut(bucket, now)) return config.cluster;
    const mask = this.eligibleMask(config, bucket, now);
    if (mask === 0) return this.noEligiblePeer(config, bucket);
    return this.rotation(config, mask).next() ?? config.cluster;
  }

  /** Counters since construction. */
  stats(): WeightedFailoutRedirectStrategyStats {
    return {
      noEligiblePeer: this.noEligible.entries().map((e) => ({ cluster: e.labels.cluster, outcome: e.labels.outcome as 'failOpen' | 'failClosed', count: e.value })),
      skipped: this.skippedPeers.entries().map((e) => ({ cluster: e.labels.cluster, peer: e.labels.peer, reason: e.labels.reason as PeerSkipReason, count: e.value })),
    };
  }

  /**
   * Bit i set when `config.peers[i]` may take a request of `bucket`. Peers beyond the 31st never take
   * traffic: a bit mask keeps the hot path allocation-free, and no real failout lists that many peers.
   */
  private eligibleMask(config: FailoutConfig, bucket: number, now: number): number {
    const peers = config.peers;
    const n = Math.min(peers.length, 31);
    let mask = 0;
    for (let i = 0; i < n; i++) {
      const peer = peers[i]!.cluster;
      const reason = this.skipReason(config.cluster, peer, bucket, now);
      if (reason === undefined) mask |= 1 << i;
      else this.skippedPeers.inc(config.cluster, peer, reason);
    }
    return mask;
  }

  private skipReason(cluster: string, peer: string, bucket: number, now: number): PeerSkipReason | undefined {
    if (peer === cluster) return 'self';
    if (this.view.getFailoutConfig(peer)?.isBucketFailedOut(bucket, now) === true) return 'failedOut';
    if (this.view.getHostCount(peer) <= 0) return 'noHosts';
    return undefined;
  }

  private rotation(config: FailoutConfig, mask: number): WeightedRoundRobin<string> {
    let byMask = this.rotations.get(config);
    if (!byMask) {
      byMask = new Map();
      this.rotations.set(config, byMask);
    }
    let rotation = byMask.get(mask);
    if (!rotation) {
      const candidates = config.peers.filter((_peer, i) => i < 31 && (mask & (1 << i)) !== 0).map((p) => ({ item: p.cluster, weight: p.weight }));
      rotation = new WeightedRoundRobin(candidates, { random: this.random });
      byMask.set(mask, rotation);
    }
    return rotation;
  }

  private noEligiblePeer(config: FailoutConfig, bucket: number): string {
    if (this.failClosed) {
      this.noEligible.inc(config.cluster, 'failClosed');
      throw new FailoutError('noEligiblePeer', `no peer of failed-out cluster ${config.cluster} can take bucket ${bucket}`, { cluster: config.cluster });
    }
    this.noEligible.inc(config.cluster, 'failOpen');
    this.log.debug({ cluster: config.cluster, bucket }, 'no eligible failout peer; request stays on its cluster');
    return config.cluster;
  }
}
