import type { DataState, Stat, Watch, ZkWatcher } from '../zk';
import { createLogger, type Logger } from '../logging';
import { PropertyEntries } from './property-entries';
import { assertIsError } from './errors';

// The subscriber-side types live below the stores (property-source.ts), so the shared bookkeeping
// (subscribed-entries.ts) needs nothing of this file; re-exported here, where callers found them.
import type { PropertySource, PropertyStatus, PropertyStoreStats, PropertySubscriber } from './property-source';
export type { PropertySnapshot, PropertySource, PropertyStatus, PropertyStoreStats, PropertySubscriber } from './property-source';

/**
 * What a {@link PropertyParser} is given of a name's earlier versions, for as long as the name is
 * followed: the store's last good value, and a slot the parser alone reads and writes.
 */
export interface ParseMemory<T> {
  /** The last good value (undefined before the first). */
  readonly value: T | undefined;
  /** The parser's own note about the version it last read; the store never looks at it. */
  memo: unknown;
}

/**
 * Turns a znode's bytes into a property; throws (a `malformed` D2Error, ideally) when it cannot. A parser
 * may build on `last` (the bytes still decide the value).
 */
export type PropertyParser<T> = (data: Buffer, name: string, stat: Stat, last: ParseMemory<T>) => T;

/** What both property stores (ZooKeeper- and xDS-fed) are configured with, besides their source and parser. */
export interface PropertyStoreCommonOptions {
  /** The directory holding one node per property, e.g. `/d2/clusters` (see `paths.ts`): the store follows `<directory>/<name>`. */
  readonly directory: string;
  /** What the properties are (`cluster`, `service`), for logs. */
  readonly kind: string;
  /** Called for every unreadable write, after it is logged and counted. */
  readonly onMalformed?: (name: string, error: Error) => void;
  /** Default a `d2-<kind>-store` (xDS: `d2-xds-<kind>-store`) logger from `createLogger`. */
  readonly logger?: Logger;
}

/** Options for {@link ZooKeeperPropertyStore}. */
export interface PropertyStoreOptions<T> extends PropertyStoreCommonOptions {
  /** The ZooKeeper session the watches go through; shared, not owned (closing the store leaves it open). */
  readonly session: ZkWatcher;
  /** Turns each version of a znode into a property; a throw marks that write unreadable. */
  readonly parse: PropertyParser<T>;
}

interface Entry<T> extends ParseMemory<T> {
  status: PropertyStatus;
  value: T | undefined;
  version: bigint | undefined;
  rejected: { version: bigint; error: Error } | undefined;
  readonly subscribers: Set<PropertySubscriber<T>>;
  readonly watch: Watch;
}

/**
 * The rest.li `ZooKeeperPermanentStore` + `PropertyEventBus` pair for one directory of JSON znodes:
 * watches `<directory>/<name>` while somebody follows it, parses every version, caches the last good
 * value and publishes initialize / add / remove. A write that does not parse is logged, counted and
 * otherwise ignored: the last good value stays in effect (rest.li publishes null and its subscribers
 * drop it; we never hand subscribers a null).
 *
 * Concurrency: entries change only in watch callbacks and in subscribe/unsubscribe, all on the event
 * loop; subscriber calls are synchronous, so a subscriber sees each store update exactly once, in order.
 */
export class ZooKeeperPropertyStore<T> extends PropertyEntries<T, Entry<T>> implements PropertySource<T> {
  constructor(private readonly options: PropertyStoreOptions<T>) {
    super({ kind: options.kind, log: options.logger ?? createLogger(`d2-${options.kind}-store`), onMalformed: options.onMalformed });
  }

  /** Names followed now. */
  names(): string[] {
    return this.followed();
  }

  /** Resolves once the first read of `name` is done (at once if it is, or if nobody follows it). */
  ready(name: string): Promise<void> {
    return this.entry(name)?.watch.ready ?? Promise.resolve();
  }

  /** The store's counters (a copy). */
  stats(): PropertyStoreStats {
    return { watched: this.size, ...this.counters };
  }

  /** Last subscriber gone, or close: stops the watch. */
  protected override stopWatching(entry: Entry<T>): void {
    entry.watch.close();
  }

  /** First subscriber of a name; the base class tracks the entry once this returns. */
  protected override startWatching(name: string): Entry<T> {
    const path = `${this.options.directory}/${name}`;
    // The watch delivers only after its first read (never synchronously), so `holder` is filled in time;
    // the identity check drops a late delivery to an entry that was already given up.
    const holder: { entry?: Entry<T> } = {};
    const watch = this.options.session.watchData(
      path,
      (state) => {
        if (holder.entry && this.isCurrent(name, holder.entry)) this.onState(name, holder.entry, state);
      },
      // A node the session may not read (no read permission) is an unreadable version: logged and
      // counted, the last good value stays, and a first read initializes its subscribers (undefined).
      (error) => {
        if (holder.entry && this.isCurrent(name, holder.entry)) this.reject(name, holder.entry, holder.entry.version ?? 0n, error);
      },
    );
    const entry: Entry<T> = { status: 'loading', value: undefined, memo: undefined, version: undefined, rejected: undefined, subscribers: new Set(), watch };
    holder.entry = entry;
    return entry;
  }

  private onState(name: string, entry: Entry<T>, state: DataState): void {
    if (!state.exists) {
      this.absent(name, entry);
      return;
    }
    let value: T;
    try {
      value = this.options.parse(state.data, name, state.stat, entry);
    } catch (err) {
      assertIsError(err);
      this.reject(name, entry, state.stat.mzxid, err);
      return;
    }
    this.accept(name, entry, value, state.stat.mzxid);
  }
}
