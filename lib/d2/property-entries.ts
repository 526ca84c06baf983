import type { Logger } from '../logging';
import { SubscribedEntries, type SubscribedEntry } from './subscribed-entries';
import { callSafely } from './subscribers';

/** What {@link PropertyEntries} reads and writes of one property's entry. */
export interface PropertyEntry<T> extends SubscribedEntry<T> {
  /** The last good value; kept while later writes are unreadable. */
  value: T | undefined;
}

/** What {@link PropertyEntries} needs of the store that extends it. */
export interface PropertyEntriesOptions {
  /** What the properties are (`cluster`, `service`), for logs and errors. */
  readonly kind: string;
  /** The store's logger. */
  readonly log: Logger;
  /** Called for every unreadable write, after it is logged and counted. */
  readonly onMalformed?: (name: string, error: Error) => void;
}

/**
 * What a single-node property means whatever feeds it (a ZooKeeper data watch or an xDS `D2Node`
 * watch): a good value is published (initialize the first time, add after), an absent node
 * initializes with undefined or is removed, and an unreadable write is logged, counted and otherwise
 * ignored, so the last good value stays in effect (rest.li publishes null and its subscribers drop it;
 * we never hand subscribers a null). Kept in one place so that the two property stores cannot drift.
 */
export abstract class PropertyEntries<T, E extends PropertyEntry<T>> extends SubscribedEntries<T, E> {
  constructor(private readonly property: PropertyEntriesOptions) {
    super({ closedMessage: `${property.kind} store is closed`, nameLabel: `${property.kind} name`, log: property.log });
  }

  protected override valueOf(entry: E): T | undefined {
    return entry.value;
  }

  /** A good value at `version` (mzxid): cached and published. */
  protected accept(name: string, entry: E, value: T, version: bigint): void {
    const first = entry.status === 'loading';
    entry.status = 'present';
    entry.value = value;
    entry.version = version;
    entry.rejected = undefined;
    this.counters.published++;
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, value));
    else this.publish(name, entry, (s) => s.onAdd(name, value));
  }

  /** The node does not exist: initialize with undefined the first time, remove when it had been there. */
  protected absent(name: string, entry: E): void {
    const first = entry.status === 'loading';
    const had = entry.status === 'present' || entry.status === 'unreadable';
    entry.status = 'absent';
    entry.value = undefined;
    entry.version = undefined;
    entry.rejected = undefined;
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, undefined));
    else if (had) this.publish(name, entry, (s) => s.onRemove(name));
  }

  /**
   * An unreadable write at `version`: logged, counted and handed to `onMalformed`; the last good value
   * stays. The first read being unreadable still initializes subscribers (with undefined).
   */
  protected reject(name: string, entry: E, version: bigint, error: Error): void {
    const first = entry.status === 'loading';
    const { kind, onMalformed } = this.property;
    this.counters.malformed++;
    entry.rejected = { version, error };
    if (entry.status !== 'present') entry.status = 'unreadable';
    this.log.warn(
      { err: error, kind, name, version: version.toString(), keeping: entry.version?.toString() ?? null },
      `unreadable ${kind} properties; keeping the last good value`,
    );
    if (onMalformed) callSafely(this.log, name, () => onMalformed(name, error));
    if (first) this.publish(name, entry, (s) => s.onInitialize(name, undefined));
  }
}
