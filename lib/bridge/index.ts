/**
 * lib/bridge: the xDS → ZooKeeper bridge. Configuration, the xDS resolver, the D2 mapping, the diffing
 * sync, leader-elected replicas and the admin endpoints (HTTP, and CSDS over gRPC). The face is what
 * runs a replica (its Fargate main, the local stack, the benchmarks); the parts stay inside.
 */
export { XdsBridge, type BridgeRole, type BridgeStatus, type XdsBridgeOptions } from './bridge';
export type { SyncStats } from './d2-sync';
export { loadBridgeConfig, parseBridgeConfig, type BridgeConfig, type ServiceConfig, type WriteBudget } from './config';
export { BridgeError, isBridgeError, type BridgeErrorKind } from './errors';
// The name of the URI child a bridge writes for an endpoint (readers of ZooKeeper tell its children from announcers' by it).
export { uriChildName } from './mapping';
export { BRIDGE_EMF_METRICS, startEmfReporter, type EmfReporter, type EmfReporterOptions, type EmfSource } from './emf';
