/**
 * lib/failout: cluster failout for D2 clients (rest.li D2's clusterfailout package). Parsed failout
 * configs with time windows, the ZooKeeper-backed config provider with one `FailedoutClusterManager`
 * per failed-out cluster (peer watches and connection warm-up), the default weighted redirect
 * strategy, the `FailoutClient` delegator and the `buildD2Client` wiring.
 */
export type {
  BucketRange,
  ConnectionWarmUpHandler,
  FailoutClusterView,
  FailoutConfig,
  FailoutConfigProvider,
  FailoutConfigProviderFactory,
  FailoutPeer,
  FailoutProviderContext,
  FailoutRedirectStrategy,
  FailoutRequest,
  FailoutWindow,
  WarmUpHandlerFactory,
} from './types';
export { FailoutError, assertIsError, isFailoutError } from './errors';
export type { FailoutErrorKind, FailoutErrorOptions } from './errors';
export { createFailoutConfig } from './failout-config';
export { WeightedFailoutRedirectStrategy } from './weighted-failout-redirect-strategy';
export type { PeerSkipReason, WeightedFailoutRedirectStrategyOptions, WeightedFailoutRedirectStrategyStats } from './weighted-failout-redirect-strategy';
export { FailoutClient } from './failout-client';
export type {
  FailOpenReason,
  FailoutClientOptions,
  FailoutClientStats,
  FailoutDelegate,
  FailoutRequestInit,
  FailoutResolveOptions,
} from './failout-client';
export { buildD2Client } from './d2-client-config';
export type { BuiltD2Client, D2ClientConfig, FailoutRedirectStrategyFactory, FailoutStrategyContext } from './d2-client-config';
export type { D2Discovery, D2DiscoverySource, XdsDiscovery, ZooKeeperDiscovery } from './d2-discovery';
export { FailedoutClusterManager } from './failed-out-cluster-manager';
export type { FailedoutClusterManagerOptions, FailoutScheduler, PeerWatchState, PeerWatchStatus } from './failed-out-cluster-manager';
export { D2ConnectionWarmUpHandler } from './d2-connection-warm-up-handler';
export type { D2ConnectionWarmUpHandlerOptions } from './d2-connection-warm-up-handler';
export { ZooKeeperFailoutConfigProvider } from './failout-config-provider';
export type { ZooKeeperFailoutConfigProviderOptions } from './failout-config-provider';
export { ZooKeeperFailoutConfigProviderFactory } from './failout-config-provider-factory';
export type { ZooKeeperFailoutConfigProviderFactoryOptions } from './failout-config-provider-factory';
export { FailoutClusterInfoProvider } from './failout-cluster-info-provider';
export type { HostCounter } from './failout-cluster-info-provider';
