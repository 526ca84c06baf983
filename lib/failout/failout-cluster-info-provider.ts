import { createClusterInfoProvider, type ClusterInfoProvider, type ClusterInfoSource, type ClusterProperties, type MergedUriProperties } from '../d2';
import type { FailoutClusterView, FailoutConfig, FailoutConfigProvider } from './types';

/** Counts the hosts a request could go to (`D2Client.hostCount` fits). */
export interface HostCounter {
  /** Hosts of `cluster` a request with these `schemes` (and, for a partitioned cluster, the partition of `url`) could go to; 0 when unknown. */
  hostCount(cluster: string, schemes?: readonly string[], url?: string): number;
}

/**
 * D2's {@link ClusterInfoProvider} plus `getFailoutConfig` (rest.li `ClusterInfoProvider.getFailoutConfig`,
 * served by the load balancer facade from its provider), and the {@link FailoutClusterView} the
 * redirect strategy reads peers through.
 *
 * rest.li documents `getFailoutConfig` as "null if there is no active failout config", but its
 * provider returns a config that is present and not failed out, and its FailoutClient checks
 * `isFailedOut()` itself. Here `getFailoutConfig` returns the config while the cluster has failout
 * properties, active or not: a window that starts later must take effect with no further write, so
 * callers evaluate `isFailedOut(now)` on every request. {@link getActiveFailoutConfig} gives the
 * rest.li-documented reading for callers that want it.
 */
export class FailoutClusterInfoProvider implements ClusterInfoProvider, FailoutClusterView {
  private readonly clusters: ClusterInfoProvider;
  private readonly hosts: HostCounter | undefined;

  /**
   * `provider` undefined (failout disabled): every cluster reads as having no failout. `hosts`: where
   * host counts come from — the D2 client that sends the requests (its own host rule and cached
   * selections, as `buildD2Client` wires it); default counted from `state` by the same rule.
   */
  constructor(
    private readonly state: ClusterInfoSource & { readonly version?: number },
    private readonly provider: Pick<FailoutConfigProvider, 'getFailoutConfig'> | undefined,
    hosts?: HostCounter,
  ) {
    this.clusters = createClusterInfoProvider(state);
    this.hosts = hosts;
  }

  /**
   * The state's version when it has one (LoadBalancerState): the provider's configs and the host
   * counts change only with the state's data, which bumps it.
   */
  get version(): number | undefined {
    return this.state.version;
  }

  /** The cluster's properties, or undefined when not followed, absent or never readable. */
  getClusterProperties(cluster: string): ClusterProperties | undefined {
    return this.clusters.getClusterProperties(cluster);
  }

  /** The cluster's merged announced URIs, or undefined when not followed or absent. */
  getUris(cluster: string): MergedUriProperties | undefined {
    return this.clusters.getUris(cluster);
  }

  /**
   * Hosts a request with these `schemes` (a service's `prioritizedSchemes`) could go to; 0 for an
   * unknown cluster. With `url`, a RANGE or HASH partitioned cluster counts those of the request's partition.
   */
  getHostCount(cluster: string, schemes?: readonly string[], url?: string): number {
    return this.hosts ? this.hosts.hostCount(cluster, schemes, url) : this.clusters.getHostCount(cluster, schemes, url);
  }

  /** Whether the cluster is RANGE or HASH partitioned (its hosts then depend on the request). */
  isPartitioned(cluster: string): boolean {
    const type = this.state.getClusterProperties(cluster)?.partitionProperties.partitionType;
    return type === 'RANGE' || type === 'HASH';
  }

  /** The cluster's failout config while it has failout properties (active or not), else undefined. */
  getFailoutConfig(cluster: string): FailoutConfig | undefined {
    return this.provider?.getFailoutConfig(cluster);
  }

  /** The config only while it is failed out at `now` (rest.li's documented "active failout config"). */
  getActiveFailoutConfig(cluster: string, now = Date.now()): FailoutConfig | undefined {
    const config = this.getFailoutConfig(cluster);
    return config?.isFailedOut(now) ? config : undefined;
  }
}
