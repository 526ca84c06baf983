/**
 * lib/bridge: the xDS → ZooKeeper bridge. Configuration, the xDS resolver, the D2 mapping, the diffing
 * sync, leader-elected replicas and the admin endpoints (HTTP, and CSDS over gRPC).
 */
export { XdsBridge, type BridgeRole, type BridgeStatus, type XdsBridgeOptions } from './bridge';
export { loadBridgeConfig, parseBridgeConfig, type BridgeConfig, type ServiceConfig, type WriteBudget } from './config';
export { BridgeError, isBridgeError, type BridgeErrorKind } from './errors';
export { bridgeAclLayout, prepareBridgeAccess } from './access';
export {
  URI_CHILD_PREFIX,
  CLUSTER_PROPERTY_KEYS,
  d2ClusterName,
  endpointUri,
  isBridgeChildName,
  isUsable,
  renderCluster,
  renderService,
  uriChildName,
  uriChildren,
  usableEndpoints,
  type ClusterTarget,
  type ServiceTarget,
} from './mapping';
export { batchPlans, planNode, planUris, type NodeAcl, type Plan } from './diff';
export { findVirtualHost, selectServiceRoute } from './route-selection';
export { D2Sync, type D2SyncOptions, type SyncHooks, type SyncLifecycle, type SyncStats } from './d2-sync';
export { XdsResolver, type XdsResolverOptions, type ServiceView, type ClusterView } from './resolver';
export { entityTarget } from './targets';
export { BridgeMetrics, fallbackActive, type MetricsSource } from './metrics';
export { AdminServer, type AdminServerOptions, type AdminSource } from './admin-server';
export { AdminGrpcServer, type AdminGrpcServerOptions } from './admin-grpc-server';
export type { ClusterResolution, EntityKey, EntityTarget, Known, NodeView, ServiceRoute, UrisView } from './model';
export { BRIDGE_EMF_METRICS, bridgeEmfRecord, startEmfReporter, type EmfReporter, type EmfReporterOptions, type EmfSource } from './emf';
