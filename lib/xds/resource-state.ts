/**
 * Resource state: the documented state machines of lib/xds and the per-resource record an authority
 * keeps (grpc-go `ServiceStatus` and `ResourceWatchState`; grpc-node `ClientResourceStatus`).
 *
 * Concurrency: Node runs every handler on the event loop, so there is no lock. A record changes only
 * inside Authority methods; watcher callbacks are queued per watcher (see {@link WatcherEntry}).
 */
import type { ResourceKind, XdsResourceType } from './resource-types';
import type { XdsError } from './errors';
import type { XdsWatcher } from './watcher';

/**
 * What the client knows about one resource, as CSDS reports it (`ClientResourceStatus`).
 * - `requested`: subscribed, nothing usable received yet (the only "uncached" status, see below).
 * - `acked`: a valid value is cached.
 * - `nacked`: the last update was rejected; a previously accepted value may still be cached.
 * - `doesNotExist`: the does-not-exist timer fired or an LDS/CDS SotW response omitted it.
 */
export const ResourceStatus = {
  requested: 'requested',
  acked: 'acked',
  nacked: 'nacked',
  doesNotExist: 'doesNotExist',
} as const;
/** One of {@link ResourceStatus}. */
export type ResourceStatus = (typeof ResourceStatus)[keyof typeof ResourceStatus];

/**
 * Per-stream watch state of one subscribed name (grpc-go `ResourceWatchState`).
 * started → requested (name written on the stream) → received | timeout. A stream failure moves
 * `requested` back to `started`, so the does-not-exist timer restarts only after the resend.
 */
export const WatchState = {
  started: 'started',
  requested: 'requested',
  received: 'received',
  timeout: 'timeout',
} as const;
/** One of {@link WatchState}. */
export type WatchState = (typeof WatchState)[keyof typeof WatchState];

/**
 * Any of the resource types of `resource-types/` (their `XdsResourceType` with the kind and value
 * erased), as the stream and the authority handle them.
 */
export type AnyResourceType = XdsResourceType<ResourceKind, unknown>;

/**
 * One watcher plus its delivery queue: callbacks are asynchronous (setImmediate), serial, and the
 * next one waits for `done()` of the previous (STYLE rule 5).
 */
export interface WatcherEntry {
  readonly watcher: XdsWatcher;
  /** Queues one callback invocation; it receives `done`. */
  enqueue(call: (watcher: XdsWatcher, done: () => void) => void): void;
  /** Drops queued callbacks; none starts afterwards. */
  cancel(): void;
}

/** Creates the {@link WatcherEntry} of a watcher. */
export function createWatcherEntry(watcher: XdsWatcher): WatcherEntry {
  const queue: Array<(watcher: XdsWatcher, done: () => void) => void> = [];
  let state: 'idle' | 'running' | 'cancelled' = 'idle';
  const runNext = (): void => {
    const call = queue.shift();
    if (state === 'cancelled' || call === undefined) {
      if (state === 'running') state = 'idle';
      return;
    }
    state = 'running';
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      setImmediate(runNext);
    };
    try {
      call(watcher, done);
    } catch {
      // A throwing watcher must not stall its queue or the client; its error is its own.
      done();
    }
  };
  return {
    watcher,
    enqueue(call) {
      if (state === 'cancelled') return;
      queue.push(call);
      if (state === 'idle') {
        state = 'running';
        setImmediate(runNext);
      }
    },
    cancel() {
      state = 'cancelled';
      queue.length = 0;
    },
  };
}

/**
 * The authority's record of one resource. `value` is the cache; `source` is the index of the server
 * (in the authority's list) that delivered it.
 */
export interface ResourceRecord {
  readonly typeUrl: string;
  readonly name: string;
  status: ResourceStatus;
  /** The cached value, when one was accepted (kept across a later NACK). */
  value: { readonly data: unknown } | undefined;
  /** Version of the response that delivered `value`. */
  version: string;
  /** Index of the server that delivered `value` (or decided does-not-exist). */
  source: number | undefined;
  /** The last NACK error for this resource, cleared by the next accepted value. */
  nackError: XdsError | undefined;
  readonly watchers: Set<WatcherEntry>;
}

/** A new record in status `requested`. */
export function newResourceRecord(typeUrl: string, name: string): ResourceRecord {
  return {
    typeUrl,
    name,
    status: ResourceStatus.requested,
    value: undefined,
    version: '',
    source: undefined,
    nackError: undefined,
    watchers: new Set(),
  };
}

/**
 * Cached in the sense of gRFC A71 condition (b): usable data, or known not to exist.
 * Decision: a NACKed resource WITHOUT data is uncached (grpc-java `hasResult()`); grpc-go and
 * C-core treat NACKED as cached. A watcher with nothing usable is exactly what fallback is for.
 */
export function isCached(record: ResourceRecord): boolean {
  return record.value !== undefined || record.status === ResourceStatus.doesNotExist;
}
