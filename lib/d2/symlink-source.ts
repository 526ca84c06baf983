/**
 * A property source that resolves D2 symlinks (`symlinks.ts`) over another one: a plain name goes
 * straight to the inner source; a `$` name watches its link node (and every link after it, as
 * rest.li's `SymlinkAwareZooKeeper` watches every intermediate symlink), follows the inner source's
 * property at the end of the chain, and publishes it under the `$` name. The inner source is any
 * `CountedPropertySource` (ZooKeeper or xDS, properties or URIs), so both discovery modes
 * resolve links the same way; only the link watch differs ({@link LinkWatcher}).
 *
 * What subscribers of a `$` name hear (the PropertySource contract, via `PropertyEntries`):
 * - the target's value, initialize then add; a re-pointed link switches the followed target and
 *   publishes the new target's value once it is read (the old one stays until then, no blip);
 * - does-not-exist (initialize undefined, or remove) when a link node or the target is missing;
 * - a cycle, a chain over `MAX_SYMLINK_HOPS`, or a link out of its directory: an unreadable write
 *   (logged once per new reason, counted, `onMalformed`); the last good value and its target stay.
 *
 * Concurrency: entries change only in subscribe/unsubscribe and in link and target deliveries, all on
 * the event loop; every delivery checks it is still for the current entry (and link, and target).
 */
import type { Logger } from '../logging';
import { D2Error } from './errors';
import { PropertyEntries, type PropertyEntry } from './property-entries';
import type { PropertySnapshot, PropertySource, PropertySubscriber } from './property-source';
import { isSymlinkName, resolveLinks, type LinkState } from './symlinks';

/**
 * Watches one link node by path and reports what it says (never synchronously), until the returned
 * function is called: over ZooKeeper a data watch, over xDS an `indis.D2SymlinkNode` watch.
 */
export type LinkWatcher = (path: string, onState: (state: Exclude<LinkState, { kind: 'loading' }>) => void) => () => void;

/** Options of {@link SymlinkSource}. */
export interface SymlinkSourceOptions<T, S> {
  /** The source of plain names (and of every link's target); closed with this one. */
  readonly inner: PropertySource<T> & { stats(): S };
  /** Watches link nodes. */
  readonly watchLink: LinkWatcher;
  /** The directory of the names, e.g. `/d2/clusters`: a link must point at one of its nodes. */
  readonly directory: string;
  /** What the properties are (`cluster`, `uri`), for logs and errors. */
  readonly kind: string;
  /** Called for every broken chain, after it is logged and counted. */
  readonly onMalformed?: (name: string, error: Error) => void;
  /** Called with each `$` name whose chain ends at a node the inner source could not read (see {@link SymlinkSource.targetMalformed}). */
  readonly onLinkedMalformed?: (name: string, error: Error) => void;
  readonly logger: Logger;
}

interface LinkWatch {
  state: LinkState;
  readonly close: () => void;
}

interface TargetFollow {
  readonly name: string;
  close: () => void;
}

interface LinkEntry<T> extends PropertyEntry<T> {
  /** The links on the chain now, each watched. */
  readonly links: Map<string, LinkWatch>;
  /** The plain name followed in the inner source. */
  target: TargetFollow | undefined;
  /** The reason last reported for a broken chain (reported once until it changes). */
  broken: string | undefined;
}

/** A counted property source over `inner` that also serves `$` names (see the header). */
export class SymlinkSource<T, S extends { malformed: number }> extends PropertyEntries<T, LinkEntry<T>> implements PropertySource<T> {
  constructor(private readonly options: SymlinkSourceOptions<T, S>) {
    super({ kind: options.kind, log: options.logger, onMalformed: options.onMalformed });
  }

  override subscribe(name: string, subscriber: PropertySubscriber<T>): () => void {
    return isSymlinkName(name) ? super.subscribe(name, subscriber) : this.options.inner.subscribe(name, subscriber);
  }

  override get(name: string): T | undefined {
    return isSymlinkName(name) ? super.get(name) : this.options.inner.get(name);
  }

  override snapshot(name: string): PropertySnapshot<T> | undefined {
    return isSymlinkName(name) ? super.snapshot(name) : this.options.inner.snapshot(name);
  }

  override close(): void {
    super.close();
    this.options.inner.close();
  }

  /**
   * The inner source could not read a write of `target` (it logged, counted and reported it, and
   * keeps the last good value): tells `onLinkedMalformed` every `$` name whose chain ends at
   * `target`, whose value that is too. Nothing is counted here: it is one document.
   */
  targetMalformed(target: string, error: Error): void {
    const { onLinkedMalformed } = this.options;
    if (!onLinkedMalformed) return;
    for (const name of this.followed()) {
      if (this.entry(name)?.target?.name === target) onLinkedMalformed(name, error);
    }
  }

  /** The inner source's counters, with broken chains counted as malformed. */
  stats(): S {
    const inner = this.options.inner.stats();
    return { ...inner, malformed: inner.malformed + this.counters.malformed };
  }

  protected override startWatching(name: string): LinkEntry<T> {
    const entry: LinkEntry<T> = { status: 'loading', value: undefined, version: undefined, rejected: undefined, subscribers: new Set(), links: new Map(), target: undefined, broken: undefined };
    // Link watches deliver asynchronously, so the entry is tracked (by the base class) before any.
    this.resolve(name, entry);
    return entry;
  }

  protected override stopWatching(entry: LinkEntry<T>): void {
    for (const link of entry.links.values()) link.close();
    entry.links.clear();
    entry.target?.close();
    entry.target = undefined;
  }

  /** Follows `name`'s chain as the links read now, and acts on where it ends. */
  private resolve(name: string, entry: LinkEntry<T>): void {
    const resolution = resolveLinks(this.options.directory, name, (link) => this.linkOf(name, entry, link));
    for (const [link, watch] of entry.links) {
      if (resolution.links.includes(link)) continue;
      watch.close(); // a link no longer on the chain (re-pointed past it)
      entry.links.delete(link);
    }
    switch (resolution.kind) {
      case 'loading':
        return;
      case 'absent':
        entry.broken = undefined;
        this.follow(name, entry, undefined);
        return this.absent(name, entry);
      case 'broken':
        if (entry.broken === resolution.reason) return;
        entry.broken = resolution.reason;
        return this.reject(name, entry, resolution.version, new D2Error('malformed', `${this.options.kind} ${name}: ${resolution.reason}`));
      case 'resolved':
        if (entry.broken !== undefined) entry.rejected = undefined; // mended: the value in effect is current again
        entry.broken = undefined;
        return this.follow(name, entry, resolution.name);
    }
  }

  /** The state of one link of `name`'s chain, starting its watch the first time. */
  private linkOf(name: string, entry: LinkEntry<T>, link: string): LinkState {
    const known = entry.links.get(link);
    if (known) return known.state;
    const holder: { watch?: LinkWatch } = {};
    const close = this.options.watchLink(`${this.options.directory}/${link}`, (state) => {
      if (!holder.watch || !this.isCurrent(name, entry) || entry.links.get(link) !== holder.watch) return;
      holder.watch.state = state;
      this.resolve(name, entry);
    });
    holder.watch = { state: { kind: 'loading' }, close };
    entry.links.set(link, holder.watch);
    return holder.watch.state;
  }

  /** Follows `target` in the inner source (nothing when undefined), dropping the target followed before. */
  private follow(name: string, entry: LinkEntry<T>, target: string | undefined): void {
    if (entry.target?.name === target) return;
    entry.target?.close();
    entry.target = undefined;
    if (target === undefined) return;
    const follow: TargetFollow = { name: target, close: () => undefined };
    entry.target = follow;
    const heard = (value: T | undefined): void => {
      if (!this.isCurrent(name, entry) || entry.target !== follow) return;
      if (value === undefined) this.absent(name, entry);
      else this.accept(name, entry, value, this.options.inner.snapshot(target)?.version ?? 0n);
    };
    follow.close = this.options.inner.subscribe(target, {
      onInitialize: (_target, value) => heard(value),
      onAdd: (_target, value) => heard(value),
      onRemove: () => heard(undefined),
    });
  }
}
