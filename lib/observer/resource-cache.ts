/**
 * The observer's resource cache: one encoded resource per (type URL, name), built ONCE per change
 * from what ZooKeeper holds and shared by every stream subscribed to it (the streams only put the
 * already packed `Resource` wrappers into their responses).
 *
 * Entry states (house rule 3):
 * - `pending`: subscribed, first read not in yet. A stream holds back its response for that type
 *   until no name of it is pending: the `indis` types are "all resources required in SotW", so a
 *   name left out of a response would tell the client it was deleted.
 * - `absent`: the znode does not exist (or never held anything servable): left out of responses.
 * - `present`: the packed resource and its version (the mzxid, or `d2UriMapVersion`).
 *
 * Malformed data (not JSON, not a valid D2 document, a value our client would NACK): the last good
 * entry stays served, the node is reported through `hooks.malformed` (counted and logged by the
 * observer). With no good version yet the resource reads as absent.
 *
 * Concurrency: everything runs on the event loop; `entries` changes only in `settle`.
 */
import { parseClusterProperties, parseServiceProperties } from '../d2/data';
import { indis, type AnyMessage } from '../xds';
import { wrapResource } from '../xds/envoy-protos';
import type { DataState, Stat } from '../zk';
import { assertIsError, ObserverError, unreadableError } from './errors';
import type { NodeTarget } from './resource-names';

/** One cached resource (see the header for the states). */
export type CacheEntry =
  | { readonly status: 'pending' }
  | {
      readonly status: 'absent';
      /** When (ms since the epoch) the observer learnt the node is absent (CSDS `last_updated`). */
      readonly updatedAt: number;
    }
  | {
      readonly status: 'present';
      /** When (ms since the epoch) this version was encoded (CSDS `last_updated`). */
      readonly updatedAt: number;
      /** The resource's version (decimal zxid). */
      readonly version: string;
      /** The resource packed and wrapped in `envoy.service.discovery.v3.Resource` named by its path. */
      readonly resource: AnyMessage;
    };

/** An entry whose first read came in. */
export type SettledEntry = Exclude<CacheEntry, { readonly status: 'pending' }>;

/** What the cache reports; the observer counts and logs it. */
export interface CacheHooks {
  /** A resource of `typeUrl` was encoded (once per change, whatever the number of subscribers). */
  encoded(typeUrl: string): void;
  /** A node's data will not be served; the last good version (if any) stays. */
  malformed(error: ObserverError): void;
  /** The node at `path` is servable again, or gone: a later bad write of it is news (the observer logs a broken node once). */
  servable?(path: string): void;
}

const PENDING: CacheEntry = { status: 'pending' };
const absent = (): SettledEntry => ({ status: 'absent', updatedAt: Date.now() });

/** Throws when a D2 document would not be read by lib/d2 (so no client reads a node it rejects). */
function validateDocument(target: NodeTarget, data: Buffer): void {
  if (target.kind === 'symlink') return;
  const json: unknown = JSON.parse(data.toString('utf8'));
  if (target.kind === 'service') parseServiceProperties(json);
  else parseClusterProperties(json);
}

/** The packed node, or throws (not JSON, not an object, not a valid document, a number JSON cannot hold). */
function encodeNode(target: NodeTarget, data: Buffer, stat: Stat): AnyMessage {
  if (target.kind === 'symlink') return indis.buildD2SymlinkNode(target.path, data, stat);
  validateDocument(target, data);
  return indis.buildD2Node(target.path, data, stat);
}

/** Resources by key ({@link resourceKey}), with one change listener per cache. */
export class ResourceCache {
  private readonly entries = new Map<string, SettledEntry>();
  private readonly listeners = new Set<(key: string) => void>();

  /** @param hooks What the cache reports (fixed after construction). */
  constructor(private readonly hooks: CacheHooks) {}

  /** The entry of `key`; `pending` when nothing was read for it yet. */
  get(key: string): CacheEntry {
    return this.entries.get(key) ?? PENDING;
  }

  /** Every entry read so far (pending ones excluded), by key: what CSDS shows the observer serves. */
  settled(): IterableIterator<[string, SettledEntry]> {
    return this.entries.entries();
  }

  /** Keys with an entry (pending ones excluded). */
  get size(): number {
    return this.entries.size;
  }

  /** Registers a listener called with the key of every entry that changed; returns its removal. */
  onChange(listener: (key: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Marks a resource the observer does not serve (no watch behind it) as absent. */
  putAbsent(key: string): void {
    this.settle(key, absent());
  }

  /** A node's new state: encodes it once, or keeps the last good entry when it is malformed. */
  putNode(key: string, typeUrl: string, target: NodeTarget, state: DataState): void {
    if (!state.exists) {
      this.hooks.servable?.(target.path);
      return this.settle(key, absent());
    }
    const current = this.entries.get(key);
    const version = indis.d2NodeVersion(state.stat);
    if (current?.status === 'present' && current.version === version) return;
    let resource: AnyMessage;
    try {
      resource = wrapResource(encodeNode(target, state.data, state.stat), target.path);
    } catch (err) {
      assertIsError(err);
      this.hooks.malformed(new ObserverError('malformed', `${target.path}: not served, ${err.message}`, { path: target.path, cause: err }));
      // Never a half-good state: the last good one stays, and with none the node reads as absent.
      if (current === undefined) this.settle(key, absent());
      return;
    }
    this.hooks.encoded(typeUrl);
    this.hooks.servable?.(target.path);
    this.settle(key, { status: 'present', updatedAt: Date.now(), version, resource });
  }

  /**
   * The observer may not read the node at `path` (no permission): reported like malformed data, and,
   * as for it, the last good entry stays; with none the resource reads as absent, so a stream's
   * response for its type is not held back for a read that will not come.
   */
  putUnreadable(key: string, path: string, error: Error): void {
    this.hooks.malformed(unreadableError(path, error));
    if (!this.entries.has(key)) this.settle(key, absent());
  }

  /**
   * A URI map's new state: the directory's stat (undefined: absent) and its children that hold
   * servable data (the watch keeps each child's last good data).
   */
  putUriMap(key: string, path: string, parent: Stat | undefined, children: readonly indis.D2UriChild[]): void {
    if (!parent) return this.settle(key, absent());
    const current = this.entries.get(key);
    const version = indis.d2UriMapVersion(parent, children);
    if (current?.status === 'present' && current.version === version) return;
    const resource = wrapResource(
      indis.buildD2UriMap(path, children, {
        onInvalid: (child, error) => this.hooks.malformed(new ObserverError('malformed', `${path}/${child}: not served, ${error.message}`, { path: `${path}/${child}`, cause: error })),
      }),
      path,
    );
    this.hooks.encoded(indis.D2_URI_MAP_TYPE_URL);
    this.settle(key, { status: 'present', updatedAt: Date.now(), version, resource });
  }

  /** Forgets `key` (its watch stopped): it reads as pending again. */
  remove(key: string): void {
    this.entries.delete(key);
  }

  private settle(key: string, entry: SettledEntry): void {
    const current = this.entries.get(key);
    if (current === entry || (current?.status === 'absent' && entry.status === 'absent')) return;
    this.entries.set(key, entry);
    for (const listener of this.listeners) listener(key);
  }
}
