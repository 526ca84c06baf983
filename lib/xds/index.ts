/**
 * lib/xds (`failout/xds`): an xDS client with per-authority fallback (gRFC A71), plus the pieces it
 * is built from. The management server lives in `lib/xds/server` and is not part of the package.
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
export { createXdsClient, authorityOf, type XdsClient, type XdsClientOptions, type XdsClientDump, type LoadReporter } from './client';
export { createLoadStore, type LoadStore, type LrsLocality } from './lrs-client';
export type { XdsWatcher, XdsWatcherErrorInfo } from './watcher';
export type { ServerSwitchEvent, AuthorityDump } from './authority';
export { ResourceStatus, WatchState, type AnyResourceType } from './resource-state';
export { DEFAULT_WATCH_EXPIRY_MS, type AdsCall, type AdsCallListener } from './ads-stream';
export { RETRY_BASE_MS, RETRY_CAP_MS, RETRY_JITTER, RETRY_MULTIPLIER, retryDelayMs, type XdsChannelState, type XdsTransport, type XdsTransportFactory } from './channel';
export * from './errors';
export * from './bootstrap';
export * from './protos';
export * from './resource-types';
export {
  addCsdsService,
  buildClientStatusResponse,
  clientStatusJson,
  csdsServiceDefinition,
  csdsServiceImplementation,
  CSDS_FETCH_METHOD_PATH,
  CSDS_SERVICE_NAME,
  CSDS_STREAM_METHOD_PATH,
  type ClientConfig,
  type ClientResourceStatusName,
  type ClientStatusOptions,
  type ClientStatusRequest,
  type ClientStatusResponse,
  type CsdsClients,
  type GenericXdsConfig,
  type TimestampMessage,
  type UpdateFailureState,
} from './csds';
export type { JsonObject, JsonValue } from './proto-json';
