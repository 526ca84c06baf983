import { Registry } from 'prom-client';
import { WeightedRoundRobin } from '../d2';
import { createLogger, type Logger } from '../logging';
import { bucketOf } from './bucket';
import { BUCKETS } from './failout-config';
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
  /**
   * Where the counters register; default a private registry, so nothing is global. Strategies on one
   * registry share its counters (summed, same labels); `stats()` stays per strategy.
   */
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

/** What the view says of one peer of a config, for one scheme list. */
interface PeerFacts {
  readonly cluster: string;
  /** The peer is the failed-out cluster itself. */
  readonly self: boolean;
  /** The peer's own failout config (evaluated per request: its windows depend on bucket and time). */
  readonly config: FailoutConfig | undefined;
  /** The peer has a host this service would send to. */
  readonly hasHosts: boolean;
  /** The peer is RANGE or HASH partitioned: whether it has a host depends on the request's partition. */
  readonly partitioned: boolean;
}

/** The peers' facts for one scheme list, and the view version they hold for. */
interface PeerFactsEntry {
  readonly version: number | undefined;
  readonly peers: readonly PeerFacts[];
  /** Some peer has a failout config of its own (the request's bucket then matters). */
  readonly anyFailout: boolean;
  /** Some peer has a failout config of its own or is partitioned: eligibility is judged per request. */
  readonly perRequest: boolean;
  /** Without peer failouts or partitions: the rotation over the eligible peers (undefined when none is eligible). */
  readonly rotation: WeightedRoundRobin<string> | undefined;
  /** Without peer failouts or partitions: the peers passed over, and why (counted per request). */
  readonly skipped: readonly { readonly cluster: string; readonly reason: PeerSkipReason }[];
}

/** What a strategy keeps of one config. */
interface ConfigFacts {
  /** Every window covers buckets 0–99: every request of the cluster moves while it is failed out. */
  readonly allBuckets: boolean;
  readonly bySchemes: Map<readonly string[] | undefined, PeerFactsEntry>;
  /** The config's rotations, by the set of eligible peers (see {@link EligibleSet}). */
  readonly rotations: Rotations;
  /** The scheme list asked for last, and its entry: services mostly share one. */
  lastSchemes: readonly string[] | undefined | typeof NOT_SEEN;
  lastEntry: PeerFactsEntry | undefined;
}

/** No scheme list asked for yet (`undefined` is a valid scheme list: any). */
const NOT_SEEN: unique symbol = Symbol('not seen');

/** The bucket passed on when no rule depends on it (every window and no peer window looks at it). */
const ANY_BUCKET = -1;

/**
 * Which of `config.peers` may take a request: a bit mask (bit i: `config.peers[i]`) while the list
 * fits one (31 peers: a number keeps the hot path allocation-free), else a string with `'1'` at each
 * eligible index. `NONE_ELIGIBLE` in both cases when no peer may.
 */
type EligibleSet = number | string;

/** No peer is eligible (either form of {@link EligibleSet}). */
const NONE_ELIGIBLE = 0;

/** Peers a number mask holds (bit 31 is the sign bit of `1 << 31`). */
const MASK_PEERS = 31;

/** The rotations of one config, by the set of eligible peers. */
type Rotations = Map<EligibleSet, WeightedRoundRobin<string>>;

/**
 * The default {@link FailoutRedirectStrategy}: the request's key hashes into one of 100 buckets
 * (`bucketOf`; random without a key). A bucket that no active window of the cluster covers stays
 * on the cluster. Otherwise a peer is chosen by smooth weighted round robin among the eligible peers:
 * a peer is skipped when it is the cluster itself, when it is failed out for the same bucket (no chained
 * failout), or when it has no host this request's service would send to (its `prioritizedSchemes`,
 * banned hosts, weights). With no eligible peer the request stays (fail open: counted here and told to
 * the caller through `request.onNoEligiblePeer`) unless `failClosed` is set.
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
  /**
   * Per config: its bucket shape, per scheme list what the view said of each peer, and its rotations
   * (one lookup per request; a new config object starts fresh).
   */
  private readonly facts = new WeakMap<FailoutConfig, ConfigFacts>();
  /** The config asked for last and its facts (a one-entry cache in front of `facts`). */
  private lastConfig: FailoutConfig | undefined;
  private lastFacts: ConfigFacts | undefined;
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
    const facts = this.configFacts(config);
    const peers = this.peerFacts(config, facts, request.schemes);
    let bucket = ANY_BUCKET;
    if (facts.allBuckets && !peers.anyFailout) {
      // Every window moves every bucket and no peer has a failout of its own: the bucket cannot change
      // the answer, so the key is not hashed.
      if (!config.isFailedOut(now)) return config.cluster;
    } else {
      bucket = bucketOf(request.key, this.random);
      if (!config.isBucketFailedOut(bucket, now)) return config.cluster;
    }
    if (!peers.perRequest && peers.rotation !== undefined) {
      // No peer window or partition to evaluate: the eligible set is fixed while the facts hold.
      for (const skip of peers.skipped) this.skippedPeers.inc(config.cluster, skip.cluster, skip.reason);
      return peers.rotation.next() ?? config.cluster;
    }
    const eligible = peers.peers.length <= MASK_PEERS ? this.eligibleMask(config, peers.peers, bucket, now, request) : this.eligibleWide(config, peers.peers, bucket, now, request);
    if (eligible === NONE_ELIGIBLE) return this.noEligiblePeer(config, request, bucket);
    return this.rotation(config, facts, eligible).next() ?? config.cluster;
  }

  /** Counters since construction. */
  stats(): WeightedFailoutRedirectStrategyStats {
    return {
      noEligiblePeer: this.noEligible.entries().map((e) => ({ cluster: e.labels.cluster, outcome: e.labels.outcome as 'failOpen' | 'failClosed', count: e.value })),
      skipped: this.skippedPeers.entries().map((e) => ({ cluster: e.labels.cluster, peer: e.labels.peer, reason: e.labels.reason as PeerSkipReason, count: e.value })),
    };
  }

  /**
   * Bit i set when `config.peers[i]` may take a request of `bucket` (at most 31 peers; see
   * {@link eligibleWide} beyond). What does not depend on the request (self, hosts, which peers have a failout of their own) is
   * kept per config and scheme list while the view's `version` holds; only the peers' own windows are
   * evaluated per request (they depend on the bucket and the time), and a partitioned peer's hosts
   * (they depend on the request's partition there).
   */
  private eligibleMask(config: FailoutConfig, peers: readonly PeerFacts[], bucket: number, now: number, request: FailoutRequest): number {
    let mask = 0;
    for (let i = 0; i < peers.length; i++) {
      const peer = peers[i]!;
      const reason = this.skipReason(peer, bucket, now, request);
      if (reason === undefined) mask |= 1 << i;
      else this.skippedPeers.inc(config.cluster, peer.cluster, reason);
    }
    return mask;
  }

  /** {@link eligibleMask} for a list longer than a mask holds: a string key (allocates; rare lists only). */
  private eligibleWide(config: FailoutConfig, peers: readonly PeerFacts[], bucket: number, now: number, request: FailoutRequest): EligibleSet {
    let key = '';
    let any = false;
    for (const peer of peers) {
      const reason = this.skipReason(peer, bucket, now, request);
      if (reason === undefined) any = true;
      else this.skippedPeers.inc(config.cluster, peer.cluster, reason);
      key += reason === undefined ? '1' : '0';
    }
    return any ? key : NONE_ELIGIBLE;
  }

  /** Why `peer` cannot take this request (bucket, time, and for a partitioned peer its URL), or undefined when it can. */
  private skipReason(peer: PeerFacts, bucket: number, now: number, request: FailoutRequest): PeerSkipReason | undefined {
    if (peer.self) return 'self';
    if (peer.config?.isBucketFailedOut(bucket, now) === true) return 'failedOut';
    const hasHosts = peer.partitioned ? this.view.getHostCount(peer.cluster, request.schemes, request.url) > 0 : peer.hasHosts;
    return hasHosts ? undefined : 'noHosts';
  }

  private configFacts(config: FailoutConfig): ConfigFacts {
    // Most of the time one cluster is failed out: its facts are one comparison away.
    if (config === this.lastConfig) return this.lastFacts!;
    let facts = this.facts.get(config);
    if (facts === undefined) {
      const allBuckets = config.windows.every((w) => w.buckets.from <= 0 && w.buckets.to >= BUCKETS - 1);
      this.facts.set(config, (facts = { allBuckets, bySchemes: new Map(), rotations: new Map(), lastSchemes: NOT_SEEN, lastEntry: undefined }));
    }
    this.lastConfig = config;
    this.lastFacts = facts;
    return facts;
  }

  private peerFacts(config: FailoutConfig, facts: ConfigFacts, schemes: readonly string[] | undefined): PeerFactsEntry {
    const version = this.view.version;
    const cached = schemes === facts.lastSchemes ? facts.lastEntry : facts.bySchemes.get(schemes);
    if (cached !== undefined && version !== undefined && cached.version === version) {
      facts.lastSchemes = schemes;
      facts.lastEntry = cached;
      return cached;
    }
    const peers = config.peers.map(
      (p): PeerFacts => ({
        cluster: p.cluster,
        self: p.cluster === config.cluster,
        config: this.view.getFailoutConfig(p.cluster),
        // Only hosts this service would send to count: a peer with https hosts only cannot take an http service's request.
        hasHosts: this.view.getHostCount(p.cluster, schemes) > 0,
        partitioned: this.view.isPartitioned?.(p.cluster) === true,
      }),
    );
    const anyFailout = peers.some((p) => p.config !== undefined);
    const perRequest = anyFailout || peers.some((p) => p.partitioned);
    let rotation: WeightedRoundRobin<string> | undefined;
    const skipped: { cluster: string; reason: PeerSkipReason }[] = [];
    if (!perRequest) {
      const eligible: boolean[] = [];
      for (const p of peers) {
        const reason = p.self ? 'self' : p.hasHosts ? undefined : 'noHosts';
        eligible.push(reason === undefined);
        if (reason !== undefined) skipped.push({ cluster: p.cluster, reason });
      }
      const set = eligibleSetOf(eligible);
      rotation = set === NONE_ELIGIBLE ? undefined : this.rotation(config, facts, set);
    }
    const entry: PeerFactsEntry = { version, peers, anyFailout, perRequest, rotation, skipped };
    facts.bySchemes.set(schemes, entry);
    facts.lastSchemes = schemes;
    facts.lastEntry = entry;
    return entry;
  }

  private rotation(config: FailoutConfig, facts: ConfigFacts, eligible: EligibleSet): WeightedRoundRobin<string> {
    const bySet = facts.rotations;
    let rotation = bySet.get(eligible);
    if (!rotation) {
      const candidates = config.peers.filter((_peer, i) => isEligible(eligible, i)).map((p) => ({ item: p.cluster, weight: p.weight }));
      rotation = new WeightedRoundRobin(candidates, { random: this.random });
      bySet.set(eligible, rotation);
    }
    return rotation;
  }

  private noEligiblePeer(config: FailoutConfig, request: FailoutRequest, bucket: number): string {
    if (this.failClosed) {
      this.noEligible.inc(config.cluster, 'failClosed');
      throw new FailoutError('noEligiblePeer', `no peer of failed-out cluster ${config.cluster} can take ${bucket === ANY_BUCKET ? 'its requests' : `bucket ${bucket}`}`, { cluster: config.cluster });
    }
    this.noEligible.inc(config.cluster, 'failOpen');
    request.onNoEligiblePeer?.(config.cluster);
    this.log.debug({ cluster: config.cluster, bucket }, 'no eligible failout peer; request stays on its cluster');
    return config.cluster;
  }
}

/** The {@link EligibleSet} of a list of peers, by whether each may take the request. */
function eligibleSetOf(eligible: readonly boolean[]): EligibleSet {
  if (!eligible.includes(true)) return NONE_ELIGIBLE;
  if (eligible.length > MASK_PEERS) return eligible.map((e) => (e ? '1' : '0')).join('');
  return eligible.reduce((mask, e, i) => (e ? mask | (1 << i) : mask), 0);
}

/** Whether `config.peers[index]` is in `eligible`. */
function isEligible(eligible: EligibleSet, index: number): boolean {
  return typeof eligible === 'number' ? (eligible & (1 << index)) !== 0 : eligible.charCodeAt(index) === 0x31;
}
