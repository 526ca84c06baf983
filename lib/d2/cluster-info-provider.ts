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

class StateClusterInfoProvider implements ClusterInfoProvider {
  constructor(private readonly state: LoadBalancerState) {}

  getClusterProperties(cluster: string): ClusterProperties | undefined {
    return this.state.getClusterProperties(cluster);
  }

  getUris(cluster: string): MergedUriProperties | undefined {
    return this.state.getUris(cluster);
  }

  getHostCount(cluster: string): number {
    const uris = this.state.getUris(cluster);
    if (!uris) return 0;
    const banned = new Set(this.state.getClusterProperties(cluster)?.bannedUris ?? []);
    let count = 0;
    for (const host of uris.hosts) if (host.weight > 0 && !banned.has(host.uri)) count++;
    return count;
  }
}

/** A {@link ClusterInfoProvider} that reads through a {@link LoadBalancerState}. */
export function createClusterInfoProvider(state: LoadBalancerState): ClusterInfoProvider {
  return new StateClusterInfoProvider(state);
}
