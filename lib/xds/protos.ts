/**
 * The envoy protos, loaded lazily and ONCE per process.
 *
 * Public names (stable; the client core depends on them):
 * - `loadXdsProtos(): XdsProtos` — the memoised loader.
 * - `XdsProtos` — `{ adsService, lrsService, AdsClient, LrsClient, resourceRoot }`.
 * - `ADS_METHOD_PATH`, `LRS_METHOD_PATH` — full gRPC method paths.
 * - `packAny(typeUrl, obj): AnyMessage` — strict: unknown fields and unknown enum strings throw
 *   `XdsError` kind 'validation' (protobufjs `fromObject` would silently drop them).
 * - `unpackAny(any): Record<string, unknown>` — decodes with snake_case keys, string enums, string
 *   longs, defaults and oneof discriminators; undecodable bytes throw `XdsError` 'validation'.
 * - `decodeAnyForClient(any)` / `enumName(message, key)` — the client's cheaper decode (a protobufjs
 *   message over the client's root) and reading its enums by name.
 * - `wrapResource(any, name?)` / `unwrapResource(any)` — the `envoy.service.discovery.v3.Resource` wrapper.
 * - `encodeDiscoveryResponse` / `encodeDeltaDiscoveryResponse` — a response encoded once, written as bytes.
 * - Wire shapes: `AnyMessage`, `NodeMessage`, `StatusMessage`, `DiscoveryRequest`, `DiscoveryResponse`,
 *   `DeltaDiscoveryRequest`, `DeltaDiscoveryResponse`, `DeltaResource`,
 *   `LoadStatsRequest`, `LoadStatsResponse`, `ClusterStatsMessage`.
 *
 * protobufjs roots built from the generated descriptors in `envoy-descriptor.ts` (see
 * scripts/xds-descriptor.ts, and `proto-roots.ts`): no .proto parsing at run time and no @grpc/proto-loader. The client uses
 * a root of only the types it reads and writes; `packAny`, `unpackAny` and the server's services use
 * the full one. The ADS and LRS services are generic gRPC definitions whose (de)serializers use a root
 * with the options proto-loader would use; Any stays `{type_url, value: Buffer}` because `json` is not
 * set (grpc-js-xds-peer.md, "Traps").
 */
import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs/light';
import { XdsError } from './errors';
import { methodDefinition, rootOf, TO_OBJECT, type RootKind } from './proto-roots';
import { messageNameOf, RESOURCE_WRAPPER_TYPE_URL } from './resource-types/type-urls';

/** `google.protobuf.Any` as it travels in ADS messages. */
export interface AnyMessage {
  /** `type_url`: identifies the packed message type, e.g. `type.googleapis.com/envoy.config.listener.v3.Listener`. */
  type_url: string;
  /** `value`: the serialized bytes of the packed message. */
  value: Buffer | Uint8Array;
}

/** `envoy.config.core.v3.Node` (the fields gRPC uses). */
export interface NodeMessage {
  /** `id`: opaque node identifier. */
  id?: string;
  /** `cluster`: the local service cluster the node runs in. */
  cluster?: string;
  /** `locality`: where the node runs. */
  locality?: {
    /** `region`. */
    region?: string;
    /** `zone`. */
    zone?: string;
    /** `sub_zone`. */
    sub_zone?: string;
  } | null;
  /** `metadata`: opaque `google.protobuf.Struct` the management server may read. */
  metadata?: unknown;
  /** `user_agent_name`: name of the xDS client implementation. */
  user_agent_name?: string;
  /** `user_agent_version`: version of the xDS client implementation. */
  user_agent_version?: string;
  /** `client_features`: well-known features the client supports. */
  client_features?: string[];
}

/** `google.rpc.Status`. */
export interface StatusMessage {
  /** `code`: the `google.rpc.Code` value. */
  code: number;
  /** `message`: developer-facing error message. */
  message: string;
  /** `details`: extra error details. */
  details?: AnyMessage[];
}

/** `envoy.service.discovery.v3.DiscoveryRequest` (SotW). */
export interface DiscoveryRequest {
  /** `version_info`: version of the last ACKed response of this type ('' before the first ACK). */
  version_info: string;
  /** `node`: the client's node; sent on the first request of a stream. */
  node?: NodeMessage | null;
  /** `resource_names`: the resources subscribed to (the full set: SotW). */
  resource_names: string[];
  /** `type_url`: the resource type this request is about. */
  type_url: string;
  /** `response_nonce`: nonce of the response being ACKed or NACKed ('' before any response). */
  response_nonce: string;
  /** `error_detail`: set when NACKing; why the response was rejected. */
  error_detail?: StatusMessage | null;
}

/** `envoy.service.discovery.v3.DiscoveryResponse` (SotW). */
export interface DiscoveryResponse {
  /** `version_info`: version of this response, echoed back in the ACK. */
  version_info: string;
  /** `resources`: the resources of this type (bare or `Resource`-wrapped Anys). */
  resources: AnyMessage[];
  /** `type_url`: the resource type of this response. */
  type_url: string;
  /** `nonce`: identifies this response; echoed back as `response_nonce`. */
  nonce: string;
  /** `canary`: marks a canary response (an envoy feature). */
  canary?: boolean;
}

/** `envoy.service.discovery.v3.DeltaDiscoveryRequest` (incremental xDS; the D2 observer serves it, the client speaks it to servers with `failout_delta_ads`). */
export interface DeltaDiscoveryRequest {
  /** `node`: the client's node; sent on the first request of a stream. */
  node?: NodeMessage | null;
  /** `type_url`: the resource type this request is about. */
  type_url: string;
  /** `resource_names_subscribe`: names added to the stream's subscription of this type. */
  resource_names_subscribe: string[];
  /** `resource_names_unsubscribe`: names removed from it. */
  resource_names_unsubscribe: string[];
  /** `initial_resource_versions`: on a stream's first request of a type, the versions the client already holds, by name. */
  initial_resource_versions: Record<string, string>;
  /** `response_nonce`: nonce of the response being ACKed or NACKed ('' when none). */
  response_nonce: string;
  /** `error_detail`: set when NACKing; why the response was rejected. */
  error_detail?: StatusMessage | null;
}

/** `envoy.service.discovery.v3.Resource` as a field of {@link DeltaDiscoveryResponse}. */
export interface DeltaResource {
  /** `name`: the resource's name. */
  name: string;
  /** `version`: the resource's own version; the client returns it in `initial_resource_versions`. */
  version: string;
  /** `resource`: the resource itself. */
  resource: AnyMessage;
}

/** `envoy.service.discovery.v3.DeltaDiscoveryResponse` (incremental xDS). */
export interface DeltaDiscoveryResponse {
  /** `system_version_info`: for debugging only. */
  system_version_info: string;
  /** `resources`: the resources added or changed. */
  resources: DeltaResource[];
  /** `type_url`: the resource type of this response. */
  type_url: string;
  /** `removed_resources`: subscribed names that were deleted or do not exist. */
  removed_resources: string[];
  /** `nonce`: identifies this response; echoed back as `response_nonce`. */
  nonce: string;
}

/** `envoy.config.endpoint.v3.ClusterStats` (the fields LRS uses). */
export interface ClusterStatsMessage {
  /** `cluster_name`: the CDS cluster the stats are for. */
  cluster_name: string;
  /** `cluster_service_name`: the EDS service name of the cluster, when it has one. */
  cluster_service_name?: string;
  /** `upstream_locality_stats`: per-locality request counts. */
  upstream_locality_stats?: Array<{
    /** `locality`: the upstream locality. */
    locality?: {
      /** `region`. */
      region?: string;
      /** `zone`. */
      zone?: string;
      /** `sub_zone`. */
      sub_zone?: string;
    } | null;
    /** `total_successful_requests`: requests completed successfully in the interval (uint64; string when large). */
    total_successful_requests?: number | string;
    /** `total_requests_in_progress`: requests in flight at the time of the report (uint64). */
    total_requests_in_progress?: number | string;
    /** `total_error_requests`: requests that failed in the interval (uint64). */
    total_error_requests?: number | string;
    /** `total_issued_requests`: requests issued in the interval (uint64). */
    total_issued_requests?: number | string;
  }>;
  /** `total_dropped_requests`: requests dropped by the client in the interval, all categories (uint64). */
  total_dropped_requests?: number | string;
  /** `dropped_requests`: dropped requests per drop category. */
  dropped_requests?: Array<{
    /** `category`: the drop category. */
    category: string;
    /** `dropped_count`: requests dropped in this category (uint64). */
    dropped_count: number | string;
  }>;
  /** `load_report_interval`: the interval these stats cover (`google.protobuf.Duration`). */
  load_report_interval?: {
    /** `seconds` (int64). */
    seconds: number | string;
    /** `nanos`: fraction of a second, 0–999,999,999. */
    nanos: number;
  } | null;
}

/** `envoy.service.load_stats.v3.LoadStatsRequest`. */
export interface LoadStatsRequest {
  /** `node`: the client's node; sent on the first request of a stream. */
  node?: NodeMessage | null;
  /** `cluster_stats`: one entry per reported cluster (empty on the first request). */
  cluster_stats: ClusterStatsMessage[];
}

/** `envoy.service.load_stats.v3.LoadStatsResponse`. */
export interface LoadStatsResponse {
  /** `clusters`: the clusters to report load for (ignored when `send_all_clusters`). */
  clusters: string[];
  /** `send_all_clusters`: report every cluster the client has load for. */
  send_all_clusters: boolean;
  /** `load_reporting_interval`: how often to send reports (`google.protobuf.Duration`). */
  load_reporting_interval: {
    /** `seconds` (int64). */
    seconds: number | string;
    /** `nanos`: fraction of a second, 0–999,999,999. */
    nanos: number;
  } | null;
  /** `report_endpoint_granularity`: report per-endpoint stats as well. */
  report_endpoint_granularity?: boolean;
}

/** Everything loaded from the envoy protos. */
export interface XdsProtos {
  /** `envoy.service.discovery.v3.AggregatedDiscoveryService` (SotW and incremental), for `server.addService`; full messages. */
  readonly adsService: grpc.ServiceDefinition;
  /** `envoy.service.load_stats.v3.LoadReportingService`, for `server.addService`; full messages. */
  readonly lrsService: grpc.ServiceDefinition;
  /** Client constructor; `new AdsClient(uri, creds).StreamAggregatedResources()` or `.DeltaAggregatedResources()`. Decodes only what the client reads. */
  readonly AdsClient: grpc.ServiceClientConstructor;
  /** Client constructor; `new LrsClient(uri, creds).StreamLoadStats()`. Decodes only what the client reads. */
  readonly LrsClient: grpc.ServiceClientConstructor;
  /** protobufjs root with every field of the ADS/LRS messages and Listener, RouteConfiguration, Cluster, ClusterLoadAssignment, HCM, Router, Resource. */
  readonly resourceRoot: protobuf.Root;
}

/** Full method path of SotW ADS. */
export const ADS_METHOD_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/StreamAggregatedResources';
/** Full method path of incremental (delta) ADS. */
export const DELTA_ADS_METHOD_PATH = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';
/** Full method path of LRS. */
export const LRS_METHOD_PATH = '/envoy.service.load_stats.v3.LoadReportingService/StreamLoadStats';

const ADS_SERVICE_NAME = 'envoy.service.discovery.v3.AggregatedDiscoveryService';
const LRS_SERVICE_NAME = 'envoy.service.load_stats.v3.LoadReportingService';

function services(kind: 'client' | 'full'): { ads: grpc.ServiceDefinition; lrs: grpc.ServiceDefinition } {
  const root = rootOf(kind);
  const type = (name: string): protobuf.Type => root.lookupType(name);
  return {
    ads: {
      StreamAggregatedResources: methodDefinition(ADS_METHOD_PATH, type('envoy.service.discovery.v3.DiscoveryRequest'), type('envoy.service.discovery.v3.DiscoveryResponse'), 'bidi'),
      // A server without a handler for it answers UNIMPLEMENTED (grpc-js's default handler). The client
      // opens it only towards servers with `failout_delta_ads` (lib/xds/delta-ads-stream.ts).
      DeltaAggregatedResources: methodDefinition(DELTA_ADS_METHOD_PATH, type('envoy.service.discovery.v3.DeltaDiscoveryRequest'), type('envoy.service.discovery.v3.DeltaDiscoveryResponse'), 'bidi'),
    },
    lrs: {
      StreamLoadStats: methodDefinition(LRS_METHOD_PATH, type('envoy.service.load_stats.v3.LoadStatsRequest'), type('envoy.service.load_stats.v3.LoadStatsResponse'), 'bidi'),
    },
  };
}

let loaded: XdsProtos | undefined;

/**
 * Loads the client's protos on first call and returns the same object afterwards; the server's parts load on first access.
 * @internal The loader's result is the protos' own business (`lib/xds/envoy-protos`); call it to load them early.
 */
export function loadXdsProtos(): XdsProtos {
  if (loaded) return loaded;
  const client = services('client');
  let server: ReturnType<typeof services> | undefined;
  loaded = {
    AdsClient: grpc.makeGenericClientConstructor(client.ads, ADS_SERVICE_NAME),
    LrsClient: grpc.makeGenericClientConstructor(client.lrs, LRS_SERVICE_NAME),
    get adsService() {
      return (server ??= services('full')).ads;
    },
    get lrsService() {
      return (server ??= services('full')).lrs;
    },
    get resourceRoot() {
      return rootOf('full');
    },
  };
  return loaded;
}

/**
 * Types found so far, by root and type URL. A root does not change once built, and protobufjs walks
 * its namespaces on every `lookup`: a client looks a type up for every resource it decodes. Only
 * types found are kept (a peer's unknown type URLs do not grow it).
 */
const typesByKind = new Map<RootKind, Map<string, protobuf.Type>>();

const DISCOVERY_RESPONSE_TYPE_URL = 'type.googleapis.com/envoy.service.discovery.v3.DiscoveryResponse';
const DELTA_DISCOVERY_RESPONSE_TYPE_URL = 'type.googleapis.com/envoy.service.discovery.v3.DeltaDiscoveryResponse';

function lookupType(typeUrl: string, kind: RootKind = 'full'): protobuf.Type {
  let types = typesByKind.get(kind);
  if (types === undefined) typesByKind.set(kind, (types = new Map()));
  const known = types.get(typeUrl);
  if (known !== undefined) return known;
  const type = rootOf(kind).lookup(messageNameOf(typeUrl));
  if (!(type instanceof protobuf.Type)) {
    throw new XdsError('resourceTypeUnsupported', `unknown resource type ${typeUrl}`, { typeUrl });
  }
  types.set(typeUrl, type);
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
    field.resolve(); // the root resolves lazily
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

/**
 * Encodes a SotW response as the ADS service's serializer would. A server that sends the same response
 * to many streams encodes it once and writes the bytes (the service definition sends bytes as they are).
 */
export function encodeDiscoveryResponse(response: DiscoveryResponse): Buffer {
  const type = lookupType(DISCOVERY_RESPONSE_TYPE_URL);
  return Buffer.from(type.encode(type.fromObject(response)).finish());
}

/** One resource of an incremental response as a server holds it already encoded. */
export interface EncodedDeltaResource {
  /** The resource in its `envoy.service.discovery.v3.Resource` wrapper ({@link wrapResource}: name and resource). */
  readonly wrapped: AnyMessage;
  /** The resource's version, the wrapper's `version` field. */
  readonly version: string;
}

/** A {@link DeltaDiscoveryResponse} whose resources are already encoded. */
export interface EncodedDeltaParts extends Omit<DeltaDiscoveryResponse, 'resources'> {
  readonly resources: readonly EncodedDeltaResource[];
}

/** `version` (field 1, length-delimited) and `resources` (field 2, length-delimited) as protobuf tags. */
const RESOURCE_VERSION_TAG = (1 << 3) | 2;
const DELTA_RESOURCES_TAG = (2 << 3) | 2;

/**
 * Encodes an incremental response as the ADS service's serializer would, from resources already
 * wrapped in `Resource` (a server's cache holds them so, encoded once for every stream). Each
 * element of `resources` is that wrapper's bytes followed by a `version` field: protobuf merges the
 * fields of a message in any order, so this is the `Resource {name, version, resource}` envoy's
 * `DeltaDiscoveryResponse` carries, without decoding or copying the resource more than once.
 * @throws XdsError 'validation' when a resource is not a `Resource` wrapper.
 */
export function encodeDeltaDiscoveryResponse(parts: EncodedDeltaParts): Buffer {
  const type = lookupType(DELTA_DISCOVERY_RESPONSE_TYPE_URL);
  const chunks: Uint8Array[] = [type.encode(type.fromObject({ ...parts, resources: [] })).finish()];
  for (const { wrapped, version } of parts.resources) {
    if (wrapped.type_url !== RESOURCE_WRAPPER_TYPE_URL) throw new XdsError('validation', `a delta resource must be a Resource wrapper, not ${wrapped.type_url}`, { typeUrl: wrapped.type_url });
    const versionField = protobuf.Writer.create().uint32(RESOURCE_VERSION_TAG).string(version).finish();
    chunks.push(protobuf.Writer.create().uint32(DELTA_RESOURCES_TAG).uint32(wrapped.value.length + versionField.length).finish(), wrapped.value, versionField);
  }
  return Buffer.concat(chunks);
}

/** Decodes an Any into a plain object with every field; throws `XdsError` 'validation' on undecodable bytes. */
export function unpackAny(any: AnyMessage): Record<string, unknown> {
  const type = lookupType(any.type_url);
  return type.toObject(decodeWithType(type, any), TO_OBJECT);
}

/** `type.decode` of the Any's bytes; undecodable bytes throw `XdsError` 'validation'. */
function decodeWithType(type: protobuf.Type, any: AnyMessage): protobuf.Message {
  try {
    return type.decode(any.value);
  } catch (e) {
    throw new XdsError('validation', `cannot decode ${any.type_url}: ${e instanceof Error ? e.message : String(e)}`, {
      typeUrl: any.type_url,
      cause: e,
    });
  }
}

/**
 * Decodes an Any as the xDS client does, into a protobufjs message rather than a plain object: unset
 * fields read their defaults through the prototype and oneof properties name the set case, so
 * validation allocates only what the sender set. Only the fields the client reads are decoded (the
 * others are skipped as unknown fields); a read field whose type the client does not look into is an
 * empty message when present, null when not. Enums are numbers: read them with {@link enumName}.
 * Throws like {@link unpackAny}.
 */
export function decodeAnyForClient(any: AnyMessage): Record<string, unknown> {
  return decodeWithType(lookupType(any.type_url, 'client'), any) as unknown as Record<string, unknown>;
}

/**
 * The name of the enum value in `message[key]`: '' when absent, the number as text for a value this
 * descriptor does not know. Works on plain objects from {@link unpackAny} (names already, returned as
 * they are) and on messages from {@link decodeAnyForClient} (numbers).
 */
export function enumName(message: Record<string, unknown> | undefined, key: string): string {
  const v = message?.[key];
  if (typeof v === 'string') return v;
  if (typeof v !== 'number') return '';
  const field = (message as { $type?: protobuf.Type }).$type?.fields[key];
  const values = field?.resolve().resolvedType;
  return values instanceof protobuf.Enum ? (values.valuesById[v] ?? String(v)) : String(v);
}

/** Wraps a resource in `envoy.service.discovery.v3.Resource` (servers may send either form). */
export function wrapResource(any: AnyMessage, name?: string): AnyMessage {
  return packAny(RESOURCE_WRAPPER_TYPE_URL, { name: name ?? '', resource: any });
}

/**
 * Removes the `Resource` wrapper if present (grpc-go `UnwrapResource`); returns the inner Any and the
 * wrapper's name ('' when unwrapped or unnamed). A wrapper without a resource throws 'validation'.
 */
export function unwrapResource(any: AnyMessage): {
  /** The inner resource. */
  any: AnyMessage;
  /** The wrapper's name; '' when unwrapped or unnamed. */
  name: string;
} {
  if (any.type_url !== RESOURCE_WRAPPER_TYPE_URL) return { any, name: '' };
  const wrapper = decodeAnyForClient(any) as { name?: string; resource?: AnyMessage | null };
  if (!wrapper.resource) throw new XdsError('validation', 'Resource wrapper without a resource', { typeUrl: any.type_url });
  return { any: wrapper.resource, name: wrapper.name ?? '' };
}
