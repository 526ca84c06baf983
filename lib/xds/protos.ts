/**
 * The envoy protos, loaded lazily and ONCE per process.
 *
 * Public names (stable; the client core depends on them):
 * - `loadXdsProtos(): XdsProtos` — the memoised loader (first call ~0.3 s, then free).
 * - `XdsProtos` — `{ adsService, lrsService, AdsClient, LrsClient, resourceRoot }`.
 * - `ADS_METHOD_PATH`, `LRS_METHOD_PATH` — full gRPC method paths.
 * - `packAny(typeUrl, obj): AnyMessage` — strict: unknown fields and unknown enum strings throw
 *   `XdsError` kind 'validation' (protobufjs `fromObject` would silently drop them).
 * - `unpackAny(any): Record<string, unknown>` — decodes with snake_case keys, string enums, string
 *   longs, defaults and oneof discriminators; undecodable bytes throw `XdsError` 'validation'.
 * - `wrapResource(any, name?)` / `unwrapResource(any)` — the `envoy.service.discovery.v3.Resource` wrapper.
 * - Wire shapes: `AnyMessage`, `NodeMessage`, `StatusMessage`, `DiscoveryRequest`, `DiscoveryResponse`,
 *   `LoadStatsRequest`, `LoadStatsResponse`, `ClusterStatsMessage`.
 *
 * Two separate roots (grpc-js-xds-peer.md, "Traps"): @grpc/proto-loader builds the ADS/LRS service
 * definitions (Any stays `{type_url, value: Buffer}` because `json` is not set), and a protobufjs Root
 * holds the resource types for `packAny`/`unpackAny`.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import * as protobuf from 'protobufjs';
import { XdsError } from './errors';
import { BUNDLED_PROTO_DIR, GRPC_JS_XDS_PROTO_DIRS, RESOURCE_FILES, SERVICE_FILES } from './proto-files';
import { messageNameOf, RESOURCE_WRAPPER_TYPE_URL } from './resource-types/type-urls';

/** `google.protobuf.Any` as it travels in ADS messages. */
export interface AnyMessage {
  type_url: string;
  value: Buffer | Uint8Array;
}

/** `envoy.config.core.v3.Node` (the fields gRPC uses). */
export interface NodeMessage {
  id?: string;
  cluster?: string;
  locality?: { region?: string; zone?: string; sub_zone?: string } | null;
  metadata?: unknown;
  user_agent_name?: string;
  user_agent_version?: string;
  client_features?: string[];
}

/** `google.rpc.Status`. */
export interface StatusMessage {
  code: number;
  message: string;
  details?: AnyMessage[];
}

/** `envoy.service.discovery.v3.DiscoveryRequest` (SotW). */
export interface DiscoveryRequest {
  version_info: string;
  node?: NodeMessage | null;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: StatusMessage | null;
}

/** `envoy.service.discovery.v3.DiscoveryResponse` (SotW). */
export interface DiscoveryResponse {
  version_info: string;
  resources: AnyMessage[];
  type_url: string;
  nonce: string;
  canary?: boolean;
}

/** `envoy.config.endpoint.v3.ClusterStats` (the fields LRS uses). */
export interface ClusterStatsMessage {
  cluster_name: string;
  cluster_service_name?: string;
  upstream_locality_stats?: Array<{
    locality?: { region?: string; zone?: string; sub_zone?: string } | null;
    total_successful_requests?: number | string;
    total_requests_in_progress?: number | string;
    total_error_requests?: number | string;
    total_issued_requests?: number | string;
  }>;
  total_dropped_requests?: number | string;
  dropped_requests?: Array<{ category: string; dropped_count: number | string }>;
  load_report_interval?: { seconds: number | string; nanos: number } | null;
}

/** `envoy.service.load_stats.v3.LoadStatsRequest`. */
export interface LoadStatsRequest {
  node?: NodeMessage | null;
  cluster_stats: ClusterStatsMessage[];
}

/** `envoy.service.load_stats.v3.LoadStatsResponse`. */
export interface LoadStatsResponse {
  clusters: string[];
  send_all_clusters: boolean;
  load_reporting_interval: { seconds: number | string; nanos: number } | null;
  report_endpoint_granularity?: boolean;
}

/** Everything loaded from the envoy protos. */
export interface XdsProtos {
  /** `envoy.service.discovery.v3.AggregatedDiscoveryService`, for `server.addService`. */
  readonly adsService: grpc.ServiceDefinition;
  /** `envoy.service.load_stats.v3.LoadReportingService`, for `server.addService`. */
  readonly lrsService: grpc.ServiceDefinition;
  /** Client constructor; `new AdsClient(uri, creds).StreamAggregatedResources()`. */
  readonly AdsClient: grpc.ServiceClientConstructor;
  /** Client constructor; `new LrsClient(uri, creds).StreamLoadStats()`. */
  readonly LrsClient: grpc.ServiceClientConstructor;
  /** protobufjs root with Listener, RouteConfiguration, Cluster, ClusterLoadAssignment, HCM, Router, Resource. */
  readonly resourceRoot: protobuf.Root;
}

/** Full method path of SotW ADS. */
export const ADS_METHOD_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
/** Full method path of LRS. */
export const LRS_METHOD_PATH = '/envoy.service.load_stats.v3.LoadReportingService/StreamLoadStats';

/** `toObject` options matching grpc-js-xds (so decoded objects look the same). */
const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

let loaded: XdsProtos | undefined;

/**
 * Where the .proto files are: the copy `npm run build` puts next to the built file (the installed
 * package), else @grpc/grpc-js-xds's `deps/` (running from source; a devDependency).
 */
function includeDirs(): string[] {
  const bundled = path.join(__dirname, BUNDLED_PROTO_DIR);
  if (existsSync(bundled)) return [bundled];
  const pkg = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  return GRPC_JS_XDS_PROTO_DIRS.map((d) => path.join(pkg, 'deps', d));
}

function loadResourceRoot(dirs: string[]): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => {
    for (const dir of dirs) {
      const candidate = path.join(dir, target);
      if (existsSync(candidate)) return candidate;
    }
    return target;
  };
  root.loadSync([...RESOURCE_FILES], { keepCase: true });
  root.resolveAll();
  return root;
}

/** Loads the protos on first call and returns the same object afterwards. */
export function loadXdsProtos(): XdsProtos {
  if (loaded) return loaded;
  const dirs = includeDirs();
  const definition = protoLoader.loadSync([...SERVICE_FILES], {
    keepCase: true,
    longs: String,
    enums: String,
    defaults: true,
    oneofs: true,
    includeDirs: dirs,
  });
  const pkg = grpc.loadPackageDefinition(definition) as unknown as {
    envoy: { service: { discovery: { v3: Record<string, grpc.ServiceClientConstructor> }; load_stats: { v3: Record<string, grpc.ServiceClientConstructor> } } };
  };
  const AdsClient = pkg.envoy.service.discovery.v3.AggregatedDiscoveryService;
  const LrsClient = pkg.envoy.service.load_stats.v3.LoadReportingService;
  loaded = {
    adsService: AdsClient.service,
    lrsService: LrsClient.service,
    AdsClient,
    LrsClient,
    resourceRoot: loadResourceRoot(dirs),
  };
  return loaded;
}

function lookupType(typeUrl: string): protobuf.Type {
  const type = loadXdsProtos().resourceRoot.lookup(messageNameOf(typeUrl));
  if (!(type instanceof protobuf.Type)) {
    throw new XdsError('resourceTypeUnsupported', `unknown resource type ${typeUrl}`, { typeUrl });
  }
  return type;
}

/** Rejects fields and enum strings that `fromObject` would silently drop. */
function assertKnownFields(type: protobuf.Type, obj: unknown, where: string): void {
  if (obj === null || typeof obj !== 'object' || Buffer.isBuffer(obj) || obj instanceof Uint8Array) return;
  for (const [key, value] of Object.entries(obj as Record<string, unknown>)) {
    if (value === undefined) continue;
    const field = type.fields[key];
    const at = `${where}.${key}`;
    if (!field) throw new XdsError('validation', `unknown field ${at} in ${type.fullName}`, { field: at });
    const values = field.repeated && Array.isArray(value) ? value : field.map ? Object.values(value as object) : [value];
    for (const v of values) {
      if (field.resolvedType instanceof protobuf.Type) assertKnownFields(field.resolvedType, v, at);
      else if (field.resolvedType instanceof protobuf.Enum && typeof v === 'string' && !(v in field.resolvedType.values)) {
        throw new XdsError('validation', `unknown enum value ${at}=${v}`, { field: at });
      }
    }
  }
}

/**
 * Encodes a plain object (snake_case keys, as in the .proto) into an Any of `typeUrl`.
 * Nested Any fields must already be `{type_url, value}` (use `packAny` for them too).
 */
export function packAny(typeUrl: string, obj: object): AnyMessage {
  const type = lookupType(typeUrl);
  assertKnownFields(type, obj, messageNameOf(typeUrl));
  const value = Buffer.from(type.encode(type.fromObject(obj)).finish());
  return { type_url: typeUrl, value };
}

/** Decodes an Any into a plain object; throws `XdsError` 'validation' on undecodable bytes. */
export function unpackAny(any: AnyMessage): Record<string, unknown> {
  const type = lookupType(any.type_url);
  try {
    return type.toObject(type.decode(any.value), TO_OBJECT);
  } catch (e) {
    throw new XdsError('validation', `cannot decode ${any.type_url}: ${e instanceof Error ? e.message : String(e)}`, {
      typeUrl: any.type_url,
      cause: e,
    });
  }
}

/** Wraps a resource in `envoy.service.discovery.v3.Resource` (servers may send either form). */
export function wrapResource(any: AnyMessage, name?: string): AnyMessage {
  return packAny(RESOURCE_WRAPPER_TYPE_URL, { name: name ?? '', resource: any });
}

/**
 * Removes the `Resource` wrapper if present (grpc-go `UnwrapResource`); returns the inner Any and the
 * wrapper's name ('' when unwrapped or unnamed). A wrapper without a resource throws 'validation'.
 */
export function unwrapResource(any: AnyMessage): { any: AnyMessage; name: string } {
  if (any.type_url !== RESOURCE_WRAPPER_TYPE_URL) return { any, name: '' };
  const wrapper = unpackAny(any) as { name?: string; resource?: AnyMessage | null };
  if (!wrapper.resource) throw new XdsError('validation', 'Resource wrapper without a resource', { typeUrl: any.type_url });
  return { any: wrapper.resource, name: wrapper.name ?? '' };
}
