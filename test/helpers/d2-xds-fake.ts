import type { D2XdsPort } from '../../lib/d2/xds-port';
import { XdsError, type indis, type JsonObject, type XdsWatcher } from '../../lib/xds';

type Kind = 'd2Node' | 'd2UriMap' | 'd2SymlinkNode';
type Event = (watcher: XdsWatcher<never>, done: () => void) => void;

interface WatchEntry {
  readonly kind: Kind;
  readonly name: string;
  readonly watcher: XdsWatcher<never>;
  readonly queue: Event[];
  running: boolean;
  cancelled: boolean;
}

/** A stat whose zxids are `mzxid` (and `czxid`, creation order). */
export function d2Stat(mzxid: bigint, czxid = mzxid): indis.D2Stat {
  return { czxid, mzxid, pzxid: mzxid, ephemeralOwner: 0n, ctime: 0, mtime: 0, version: 0, cversion: 0, aversion: 0, dataLength: 0, numChildren: 0 };
}

/**
 * An in-memory stand-in for lib/xds's `XdsClient`, serving rest.li's `indis` types the way an
 * observer would, and keeping the watcher contract of `lib/xds/watcher.ts`:
 * - callbacks run asynchronously (never inside `watch()` or a setter), one at a time per watcher, in
 *   order; the next waits for `done()`;
 * - a new watch of a known resource hears its cached value (or that it does not exist);
 * - once cancelled, no further callback starts.
 * Resources never written read as absent right away (the does-not-exist timer, without waiting),
 * unless `absentUnknown` is false (then a watch stays loading, as with an unreachable server).
 *
 * Values are what lib/xds decodes: D2Node `{ name, stat, data }` and D2UriMap `{ name, nodes }`
 * (nodes sorted by name). Zxids come from one counter, as in one ZooKeeper ensemble.
 */
export class FakeD2Xds implements D2XdsPort {
  private readonly nodes = new Map<string, indis.D2Node>();
  private readonly maps = new Map<string, Map<string, indis.D2UriNode>>();
  private readonly links = new Map<string, indis.D2SymlinkNode>();
  private readonly entries = new Set<WatchEntry>();
  private zxid = 100n;
  /** Every watch ever started, `<kind> <name>`, in order. */
  readonly watchLog: string[] = [];

  constructor(private readonly options: { absentUnknown?: boolean } = {}) {}

  watch(kind: 'd2Node', name: string, watcher: XdsWatcher<indis.D2Node>): () => void;
  watch(kind: 'd2UriMap', name: string, watcher: XdsWatcher<indis.D2UriMap>): () => void;
  watch(kind: 'd2SymlinkNode', name: string, watcher: XdsWatcher<indis.D2SymlinkNode>): () => void;
  watch(kind: Kind, name: string, watcher: XdsWatcher<never>): () => void {
    const entry: WatchEntry = { kind, name, watcher, queue: [], running: false, cancelled: false };
    this.entries.add(entry);
    this.watchLog.push(`${kind} ${name}`);
    const cached = this.current(kind, name);
    if (cached) this.enqueue(entry, (w, done) => w.onUpdate(cached as never, done));
    else if (this.options.absentUnknown !== false) this.enqueue(entry, (w, done) => w.onResourceDoesNotExist(done));
    return () => {
      entry.cancelled = true;
      this.entries.delete(entry);
    };
  }

  /** Names watched now, by kind. */
  watched(kind: Kind): string[] {
    return [...this.entries].filter((e) => e.kind === kind).map((e) => e.name);
  }

  /** Writes a D2 node (`/d2/services/s`, `/d2/clusters/c`) and pushes it to its watchers. */
  putNode(path: string, doc: Readonly<Record<string, unknown>>): void {
    const data = doc as JsonObject;
    const zxid = this.next();
    const czxid = this.nodes.get(path)?.stat.czxid ?? zxid;
    const node: indis.D2Node = { name: path, stat: d2Stat(zxid, czxid), data };
    this.nodes.set(path, node);
    this.push('d2Node', path, (w, done) => w.onUpdate(node as never, done));
  }

  /** Deletes a D2 node: its watchers hear that it does not exist (SotW absence). */
  removeNode(path: string): void {
    this.nodes.delete(path);
    this.push('d2Node', path, (w, done) => w.onResourceDoesNotExist(done));
  }

  /** Writes a D2 symlink (`/d2/clusters/$x`, `/d2/uris/$x`) pointing at `target` and pushes it. */
  putLink(path: string, target: string): void {
    const link: indis.D2SymlinkNode = { name: path, stat: d2Stat(this.next()), masterClusterNodePath: target };
    this.links.set(path, link);
    this.push('d2SymlinkNode', path, (w, done) => w.onUpdate(link as never, done));
  }

  /** Deletes a D2 symlink: its watchers hear that it does not exist. */
  removeLink(path: string): void {
    this.links.delete(path);
    this.push('d2SymlinkNode', path, (w, done) => w.onResourceDoesNotExist(done));
  }

  /** Writes one announcement of `/d2/uris/<c>` (creating the map) and pushes the whole map. */
  putUri(mapPath: string, child: string, doc: Readonly<Record<string, unknown>>): void {
    const data = doc as JsonObject;
    const map = this.maps.get(mapPath) ?? new Map<string, indis.D2UriNode>();
    this.maps.set(mapPath, map);
    const zxid = this.next();
    map.set(child, { name: child, stat: d2Stat(zxid, map.get(child)?.stat.czxid ?? zxid), data });
    this.pushMap(mapPath);
  }

  /** Creates an empty URI map (the cluster's `/d2/uris/<c>` node with no children). */
  putUriMap(mapPath: string): void {
    if (!this.maps.has(mapPath)) this.maps.set(mapPath, new Map());
    this.pushMap(mapPath);
  }

  /** Deletes one announcement and pushes the map. */
  removeUri(mapPath: string, child: string): void {
    this.maps.get(mapPath)?.delete(child);
    this.pushMap(mapPath);
  }

  /** Deletes a whole URI map. */
  removeUriMap(mapPath: string): void {
    this.maps.delete(mapPath);
    this.push('d2UriMap', mapPath, (w, done) => w.onResourceDoesNotExist(done));
  }

  /** The client NACKed a version of the resource (it could not decode it): a resource error, ambient when one is cached. */
  reject(kind: Kind, name: string, message = 'could not decode'): void {
    const ambient = this.current(kind, name) !== undefined;
    const error = new XdsError('nacked', `${name}: ${message}`, { resourceName: name });
    this.push(kind, name, (w, done) => w.onError(error, { ambient }, done));
  }

  /** Sends the cached value again (what a fallback server, or a reconnect, delivers). */
  redeliver(kind: Kind, name: string): void {
    const value = this.current(kind, name);
    if (value) this.push(kind, name, (w, done) => w.onUpdate(value as never, done));
  }

  /** Every server is unreachable: a connection error to every watcher of the resource. */
  disconnect(kind: Kind, name: string): void {
    const error = new XdsError('connection', 'observer:1 unreachable');
    this.push(kind, name, (w, done) => w.onError(error, { ambient: this.current(kind, name) !== undefined }, done));
  }

  /** Resolves once every queued callback has run. */
  async idle(): Promise<void> {
    for (let turn = 0; turn < 1000; turn++) {
      if ([...this.entries].every((e) => !e.running && e.queue.length === 0)) {
        await new Promise((resolve) => setImmediate(resolve));
        if ([...this.entries].every((e) => !e.running && e.queue.length === 0)) return;
      }
      await new Promise((resolve) => setImmediate(resolve));
    }
    throw new Error('FakeD2Xds not idle after 1000 turns');
  }

  private current(kind: Kind, name: string): indis.D2Node | indis.D2UriMap | indis.D2SymlinkNode | undefined {
    if (kind === 'd2Node') return this.nodes.get(name);
    if (kind === 'd2SymlinkNode') return this.links.get(name);
    const map = this.maps.get(name);
    return map && { name, nodes: [...map.values()].sort((a, b) => (a.name < b.name ? -1 : 1)) };
  }

  private pushMap(mapPath: string): void {
    const value = this.current('d2UriMap', mapPath)!;
    this.push('d2UriMap', mapPath, (w, done) => w.onUpdate(value as never, done));
  }

  private next(): bigint {
    return ++this.zxid;
  }

  private push(kind: Kind, name: string, event: Event): void {
    for (const entry of this.entries) if (entry.kind === kind && entry.name === name) this.enqueue(entry, event);
  }

  private enqueue(entry: WatchEntry, event: Event): void {
    entry.queue.push(event);
    this.pump(entry);
  }

  private pump(entry: WatchEntry): void {
    if (entry.running || entry.cancelled || entry.queue.length === 0) return;
    entry.running = true;
    const event = entry.queue.shift()!;
    setImmediate(() => {
      if (entry.cancelled) {
        entry.running = false;
        return;
      }
      let called = false;
      event(entry.watcher, () => {
        if (called) return;
        called = true;
        entry.running = false;
        this.pump(entry);
      });
    });
  }
}
