/**
 * lib/bridge/contract: what a deployment needs to know about the bridge without running it. The
 * configuration schema (the CDK app validates `XDS_BRIDGE_CONFIG` at synth) and the names of
 * the EMF metrics its alarms watch. No prom-client, no ZooKeeper session, no admin server.
 * `lib/bridge` re-exports all of it.
 */
export { loadBridgeConfig, parseBridgeConfig, type BridgeConfig, type ServiceConfig, type WriteBudget } from '../config';
export { BridgeError, isBridgeError, type BridgeErrorKind } from '../errors';
export { BRIDGE_EMF_METRICS } from '../emf';
