import { isDeepStrictEqual } from 'node:util';
import type { indis, JsonObject, XdsError } from '../xds';
import { createLogger, type Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { callSafely, publishSafely } from './subscribers';
import { parseUriProperties } from './codecs/uri';
import { assertIsError, D2Error } from './errors';
import { mergeUriProperties, type MergedUriProperties, type UriProperties } from './model';
import { assertNodeName } from './paths';
import type { PropertySnapshot, PropertySource, PropertyStatus, PropertySubscriber } from './property-store';
import type { UriStoreStats } from './uri-store';
import { isResourceRejection, type D2XdsPort } from './xds-port';

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
export class XdsUriStore implements PropertySource<MergedUriProperties> {
  private readonly entries = new Map<string, ClusterEntry>();
  private readonly log: Logger;
  private lifecycle: Lifecycle = 'running';
  private readonly counters = { malformed: 0, published: 0 };

  constructor(private readonly options: XdsUriStoreOptions) {
    this.log = options.logger ?? createLogger('d2-xds-uri-store');
  }

  subscribe(cluster: string, subscriber: PropertySubscriber<MergedUriProperties>): () => void {
    if (this.lifecycle === 'closed') throw new D2Error('closed', 'uri store is closed');
    assertNodeName(cluster, 'cluster name');
    let entry = this.entries.get(cluster);
    if (!entry) entry = this.startWatching(cluster);
    else if (entry.status !== 'loading') callSafely(this.log, cluster, () => subscriber.onInitialize(cluster, entry!.merged));
    const target = entry;
    target.subscribers.add(subscriber);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      target.subscribers.delete(subscriber);
      if (target.subscribers.size > 0 || this.entries.get(cluster) !== target) return;
      target.cancel();
      this.entries.delete(cluster);
    };
  }

  get(cluster: string): MergedUriProperties | undefined {
    return this.entries.get(cluster)?.merged;
  }

  snapshot(cluster: string): PropertySnapshot<MergedUriProperties> | undefined {
    const entry = this.entries.get(cluster);
    if (!entry) return undefined;
    return { status: entry.status, value: entry.merged, version: entry.version, rejected: entry.rejected };
  }

  /** Per child of a followed cluster: its status (for diagnostics and tests). */
  childStatuses(cluster: string): Record<string, PropertyStatus> {
    const entry = this.entries.get(cluster);
    return Object.fromEntries([...(entry?.children ?? [])].map(([name, child]) => [name, child.status]));
  }

  /** The store's counters (a copy). */
  stats(): UriStoreStats {
    let children = 0;
    for (const entry of this.entries.values()) children += entry.children.size;
    return { watched: this.entries.size, children, ...this.counters };
  }

  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const entry of this.entries.values()) entry.cancel();
    this.entries.clear();
  }

  private startWatching(cluster: string): ClusterEntry {
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
    this.entries.set(cluster, entry);
    const current = (): boolean => this.entries.get(cluster) === entry;
    entry.cancel = this.options.xds.watch('d2UriMap', `${this.options.directory}/${cluster}`, {
      onUpdate: (map, done) => {
        if (current()) this.onMap(cluster, entry, map);
        done();
      },
      onResourceDoesNotExist: (done) => {
        if (current()) this.onAbsent(cluster, entry);
        done();
      },
      onError: (error, info, done) => {
        if (current()) this.onError(cluster, entry, error, info.ambient);
        done();
      },
    });
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

  /** Recomputes the merged view; false when the included children and their versions did not change. */
  private remerge(cluster: string, entry: ClusterEntry): boolean {
    const included: UriProperties[] = [];
    const parts: string[] = [];
    let version = 0n;
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
    this.counters.published++;
    return true;
  }

  private publish(cluster: string, entry: ClusterEntry, call: (s: PropertySubscriber<MergedUriProperties>) => void): void {
    publishSafely(this.log, cluster, entry.subscribers, call);
  }
}
