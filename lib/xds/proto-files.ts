/**
 * The envoy .proto files lib/xds loads, and where they come from. Shared by `protos.ts` (which loads
 * them) and `scripts/copy-protos.cjs` (which copies them and everything they import into the built
 * package, so that a consumer of `failout/xds` does not need @grpc/grpc-js-xds). Not re-exported.
 */

/** ADS and LRS service definitions, loaded with @grpc/proto-loader. */
export const SERVICE_FILES: readonly string[] = ['envoy/service/discovery/v3/ads.proto', 'envoy/service/load_stats/v3/lrs.proto'];

/** Resource types, loaded into a protobufjs Root for `packAny`/`unpackAny`. */
export const RESOURCE_FILES: readonly string[] = [
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/service/discovery/v3/discovery.proto',
];

/** The include dirs under `@grpc/grpc-js-xds/deps/` (grpc-js-xds-peer.md, "Loading the envoy protos"). */
export const GRPC_JS_XDS_PROTO_DIRS: readonly string[] = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'];

/**
 * Folder, next to the built `protos.js`, that `npm run build` fills with the needed .proto files
 * (one tree: the four include dirs above merged). Absent when running from source.
 */
export const BUNDLED_PROTO_DIR = 'protos';
