import { mergeUriProperties, type MergedUriProperties, type UriProperties } from './model';
import type { PropertyStatus } from './property-source';
import type { SubscribedEntry } from './subscribed-entries';

/** Counters of a `ZooKeeperUriStore` (the URI side of a `LoadBalancerState`). */
export interface UriStoreStats {
  /** Clusters being watched now. */
  watched: number;
  /** Announcement children being watched now, over all clusters. */
  children: number;
  /** Announcement writes that could not be parsed, since the store started. */
  malformed: number;
  /** Merged views published (initialize with a value, and add). */
  published: number;
}

/** What the merge reads of one announcement child, in either URI store. */
export interface MergedChild {
  /** Only a `present` child with a value is included. */
  readonly status: PropertyStatus;
  /** The child's last good announcement. */
  readonly value: UriProperties | undefined;
  /** mzxid of `value`. */
  readonly version: bigint;
  /** czxid: creation order, which decides which of two announcements of one URI wins. */
  readonly created: bigint;
}

/** What the merge reads and writes of one cluster's entry, in either URI store. */
export interface MergedEntry extends SubscribedEntry<MergedUriProperties> {
  /** The announcement children by name. */
  readonly children: ReadonlyMap<string, MergedChild>;
  /** What was last published: the included children and their versions, to skip no-op updates. */
  fingerprint: string;
  /** The view last merged. */
  merged: MergedUriProperties | undefined;
}

/**
 * Recomputes `entry`'s merged view, with the version of the newest included child (at least
 * `floor`); false when the included children and their versions did not change. Both URI stores merge
 * here so that the ZooKeeper-fed and xDS-fed views cannot drift.
 */
export function remergeUris(cluster: string, entry: MergedEntry, floor: bigint): boolean {
  const included: UriProperties[] = [];
  const parts: string[] = [];
  let version = floor;
  // In creation order, so the newest announcement of a URI wins (a re-announcement over a stale node
  // of a previous session): a deterministic stand-in for rest.li's HashMap order.
  const ordered = [...entry.children].sort(([, a], [, b]) => (a.created < b.created ? -1 : a.created > b.created ? 1 : 0));
  for (const [name, child] of ordered) {
    if (child.status !== 'present' || !child.value) continue;
    included.push(child.value);
    parts.push(`${name}@${child.version}`);
    if (child.version > version) version = child.version;
  }
  const fingerprint = parts.join('|');
  if (entry.merged && fingerprint === entry.fingerprint) return false;
  entry.fingerprint = fingerprint;
  entry.merged = mergeUriProperties(cluster, included);
  entry.version = version;
  return true;
}

/** Per child of a followed cluster: its status (undefined children: nobody follows the cluster). */
export function childStatuses(children: ReadonlyMap<string, MergedChild> | undefined): Record<string, PropertyStatus> {
  return Object.fromEntries([...(children ?? [])].map(([name, child]) => [name, child.status]));
}

/** A URI store's counters (a copy): clusters and children watched, and the shared counters. */
export function uriStoreStats(entries: Iterable<MergedEntry>, counters: { malformed: number; published: number }): UriStoreStats {
  let watched = 0;
  let children = 0;
  for (const entry of entries) {
    watched++;
    children += entry.children.size;
  }
  return { watched, children, ...counters };
}
