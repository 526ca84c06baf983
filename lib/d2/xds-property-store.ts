import { isDeepStrictEqual } from 'node:util';
import type { indis, JsonObject, XdsError } from '../xds';
import { createLogger, type Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { callSafely, publishSafely } from './subscribers';
import { assertIsError, D2Error } from './errors';
import { assertNodeName } from './paths';
import type { PropertySnapshot, PropertySource, PropertyStatus, PropertyStoreStats, PropertySubscriber } from './property-store';
import { isResourceRejection, type D2XdsPort } from './xds-port';

export type { D2XdsPort } from './xds-port';

/**
 * Turns a D2 node's JSON document (as the xDS client decoded it: an object, never re-stringified, so
 * that integral Struct doubles read as integers) into a property; throws when it cannot.
 */
export type XdsPropertyParser<T> = (data: JsonObject, name: string, stat: indis.D2Stat) => T;

/** Options for {@link XdsPropertyStore}. */
export interface XdsPropertyStoreOptions<T> {
  /** The xDS client the watches go through; shared, not owned (closing the store leaves it open). */
  readonly xds: D2XdsPort;
  /** The directory holding one node per property, e.g. `/d2/clusters`: resource names are `<directory>/<name>`. */
  readonly directory: string;
  /** Turns each version of a node into a property; a throw marks that write unreadable. */
  readonly parse: XdsPropertyParser<T>;
  /** What the properties are (`cluster`, `service`), for logs. */
  readonly kind: string;
  /** Called for every unreadable write, after it is logged and counted. */
  readonly onMalformed?: (name: string, error: Error) => void;
  /** Default a `d2-xds-<kind>-store` logger from `createLogger`. */
  readonly logger?: Logger;
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
export class XdsPropertyStore<T> implements PropertySource<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly log: Logger;
  private lifecycle: Lifecycle = 'running';
  private readonly counters = { malformed: 0, published: 0 };

  constructor(private readonly options: XdsPropertyStoreOptions<T>) {
    this.log = options.logger ?? createLogger(`d2-xds-${options.kind}-store`);
  }

  subscribe(name: string, subscriber: PropertySubscriber<T>): () => void {
    if (this.lifecycle === 'closed') throw new D2Error('closed', `${this.options.kind} store is closed`);
    assertNodeName(name, `${this.options.kind} name`);
    let entry = this.entries.get(name);
    if (!entry) entry = this.startWatching(name);
    else if (entry.status !== 'loading') callSafely(this.log, name, () => subscriber.onInitialize(name, entry!.value));
    const target = entry;
    target.subscribers.add(subscriber);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      target.subscribers.delete(subscriber);
      if (target.subscribers.size > 0 || this.entries.get(name) !== target) return;
      target.cancel();
      this.entries.delete(name);
    };
  }

  get(name: string): T | undefined {
    return this.entries.get(name)?.value;
  }

  snapshot(name: string): PropertySnapshot<T> | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return { status: entry.status, value: entry.value, version: entry.version, rejected: entry.rejected };
  }

  /** The store's counters (a copy). */
  stats(): PropertyStoreStats {
    return { watched: this.entries.size, ...this.counters };
  }

  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const entry of this.entries.values()) entry.cancel();
    this.entries.clear();
  }

  private startWatching(name: string): Entry<T> {
    const entry: Entry<T> = { status: 'loading', value: undefined, version: undefined, rejected: undefined, last: undefined, subscribers: new Set(), cancel: () => undefined };
    this.entries.set(name, entry);
    // The identity check drops a callback to an entry that was given up (cancel stops new ones; this
    // covers one already running).
    const current = (): boolean => this.entries.get(name) === entry;
    entry.cancel = this.options.xds.watch('d2Node', `${this.options.directory}/${name}`, {
      onUpdate: (node, done) => {
        if (current()) this.onNode(name, entry, node);
        done();
      },
      onResourceDoesNotExist: (done) => {
        if (current()) this.onAbsent(name, entry);
        done();
      },
      onError: (error, info, done) => {
        if (current()) this.onError(name, entry, error, info.ambient);
        done();
      },
    });
    return entry;
  }

  private onNode(name: string, entry: Entry<T>, node: indis.D2Node): void {
    const first = entry.status === 'loading';
    const mzxid = node.stat.mzxid;
    if (entry.last && entry.last.mzxid === mzxid && (entry.status === 'present' || entry.status === 'unreadable') && isDeepStrictEqual(entry.last.data, node.data)) return;
    entry.last = { data: node.data, mzxid };
    let value: T;
    try {
      value = this.options.parse(node.data, name, node.stat);
    } catch (err) {
      assertIsError(err);
      this.reject(name, entry, mzxid, err);
      if (first) this.publish(name, entry, (s) => s.onInitialize(name, undefined));
      return;
    }
    Object.assign(entry, { status: 'present', value, version: mzxid, rejected: undefined });
    this.counters.published++;
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, value));
    else this.publish(name, entry, (s) => s.onAdd(name, value));
  }

  private onAbsent(name: string, entry: Entry<T>): void {
    const first = entry.status === 'loading';
    const had = entry.status === 'present' || entry.status === 'unreadable';
    Object.assign(entry, { status: 'absent', value: undefined, version: undefined, rejected: undefined, last: undefined });
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, undefined));
    else if (had) this.publish(name, entry, (s) => s.onRemove(name));
  }

  private onError(name: string, entry: Entry<T>, error: XdsError, ambient: boolean): void {
    if (!isResourceRejection(error)) {
      this.log.warn({ err: error, kind: this.options.kind, name, ambient }, `xDS error on ${this.options.kind} properties; keeping what is cached`);
      return;
    }
    // A NACKed node is an unreadable write whose mzxid the client never learnt (it could not decode it).
    const first = entry.status === 'loading';
    this.reject(name, entry, entry.version ?? 0n, error);
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, undefined));
  }

  private reject(name: string, entry: Entry<T>, version: bigint, error: Error): void {
    this.counters.malformed++;
    entry.rejected = { version, error };
    if (entry.status !== 'present') entry.status = 'unreadable';
    this.log.warn(
      { err: error, kind: this.options.kind, name, version: version.toString(), keeping: entry.version?.toString() ?? null },
      `unreadable ${this.options.kind} properties; keeping the last good value`,
    );
    if (this.options.onMalformed) callSafely(this.log, name, () => this.options.onMalformed!(name, error));
  }

  private publish(name: string, entry: Entry<T>, call: (subscriber: PropertySubscriber<T>) => void): void {
    publishSafely(this.log, name, entry.subscribers, call);
  }
}
