/**
 * lib/d2: the D2 model over ZooKeeper (or xDS). rest.li-compatible codecs, path helpers, property and URI stores
 * (the PropertyEventBus role), `LoadBalancerState` (SimpleLoadBalancerState), `D2Client` (HTTP through
 * undici), `ZooKeeperAnnouncer` and `ClusterInfoProvider`.
 */
// The documents, their paths and codecs (pure; lib/d2/data has these and the format's finer rules,
// for code that must not load the runtime below).
export { D2Error, isMalformed, type D2Entity, type D2ErrorKind, type D2ErrorOptions, type D2MalformedError } from './errors';
export { MAX_HOST_WEIGHT } from './model';
// The documents (the same types lib/d2/data names), as a service needs them.
export type { ClusterProperties, FailoutBucketConfig, FailoutBucketRange, FailoutProperties, FailoutRedirectConfig, MergedUriProperties, PartitionWeights, ServiceProperties, UnknownKeys, UriProperties } from './data';
export { clusterPath, servicePath, urisPath } from './paths';
export { clusterNameProblem } from './names';
export { parseClusterProperties, serializeClusterProperties } from './codecs/cluster';
export { parseFailoutProperties, serializeFailoutProperties } from './codecs/failout';
export { parseServiceProperties, serializeServiceProperties } from './codecs/service';
export { parseUriProperties, serializeUriProperties } from './codecs/uri';
// The runtime: the state over ZooKeeper, the HTTP client, the announcer.
export { LoadBalancerState } from './load-balancer-state';
export type { ClusterChange, LoadBalancerClusterListener, LoadBalancerStateOptions, LoadBalancerStateStats } from './load-balancer-state';
export type { PropertyStoreStats } from './property-store';
// Where the state's data comes from: ZooKeeper (the default), rest.li's D2 over xDS, or both (dual
// read). Their option types stay off the face (the budget): `Parameters<typeof dualReadSources>[0]`.
export { dualReadSources } from './dual-read-sources';
export { xdsSources, zooKeeperSources, type D2SourceFactory } from './sources';
export type { UriStoreStats } from './uri-store';
export { D2Client } from './d2-client';
export type { ClusterRouter, D2ClientOptions, D2RequestInit, D2Response, D2Target, WarmUpOptions, WarmUpResult } from './d2-client';
export { ZooKeeperAnnouncer } from './zookeeper-announcer';
export type { AnnouncerTarget, ZooKeeperAnnouncerOptions } from './zookeeper-announcer';
export { createClusterInfoProvider } from './cluster-info-provider';
export type { ClusterInfoProvider, ClusterInfoSource } from './cluster-info-provider';
export { eligibleHosts } from './eligible-hosts';
export type { Host, WeightedHost } from './eligible-hosts';
export { WeightedRoundRobin } from './weighted-round-robin';
export type { WeightedItem, WeightedRoundRobinOptions } from './weighted-round-robin';
