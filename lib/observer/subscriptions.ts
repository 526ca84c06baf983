/**
 * Who is subscribed to which resource, across every ADS stream of one observer. The first
 * subscriber of a resource starts its ZooKeeper watch; when the last one leaves, the watch lingers
 * `lingerMs` before it stops (a client that reconnects, or moves a name between requests, must not
 * make the observer drop and re-read the node). A change of a cached resource reaches exactly the
 * streams subscribed to it (indexed by resource, never a broadcast).
 *
 * Watching on demand rather than the whole tree: an observer then holds the watches its clients
 * use (a tier serving one region's services does not read every cluster's hosts of the fleet), and
 * a node nobody asks for costs nothing.
 *
 * Concurrency: event loop only; `records` changes in `add`, `remove`, the linger timers and `close`.
 */
import type { Closeable, Lifecycle } from '../lifecycle';
import type { ResourceCache } from './resource-cache';
import { resourceKey, targetOf, type ResourceTarget } from './resource-names';

/** A stream's side of a subscription. */
export interface Subscriber {
  /** The resource `name` of `typeUrl` this subscriber holds changed (or its first read came in). */
  resourceChanged(typeUrl: string, name: string): void;
}

/** Options of {@link Subscriptions}. */
export interface SubscriptionsOptions {
  /** The shared cache (its changes are fanned out here). */
  readonly cache: ResourceCache;
  /** The D2 base path, `/d2` by default in the observer's configuration. */
  readonly basePath: string;
  /** Starts the watch behind a resource (`resource-watches.ts`). */
  readonly watch: (key: string, typeUrl: string, target: Exclude<ResourceTarget, { kind: 'none' }>) => Closeable;
  /** How long a watch outlives its last subscriber, in ms. */
  readonly lingerMs: number;
}

/** One subscribed resource. */
interface ResourceRecord {
  readonly typeUrl: string;
  readonly name: string;
  readonly subscribers: Set<Subscriber>;
  readonly watch: Closeable | undefined;
  linger: NodeJS.Timeout | undefined;
}

/** The subscription table of one observer. */
export class Subscriptions {
  /** `running` from construction, `closed` after {@link close}. */
  lifecycle: Lifecycle = 'running';
  private readonly records = new Map<string, ResourceRecord>();
  private readonly unlisten: () => void;

  constructor(private readonly options: SubscriptionsOptions) {
    this.unlisten = options.cache.onChange((key) => this.onCacheChange(key));
  }

  /** Resources watched now (including lingering ones). */
  get watched(): number {
    return this.records.size;
  }

  /** Subscriptions now: (resource, subscriber) pairs. */
  get subscriptions(): number {
    let n = 0;
    for (const r of this.records.values()) n += r.subscribers.size;
    return n;
  }

  /** Subscribes `subscriber` to `(typeUrl, name)`, starting its watch if nobody held it. */
  add(typeUrl: string, name: string, subscriber: Subscriber): void {
    if (this.lifecycle === 'closed') return;
    const key = resourceKey(typeUrl, name);
    let record = this.records.get(key);
    if (!record) {
      const target = targetOf(typeUrl, name, this.options.basePath);
      const watch = target.kind === 'none' ? undefined : this.options.watch(key, typeUrl, target);
      record = { typeUrl, name, subscribers: new Set(), watch, linger: undefined };
      this.records.set(key, record);
      if (target.kind === 'none') this.options.cache.putAbsent(key);
    }
    if (record.linger) clearTimeout(record.linger);
    record.linger = undefined;
    record.subscribers.add(subscriber);
  }

  /** Unsubscribes; the watch stops `lingerMs` after its last subscriber left. */
  remove(typeUrl: string, name: string, subscriber: Subscriber): void {
    const key = resourceKey(typeUrl, name);
    const record = this.records.get(key);
    if (!record || !record.subscribers.delete(subscriber) || record.subscribers.size > 0) return;
    record.linger = setTimeout(() => this.drop(key, record), this.options.lingerMs);
    record.linger.unref();
  }

  /** Stops every watch. Idempotent. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.unlisten();
    for (const [key, record] of this.records) this.drop(key, record);
  }

  private drop(key: string, record: ResourceRecord): void {
    if (this.records.get(key) !== record) return;
    if (record.linger) clearTimeout(record.linger);
    this.records.delete(key);
    void record.watch?.close();
    this.options.cache.remove(key);
  }

  private onCacheChange(key: string): void {
    const record = this.records.get(key);
    if (!record) return;
    for (const s of record.subscribers) s.resourceChanged(record.typeUrl, record.name);
  }
}
