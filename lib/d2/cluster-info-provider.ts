import type { LoadBalancerState } from './load-balancer-state';
import type { ClusterProperties, MergedUriProperties } from './model';

/**
 * Read access to what D2 knows about clusters (rest.li `balancer/util/ClusterInfoProvider`), for code
 * that decides where traffic may go — the failout redirect strategy asks whether a peer has hosts.
 * Answers come from memory: a cluster nobody follows reads as unknown (undefined, 0 hosts).
 */
export interface ClusterInfoProvider {
  /** The cluster's properties, or undefined when not followed, absent or never readable. */
  getClusterProperties(cluster: string): ClusterProperties | undefined;
  /** The cluster's merged announced URIs, or undefined when not followed or absent. */
  getUris(cluster: string): MergedUriProperties | undefined;
  /**
   * Hosts that can take traffic: announced with a weight above zero and not in the cluster's
   * `bannedUris` (rest.li `getClusterCount`, without its scheme and partition arguments).
   */
  getHostCount(cluster: string): number;
}

/** What {@link createClusterInfoProvider} reads (`LoadBalancerState` fits). */
export type ClusterInfoSource = Pick<LoadBalancerState, 'getUris' | 'getClusterProperties'>;

interface HostCount {
  readonly uris: MergedUriProperties;
  readonly banned: readonly string[] | undefined;
  readonly count: number;
}

class StateClusterInfoProvider implements ClusterInfoProvider {
  /** Host counts per cluster, valid while the state hands out the same URI and ban-list objects. */
  private readonly counts = new Map<string, HostCount>();

  constructor(private readonly state: ClusterInfoSource) {}

  getClusterProperties(cluster: string): ClusterProperties | undefined {
    return this.state.getClusterProperties(cluster);
  }

  getUris(cluster: string): MergedUriProperties | undefined {
    return this.state.getUris(cluster);
  }

  /**
   * The failout strategy asks this for every peer of every redirected request, so the count is kept
   * per URI snapshot: the state replaces those objects on every change, so identity says when to recount.
   */
  getHostCount(cluster: string): number {
    const uris = this.state.getUris(cluster);
    if (!uris) {
      this.counts.delete(cluster);
      return 0;
    }
    const banned = this.state.getClusterProperties(cluster)?.bannedUris;
    const cached = this.counts.get(cluster);
    if (cached && cached.uris === uris && cached.banned === banned) return cached.count;
    const bannedSet = new Set(banned ?? []);
    let count = 0;
    for (const host of uris.hosts) if (host.weight > 0 && !bannedSet.has(host.uri)) count++;
    this.counts.set(cluster, { uris, banned, count });
    return count;
  }
}

/** A {@link ClusterInfoProvider} that reads through a {@link LoadBalancerState}. */
export function createClusterInfoProvider(state: ClusterInfoSource): ClusterInfoProvider {
  return new StateClusterInfoProvider(state);
}
