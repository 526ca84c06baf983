/**
 * Resource state: the documented state machines of lib/xds and the per-resource record an authority
 * keeps (grpc-go `ServiceStatus` and `ResourceWatchState`; grpc-node `ClientResourceStatus`).
 *
 * Concurrency: Node runs every handler on the event loop, so there is no lock. A record changes only
 * inside Authority methods; watcher callbacks are queued per watcher (see {@link WatcherEntry}).
 */
import type { ResourceKind, XdsResourceType } from './resource-types';
import type { XdsError } from './errors';
import type { AnyMessage } from './protos';
import type { XdsWatcher } from './watcher';

/**
 * What the client knows about one resource, as CSDS reports it (`ClientResourceStatus`).
 * - `requested`: subscribed, nothing usable received yet (the only "uncached" status, see below).
 * - `acked`: a valid value is cached.
 * - `nacked`: the last update was rejected; a previously accepted value may still be cached.
 * - `doesNotExist`: the does-not-exist timer fired or an LDS/CDS SotW response omitted it.
 */
export const ResourceStatus = {
  /** Subscribed, nothing usable received yet. */
  requested: 'requested',
  /** A valid value is cached. */
  acked: 'acked',
  /** The last update was rejected; a previously accepted value may still be cached. */
  nacked: 'nacked',
  /** The does-not-exist timer fired or an LDS/CDS SotW response omitted it. */
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
  /** Subscribed, not yet written on the current stream (or moved back when the stream closed). */
  started: 'started',
  /** Written on the stream, no response carried it yet; the does-not-exist timer runs while the resource is uncached. */
  requested: 'requested',
  /** A response carried it (valid or not). */
  received: 'received',
  /** The does-not-exist timer fired. */
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

type WatcherCall = (watcher: XdsWatcher, done: () => void) => void;

/**
 * Entries with a call to run, drained by ONE setImmediate: a response that updates thousands of
 * resources then costs one Immediate instead of one per watcher (bench/xds-throughput measures peak
 * RSS). Entries scheduled while draining run in the next drain, as separate setImmediates would.
 */
let runnable: QueuedWatcherEntry[] = [];

function schedule(entry: QueuedWatcherEntry): void {
  if (runnable.length === 0) setImmediate(drain);
  runnable.push(entry);
}

function drain(): void {
  const entries = runnable;
  runnable = [];
  for (const entry of entries) entry.next();
}

/**
 * A class rather than closures: a client may hold tens of thousands of watchers, and per-instance
 * closures tripled what each one costs.
 */
class QueuedWatcherEntry implements WatcherEntry {
  /** Allocated on the first callback; most watchers get one update and stay idle. */
  private queue: WatcherCall[] | undefined;
  private state: 'idle' | 'running' | 'cancelled' = 'idle';

  constructor(readonly watcher: XdsWatcher) {}

  enqueue(call: WatcherCall): void {
    if (this.state === 'cancelled') return;
    // `[call]`, not `[]` then push: a first push reserves 17 slots, a big share of an idle watcher.
    if (this.queue) this.queue.push(call);
    else this.queue = [call];
    if (this.state === 'idle') {
      this.state = 'running';
      schedule(this);
    }
  }

  cancel(): void {
    this.state = 'cancelled';
    this.queue = undefined;
  }

  /** Runs the next queued call, or goes idle. */
  next(): void {
    const call = this.queue?.shift();
    if (this.queue?.length === 0) this.queue = undefined;
    if (this.state === 'cancelled' || call === undefined) {
      if (this.state === 'running') this.state = 'idle';
      return;
    }
    this.state = 'running';
    let finished = false;
    const done = (): void => {
      if (finished) return;
      finished = true;
      schedule(this);
    };
    try {
      call(this.watcher, done);
    } catch {
      // A throwing watcher must not stall its queue or the client; its error is its own.
      done();
    }
  }
}

/** Creates the {@link WatcherEntry} of a watcher. */
export function createWatcherEntry(watcher: XdsWatcher): WatcherEntry {
  return new QueuedWatcherEntry(watcher);
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
  /**
   * The Any `value` was decoded from, as the server sent it (unwrapped): CSDS `xds_config` (gRFC A40
   * "Expose xDS Config As Is"). Set and cleared with `value`.
   */
  raw: AnyMessage | undefined;
  /** When (ms since the epoch) the server last changed what is known: a value accepted, or does-not-exist. CSDS `last_updated`. */
  updatedAt: number | undefined;
  /** The update behind `nackError`: its `version_info` and when it came (CSDS `error_state`, gRFC A40). Set and cleared with `nackError`. */
  rejected: { readonly version: string; readonly at: number } | undefined;
  /** An array, not a Set: nearly every resource has one watcher, and a Set costs ten times as much. */
  readonly watchers: WatcherEntry[];
}

/** A new record in status `requested`, watched by `first`. */
export function newResourceRecord(typeUrl: string, name: string, first: WatcherEntry): ResourceRecord {
  return {
    typeUrl,
    name,
    status: ResourceStatus.requested,
    value: undefined,
    version: '',
    source: undefined,
    nackError: undefined,
    raw: undefined,
    updatedAt: undefined,
    rejected: undefined,
    watchers: [first], // not `[]` then push, which reserves 17 slots
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
