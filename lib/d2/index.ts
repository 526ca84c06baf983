/**
 * lib/d2: the D2 model over ZooKeeper. rest.li-compatible codecs, path helpers, property and URI stores
 * (the PropertyEventBus role), `LoadBalancerState` (SimpleLoadBalancerState), `D2Client` (HTTP through
 * undici), `ZooKeeperAnnouncer` and `ClusterInfoProvider`.
 */
export { D2Error, assertIsError, isMalformed, malformed } from './errors';
export type { D2Entity, D2ErrorKind, D2ErrorOptions, D2MalformedError } from './errors';
export { mergeUriProperties } from './model';
export type {
  Canary,
  CanaryDistributionStrategy,
  ClusterConfig,
  ClusterProperties,
  ConnectionOptions,
  CustomPartitionProperties,
  FailoutPropertiesJson,
  HashAlgorithm,
  HashPartitionProperties,
  MergedUriProperties,
  MethodLevelProperties,
  MethodName,
  NonePartitionProperties,
  PartitionProperties,
  PartitionType,
  PartitionWeights,
  RangePartitionProperties,
  ServiceConfig,
  ServiceProperties,
  SlowStartProperties,
  UnknownKeys,
  UriHost,
  UriProperties,
} from './model';
export { parseClusterProperties, serializeClusterProperties } from './codecs/cluster';
export { parseServiceProperties, serializeServiceProperties } from './codecs/service';
export { parseUriProperties, serializeUriProperties, urisBySchemeAndPartition } from './codecs/uri';
export { rewriteD2Uri } from './codecs/uri-rewrite';
export {
  DEFAULT_BASE_PATH,
  D2_DIRECTORIES,
  assertNodeName,
  clusterPath,
  normalizeBasePath,
  serviceDirectoryPath,
  servicePath,
  urisPath,
} from './paths';
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
export type { LoadBalancerClusterListener, LoadBalancerStateOptions, LoadBalancerStateStats } from './load-balancer-state';
export { D2Client } from './d2-client';
export type { D2ClientOptions, D2RequestInit, D2Response, D2Target, WarmUpOptions, WarmUpResult } from './d2-client';
export { ZooKeeperAnnouncer } from './zookeeper-announcer';
export type { AnnouncerTarget, ZooKeeperAnnouncerOptions } from './zookeeper-announcer';
export { createClusterInfoProvider } from './cluster-info-provider';
export type { ClusterInfoProvider, ClusterInfoSource } from './cluster-info-provider';
