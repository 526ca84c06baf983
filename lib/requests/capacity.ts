import type { Problem } from './rejection';

/**
 * The capacity guard (issue 16): can a failout's peers take the traffic it moves to them?
 *
 * Two bases. The worker judges by host counts: it has no request rates. Services report them only as
 * Prometheus counters (FailoutClient, a service's own request counter), which the worker in its Lambda
 * cannot scrape, while ZooKeeper already holds what D2 clients balance on. Operators' tools (the CLI's
 * dry run, the console) can scrape them, and pass {@link RequestRates}: where X's rate and every peer's
 * are known, the projection uses them instead (`basis: 'requestRates'`), and says so.
 *
 * Host counts (`basis: 'hostCounts'`). The model assumes what D2's weighted round robin
 * does: within a cluster every eligible host carries the same load per unit of host weight, and a
 * cluster's hosts carry as much as X's hosts do (one unit per host). Because a peer spreads what it
 * receives over its hosts by the same weights as its own traffic, host weights cancel out of the
 * factor: only the number of eligible hosts (weight above zero, not banned) matters.
 *
 * - X's load is `clusterHosts` units; the moved load is the bucket fraction (`buckets / 100`) of it.
 * - Peer p (with `h_p` hosts and redirect weight `w_p`) receives `moved × w_p / Σw`, Σw over the peers
 *   that have hosts (D2 clients skip a peer without hosts, so it receives nothing).
 * - Its projected load per host is `(h_p + moved × w_p / Σw) / h_p`, against 1 today: that is its
 *   load factor, which must be at most `maxPeerLoadFactor`.
 *
 * Request rates (`basis: 'requestRates'`): X serves `r_X` requests/s and peer p `r_p`. Peer p receives
 * `r_X × fraction × w_p / Σw` more, and its factor is `(r_p + r_X × fraction × w_p / Σw) / r_p` (its
 * hosts do not change, so the factor per host is the cluster's). With rates proportional to host
 * counts both bases give the same factors; they differ where the hosts do not carry the same load
 * (a peer busier than X per host is closer to its limit than its host count says).
 */

/** Default largest load factor a peer may reach: no peer more than doubles its load. */
export const DEFAULT_MAX_PEER_LOAD_FACTOR = 2.0;

/** One peer of a failout, as the guard sees it. */
export interface CapacityPeer {
  /** The peer's cluster name. */
  readonly cluster: string;
  /** The peer's redirect weight in the request (its share of the moved traffic among the peers with hosts). */
  readonly weight: number;
  /** The peer's eligible hosts. */
  readonly hosts: number;
  /**
   * Load the peer already carries from every other open failout at the instant judged, less its own
   * traffic that is away (host units; issue 21, "judged together"). Absent: 0, the peer alone.
   */
  readonly otherLoad?: number;
  /** The part of {@link otherLoad} already flowing now: measured request rates include it, so the rates basis adds only the rest. */
  readonly otherLoadNow?: number;
}

/**
 * Requests per second by cluster, as operators' tools measure them (lib/metrics). Used only when X's
 * rate is known (finite, ≥ 0: a cluster serving nothing moves nothing) and so is every peer that has
 * hosts (> 0: a factor over an idle peer has no meaning).
 */
export interface RequestRates {
  /** Requests/s by cluster name (X and the peers; other clusters are ignored). */
  readonly byCluster: ReadonlyMap<string, number>;
  /** Where they come from, for people (`2 scrapes of 1 endpoint`); never a URL's credentials. */
  readonly source?: string | undefined;
}

/** Which numbers a projection is made from. */
export type CapacityBasis = 'hostCounts' | 'requestRates';

/** What {@link projectPeerLoad} judges. */
export interface CapacityInput {
  /** Eligible hosts of the cluster being failed out (X). */
  readonly clusterHosts: number;
  /** The fraction of X's traffic moved, from 0 to 1 (`buckets / 100`). */
  readonly movedFraction: number;
  /** The failout's peers, in request order. */
  readonly peers: readonly CapacityPeer[];
  /** Largest allowed load factor, e.g. {@link DEFAULT_MAX_PEER_LOAD_FACTOR}. */
  readonly maxPeerLoadFactor: number;
  /** The failed-out cluster's name: needed to read its rate from {@link rates}. */
  readonly cluster?: string | undefined;
  /** Measured request rates; without them (or when incomplete) the projection is from host counts. */
  readonly rates?: RequestRates | undefined;
  /**
   * The share of X's traffic (0–1) its own failout sends away at the instant judged, before the
   * request. Rates measured by target cluster then miss it at X and count it at X's peers, so they
   * say neither what moves nor what a peer carries alone: above 0, the projection is from host counts.
   */
  readonly clusterAwayNow?: number | undefined;
}

/**
 * One peer's projection. Load is in the projection's basis unit: "one host's load of X" for host
 * counts, requests/s for request rates.
 */
export interface PeerProjection {
  readonly cluster: string;
  readonly hosts: number;
  /** The peer's measured requests/s (request-rates basis only). */
  readonly rate?: number;
  /** Load the peer receives from X (0 for a peer without hosts: clients skip it). */
  readonly addedLoad: number;
  /** Load it carries from other open failouts (as {@link CapacityPeer.otherLoad}, in the basis unit); absent when none. */
  readonly otherLoad?: number;
  /** Projected load per host ÷ current load per host; 1 when nothing is added, null for a peer without hosts. */
  readonly loadFactor: number | null;
  /** The factor is above the limit. */
  readonly over: boolean;
}

/** The guard's answer: the projection for every peer, and the problems (one per peer over the limit). */
export interface CapacityProjection {
  /** Which numbers it is made from. */
  readonly basis: CapacityBasis;
  /** The load moved off X, in the basis unit (X's hosts, or X's requests/s, × the moved fraction). */
  readonly movedLoad: number;
  /** X's requests/s (request-rates basis only). */
  readonly clusterRate?: number;
  /** Why rates were given but not used (a peer's rate unknown, …): the projection is from host counts. */
  readonly ratesUnused?: string;
  /** Where the rates came from ({@link RequestRates.source}; request-rates basis only). */
  readonly ratesSource?: string;
  /** What it was projected from (to project again with other rates: the CLI shows both bases). */
  readonly input: CapacityInput;
  readonly maxPeerLoadFactor: number;
  readonly peers: readonly PeerProjection[];
  /** `insufficientPeerCapacity` for each peer over the limit; empty when the failout fits. */
  readonly problems: readonly Problem[];
}

/**
 * Projects each peer's load after the failout and names the peers over `maxPeerLoadFactor`. Pure.
 * Peers without hosts are left to `noPeerWithHosts` (they get no share and never fail this check).
 */
export function projectPeerLoad(input: CapacityInput): CapacityProjection {
  const fraction = clamp01(input.movedFraction);
  const totalWeight = input.peers.reduce((sum, p) => (p.hosts > 0 ? sum + p.weight : sum), 0);
  const rates = usableRates(input);
  const base = { maxPeerLoadFactor: input.maxPeerLoadFactor, input };
  if (!rates.ok) {
    const movedLoad = Math.max(0, input.clusterHosts) * fraction;
    const peers = input.peers.map((peer): PeerProjection => {
      if (peer.hosts <= 0) return { cluster: peer.cluster, hosts: peer.hosts, addedLoad: 0, loadFactor: null, over: false };
      const addedLoad = totalWeight > 0 ? (movedLoad * peer.weight) / totalWeight : 0;
      const other = peer.otherLoad ?? 0;
      const loadFactor = (peer.hosts + other + addedLoad) / peer.hosts;
      return { cluster: peer.cluster, hosts: peer.hosts, addedLoad, ...otherOf(other), loadFactor, over: loadFactor > input.maxPeerLoadFactor };
    });
    const problems = overProblems(
      peers,
      input.maxPeerLoadFactor,
      (p) => `from host counts: ${p.hosts} hosts${p.otherLoad ? ` + ${round(p.otherLoad)} hosts' worth from other failouts` : ''} + ${round(p.addedLoad)} hosts' worth moved from ${input.clusterHosts} hosts`,
    );
    return { basis: 'hostCounts', movedLoad, ...base, peers, problems, ...(rates.why === undefined ? {} : { ratesUnused: rates.why }) };
  }
  const movedLoad = rates.cluster * fraction;
  const peers = input.peers.map((peer): PeerProjection => {
    if (peer.hosts <= 0) return { cluster: peer.cluster, hosts: peer.hosts, addedLoad: 0, loadFactor: null, over: false };
    const rate = rates.peer(peer.cluster);
    const addedLoad = totalWeight > 0 ? (movedLoad * peer.weight) / totalWeight : 0;
    // Measured rates already hold what other failouts send now; only what starts later is added,
    // at the peer's own rate per host.
    const other = (Math.max(0, (peer.otherLoad ?? 0) - (peer.otherLoadNow ?? 0)) * rate) / peer.hosts;
    const loadFactor = (rate + other + addedLoad) / rate;
    return { cluster: peer.cluster, hosts: peer.hosts, rate, addedLoad, ...otherOf(other), loadFactor, over: loadFactor > input.maxPeerLoadFactor };
  });
  const problems = overProblems(
    peers,
    input.maxPeerLoadFactor,
    (p) => `from request rates: ${round(p.rate ?? 0)} req/s${p.otherLoad ? ` + ${round(p.otherLoad)} req/s from failouts starting later` : ''} + ${round(p.addedLoad)} req/s moved from ${round(rates.cluster)} req/s`,
  );
  const source = input.rates?.source;
  return { basis: 'requestRates', movedLoad, clusterRate: rates.cluster, ...base, peers, problems, ...(source === undefined ? {} : { ratesSource: source }) };
}

/** `insufficientPeerCapacity` for each peer over the limit, with the numbers of the basis (`numbers`). */
function overProblems(peers: readonly PeerProjection[], limit: number, numbers: (p: PeerProjection) => string): Problem[] {
  return peers.flatMap((p, i): Problem[] =>
    p.over && p.loadFactor !== null
      ? [
          {
            reason: 'insufficientPeerCapacity',
            message: `peers[${i}].cluster: ${JSON.stringify(p.cluster)} would carry ${round(p.loadFactor)}× its load per host (${numbers(p)}), above maxPeerLoadFactor ${limit} (force overrides)`,
          },
        ]
      : [],
  );
}

/** The rates to project from, or why there are none (undefined: none were given). */
function usableRates(input: CapacityInput): { ok: true; cluster: number; peer: (cluster: string) => number } | { ok: false; why: string | undefined } {
  const byCluster = input.rates?.byCluster;
  if (byCluster === undefined) return { ok: false, why: undefined };
  const away = input.clusterAwayNow ?? 0;
  if (away > 0) {
    const name = input.cluster === undefined ? 'the failed-out cluster' : JSON.stringify(input.cluster);
    return { ok: false, why: `${name} is failed out now for ${Math.round(away * 100)}% of its traffic: its measured rate lacks what it sends away, and its peers' rates hold it` };
  }
  const cluster = input.cluster === undefined ? undefined : byCluster.get(input.cluster);
  if (cluster === undefined || !Number.isFinite(cluster) || cluster < 0) return { ok: false, why: `no request rate for ${input.cluster === undefined ? 'the failed-out cluster' : JSON.stringify(input.cluster)}` };
  const missing = input.peers.filter((p) => {
    const rate = byCluster.get(p.cluster);
    return p.hosts > 0 && (rate === undefined || !Number.isFinite(rate) || rate <= 0);
  });
  if (missing.length > 0) return { ok: false, why: `no request rate above 0 for ${missing.map((p) => JSON.stringify(p.cluster)).join(', ')}` };
  return { ok: true, cluster, peer: (name) => byCluster.get(name)! };
}

function otherOf(other: number): { otherLoad?: number } {
  return other === 0 ? {} : { otherLoad: other };
}

/** A number shown to two decimals at most (`3`, `2.5`, `1.33`). */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
