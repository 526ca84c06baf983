/**
 * xDS v3 type URLs as literal types (the grpc-js-xds `resources.ts` pattern).
 *
 * Public names (stable):
 * - `LDS_TYPE_URL`, `RDS_TYPE_URL`, `CDS_TYPE_URL`, `EDS_TYPE_URL`, `HCM_TYPE_URL`, `ROUTER_TYPE_URL`,
 *   `RESOURCE_WRAPPER_TYPE_URL`, `D2_NODE_TYPE_URL`, `D2_URI_MAP_TYPE_URL`,
 *   `D2_SYMLINK_NODE_TYPE_URL` — constants with literal types.
 * - `TYPE_URLS` — `{ listener, routeConfiguration, cluster, clusterLoadAssignment, d2Node, d2UriMap,
 *   d2SymlinkNode }`.
 * - `XdsTypeUrl` — union of the resource type URLs the client watches.
 * - `ResourceKind` — 'listener' | 'routeConfiguration' | 'cluster' | 'clusterLoadAssignment' |
 *   'd2Node' | 'd2UriMap' | 'd2SymlinkNode'.
 * - `isXdsTypeUrl(s)`, `typeUrlOf(kind)`, `kindOfTypeUrl(url)`, `messageNameOf(typeUrl)`.
 *
 * Source: envoy xds_protocol.rst "Type URLs"; grpc-go internal/xds/xdsclient/xdsresource/version;
 * rest.li `XdsClient.ResourceType` for the `indis` (D2 over xDS) types.
 */

/** Listener (LDS). */
export const LDS_TYPE_URL = 'type.googleapis.com/envoy.config.listener.v3.Listener' as const;
/** RouteConfiguration (RDS). */
export const RDS_TYPE_URL = 'type.googleapis.com/envoy.config.route.v3.RouteConfiguration' as const;
/** Cluster (CDS). */
export const CDS_TYPE_URL = 'type.googleapis.com/envoy.config.cluster.v3.Cluster' as const;
/** ClusterLoadAssignment (EDS). */
export const EDS_TYPE_URL = 'type.googleapis.com/envoy.config.endpoint.v3.ClusterLoadAssignment' as const;
/** HttpConnectionManager, packed inside `Listener.api_listener.api_listener`. */
export const HCM_TYPE_URL =
  'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager' as const;
/** The router HTTP filter (the terminal filter gRPC requires). */
export const ROUTER_TYPE_URL = 'type.googleapis.com/envoy.extensions.filters.http.router.v3.Router' as const;
/** `envoy.service.discovery.v3.Resource`, the optional wrapper around a resource in a response. */
export const RESOURCE_WRAPPER_TYPE_URL = 'type.googleapis.com/envoy.service.discovery.v3.Resource' as const;

/** rest.li's D2 node (a service's or a cluster's properties as a Struct, with the znode's stat). */
export const D2_NODE_TYPE_URL = 'type.googleapis.com/indis.D2Node' as const;
/** rest.li's D2 URI map (every announcement under `/d2/uris/<cluster>`). */
export const D2_URI_MAP_TYPE_URL = 'type.googleapis.com/indis.D2URIMap' as const;
/** rest.li's D2 symlink node (a `$`-named node pointing at another cluster node). */
export const D2_SYMLINK_NODE_TYPE_URL = 'type.googleapis.com/indis.D2SymlinkNode' as const;

/** The resource type URLs the client watches over ADS, by kind: the four gRPC uses, and rest.li's three D2 ones. */
export const TYPE_URLS = {
  /** {@link LDS_TYPE_URL}. */
  listener: LDS_TYPE_URL,
  /** {@link RDS_TYPE_URL}. */
  routeConfiguration: RDS_TYPE_URL,
  /** {@link CDS_TYPE_URL}. */
  cluster: CDS_TYPE_URL,
  /** {@link EDS_TYPE_URL}. */
  clusterLoadAssignment: EDS_TYPE_URL,
  /** {@link D2_NODE_TYPE_URL}. */
  d2Node: D2_NODE_TYPE_URL,
  /** {@link D2_URI_MAP_TYPE_URL}. */
  d2UriMap: D2_URI_MAP_TYPE_URL,
  /** {@link D2_SYMLINK_NODE_TYPE_URL}. */
  d2SymlinkNode: D2_SYMLINK_NODE_TYPE_URL,
} as const;

/** The short name of a resource type. */
export type ResourceKind = keyof typeof TYPE_URLS;

/** One of the resource type URLs of {@link TYPE_URLS}. */
export type XdsTypeUrl = (typeof TYPE_URLS)[ResourceKind];

/** Type URL → kind (the literal-type map in the other direction). */
export type KindOfTypeUrl<T extends XdsTypeUrl> = {
  [K in ResourceKind]: (typeof TYPE_URLS)[K] extends T ? K : never;
}[ResourceKind];

const KIND_BY_URL: ReadonlyMap<string, ResourceKind> = new Map(
  (Object.keys(TYPE_URLS) as ResourceKind[]).map((k) => [TYPE_URLS[k], k]),
);

/** True when `s` is one of the resource type URLs of {@link TYPE_URLS}. */
export function isXdsTypeUrl(s: string): s is XdsTypeUrl {
  return KIND_BY_URL.has(s);
}

/** The type URL of a resource kind. */
export function typeUrlOf<K extends ResourceKind>(kind: K): (typeof TYPE_URLS)[K] {
  return TYPE_URLS[kind];
}

/** The kind of a type URL, or undefined when it is not one of {@link TYPE_URLS}. */
export function kindOfTypeUrl(url: string): ResourceKind | undefined {
  return KIND_BY_URL.get(url);
}

/** The fully-qualified protobuf message name of a type URL: the part after the last `/`. */
export function messageNameOf(typeUrl: string): string {
  return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
}
