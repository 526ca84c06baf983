import { eligibleHosts } from './eligible-hosts';
import { isPartitioned, partitionOf } from './partitions';
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
   * Hosts that can take a request (rest.li `getClusterCount(cluster, scheme, partition)`, partition 0):
   * announced with a weight above zero, not in the cluster's `bannedUris`, sendable (http or https),
   * and in the first of `schemes` (a service's `prioritizedSchemes`) that has any; no schemes: all of
   * them. The same rule as the D2 client's host pick. With `url` (a request's `d2://` URL), a RANGE
   * or HASH partitioned cluster counts only the hosts of the partition that request would go to.
   */
  getHostCount(cluster: string, schemes?: readonly string[], url?: string): number;
}

/** What {@link createClusterInfoProvider} reads (`LoadBalancerState` fits). */
export type ClusterInfoSource = Pick<LoadBalancerState, 'getUris' | 'getClusterProperties'>;

interface HostCount {
  readonly uris: MergedUriProperties;
  readonly cluster: ClusterProperties | undefined;
  readonly count: number;
}

const NO_SCHEMES: readonly string[] = Object.freeze([]);

class StateClusterInfoProvider implements ClusterInfoProvider {
  /** Host counts per cluster and scheme list, valid while the state hands out the same URI and cluster objects. */
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
   * per URI and cluster snapshot: the state replaces those objects on every change, so identity says
   * when to recount.
   */
  getHostCount(cluster: string, schemes: readonly string[] = NO_SCHEMES, url?: string): number {
    const partitioning = url === undefined ? undefined : this.state.getClusterProperties(cluster)?.partitionProperties;
    if (url !== undefined && partitioning !== undefined && isPartitioned(partitioning)) {
      return eligibleHosts(this.state.getUris(cluster), this.state.getClusterProperties(cluster), schemes, partitionOf(partitioning, url)).length;
    }
    const key = schemes.length === 0 ? cluster : `${cluster}\u0000${schemes.join(',')}`;
    const uris = this.state.getUris(cluster);
    if (!uris) {
      this.counts.delete(key);
      return 0;
    }
    const properties = this.state.getClusterProperties(cluster);
    const cached = this.counts.get(key);
    if (cached && cached.uris === uris && cached.cluster === properties) return cached.count;
    const count = eligibleHosts(uris, properties, schemes).length;
    this.counts.set(key, { uris, cluster: properties, count });
    return count;
  }
}

/** A {@link ClusterInfoProvider} that reads through a {@link LoadBalancerState}. */
export function createClusterInfoProvider(state: ClusterInfoSource): ClusterInfoProvider {
  return new StateClusterInfoProvider(state);
}
