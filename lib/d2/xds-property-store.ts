import { isDeepStrictEqual } from 'node:util';
import type { indis, JsonObject, XdsError } from '../xds';
import { createLogger } from '../logging';
import { PropertyEntries } from './property-entries';
import { assertIsError } from './errors';
import type { PropertySource, PropertyStoreCommonOptions, PropertyStatus, PropertyStoreStats, PropertySubscriber } from './property-store';
import { currentWatcher, isResourceRejection, type D2XdsPort } from './xds-port';

export type { D2XdsPort } from './xds-port';

/**
 * Turns a D2 node's JSON document (as the xDS client decoded it: an object, never re-stringified, so
 * that integral Struct doubles read as integers) into a property; throws when it cannot.
 */
export type XdsPropertyParser<T> = (data: JsonObject, name: string, stat: indis.D2Stat) => T;

/** Options for {@link XdsPropertyStore}. */
export interface XdsPropertyStoreOptions<T> extends PropertyStoreCommonOptions {
  /** The xDS client the watches go through; shared, not owned (closing the store leaves it open). */
  readonly xds: D2XdsPort;
  /** Turns each version of a node into a property; a throw marks that write unreadable. */
  readonly parse: XdsPropertyParser<T>;
}

interface Entry<T> {
  status: PropertyStatus;
  value: T | undefined;
  version: bigint | undefined;
  rejected: { version: bigint; error: Error } | undefined;
  /** The document and mzxid last delivered, to skip a re-delivery (another server, a reconnect). */
  last: { data: JsonObject; mzxid: bigint } | undefined;
  readonly subscribers: Set<PropertySubscriber<T>>;
  cancel: () => void;
}

/**
 * {@link PropertySource} over xDS: the `ZooKeeperPropertyStore` contract with `indis.D2Node` watches
 * of `<directory>/<name>` instead of ZooKeeper data watches (rest.li `XdsToD2PropertiesAdaptor`).
 *
 * The watcher events map onto the ZooKeeper store's:
 * - `onUpdate`: a version of the node; parsed like a znode's data (initialize the first time, add
 *   after). The same document at the same mzxid again (from a fallback server, after a reconnect) is
 *   not published twice.
 * - `onResourceDoesNotExist`: the node is absent (initialize with undefined, or remove).
 * - `onError` NACK/validation: the server sent a node the client could not decode: an unreadable
 *   write (logged, counted, `onMalformed`); the last good value stays. Connectivity errors are only
 *   logged: the xDS client keeps serving its cache, and the store its value.
 *
 * Concurrency: entries change only in watcher callbacks and in subscribe/unsubscribe, on the event
 * loop; each callback's work is synchronous and calls `done()` at its end.
 */
export class XdsPropertyStore<T> extends PropertyEntries<T, Entry<T>> implements PropertySource<T> {
  constructor(private readonly options: XdsPropertyStoreOptions<T>) {
    super({ kind: options.kind, log: options.logger ?? createLogger(`d2-xds-${options.kind}-store`), onMalformed: options.onMalformed });
  }

  /** The store's counters (a copy). */
  stats(): PropertyStoreStats {
    return { watched: this.size, ...this.counters };
  }

  /** Last subscriber gone, or close: cancels the watch. */
  protected override stopWatching(entry: Entry<T>): void {
    entry.cancel();
  }

  /** First subscriber of a name; the base class tracks the entry once this returns. */
  protected override startWatching(name: string): Entry<T> {
    const entry: Entry<T> = { status: 'loading', value: undefined, version: undefined, rejected: undefined, last: undefined, subscribers: new Set(), cancel: () => undefined };
    // Watcher callbacks are asynchronous (D2XdsPort), so the entry is tracked before the first one. The
    // identity check drops a callback to an entry that was given up (cancel stops new ones; this covers
    // one already running).
    const current = (): boolean => this.isCurrent(name, entry);
    entry.cancel = this.options.xds.watch(
      'd2Node',
      `${this.options.directory}/${name}`,
      currentWatcher(current, {
        update: (node) => this.onNode(name, entry, node),
        absent: () => this.onAbsent(name, entry),
        error: (error, ambient) => this.onError(name, entry, error, ambient),
      }),
    );
    return entry;
  }

  private onNode(name: string, entry: Entry<T>, node: indis.D2Node): void {
    const mzxid = node.stat.mzxid;
    if (entry.last && entry.last.mzxid === mzxid && (entry.status === 'present' || entry.status === 'unreadable') && isDeepStrictEqual(entry.last.data, node.data)) return;
    entry.last = { data: node.data, mzxid };
    let value: T;
    try {
      value = this.options.parse(node.data, name, node.stat);
    } catch (err) {
      assertIsError(err);
      this.reject(name, entry, mzxid, err);
      return;
    }
    this.accept(name, entry, value, mzxid);
  }

  private onAbsent(name: string, entry: Entry<T>): void {
    entry.last = undefined;
    this.absent(name, entry);
  }

  private onError(name: string, entry: Entry<T>, error: XdsError, ambient: boolean): void {
    if (!isResourceRejection(error)) {
      this.log.warn({ err: error, kind: this.options.kind, name, ambient }, `xDS error on ${this.options.kind} properties; keeping what is cached`);
      return;
    }
    // A NACKed node is an unreadable write whose mzxid the client never learnt (it could not decode it).
    this.reject(name, entry, entry.version ?? 0n, error);
  }
}
