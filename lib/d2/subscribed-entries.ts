import type { Logger } from '../logging';
import type { Lifecycle } from '../lifecycle';
import { D2Error } from './errors';
import { assertNodeName } from './paths';
import type { PropertySnapshot, PropertyStatus, PropertySubscriber } from './property-source';
import { callSafely, publishSafely } from './subscribers';

/** The part of a store's per-name entry that {@link SubscribedEntries} reads: state for snapshots, and who listens. */
export interface SubscribedEntry<T> {
  /** Where the entry stands; `loading` means subscribers have heard nothing yet. */
  status: PropertyStatus;
  /** Version of the current value (mzxid for a property, the newest included one for a merged view). */
  version: bigint | undefined;
  /** The most recent unreadable write, while it is newer than the value. */
  rejected: { version: bigint; error: Error } | undefined;
  /** Who follows the entry; a Set keeps one registration per subscriber object. */
  readonly subscribers: Set<PropertySubscriber<T>>;
}

/** What {@link SubscribedEntries} needs of the store that extends it. */
export interface SubscribedEntriesOptions {
  /** Message of the `closed` D2Error a subscribe after {@link SubscribedEntries.close} throws. */
  readonly closedMessage: string;
  /** What a name names, for `assertNodeName` (`cluster name`). */
  readonly nameLabel: string;
  /** The store's logger: subscriber throws are logged there. */
  readonly log: Logger;
}

/**
 * The subscriber bookkeeping the four property sources share (ZooKeeper and xDS, properties and URIs),
 * so that the PropertyEventBus contract of `PropertySource` is kept in one place:
 * - the first subscriber of a name starts its watch; a later one is initialized at once
 *   (synchronously) with the cached state, unless the first read is still pending;
 * - the unsubscribe function is idempotent; the last subscriber's leaving stops the watch and forgets
 *   the entry, so a later subscriber reads fresh rather than being handed something stale
 *   (rest.li's PropertyEventBus stops publishing then too);
 * - publishes go to every subscriber through `publishSafely`, one throwing not stopping the others;
 * - after `close`, every watch is stopped and `subscribe` throws a `closed` D2Error.
 *
 * A store extends it and keeps its own part: how it watches ({@link startWatching},
 * {@link stopWatching}), parses and merges, and when it publishes.
 *
 * Concurrency: entries change only in subscribe/unsubscribe, close and the store's watch callbacks,
 * all on the event loop; subscriber calls are synchronous.
 */
export abstract class SubscribedEntries<T, E extends SubscribedEntry<T>> {
  private readonly entries = new Map<string, E>();
  /** Running from construction until {@link close}. */
  private lifecycle: Lifecycle = 'running';
  /** The store's counters, which it bumps: unreadable writes, and good values or views published. */
  protected readonly counters = { malformed: 0, published: 0 };
  /** The store's logger. */
  protected readonly log: Logger;

  constructor(private readonly labels: SubscribedEntriesOptions) {
    this.log = labels.log;
  }

  /**
   * Follows `name`: starts watching on the first subscriber and replays the cached state to later
   * ones at once (synchronously, when the first read is done). Returns the unsubscribe function
   * (idempotent); the watch stops and the cache is dropped when the last subscriber leaves.
   */
  subscribe(name: string, subscriber: PropertySubscriber<T>): () => void {
    if (this.lifecycle === 'closed') throw new D2Error('closed', this.labels.closedMessage);
    assertNodeName(name, this.labels.nameLabel);
    let entry = this.entries.get(name);
    if (!entry) {
      entry = this.startWatching(name);
      this.entries.set(name, entry);
    } else if (entry.status !== 'loading') {
      const value = this.valueOf(entry);
      callSafely(this.log, name, () => subscriber.onInitialize(name, value));
    }
    // A Set keeps one registration per subscriber object; a second subscribe of the same one is a no-op.
    const target = entry;
    target.subscribers.add(subscriber);
    let active = true;
    return () => {
      if (!active) return;
      active = false;
      target.subscribers.delete(subscriber);
      if (target.subscribers.size > 0 || this.entries.get(name) !== target) return;
      this.stopWatching(target);
      this.entries.delete(name);
    };
  }

  /** The cached good value, or undefined when absent, unreadable, loading or not followed. */
  get(name: string): T | undefined {
    const entry = this.entries.get(name);
    return entry && this.valueOf(entry);
  }

  /** The state of a followed property, or undefined when nobody follows it. */
  snapshot(name: string): PropertySnapshot<T> | undefined {
    const entry = this.entries.get(name);
    if (!entry) return undefined;
    return { status: entry.status, value: this.valueOf(entry), version: entry.version, rejected: entry.rejected };
  }

  /** Stops every watch and forgets every entry; later `subscribe` calls fail with a `closed` D2Error. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const [name, entry] of [...this.entries]) {
      this.stopWatching(entry);
      this.entries.delete(name);
    }
  }

  /**
   * Starts following `name` (first subscriber): builds its entry in `loading` and starts its watch.
   * The entry is tracked once this returns; deliveries (always asynchronous) must check
   * {@link isCurrent} to drop those meant for an entry given up since.
   */
  protected abstract startWatching(name: string): E;

  /** Stops an entry's watches and timers (last subscriber gone, or close); the entry is then forgotten. */
  protected abstract stopWatching(entry: E): void;

  /** The entry's good value: what a late subscriber is initialized with and `get` returns. */
  protected abstract valueOf(entry: E): T | undefined;

  /** True while `entry` is the one followed under `name` (a watch delivery to any other is dropped). */
  protected isCurrent(name: string, entry: E): boolean {
    return this.entries.get(name) === entry;
  }

  /** The entry followed under `name`, if any. */
  protected entry(name: string): E | undefined {
    return this.entries.get(name);
  }

  /** Names followed now. */
  protected followed(): string[] {
    return [...this.entries.keys()];
  }

  /** Entries followed now. */
  protected followedEntries(): IterableIterator<E> {
    return this.entries.values();
  }

  /** How many names are followed now. */
  protected get size(): number {
    return this.entries.size;
  }

  /** Calls `call` for every subscriber of `entry`, logging instead of throwing. */
  protected publish(name: string, entry: E, call: (subscriber: PropertySubscriber<T>) => void): void {
    publishSafely(this.log, name, entry.subscribers, call);
  }
}
