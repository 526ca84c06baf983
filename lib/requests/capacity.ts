import type { Problem } from './rejection';

/**
 * The capacity guard (issue 16): can a failout's peers take the traffic it moves to them?
 *
 * The load model uses host counts, not request rates: the worker has no request rates. Services report
 * them only as Prometheus counters (FailoutClient), which the worker in its Lambda cannot scrape, while
 * ZooKeeper already holds what D2 clients balance on. The model assumes what D2's weighted round robin
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
}

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
}

/** One peer's projection, in units of "one host's load of X". */
export interface PeerProjection {
  readonly cluster: string;
  readonly hosts: number;
  /** Load the peer receives from X (0 for a peer without hosts: clients skip it). */
  readonly addedLoad: number;
  /** Projected load per host ÷ current load per host; 1 when nothing is added, null for a peer without hosts. */
  readonly loadFactor: number | null;
  /** The factor is above the limit. */
  readonly over: boolean;
}

/** The guard's answer: the projection for every peer, and the problems (one per peer over the limit). */
export interface CapacityProjection {
  /** The load moved off X, in units (X's hosts × the moved fraction). */
  readonly movedLoad: number;
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
  const movedLoad = Math.max(0, input.clusterHosts) * clamp01(input.movedFraction);
  const totalWeight = input.peers.reduce((sum, p) => (p.hosts > 0 ? sum + p.weight : sum), 0);
  const peers = input.peers.map((peer): PeerProjection => {
    if (peer.hosts <= 0) return { cluster: peer.cluster, hosts: peer.hosts, addedLoad: 0, loadFactor: null, over: false };
    const addedLoad = totalWeight > 0 ? (movedLoad * peer.weight) / totalWeight : 0;
    const loadFactor = (peer.hosts + addedLoad) / peer.hosts;
    return { cluster: peer.cluster, hosts: peer.hosts, addedLoad, loadFactor, over: loadFactor > input.maxPeerLoadFactor };
  });
  const problems = peers.flatMap((p, i): Problem[] =>
    p.over && p.loadFactor !== null
      ? [
          {
            reason: 'insufficientPeerCapacity',
            message:
              `peers[${i}].cluster: ${JSON.stringify(p.cluster)} would carry ${round(p.loadFactor)}× its load per host ` +
              `(${p.hosts} hosts + ${round(p.addedLoad)} hosts' worth moved from ${input.clusterHosts} hosts), ` +
              `above maxPeerLoadFactor ${input.maxPeerLoadFactor} (force overrides)`,
          },
        ]
      : [],
  );
  return { movedLoad, maxPeerLoadFactor: input.maxPeerLoadFactor, peers, problems };
}

/** A number shown to two decimals at most (`3`, `2.5`, `1.33`). */
function round(value: number): number {
  return Math.round(value * 100) / 100;
}

function clamp01(value: number): number {
  return Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0;
}
