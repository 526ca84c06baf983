/**
 * lib/d2: the D2 model over ZooKeeper. rest.li-compatible codecs, path helpers, property and URI stores
 * (the PropertyEventBus role), `LoadBalancerState` (SimpleLoadBalancerState), `D2Client` (HTTP through
 * undici), `ZooKeeperAnnouncer` and `ClusterInfoProvider`.
 */
// The pure half (model, codecs, paths, errors) is its own face, lib/d2/data; all of it is public here too.
export * from './data';
export { WeightedRoundRobin } from './weighted-round-robin';
export type { WeightedItem, WeightedRoundRobinOptions } from './weighted-round-robin';
export { ZooKeeperPropertyStore } from './property-store';
export type {
  PropertyParser,
  PropertySnapshot,
  PropertySource,
  PropertyStatus,
  PropertyStoreOptions,
  PropertyStoreStats,
  PropertySubscriber,
} from './property-store';
export { ZooKeeperUriStore } from './uri-store';
export type { UriStoreOptions, UriStoreStats } from './uri-store';
export { LoadBalancerState } from './load-balancer-state';
export type { ClusterChange, LoadBalancerClusterListener, LoadBalancerStateOptions, LoadBalancerStateStats } from './load-balancer-state';
export { D2Client } from './d2-client';
export { eligibleHosts } from './eligible-hosts';
export type { Host, WeightedHost } from './eligible-hosts';
export type { ClusterRouter, D2ClientOptions, D2RequestInit, D2Response, D2Target, WarmUpOptions, WarmUpResult } from './d2-client';
export { ZooKeeperAnnouncer } from './zookeeper-announcer';
export type { AnnouncerTarget, ZooKeeperAnnouncerOptions } from './zookeeper-announcer';
export { createClusterInfoProvider } from './cluster-info-provider';
export type { ClusterInfoProvider, ClusterInfoSource } from './cluster-info-provider';
