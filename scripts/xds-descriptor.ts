/**
 * Generates `lib/xds/envoy-descriptor.ts`: the envoy message types lib/xds encodes and decodes, as three
 * protobufjs JSON descriptors.
 * - The full one: every type reachable through fields from the seed types, all fields. `packAny`,
 *   `unpackAny` and the management server use it.
 * - The client's: only the types the xDS client reads or writes, with only the fields it reads
 *   ({@link CLIENT_FIELDS}); every other message type a kept field refers to is an empty stub of the
 *   same name, so the field still decodes (present or absent, and its oneof case) without dragging in
 *   its whole closure.
 * - CSDS's (gRFC A40, `lib/xds/csds.ts`): the Client Status Discovery Service messages, pruned the same
 *   way to the fields a CSDS server reads and writes ({@link CSDS_FIELDS}). A separate descriptor, built
 *   only by a process that serves CSDS, so neither the client's memory nor the full one grows.
 *
 * Why generated descriptors instead of loading the .proto files at run time: parsing ~70 .proto files
 * (twice, with @grpc/proto-loader for the services) cost each client process about 20 MiB of RSS and
 * 0.3 s; the client's descriptor is a few dozen types, and the package ships no .proto files.
 * Regenerate with `npm run protos` after changing the seed, client or CSDS types or upgrading
 * @grpc/grpc-js-xds (whose `deps/` hold the .proto sources); a unit test fails while the committed
 * file differs from what this produces.
 */
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as protobuf from 'protobufjs';

/** The .proto files that define the seed types (and import everything they need). */
export const ENVOY_PROTO_FILES: readonly string[] = [
  'envoy/service/discovery/v3/ads.proto',
  'envoy/service/load_stats/v3/lrs.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy/service/status/v3/csds.proto',
];

/** The message types lib/xds uses directly; the descriptor holds these and every type their fields reach. */
export const SEED_TYPES: readonly string[] = [
  'envoy.service.discovery.v3.DiscoveryRequest',
  'envoy.service.discovery.v3.DiscoveryResponse',
  // Incremental ADS: served by the D2 observer (lib/observer/delta-ads-stream.ts), spoken by the client
  // to servers with `failout_delta_ads` (lib/xds/delta-ads-stream.ts).
  'envoy.service.discovery.v3.DeltaDiscoveryRequest',
  'envoy.service.discovery.v3.DeltaDiscoveryResponse',
  'envoy.service.discovery.v3.Resource',
  'envoy.service.load_stats.v3.LoadStatsRequest',
  'envoy.service.load_stats.v3.LoadStatsResponse',
  'envoy.config.listener.v3.Listener',
  'envoy.config.route.v3.RouteConfiguration',
  'envoy.config.cluster.v3.Cluster',
  'envoy.config.endpoint.v3.ClusterLoadAssignment',
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
  'envoy.extensions.filters.http.router.v3.Router',
];

/** Every field of the type. */
const ALL = 'all';

/**
 * The message types the client reads or writes, and which of their fields: the ADS/LRS messages, and
 * what the resource validators in `lib/xds/resource-types/` look at. A listed field brings every other
 * member of its oneof, so the validators can still name an unsupported case. The client skips other
 * fields as unknown ones, so decoders stay small (cheap to run and to JIT-compile). Enums are kept whole.
 */
export const CLIENT_FIELDS: Readonly<Record<string, readonly string[] | typeof ALL>> = {
  // ADS and LRS, and what the client puts in them
  'envoy.service.discovery.v3.DiscoveryRequest': ALL,
  'envoy.service.discovery.v3.DiscoveryResponse': ['version_info', 'resources', 'type_url', 'nonce'],
  'envoy.service.discovery.v3.DeltaDiscoveryRequest': ALL,
  'envoy.service.discovery.v3.DeltaDiscoveryResponse': ['resources', 'type_url', 'removed_resources', 'nonce', 'system_version_info'],
  'envoy.service.discovery.v3.Resource': ['name', 'version', 'resource'],
  'envoy.service.load_stats.v3.LoadStatsRequest': ALL,
  'envoy.service.load_stats.v3.LoadStatsResponse': ALL,
  'envoy.config.endpoint.v3.ClusterStats': ALL,
  'envoy.config.endpoint.v3.ClusterStats.DroppedRequests': ALL,
  'envoy.config.endpoint.v3.UpstreamLocalityStats': ALL,
  'envoy.config.core.v3.Node': ALL,
  'envoy.config.core.v3.Locality': ALL,
  'google.rpc.Status': ALL,
  'google.protobuf.Any': ALL,
  'google.protobuf.Duration': ALL,
  'google.protobuf.Struct': ALL,
  'google.protobuf.Value': ALL,
  'google.protobuf.ListValue': ALL,
  'google.protobuf.BoolValue': ALL,
  'google.protobuf.UInt32Value': ALL,
  // Listener → HttpConnectionManager (rds or inline route_config, http_filters)
  'envoy.config.listener.v3.Listener': ['name', 'api_listener'],
  'envoy.config.listener.v3.ApiListener': ['api_listener'],
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager': ['rds', 'route_config', 'http_filters'],
  'envoy.extensions.filters.network.http_connection_manager.v3.Rds': ['config_source', 'route_config_name'],
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpFilter': ['name', 'typed_config'],
  'envoy.config.core.v3.ConfigSource': ['ads', 'self'],
  // RouteConfiguration
  'envoy.config.route.v3.RouteConfiguration': ['name', 'virtual_hosts'],
  'envoy.config.route.v3.VirtualHost': ['name', 'domains', 'routes'],
  'envoy.config.route.v3.Route': ['match', 'route'],
  'envoy.config.route.v3.RouteMatch': ['prefix', 'path', 'case_sensitive'],
  'envoy.config.route.v3.RouteAction': ['cluster', 'weighted_clusters'],
  'envoy.config.route.v3.WeightedCluster': ['clusters'],
  'envoy.config.route.v3.WeightedCluster.ClusterWeight': ['name', 'weight'],
  // Cluster (EDS)
  'envoy.config.cluster.v3.Cluster': ['name', 'type', 'eds_cluster_config', 'lb_policy', 'lrs_server'],
  'envoy.config.cluster.v3.Cluster.EdsClusterConfig': ['eds_config', 'service_name'],
  // ClusterLoadAssignment
  'envoy.config.endpoint.v3.ClusterLoadAssignment': ['cluster_name', 'endpoints'],
  'envoy.config.endpoint.v3.LocalityLbEndpoints': ['locality', 'lb_endpoints', 'load_balancing_weight', 'priority'],
  'envoy.config.endpoint.v3.LbEndpoint': ['endpoint', 'health_status', 'load_balancing_weight'],
  'envoy.config.endpoint.v3.Endpoint': ['address'],
  'envoy.config.core.v3.Address': ['socket_address'],
  'envoy.config.core.v3.SocketAddress': ['address', 'port_value'],
};

/**
 * The message types a CSDS server (gRFC A40) reads or writes, and which of their fields, as
 * {@link CLIENT_FIELDS} is for the client. Left out: `ClientConfig.xds_config` (the deprecated
 * per-type `PerXdsConfig`, which gRPC does not fill) and what `node_matchers` holds (a CSDS server in
 * gRPC refuses node matchers, so it only needs to see that there are some).
 */
export const CSDS_FIELDS: Readonly<Record<string, readonly string[] | typeof ALL>> = {
  'envoy.service.status.v3.ClientStatusRequest': ALL,
  'envoy.service.status.v3.ClientStatusResponse': ALL,
  'envoy.service.status.v3.ClientConfig': ['node', 'generic_xds_configs', 'client_scope'],
  'envoy.service.status.v3.ClientConfig.GenericXdsConfig': ALL,
  'envoy.admin.v3.UpdateFailureState': ALL,
  'envoy.config.core.v3.Node': ['id', 'cluster', 'metadata', 'locality', 'user_agent_name', 'user_agent_version', 'client_features'],
  'envoy.config.core.v3.Locality': ALL,
  'google.protobuf.Any': ALL,
  'google.protobuf.Timestamp': ALL,
  'google.protobuf.Struct': ALL,
  'google.protobuf.Value': ALL,
  'google.protobuf.ListValue': ALL,
};

/** The fields `selection` keeps of `t`: the listed ones plus the other members of their oneofs. Throws on a name `t` lacks. */
export function selectedFieldsOf(t: protobuf.Type, selection: Readonly<Record<string, readonly string[] | typeof ALL>>): protobuf.Field[] {
  const listed = selection[t.fullName.slice(1)];
  if (listed === undefined) return [];
  if (listed === ALL) return t.fieldsArray;
  const names = new Set<string>();
  for (const name of listed) {
    const field = t.fields[name];
    if (!field) throw new Error(`field selection: ${t.fullName} has no field ${name}`);
    for (const member of field.partOf ? field.partOf.oneof : [name]) names.add(member);
  }
  return t.fieldsArray.filter((f) => names.has(f.name));
}

/** The client's fields of `t` ({@link selectedFieldsOf} over {@link CLIENT_FIELDS}). */
export function clientFieldsOf(t: protobuf.Type): protobuf.Field[] {
  return selectedFieldsOf(t, CLIENT_FIELDS);
}

/** Include dirs under `@grpc/grpc-js-xds/deps/` (grpc-js-xds-peer.md, "Loading the envoy protos"). */
const GRPC_JS_XDS_PROTO_DIRS: readonly string[] = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'];

const GENERATED_MODULE = path.join(__dirname, '..', 'lib', 'xds', 'envoy-descriptor.ts');

function loadFullRoot(): protobuf.Root {
  // The option definitions the .proto files import; built into protobufjs once registered (as proto-loader does).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- JSON shipped with protobufjs
  const descriptor = require('protobufjs/google/protobuf/descriptor.json') as { nested: { google: { nested: { protobuf: { nested: Record<string, protobuf.AnyNestedObject> } } } } };
  protobuf.common('descriptor', descriptor.nested.google.nested.protobuf.nested);
  const pkg = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const dirs = GRPC_JS_XDS_PROTO_DIRS.map((d) => path.join(pkg, 'deps', d));
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => dirs.map((d) => path.join(d, target)).find((c) => existsSync(c)) ?? target;
  root.loadSync([...ENVOY_PROTO_FILES], { keepCase: true });
  root.resolveAll();
  return root;
}

/** Every type and enum reachable through fields from the seeds, in a stable order. */
function reachable(root: protobuf.Root): Array<protobuf.Type | protobuf.Enum> {
  const seen = new Set<protobuf.Type | protobuf.Enum>();
  const queue = SEED_TYPES.map((name) => root.lookupType(name));
  for (let t = queue.pop(); t; t = queue.pop()) {
    if (seen.has(t)) continue;
    seen.add(t);
    for (const field of t.fieldsArray) {
      const r = field.resolvedType;
      if (r instanceof protobuf.Type) queue.push(r);
      else if (r instanceof protobuf.Enum) seen.add(r);
    }
  }
  return [...seen].sort((a, b) => a.fullName.localeCompare(b.fullName));
}

/** A field as JSON: absolute type names (so pruning cannot change what a name resolves to), only the `packed` option. */
function fieldJson(field: protobuf.Field): protobuf.IField & { rule?: string; keyType?: string } {
  const json: protobuf.IField & { rule?: string; keyType?: string } = {
    type: field.resolvedType ? field.resolvedType.fullName : field.type,
    id: field.id,
  };
  if (field.repeated && !field.map) json.rule = 'repeated';
  if (field instanceof protobuf.MapField) json.keyType = field.keyType;
  if (field.options?.packed !== undefined) json.options = { packed: field.options.packed };
  return json;
}

/** `t` as JSON with only `fields` (all of them by default) and the oneofs they belong to. */
function typeJson(t: protobuf.Type | protobuf.Enum, fields?: readonly protobuf.Field[]): protobuf.IType | protobuf.IEnum {
  if (t instanceof protobuf.Enum) return { values: { ...t.values } };
  const kept = fields ?? t.fieldsArray;
  const json: protobuf.IType = { fields: Object.fromEntries(kept.map((f) => [f.name, fieldJson(f)])) };
  const oneofs = t.oneofsArray.filter((o) => kept.some((f) => f.partOf === o));
  if (oneofs.length > 0) json.oneofs = Object.fromEntries(oneofs.map((o) => [o.name, { oneof: o.oneof.filter((n) => kept.some((f) => f.name === n)) }]));
  return json;
}

/** Places `json` at `t`'s full name in `top`, creating plain namespaces on the way. */
function place(top: protobuf.INamespace, t: protobuf.ReflectionObject, json: protobuf.AnyNestedObject): void {
  const parts = t.fullName.slice(1).split('.');
  let ns = top;
  for (const part of parts.slice(0, -1)) {
    ns.nested ??= {};
    ns = (ns.nested[part] ??= { nested: {} }) as protobuf.INamespace;
  }
  ns.nested ??= {};
  const name = parts[parts.length - 1];
  // A nested type may have been placed before its parent message: keep what is already there.
  ns.nested[name] = { ...json, ...(ns.nested[name] as protobuf.INamespace | undefined) };
}

/** The three descriptors, as `protobuf.Root.fromJSON` takes them. */
export interface EnvoyDescriptors {
  readonly full: protobuf.INamespace;
  readonly client: protobuf.INamespace;
  readonly csds: protobuf.INamespace;
}

/**
 * The types `selection` names with only their selected fields; every other type a kept field refers
 * to is an empty stub (a message) or whole (an enum).
 */
function prunedDescriptor(root: protobuf.Root, selection: Readonly<Record<string, readonly string[] | typeof ALL>>): protobuf.INamespace {
  const pruned: protobuf.INamespace = { nested: {} };
  const kept = Object.keys(selection).map((name) => root.lookupType(name));
  const stubs = new Map<string, protobuf.Type | protobuf.Enum>();
  for (const t of kept) {
    for (const field of selectedFieldsOf(t, selection)) {
      const r = field.resolvedType;
      if (r && !kept.includes(r as protobuf.Type)) stubs.set(r.fullName, r);
    }
  }
  const entries: Array<[protobuf.Type | protobuf.Enum, protobuf.AnyNestedObject]> = [
    ...kept.map((t): [protobuf.Type, protobuf.AnyNestedObject] => [t, typeJson(t, selectedFieldsOf(t, selection))]),
    ...[...stubs.values()].map((t): [protobuf.Type | protobuf.Enum, protobuf.AnyNestedObject] => [t, t instanceof protobuf.Enum ? typeJson(t) : { fields: {} }]),
  ];
  entries.sort(([a], [b]) => a.fullName.localeCompare(b.fullName));
  for (const [t, json] of entries) place(pruned, t, json);
  return pruned;
}

/** Builds the three descriptors from the .proto files. */
export function generateEnvoyDescriptors(): EnvoyDescriptors {
  const root = loadFullRoot();
  const full: protobuf.INamespace = { nested: {} };
  for (const t of reachable(root)) place(full, t, typeJson(t));
  return { full, client: prunedDescriptor(root, CLIENT_FIELDS), csds: prunedDescriptor(root, CSDS_FIELDS) };
}

/** The generated module's text. */
export function renderDescriptorModule(descriptors: EnvoyDescriptors): string {
  return [
    '// Generated by scripts/xds-descriptor.ts (`npm run protos`); do not edit.',
    '/** Every envoy type the seed types reach, with all fields (protobufjs JSON). */',
    `export const ENVOY_DESCRIPTOR_JSON = ${JSON.stringify(JSON.stringify(descriptors.full))};`,
    '/** The types the xDS client reads and writes; other message types are empty stubs (protobufjs JSON). */',
    `export const ENVOY_CLIENT_DESCRIPTOR_JSON = ${JSON.stringify(JSON.stringify(descriptors.client))};`,
    '/** The Client Status Discovery Service (gRFC A40) and what it reads and writes; other message types are empty stubs (protobufjs JSON). */',
    `export const ENVOY_CSDS_DESCRIPTOR_JSON = ${JSON.stringify(JSON.stringify(descriptors.csds))};`,
    '',
  ].join('\n');
}

if (require.main === module) {
  const text = renderDescriptorModule(generateEnvoyDescriptors());
  writeFileSync(GENERATED_MODULE, text);
  process.stderr.write(`[protos] wrote ${path.relative(process.cwd(), GENERATED_MODULE)} (${text.length} bytes)\n`);
}
