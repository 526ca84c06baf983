/**
 * The ZooKeeper side of one `indis.D2URIMap`: a children watch on `<base>/uris/<cluster>` and a data
 * watch per child (what a rest.li ZooKeeper client holds for a cluster's URIs). Publishes the map to
 * the cache once the list and every listed child have been read, and after every change then; never
 * a half-read map, which would drop hosts for a moment on every client.
 *
 * Malformed child (not JSON, no clusterName, a bad weight or partition id): its last good data stays
 * in the map; with none it is left out. Reported through `onMalformed`.
 *
 * Concurrency: listeners run on the event loop; `children` and `parent` change only in them.
 */
import type { Lifecycle } from '../lifecycle';
import { indis, XdsError } from '../xds';
import type { ChildrenState, DataState, Stat, Watch, ZkWatcher } from '../zk';
import { ObserverError, unreadableError } from './errors';

/** One child as the watch holds it. */
interface ChildState {
  readonly watch: Watch;
  /** False until the child's first read came in. */
  seen: boolean;
  /** The last servable data, if any. */
  good: indis.D2UriChild | undefined;
}

/** Options of {@link UriMapWatch}. */
export interface UriMapWatchOptions {
  /** Where the watches come from. */
  readonly zk: ZkWatcher;
  /** The URI directory, `<base>/uris/<cluster>` (also the resource name). */
  readonly path: string;
  /** Called with the full state whenever it changed and every listed child was read (undefined parent: absent). */
  readonly publish: (parent: Stat | undefined, children: readonly indis.D2UriChild[]) => void;
  /** Called for a child whose data cannot be served. */
  readonly onMalformed: (error: ObserverError) => void;
  /** Called when the directory itself cannot be read (no permission): the map is then served as absent. */
  readonly onUnreadable: (error: Error) => void;
  /** Called with a child's path when its data is servable, or the child is gone. */
  readonly onServable?: (path: string) => void;
  /** Called after every read delivered (the ZooKeeper lag metric). */
  readonly onRead: () => void;
}

/** Watches one cluster's URI directory and its children; `close()` stops every watch. */
export class UriMapWatch {
  /** `running` from construction, `closed` after {@link close}. */
  lifecycle: Lifecycle = 'running';
  private readonly children = new Map<string, ChildState>();
  private parent: Stat | undefined;
  /** False until the children list was read once. */
  private listed = false;
  private readonly list: Watch;

  constructor(private readonly options: UriMapWatchOptions) {
    this.list = options.zk.watchChildren(
      options.path,
      (state) => this.onChildren(state),
      (error) => this.onListUnreadable(error),
    );
  }

  /** Stops the children watch and every child's data watch. Idempotent. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.list.close();
    for (const child of this.children.values()) child.watch.close();
    this.children.clear();
  }

  private onChildren(state: ChildrenState): void {
    if (this.lifecycle === 'closed') return;
    this.options.onRead();
    this.listed = true;
    const names = new Set(state.exists ? state.children : []);
    for (const [name, child] of this.children) {
      if (names.has(name)) continue;
      child.watch.close();
      this.children.delete(name);
      this.options.onServable?.(`${this.options.path}/${name}`);
    }
    this.parent = state.exists ? state.stat : undefined;
    for (const name of names) {
      if (this.children.has(name)) continue;
      // The listener never runs inside watchData (the port's contract), so `watch` is set by then.
      const watch: Watch = this.options.zk.watchData(
        `${this.options.path}/${name}`,
        (data) => this.onChild(name, watch, data),
        (error) => this.onChildUnreadable(name, watch, error),
      );
      this.children.set(name, { watch, seen: false, good: undefined });
    }
    this.publishIfComplete();
  }

  private onChild(name: string, watch: Watch, state: DataState): void {
    const child = this.children.get(name);
    if (this.lifecycle === 'closed' || child?.watch !== watch) return;
    this.options.onRead();
    child.seen = true;
    if (!state.exists) {
      child.good = undefined;
      this.options.onServable?.(`${this.options.path}/${name}`);
    } else {
      const candidate: indis.D2UriChild = { name, data: state.data, stat: state.stat };
      if (this.servable(candidate)) {
        child.good = candidate;
        this.options.onServable?.(`${this.options.path}/${name}`);
      }
    }
    this.publishIfComplete();
  }

  /** The directory cannot be read: reported, and (only before any good read) published as absent. */
  private onListUnreadable(error: Error): void {
    if (this.lifecycle === 'closed') return;
    this.options.onUnreadable(error);
  }

  /**
   * A child cannot be read (no permission): reported; it counts as read, with its last good data if it
   * had any, so the rest of the map is not held back for it.
   */
  private onChildUnreadable(name: string, watch: Watch, error: Error): void {
    const child = this.children.get(name);
    if (this.lifecycle === 'closed' || child?.watch !== watch) return;
    const path = `${this.options.path}/${name}`;
    this.options.onMalformed(unreadableError(path, error));
    if (child.seen) return;
    child.seen = true;
    this.publishIfComplete();
  }

  /** True when the child's data can go into the map; reports it otherwise (its last good data stays). */
  private servable(child: indis.D2UriChild): boolean {
    try {
      indis.buildD2UriMap(this.options.path, [child]);
      return true;
    } catch (err) {
      if (!(err instanceof XdsError)) throw err;
      const path = `${this.options.path}/${child.name}`;
      this.options.onMalformed(new ObserverError('malformed', `${path}: not served, ${err.message}`, { path, cause: err }));
      return false;
    }
  }

  private publishIfComplete(): void {
    if (!this.listed) return;
    if (!this.parent) return this.options.publish(undefined, []);
    const good: indis.D2UriChild[] = [];
    for (const child of this.children.values()) {
      if (!child.seen) return;
      if (child.good) good.push(child.good);
    }
    this.options.publish(this.parent, good);
  }
}
