import { isDeepStrictEqual } from 'node:util';
import type { indis, JsonObject, XdsError } from '../xds';
import { createLogger, type Logger } from '../logging';
import { callSafely } from './subscribers';
import { SubscribedEntries } from './subscribed-entries';
import { childStatuses, remergeUris, uriStoreStats } from './uri-entries';
import { parseUriProperties } from './codecs/uri';
import { assertIsError } from './errors';
import type { MergedUriProperties, UriProperties } from './model';
import type { PropertySource, PropertyStatus, PropertySubscriber } from './property-store';
import type { UriStoreStats } from './uri-store';
import { currentWatcher, isResourceRejection, type D2XdsPort } from './xds-port';

/** Options for {@link XdsUriStore}. */
export interface XdsUriStoreOptions {
  /** The xDS client the watches go through; shared, not owned (closing the store leaves it open). */
  readonly xds: D2XdsPort;
  /** `<base>/uris`: resource names are `<directory>/<cluster>`. */
  readonly directory: string;
  /** Called for every announcement that cannot be read (child `''`: the whole map was NACKed), after it is logged and counted. */
  readonly onMalformed?: (cluster: string, child: string, error: Error) => void;
  /** Default a `d2-xds-uri-store` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** One announcement: its last good value (kept through later unreadable versions). */
interface Child {
  status: 'present' | 'unreadable';
  value: UriProperties | undefined;
  /** mzxid of `value`. */
  version: bigint;
  /** czxid: creation order, which decides which of two announcements of one URI wins. */
  created: bigint;
  /** The document and mzxid last delivered, so an unchanged child is neither parsed nor counted again. */
  last: { data: JsonObject; mzxid: bigint };
}

interface ClusterEntry {
  status: PropertyStatus;
  readonly children: Map<string, Child>;
  readonly subscribers: Set<PropertySubscriber<MergedUriProperties>>;
  fingerprint: string;
  merged: MergedUriProperties | undefined;
  version: bigint | undefined;
  rejected: { version: bigint; error: Error } | undefined;
  cancel: () => void;
}

/**
 * {@link PropertySource} of a cluster's merged announcements over xDS: one `indis.D2URIMap` watch of
 * `<directory>/<cluster>` carries every child, where `ZooKeeperUriStore` needs a children watch and a
 * data watch per child. The contract and the merge are the ZooKeeper store's:
 * - every child is parsed on its own; one that does not parse is reported (log + counter +
 *   `onMalformed`) and keeps its last good value, or is left out if it never had one: the other
 *   hosts stay;
 * - children merge in creation (czxid) order, so the newest announcement of a URI wins;
 * - initialize once (the first map, or undefined when the map does not exist), then add when the
 *   included children or their versions changed, remove when the map is gone;
 * - a NACKed map keeps the last good view (counted as one unreadable write).
 * A map arrives whole, so there is nothing to coalesce: each update publishes at once.
 *
 * Concurrency: entries change only in watcher callbacks and in subscribe/unsubscribe, on the event loop.
 */
export class XdsUriStore extends SubscribedEntries<MergedUriProperties, ClusterEntry> implements PropertySource<MergedUriProperties> {
  constructor(private readonly options: XdsUriStoreOptions) {
    super({ closedMessage: 'uri store is closed', nameLabel: 'cluster name', log: options.logger ?? createLogger('d2-xds-uri-store') });
  }

  /** Per child of a followed cluster: its status (for diagnostics and tests). */
  childStatuses(cluster: string): Record<string, PropertyStatus> {
    return childStatuses(this.entry(cluster)?.children);
  }

  /** The store's counters (a copy). */
  stats(): UriStoreStats {
    return uriStoreStats(this.followedEntries(), this.counters);
  }

  /** Last subscriber gone, or close: cancels the watch. */
  protected override stopWatching(entry: ClusterEntry): void {
    entry.cancel();
  }

  protected override valueOf(entry: ClusterEntry): MergedUriProperties | undefined {
    return entry.merged;
  }

  /** First subscriber of a name; the base class tracks the entry once this returns. */
  protected override startWatching(cluster: string): ClusterEntry {
    const entry: ClusterEntry = {
      status: 'loading',
      children: new Map(),
      subscribers: new Set(),
      fingerprint: '',
      merged: undefined,
      version: undefined,
      rejected: undefined,
      cancel: () => undefined,
    };
    // Watcher callbacks are asynchronous (D2XdsPort), so the entry is tracked before the first one;
    // the identity check drops a callback to an entry that was given up.
    const current = (): boolean => this.isCurrent(cluster, entry);
    entry.cancel = this.options.xds.watch(
      'd2UriMap',
      `${this.options.directory}/${cluster}`,
      currentWatcher(current, {
        update: (map) => this.onMap(cluster, entry, map),
        absent: () => this.onAbsent(cluster, entry),
        error: (error, ambient) => this.onError(cluster, entry, error, ambient),
      }),
    );
    return entry;
  }

  private onMap(cluster: string, entry: ClusterEntry, map: indis.D2UriMap): void {
    const names = new Set(map.nodes.map((n) => n.name));
    for (const name of [...entry.children.keys()]) if (!names.has(name)) entry.children.delete(name);
    for (const node of map.nodes) this.onChild(cluster, entry, node);
    const first = entry.status === 'loading';
    entry.status = 'present';
    if (!this.remerge(cluster, entry) && !first) return;
    const merged = entry.merged!;
    if (first) this.publish(cluster, entry, (s) => s.onInitialize(cluster, merged));
    else this.publish(cluster, entry, (s) => s.onAdd(cluster, merged));
  }

  private onChild(cluster: string, entry: ClusterEntry, node: indis.D2UriNode): void {
    const known = entry.children.get(node.name);
    const mzxid = node.stat.mzxid;
    if (known && known.last.mzxid === mzxid && isDeepStrictEqual(known.last.data, node.data)) return;
    const last = { data: node.data, mzxid };
    try {
      const value = parseUriProperties(node.data);
      entry.children.set(node.name, { status: 'present', value, version: mzxid, created: node.stat.czxid, last });
    } catch (err) {
      assertIsError(err);
      // Keep the child's last good announcement when it has one; otherwise it is left out of the merge.
      const child: Child = known?.status === 'present' ? { ...known, last } : { status: 'unreadable', value: undefined, version: mzxid, created: node.stat.czxid, last };
      entry.children.set(node.name, child);
      this.reject(cluster, entry, node.name, mzxid, err, child.status === 'present');
    }
  }

  private onAbsent(cluster: string, entry: ClusterEntry): void {
    const first = entry.status === 'loading';
    const had = entry.merged !== undefined;
    entry.children.clear();
    Object.assign(entry, { status: 'absent', merged: undefined, version: undefined, fingerprint: '', rejected: undefined });
    if (first) this.publish(cluster, entry, (s) => s.onInitialize(cluster, undefined));
    else if (had) this.publish(cluster, entry, (s) => s.onRemove(cluster));
  }

  private onError(cluster: string, entry: ClusterEntry, error: XdsError, ambient: boolean): void {
    if (!isResourceRejection(error)) {
      this.log.warn({ err: error, cluster, ambient }, "xDS error on a cluster's URIs; keeping what is cached");
      return;
    }
    const first = entry.status === 'loading';
    this.reject(cluster, entry, '', entry.version ?? 0n, error, entry.merged !== undefined);
    if (!first) return;
    // Nothing readable yet: initialize as an unreadable ZooKeeper child would leave it, without hosts.
    entry.status = 'unreadable';
    this.publish(cluster, entry, (s) => s.onInitialize(cluster, undefined));
  }

  private reject(cluster: string, entry: ClusterEntry, child: string, version: bigint, error: Error, keepingLastGood: boolean): void {
    this.counters.malformed++;
    entry.rejected = { version, error };
    this.log.warn(
      { err: error, cluster, child: child || null, version: version.toString(), keepingLastGood },
      'unreadable URI announcement; the cluster keeps its other hosts',
    );
    if (this.options.onMalformed) callSafely(this.log, cluster, () => this.options.onMalformed!(cluster, child, error));
  }

  /** Recomputes the merged view (see `remergeUris`), counting it when it changed. */
  private remerge(cluster: string, entry: ClusterEntry): boolean {
    // No children list here: the view's version is its newest included child's.
    if (!remergeUris(cluster, entry, 0n)) return false;
    this.counters.published++;
    return true;
  }
}
