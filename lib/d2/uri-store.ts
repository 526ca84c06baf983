import type { ChildrenState, DataState, Watch, ZkWatcher } from '../zk';
import { createLogger, type Logger } from '../logging';
import { callSafely } from './subscribers';
import { SubscribedEntries } from './subscribed-entries';
import { childStatuses, remergeUris, uriStoreStats } from './uri-entries';
import { parseUriProperties } from './codecs/uri';
import { assertIsError } from './errors';
import type { MergedUriProperties, UriProperties } from './model';
import type { PropertySource, PropertyStatus, PropertySubscriber } from './property-store';

/** Options for {@link ZooKeeperUriStore}. */
export interface UriStoreOptions {
  /** The ZooKeeper session the watches go through; shared, not owned (closing the store leaves it open). */
  readonly session: ZkWatcher;
  /** `<base>/uris` (see `paths.ts`): one child directory per cluster. */
  readonly directory: string;
  /** Called for every announcement that cannot be read, after it is logged and counted. */
  readonly onMalformed?: (cluster: string, child: string, error: Error) => void;
  /** Default a `d2-uri-store` logger from `createLogger`. */
  readonly logger?: Logger;
}

import type { UriStoreStats } from './uri-entries';
export type { UriStoreStats } from './uri-entries';

/**
 * One announcement child: `loading` until its first read, `absent` once deleted (until the children
 * list drops it), `present` with a good value (kept through later unreadable writes), `unreadable`
 * when no write of it could be parsed yet.
 */
interface Child {
  status: PropertyStatus;
  value: UriProperties | undefined;
  version: bigint;
  /** czxid: creation order, which decides which of two announcements of one URI wins. */
  created: bigint;
  readonly watch: Watch;
}

interface ClusterEntry {
  /** `loading` until the children list and every child's first read are in. */
  status: PropertyStatus;
  readonly children: Map<string, Child>;
  readonly subscribers: Set<PropertySubscriber<MergedUriProperties>>;
  readonly watch: Watch;
  /** pzxid of the children list last seen (a child removal bumps it). */
  listVersion: bigint;
  /** What was last published: the included children and their versions, to skip no-op updates. */
  fingerprint: string;
  merged: MergedUriProperties | undefined;
  version: bigint | undefined;
  rejected: { version: bigint; error: Error } | undefined;
  flush: NodeJS.Immediate | undefined;
}

/**
 * Watches `/d2/uris/<cluster>`: the children list and every child's data, merged into one view per
 * cluster as rest.li's `ZooKeeperEphemeralStore` + `UriPropertiesMerger` do, published to subscribers
 * with the PropertyEventBus contract of {@link PropertySource}.
 *
 * Unlike rest.li, where one child that fails to parse fails the whole fetch (and the cluster's hosts
 * with it), an unreadable child is reported (log + counter + `onMalformed`) and either keeps its last
 * good value or, if it never had one, is left out; the other hosts stay.
 *
 * The first view is published once the children list and every child's first read are in. Later
 * changes are coalesced to one publish per event-loop turn (setImmediate), so a burst of
 * announcements costs one merge, and a change that leaves the included children and their versions as
 * they were (a child that is still loading, an unreadable write) is not published at all.
 *
 * Concurrency: entries change only in watch callbacks, subscribe/unsubscribe and the flush, all on the
 * event loop.
 */
export class ZooKeeperUriStore extends SubscribedEntries<MergedUriProperties, ClusterEntry> implements PropertySource<MergedUriProperties> {
  constructor(private readonly options: UriStoreOptions) {
    super({ closedMessage: 'uri store is closed', nameLabel: 'cluster name', log: options.logger ?? createLogger('d2-uri-store') });
  }

  /** Per child of a followed cluster: its status (for diagnostics and tests). */
  childStatuses(cluster: string): Record<string, PropertyStatus> {
    return childStatuses(this.entry(cluster)?.children);
  }

  /** The store's counters (a copy). */
  stats(): UriStoreStats {
    return uriStoreStats(this.followedEntries(), this.counters);
  }

  protected override valueOf(entry: ClusterEntry): MergedUriProperties | undefined {
    return entry.merged;
  }

  /** First subscriber of a name; the base class tracks the entry once this returns. */
  protected override startWatching(cluster: string): ClusterEntry {
    const holder: { entry?: ClusterEntry } = {};
    // Deliveries come after the first read, never synchronously, so `holder` is filled in time; the
    // identity check drops a late delivery to an entry that was already given up.
    const watch = this.options.session.watchChildren(
      `${this.options.directory}/${cluster}`,
      (state) => {
        if (holder.entry && this.isCurrent(cluster, holder.entry)) this.onChildren(cluster, holder.entry, state);
      },
      (error) => {
        if (holder.entry && this.isCurrent(cluster, holder.entry)) this.onListUnreadable(cluster, holder.entry, error);
      },
    );
    const entry: ClusterEntry = {
      status: 'loading',
      children: new Map(),
      subscribers: new Set(),
      watch,
      listVersion: 0n,
      fingerprint: '',
      merged: undefined,
      version: undefined,
      rejected: undefined,
      flush: undefined,
    };
    holder.entry = entry;
    return entry;
  }

  /** Last subscriber gone, or close: stops the children watch, every child's watch and a pending flush. */
  protected override stopWatching(entry: ClusterEntry): void {
    entry.watch.close();
    for (const child of entry.children.values()) child.watch.close();
    entry.children.clear();
    if (entry.flush) clearImmediate(entry.flush);
  }

  private onChildren(cluster: string, entry: ClusterEntry, state: ChildrenState): void {
    if (!state.exists) {
      for (const child of entry.children.values()) child.watch.close();
      entry.children.clear();
      const first = entry.status === 'loading';
      const had = entry.merged !== undefined;
      Object.assign(entry, { status: 'absent', merged: undefined, version: undefined, fingerprint: '', rejected: undefined });
      if (entry.flush) clearImmediate(entry.flush);
      entry.flush = undefined;
      if (first) this.publish(cluster, entry, (s) => s.onInitialize(cluster, undefined));
      else if (had) this.publish(cluster, entry, (s) => s.onRemove(cluster));
      return;
    }
    entry.listVersion = state.stat.pzxid;
    const names = new Set(state.children);
    for (const [name, child] of entry.children) {
      if (names.has(name)) continue;
      child.watch.close();
      entry.children.delete(name);
    }
    for (const name of state.children) {
      if (!entry.children.has(name)) this.watchChild(cluster, entry, name);
    }
    // Re-created after a deletion: subscribers were initialized long ago, so the view comes back as an
    // add (from the flush), once the new children are read.
    if (entry.status === 'absent') entry.status = 'present';
    this.settle(cluster, entry);
  }

  private watchChild(cluster: string, entry: ClusterEntry, name: string): void {
    const path = `${this.options.directory}/${cluster}/${name}`;
    const holder: { child?: Child } = {};
    const current = (): Child | undefined => {
      const child = holder.child;
      return child && entry.children.get(name) === child && this.isCurrent(cluster, entry) ? child : undefined;
    };
    const watch = this.options.session.watchData(
      path,
      (state) => {
        const child = current();
        if (child) this.onChild(cluster, entry, name, child, state);
      },
      (error) => {
        // A host it may not read (no read permission): left out, as an unreadable announcement is.
        const child = current();
        if (!child) return;
        this.reject(cluster, entry, name, child, child.version, error);
        this.settle(cluster, entry);
      },
    );
    const child: Child = { status: 'loading', value: undefined, version: 0n, created: 0n, watch };
    holder.child = child;
    entry.children.set(name, child);
  }

  private onChild(cluster: string, entry: ClusterEntry, name: string, child: Child, state: DataState): void {
    if (!state.exists) {
      Object.assign(child, { status: 'absent', value: undefined });
    } else {
      try {
        child.value = parseUriProperties(state.data);
        child.status = 'present';
        child.version = state.stat.mzxid;
        child.created = state.stat.czxid;
      } catch (err) {
        assertIsError(err);
        this.reject(cluster, entry, name, child, state.stat.mzxid, err);
      }
    }
    this.settle(cluster, entry);
  }

  /**
   * The URI directory cannot be read (no read permission): logged and counted; before its first read
   * the cluster loads as having no hosts (as an absent directory), so nobody waits for a read that will
   * not come. After that the hosts read so far stay.
   */
  private onListUnreadable(cluster: string, entry: ClusterEntry, error: Error): void {
    this.counters.malformed++;
    this.log.warn({ err: error, cluster }, 'unreadable URI directory; the cluster keeps the hosts it had (none before its first read)');
    if (entry.status !== 'loading') return;
    entry.status = 'absent';
    this.publish(cluster, entry, (s) => s.onInitialize(cluster, undefined));
  }

  private reject(cluster: string, entry: ClusterEntry, name: string, child: Child, version: bigint, error: Error): void {
    this.counters.malformed++;
    entry.rejected = { version, error };
    // Keep the child's last good announcement when it has one; otherwise it is left out of the merge.
    if (child.status !== 'present') child.status = 'unreadable';
    this.log.warn(
      { err: error, cluster, child: name, version: version.toString(), keepingLastGood: child.status === 'present' },
      'unreadable URI announcement; the cluster keeps its other hosts',
    );
    if (this.options.onMalformed) callSafely(this.log, cluster, () => this.options.onMalformed!(cluster, name, error));
  }

  /** Publishes the first view once everything is read; after that, schedules a coalesced flush. */
  private settle(cluster: string, entry: ClusterEntry): void {
    if (entry.status === 'loading') {
      for (const child of entry.children.values()) if (child.status === 'loading') return;
      entry.status = 'present';
      this.remerge(cluster, entry);
      const merged = entry.merged;
      this.publish(cluster, entry, (s) => s.onInitialize(cluster, merged));
      return;
    }
    if (entry.flush || entry.status !== 'present') return;
    entry.flush = setImmediate(() => {
      entry.flush = undefined;
      if (!this.isCurrent(cluster, entry) || entry.status !== 'present') return;
      // Coming back from absent: wait for the children's first reads rather than publish an empty view.
      if (!entry.merged && [...entry.children.values()].some((c) => c.status === 'loading')) return;
      if (!this.remerge(cluster, entry)) return;
      const merged = entry.merged!;
      this.publish(cluster, entry, (s) => s.onAdd(cluster, merged));
    });
  }

  /** Recomputes the merged view (see `remergeUris`), counting it when it changed. */
  private remerge(cluster: string, entry: ClusterEntry): boolean {
    // The children list's pzxid is the floor: a child removal bumps it, so the view's version moves.
    if (!remergeUris(cluster, entry, entry.listVersion)) return false;
    this.counters.published++;
    return true;
  }
}
