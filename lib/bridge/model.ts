/**
 * Shapes shared by the bridge's roles: what the resolver knows about xDS, what the sync should make
 * of each ZooKeeper entity, and what ZooKeeper holds. Types only.
 */
import type { Endpoint } from '../xds';

/**
 * What the resolver knows about one xDS-derived value: nothing yet, a value, or that it does not
 * exist since `since` (epoch ms). Connectivity errors and NACKs never move a value out of `resolved`.
 */
export type Known<T> =
  | { readonly state: 'pending' }
  | { readonly state: 'resolved'; readonly value: T; readonly at: number }
  | { readonly state: 'doesNotExist'; readonly since: number };

/** A route's destination: the clusters with weights, and the one the D2 service points at. */
export interface ServiceRoute {
  /** The D2 name of the cluster with the largest weight (the first of equals). */
  readonly primary: string;
  /** Every cluster of the route, by xDS name, with its weight (1 for a single cluster). */
  readonly clusters: readonly { readonly name: string; readonly weight: number }[];
}

/** What the resolver knows about one xDS cluster: CDS, and EDS of its `edsServiceName`. */
export interface ClusterResolution {
  readonly cds: Known<{ readonly edsServiceName: string; readonly lbPolicy: string }>;
  readonly eds: Known<readonly Endpoint[]>;
}

/** One unit the sync writes: a service node, a cluster node, or the bridge's URI children of a cluster. */
export type EntityKey = `service:${string}` | `cluster:${string}` | `uris:${string}`;

/**
 * What the sync should make of one entity:
 * - `keep`: leave ZooKeeper alone (unknown, or does-not-exist still within the grace period; then
 *   `recheckAt` says when to ask again).
 * - `absent`: remove the node (services only: cluster nodes hold failout state and are never removed).
 * - `node`: a service or cluster document, rendered by merging into the current one (undefined: none).
 *   `render` returns undefined when the current document cannot be merged safely (left alone).
 * - `uris`: exactly these bridge-owned children (name → data) under `/d2/uris/<cluster>`.
 */
export type EntityTarget =
  | { readonly kind: 'keep'; readonly recheckAt?: number }
  | { readonly kind: 'absent' }
  | { readonly kind: 'node'; render(existing: string | undefined): string | undefined }
  | { readonly kind: 'uris'; readonly children: ReadonlyMap<string, string> };

/** A znode as the sync last saw or wrote it. */
export type NodeView = { readonly exists: false } | { readonly exists: true; readonly data: string; readonly version: number };

/** The bridge-owned (persistent, marked) children of `/d2/uris/<cluster>`. */
export interface UrisView {
  readonly parentExists: boolean;
  readonly children: ReadonlyMap<string, { readonly data: string; readonly version: number }>;
}
