/**
 * xDS v3 type URLs as literal types (the grpc-js-xds `resources.ts` pattern).
 *
 * Public names (stable):
 * - `LDS_TYPE_URL`, `RDS_TYPE_URL`, `CDS_TYPE_URL`, `EDS_TYPE_URL`, `HCM_TYPE_URL`, `ROUTER_TYPE_URL`,
 *   `RESOURCE_WRAPPER_TYPE_URL` — constants with literal types.
 * - `TYPE_URLS` — `{ listener, routeConfiguration, cluster, clusterLoadAssignment }`.
 * - `XdsTypeUrl` — union of the four ADS resource type URLs.
 * - `ResourceKind` — 'listener' | 'routeConfiguration' | 'cluster' | 'clusterLoadAssignment'.
 * - `isXdsTypeUrl(s)`, `typeUrlOf(kind)`, `kindOfTypeUrl(url)`, `messageNameOf(typeUrl)`.
 *
 * Source: envoy xds_protocol.rst "Type URLs"; grpc-go internal/xds/xdsclient/xdsresource/version.
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

/** The four resource type URLs gRPC uses over ADS, by kind. */
export const TYPE_URLS = {
  /** {@link LDS_TYPE_URL}. */
  listener: LDS_TYPE_URL,
  /** {@link RDS_TYPE_URL}. */
  routeConfiguration: RDS_TYPE_URL,
  /** {@link CDS_TYPE_URL}. */
  cluster: CDS_TYPE_URL,
  /** {@link EDS_TYPE_URL}. */
  clusterLoadAssignment: EDS_TYPE_URL,
} as const;

/** The short name of a resource type. */
export type ResourceKind = keyof typeof TYPE_URLS;

/** One of the four ADS resource type URLs. */
export type XdsTypeUrl = (typeof TYPE_URLS)[ResourceKind];

/** Type URL → kind (the literal-type map in the other direction). */
export type KindOfTypeUrl<T extends XdsTypeUrl> = {
  [K in ResourceKind]: (typeof TYPE_URLS)[K] extends T ? K : never;
}[ResourceKind];

const KIND_BY_URL: ReadonlyMap<string, ResourceKind> = new Map(
  (Object.keys(TYPE_URLS) as ResourceKind[]).map((k) => [TYPE_URLS[k], k]),
);

/** True when `s` is one of the four ADS resource type URLs. */
export function isXdsTypeUrl(s: string): s is XdsTypeUrl {
  return KIND_BY_URL.has(s);
}

/** The type URL of a resource kind. */
export function typeUrlOf<K extends ResourceKind>(kind: K): (typeof TYPE_URLS)[K] {
  return TYPE_URLS[kind];
}

/** The kind of a type URL, or undefined when it is not one of the four. */
export function kindOfTypeUrl(url: string): ResourceKind | undefined {
  return KIND_BY_URL.get(url);
}

/** The fully-qualified protobuf message name of a type URL: the part after the last `/`. */
export function messageNameOf(typeUrl: string): string {
  return typeUrl.substring(typeUrl.lastIndexOf('/') + 1);
}
