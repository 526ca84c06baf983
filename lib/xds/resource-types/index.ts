/**
 * The resource types the client watches (the four ADS types gRPC uses, and rest.li's three `indis`
 * D2 types), their decoded shapes, and builders.
 *
 * Public names (stable): everything re-exported below, plus
 * - `RESOURCE_TYPES` — kind → `XdsResourceType`.
 * - `resourceTypeForUrl(url)` — the type for a type URL, or undefined (→ 'resourceTypeUnsupported').
 * - `ResourceValue<K>` — kind → decoded value type (`ResourceValue<'cluster'>` is `Cluster`).
 * - `AnyXdsResourceType` — union of the type objects.
 */
import { clusterType, type Cluster } from './cluster';
import { clusterLoadAssignmentType, type ClusterLoadAssignment } from './cluster-load-assignment';
import { d2NodeType, type D2Node } from './d2-node';
import { d2SymlinkNodeType, type D2SymlinkNode } from './d2-symlink-node';
import { d2UriMapType, type D2UriMap } from './d2-uri-map';
import { listenerType, type Listener } from './listener';
import type { XdsResourceType } from './resource-type';
import { routeConfigurationType, type RouteConfiguration } from './route-configuration';
import { kindOfTypeUrl, type ResourceKind } from './type-urls';

export * from './type-urls';
export * from './resource-type';
export * from './listener';
export * from './route-configuration';
export * from './cluster';
export * from './cluster-load-assignment';
export * from './indis';

/** Decoded value type per kind. */
export interface ResourceValueMap {
  /** A decoded Listener (LDS). */
  listener: Listener;
  /** A decoded RouteConfiguration (RDS). */
  routeConfiguration: RouteConfiguration;
  /** A decoded Cluster (CDS). */
  cluster: Cluster;
  /** A decoded ClusterLoadAssignment (EDS). */
  clusterLoadAssignment: ClusterLoadAssignment;
  /** A decoded D2 node (rest.li `indis.D2Node`). */
  d2Node: D2Node;
  /** A decoded D2 URI map (rest.li `indis.D2URIMap`). */
  d2UriMap: D2UriMap;
  /** A decoded D2 symlink (rest.li `indis.D2SymlinkNode`). */
  d2SymlinkNode: D2SymlinkNode;
}

/** The decoded value type of a kind. */
export type ResourceValue<K extends ResourceKind> = ResourceValueMap[K];

/** Every resource type by kind. */
export const RESOURCE_TYPES: { readonly [K in ResourceKind]: XdsResourceType<K, ResourceValueMap[K]> } = {
  listener: listenerType,
  routeConfiguration: routeConfigurationType,
  cluster: clusterType,
  clusterLoadAssignment: clusterLoadAssignmentType,
  d2Node: d2NodeType,
  d2UriMap: d2UriMapType,
  d2SymlinkNode: d2SymlinkNodeType,
};

/** Union of the type objects. */
export type AnyXdsResourceType = (typeof RESOURCE_TYPES)[ResourceKind];

/** The resource type for a type URL, or undefined when unsupported. */
export function resourceTypeForUrl(url: string): AnyXdsResourceType | undefined {
  const kind = kindOfTypeUrl(url);
  return kind ? RESOURCE_TYPES[kind] : undefined;
}
