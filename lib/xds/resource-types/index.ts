/**
 * The four ADS resource types gRPC uses, their decoded shapes, and builders.
 *
 * Public names (stable): everything re-exported below, plus
 * - `RESOURCE_TYPES` — kind → `XdsResourceType`.
 * - `resourceTypeForUrl(url)` — the type for a type URL, or undefined (→ 'resourceTypeUnsupported').
 * - `ResourceValue<K>` — kind → decoded value type (`ResourceValue<'cluster'>` is `Cluster`).
 * - `AnyXdsResourceType` — union of the four type objects.
 */
import { clusterType, type Cluster } from './cluster';
import { clusterLoadAssignmentType, type ClusterLoadAssignment } from './cluster-load-assignment';
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
}

/** The decoded value type of a kind. */
export type ResourceValue<K extends ResourceKind> = ResourceValueMap[K];

/** Every resource type by kind. */
export const RESOURCE_TYPES: { readonly [K in ResourceKind]: XdsResourceType<K, ResourceValueMap[K]> } = {
  listener: listenerType,
  routeConfiguration: routeConfigurationType,
  cluster: clusterType,
  clusterLoadAssignment: clusterLoadAssignmentType,
};

/** Union of the four type objects. */
export type AnyXdsResourceType = (typeof RESOURCE_TYPES)[ResourceKind];

/** The resource type for a type URL, or undefined when unsupported. */
export function resourceTypeForUrl(url: string): AnyXdsResourceType | undefined {
  const kind = kindOfTypeUrl(url);
  return kind ? RESOURCE_TYPES[kind] : undefined;
}
