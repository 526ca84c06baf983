import type { Client, Event } from 'node-zookeeper-client';
import { isOlderChildren, isOlderData, isSameChildren, isSameData } from './watch-order';
import type { Logger } from '../logging';
import { CoalescingTask, type CoalescedPass } from './coalescing-task';
import { assertIsError, isZkError } from './errors';
import * as raw from './raw-ops';
import type { ChildrenState, DataState } from './types';
import type { Lifecycle } from '../lifecycle';

/**
 * What a watch needs from its session; keeps this module free of the session class. The session also
 * calls {@link PersistentWatch.resync} on each reconnect and new session of the watches it tracks (a
 * D2 client holds hundreds of watches: one call each, no listener each).
 */
export interface WatchHost {
  /** The current connected client (waits for a connection; rejects when closed or timed out). */
  client(): Promise<Client>;
  /** Called once when a watch closes: the session stops tracking it. */
  forget(watch: ResyncedWatch): void;
  /** Where read failures and listener errors are logged. */
  logger: Logger;
}

/** The part every persistent watch shares. */
export interface Watch {
  /** The watched znode. */
  readonly path: string;
  /** `idle` until started, `running` while armed, `closed` for good. */
  readonly lifecycle: Lifecycle;
  /** Resolves once the listener heard the first state. */
  readonly ready: Promise<void>;
  /** Arms the watch and reads the current state; does nothing unless `idle`. The session's `watchData` / `watchChildren` call it. */
  start(): void;
  /** Stops the watch for good and calls the close listeners. Safe to call twice. */
  close(): void;
  /** Registers a listener called when the watch closes (never, if it is closed already). */
  onClose(listener: () => void): void;
}

/** A watch its session tells of reconnects and new sessions. */
export interface ResyncedWatch extends Watch {
  /** Reads again (and re-arms) after the session reconnected or was replaced. */
  resync(): void;
  /**
   * Resolves once a read that began after the latest {@link resync} is over (delivered, unchanged, or
   * failed), or the watch closed: the session's gate after a new session (see `ZkSession.whenResynced`).
   */
  whenResynced(): Promise<void>;
}

/** `ready` of a watch that has delivered (or closed): one settled promise for all of them. */
const SETTLED: Promise<void> = Promise.resolve();

/**
 * A watch that stays armed: node-zookeeper-client's watches fire once, so every event (and every
 * reconnect or new session) triggers a re-read that also re-arms. Re-reads of one watch are serial and
 * coalesced; a read result older than the last delivered state is dropped, and an unchanged one is
 * not delivered (Curator's PersistentWatcher + NodeCache, by hand).
 *
 * Memory: a client holds one of these per followed znode, so a watch keeps few objects of its own —
 * its `ready` promise only while someone waits for it, close listeners only when registered.
 *
 * Concurrency: re-reads run through one CoalescingTask (this watch is its pass); `last` changes only
 * in `deliver`.
 */
abstract class PersistentWatch<S extends DataState | ChildrenState> implements ResyncedWatch, CoalescedPass {
  /** `idle` until started, `running` while armed, `closed` for good. */
  lifecycle: Lifecycle = 'idle';
  /** The last state delivered to the listener. */
  last: S | undefined;
  /** Set once the listener heard the first state, or the watch closed: `ready` is settled. */
  private settled = false;
  /** `ready` while someone waits for it and it is not settled. */
  private waiting: { readonly promise: Promise<void>; readonly resolve: () => void } | undefined;
  private readonly refresher = new CoalescingTask(this);
  private closeListeners: (() => void)[] | undefined;
  /** {@link resync} calls so far (see {@link whenResynced}). */
  private resyncsAsked = 0;
  /** The most {@link resync} calls a finished read began after. */
  private resyncsDone = 0;
  /** Who waits for a read that began after resync number `asked`; only between a new session and its re-reads. */
  private resyncWaiters: { readonly asked: number; readonly resolve: () => void }[] | undefined;
  /** Bound once: registering the same function again does not pile up listeners (client issue #72). */
  protected readonly onEvent = (_event: Event): void => {
    void this.refresh();
  };

  constructor(
    /** The session side: client, logger, forget. @internal */
    protected readonly host: WatchHost,
    /** The watched znode. */
    readonly path: string,
    private readonly listener: (state: S) => void,
    /** Hears a read that failed for a reason a retry will not fix (see `ZkWatcher.watchData`). */
    private readonly onUnreadable?: (error: Error) => void,
  ) {}

  /** Resolves once the listener heard the first state (or the watch closed). */
  get ready(): Promise<void> {
    if (this.settled) return SETTLED;
    if (this.waiting === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.waiting = { promise, resolve };
    }
    return this.waiting.promise;
  }

  /** Arms the watch and reads the current state; does nothing unless `idle`. */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    void this.refresh();
  }

  /**
   * Reads again after the session reconnected (`connected`: the client re-sent its watches, but events
   * may have been missed while away) or was replaced (`reset`: the server forgot every watch). The
   * session calls it; a watch not running ignores it.
   */
  resync(): void {
    this.resyncsAsked++;
    void this.refresh();
  }

  /** Resolves once a read that began after the latest {@link resync} is over, or the watch closed. */
  whenResynced(): Promise<void> {
    const asked = this.resyncsAsked;
    if (this.lifecycle !== 'running' || this.resyncsDone >= asked) return SETTLED;
    return new Promise((resolve) => (this.resyncWaiters ??= []).push({ asked, resolve }));
  }

  /** Stops the watch for good, resolves `ready` if still pending, and calls the close listeners. Safe to call twice. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.host.forget(this);
    this.settle();
    this.releaseResyncWaiters(Number.MAX_SAFE_INTEGER);
    const listeners = this.closeListeners;
    this.closeListeners = undefined;
    if (listeners) for (const listener of listeners) listener();
  }

  /** Registers a listener called when the watch closes (never, if it is closed already). */
  onClose(listener: () => void): void {
    if (this.lifecycle === 'closed') return;
    (this.closeListeners ??= []).push(listener);
  }

  /** CoalescedPass: one re-read, delivered unless the watch closed meanwhile. @internal */
  async pass(): Promise<void> {
    const asked = this.resyncsAsked;
    const state = await this.readOnce();
    if (state && this.lifecycle === 'running') this.deliver(state);
    this.resyncsDone = asked;
    this.releaseResyncWaiters(asked);
  }

  /** CoalescedPass: re-reads only while running. @internal */
  passWanted(): boolean {
    return this.lifecycle === 'running';
  }

  /** Reads the current state and arms the next watch. */
  protected abstract read(client: Client): Promise<S>;

  /** True when `next` is older than `prev` (must be dropped). */
  protected abstract isOlder(next: S, prev: S): boolean;

  /** True when `next` shows the same state as `prev` (need not be delivered). */
  protected abstract isSame(next: S, prev: S): boolean;

  private refresh(): Promise<void> {
    return this.refresher.run();
  }

  private async readOnce(): Promise<S | undefined> {
    try {
      return await this.read(await this.host.client());
    } catch (err) {
      assertIsError(err);
      // A transient failure is retried by the next `connected` / `reset` event.
      if (!isZkError(err, 'connectionLoss', 'sessionExpired', 'timeout', 'closed')) {
        this.host.logger.error({ err, path: this.path }, 'watch read failed');
        if (this.onUnreadable && this.lifecycle === 'running') this.tellUnreadable(err);
      }
      return undefined;
    }
  }

  private tellUnreadable(err: Error): void {
    try {
      this.onUnreadable?.(err);
    } catch (listenerErr) {
      this.host.logger.error({ err: listenerErr, path: this.path }, 'watch listener threw');
    }
  }

  private deliver(state: S): void {
    const prev = this.last;
    if (prev && (this.isOlder(state, prev) || this.isSame(state, prev))) return;
    this.last = state;
    try {
      this.listener(state);
    } catch (err) {
      this.host.logger.error({ err, path: this.path }, 'watch listener threw');
    }
    this.settle();
  }

  /** Resolves the waiters for resyncs up to number `done`. */
  private releaseResyncWaiters(done: number): void {
    const waiters = this.resyncWaiters;
    if (waiters === undefined) return;
    this.resyncWaiters = waiters.filter((w) => w.asked > done);
    if (this.resyncWaiters.length === 0) this.resyncWaiters = undefined;
    for (const w of waiters) if (w.asked <= done) w.resolve();
  }

  private settle(): void {
    if (this.settled) return;
    this.settled = true;
    this.waiting?.resolve();
    this.waiting = undefined;
  }
}

/** Persistent watch on a node's data (absent → created → changed → deleted). */
export class DataWatch extends PersistentWatch<DataState> {
  protected read(client: Client): Promise<DataState> {
    // One round trip per event where the node exists (getData arms the data watch), as Curator's
    // NodeCache: a fan-out of one change to many sessions costs each of them one read, not two.
    return readWhileAbsentWatched(client, this.path, this.onEvent, async () => {
      const { data, stat } = await raw.getData(client, this.path, this.onEvent);
      return { exists: true, data, stat };
    });
  }

  protected isOlder(next: DataState, prev: DataState): boolean {
    return isOlderData(next, prev);
  }

  protected isSame(next: DataState, prev: DataState): boolean {
    return isSameData(next, prev);
  }
}

/** Persistent watch on a node's children list. */
export class ChildrenWatch extends PersistentWatch<ChildrenState> {
  protected read(client: Client): Promise<ChildrenState> {
    return readWhileAbsentWatched(client, this.path, this.onEvent, async () => {
      const { children, stat } = await raw.getChildren(client, this.path, this.onEvent);
      return { exists: true, children, stat };
    });
  }

  protected isOlder(next: ChildrenState, prev: ChildrenState): boolean {
    return isOlderChildren(next, prev);
  }

  protected isSame(next: ChildrenState, prev: ChildrenState): boolean {
    return isSameChildren(next, prev);
  }
}

/**
 * `read` (which arms its watch while the node exists); when the node is absent, arms an existence
 * watch instead, and reads again if the node appeared in between.
 */
async function readWhileAbsentWatched<S extends { exists: true }>(client: Client, path: string, onEvent: raw.RawWatcher, read: () => Promise<S>): Promise<S | { exists: false }> {
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!isZkError(err, 'noNode')) throw err;
    }
    const stat = await raw.exists(client, path, onEvent);
    if (!stat) return { exists: false };
  }
}
