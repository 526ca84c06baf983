/**
 * What a D2 property store offers its subscribers, whatever feeds it (ZooKeeper or xDS): the
 * subscriber's calls, a property's status and snapshot, the source interface and the counters.
 * Types only, below every store and their shared bookkeeping.
 */

/**
 * Hears one property's life, in rest.li's PropertyEventBus order: `onInitialize` exactly once and
 * first (with undefined when the node is absent or has never held a readable value), then any number
 * of `onAdd` (every new good value) and `onRemove` (the node was deleted). Calls are synchronous and
 * serial per store; a subscriber that throws is logged and does not stop the others.
 */
export interface PropertySubscriber<T> {
  /** First call, exactly once: the current value, or undefined when the node is absent or never readable. */
  onInitialize(name: string, value: T | undefined): void;
  /** A new good value was written (an unreadable write is not published). */
  onAdd(name: string, value: T): void;
  /** The node was deleted. */
  onRemove(name: string): void;
}

/**
 * Where a property stands:
 * - `loading`: watched, first read not done yet (subscribers have heard nothing);
 * - `absent`: the node does not exist;
 * - `present`: a good value is cached (possibly older than a newer, unreadable write — see `rejected`);
 * - `unreadable`: the node exists but no value read so far could be parsed.
 */
export type PropertyStatus = 'loading' | 'absent' | 'present' | 'unreadable';

/** What a store knows about one property (for diagnostics and tests). */
export interface PropertySnapshot<T> {
  /** Where the property stands; see {@link PropertyStatus}. */
  readonly status: PropertyStatus;
  /** The last good value; kept while later writes are unreadable. */
  readonly value: T | undefined;
  /** mzxid of the node version `value` came from (rest.li uses it as the property version). */
  readonly version: bigint | undefined;
  /** The most recent unreadable write, if it is newer than `value`. */
  readonly rejected:
    | {
        /** mzxid of the unreadable node version. */
        readonly version: bigint;
        /** Why it could not be parsed. */
        readonly error: Error;
      }
    | undefined;
}

/** A source of named properties that subscribers can follow: {@link ZooKeeperPropertyStore} and the URI store. */
export interface PropertySource<T> {
  /**
   * Follows `name`: starts watching on the first subscriber and replays the cached state to later
   * ones at once (synchronously, when the first read is done). Returns the unsubscribe function; the
   * watch stops and the cache is dropped when the last subscriber leaves.
   */
  subscribe(name: string, subscriber: PropertySubscriber<T>): () => void;
  /** The cached good value, or undefined when absent, unreadable, loading or not followed. */
  get(name: string): T | undefined;
  /** The state of a followed property, or undefined when nobody follows it. */
  snapshot(name: string): PropertySnapshot<T> | undefined;
  /** Stops every watch; later `subscribe` calls fail with a `closed` D2Error. */
  close(): void;
}

/** Counters a store keeps (house metrics read them; prom-client stays outside lib/d2). */
export interface PropertyStoreStats {
  /** Properties being watched now. */
  watched: number;
  /** Writes that could not be parsed, since the store started. */
  malformed: number;
  /** Good values published (initialize with a value, and add). */
  published: number;
}
