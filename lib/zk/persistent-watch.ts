import type { Client, Event } from 'node-zookeeper-client';
import { isOlderChildren, isOlderData, isSameChildren, isSameData } from './watch-order';
import type { Logger } from '../logging';
import { CoalescingTask } from './coalescing-task';
import { assertIsError, isZkError } from './errors';
import * as raw from './raw-ops';
import type { ChildrenState, DataState } from './types';
import type { Lifecycle } from '../lifecycle';

/** What a watch needs from its session; keeps this module free of the session class. */
export interface WatchHost {
  /** The current connected client (waits for a connection; rejects when closed or timed out). */
  client(): Promise<Client>;
  /** Subscribes to session events (`connected`, `reset`, …); returns the unsubscribe function. */
  onSessionEvent(listener: (event: string) => void): () => void;
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

/**
 * A watch that stays armed: node-zookeeper-client's watches fire once, so every event (and every
 * reconnect or new session) triggers a re-read that also re-arms. Re-reads of one watch are serial and
 * coalesced; a read result older than the last delivered state is dropped, and an unchanged one is
 * not delivered (Curator's PersistentWatcher + NodeCache, by hand).
 *
 * Concurrency: re-reads run through one CoalescingTask; `last` changes only in `deliver`.
 */
abstract class PersistentWatch<S extends DataState | ChildrenState> implements Watch {
  /** `idle` until started, `running` while armed, `closed` for good. */
  lifecycle: Lifecycle = 'idle';
  /** Resolves once the listener heard the first state (or the watch closed). */
  readonly ready: Promise<void>;
  /** The last state delivered to the listener. */
  last: S | undefined;
  private resolveReady!: () => void;
  private readonly refresher = new CoalescingTask(
    () => this.refreshOnce(),
    () => this.lifecycle === 'running',
  );
  private unsubscribe: (() => void) | undefined;
  private readonly closeListeners: (() => void)[] = [];
  /** Bound once: registering the same function again does not pile up listeners (client issue #72). */
  protected readonly onEvent = (_event: Event): void => {
    void this.refresh();
  };

  constructor(
    /** The session side: client, session events, logger. @internal */
    protected readonly host: WatchHost,
    /** The watched znode. */
    readonly path: string,
    private readonly listener: (state: S) => void,
  ) {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  /** Arms the watch and reads the current state; does nothing unless `idle`. */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    this.unsubscribe = this.host.onSessionEvent((event) => {
      // Same session: the client re-sent its watches, but events may have been missed while away.
      // New session (reset): the server forgot every watch.
      if (event === 'connected' || event === 'reset') void this.refresh();
    });
    void this.refresh();
  }

  /** Stops the watch for good, resolves `ready` if still pending, and calls the close listeners. Safe to call twice. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.unsubscribe?.();
    this.resolveReady();
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  /** Registers a listener called when the watch closes (never, if it is closed already). */
  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
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

  private async refreshOnce(): Promise<void> {
    const state = await this.readOnce();
    if (state && this.lifecycle === 'running') this.deliver(state);
  }

  private async readOnce(): Promise<S | undefined> {
    try {
      return await this.read(await this.host.client());
    } catch (err) {
      assertIsError(err);
      // A transient failure is retried by the next `connected` / `reset` event.
      if (!isZkError(err, 'connectionLoss', 'sessionExpired', 'timeout', 'closed')) {
        this.host.logger.error({ err, path: this.path }, 'watch read failed');
      }
      return undefined;
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
    this.resolveReady();
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
