/**
 * lib/xds (`failout/xds`): an xDS client with per-authority fallback (gRFC A71): the client, its
 * bootstrap, the decoded resources it delivers, its errors and CSDS (gRFC A40).
 * The `indis` namespace holds rest.li's D2-over-xDS resource types (`indis.D2Node`, `D2URIMap`,
 * `D2SymlinkNode`): what a watch of kind 'd2Node' | 'd2UriMap' | 'd2SymlinkNode' delivers, and the
 * builders and version helpers an observer serves them with.
 *
 * Two sub-faces keep the rest out of a service's way (neither is part of the package's exports):
 * - `lib/xds/server`: the management server for tests and the local stack, and the resource builders
 *   its snapshots take.
 * - `lib/xds/envoy-protos`: the generated envoy protos: the wire message shapes, the `Resource`
 *   wrapper, the type URLs (`packAny`/`unpackAny` are on both faces).
 *
 * @example
 * ```ts
 * import { createXdsClient } from 'failout/xds';
 *
 * const xds = createXdsClient({ bootstrap: { file: '/etc/failout/bootstrap.json' } });
 * const cancel = xds.watch('cluster', 'greetings-lor1', {
 *   onUpdate: (cluster, done) => { console.log(cluster); done(); },
 *   onResourceDoesNotExist: (done) => done(),
 *   onError: (err, { ambient }, done) => done(),
 * });
 * ```
 *
 * @packageDocumentation
 * @module failout/xds
 */
export { createXdsClient, type XdsClient, type XdsClientOptions, type XdsClientDump, type LoadReporter } from './client';
export type { LoadStore, LrsLocality } from './lrs-client';
export type { XdsWatcher, XdsWatcherErrorInfo } from './watcher';
export type { ServerSwitchEvent, AuthorityDump } from './authority';
export { ResourceStatus } from './resource-state';
export type { XdsChannelState } from './channel';
export { XdsError, isXdsError, type XdsErrorKind } from './errors';
export {
  clientListenerResourceName,
  parseBootstrap,
  type AuthorityConfig,
  type Bootstrap,
  type BootstrapSource,
  type ChannelCredsConfig,
  type FailoutExtensions,
  type NodeConfig,
  type XdsServerConfig,
} from './bootstrap';
// The decoded resources a watcher receives (the builders are the management server's: lib/xds/server).
export type { ResourceKind, XdsTypeUrl } from './resource-types/type-urls';
export type { ResourceValue } from './resource-types';
export type { Listener, ListenerRouteConfig } from './resource-types/listener';
export type { Route, RouteAction, RouteConfiguration, RouteMatch, VirtualHost } from './resource-types/route-configuration';
export type { Cluster, ClusterLbPolicy } from './resource-types/cluster';
export type { ClusterLoadAssignment, Endpoint, EndpointHealthStatus, LocalityEndpoints } from './resource-types/cluster-load-assignment';
// rest.li's D2 over xDS (`indis` types): decoded values for the client adaptor, builders for the observer.
export * as indis from './resource-types/indis';
// Any packing over the compiled-in envoy descriptor (the rest of the protos: lib/xds/envoy-protos).
export { loadXdsProtos, packAny, unpackAny, type AnyMessage, type NodeMessage } from './protos';
export {
  addCsdsService,
  buildClientStatusResponse,
  clientStatusJson,
  type ClientConfig,
  type ClientResourceStatusName,
  type ClientStatusOptions,
  type ClientStatusResponse,
  type CsdsClients,
  type GenericXdsConfig,
  type TimestampMessage,
  type UpdateFailureState,
} from './csds';
export type { JsonObject, JsonValue } from './proto-json';
