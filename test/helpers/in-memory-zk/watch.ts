/**
 * Persistent watches of the in-memory ZooKeeper, delivering the way lib/zk/persistent-watch.ts does:
 * every change of the watched path (and every `connected` / `reset` session event) triggers a re-read;
 * re-reads of one watch are serial and coalesced; a read older than the last delivered state is
 * dropped and an unchanged one is not delivered; a transient read failure is retried by the next
 * `connected` / `reset`. Each re-read waits one macrotask first (the real one waits for a round trip),
 * so changes made in one turn of the event loop reach the listener as one delivery of the latest state.
 *
 * Concurrency: `running`, `dirty` and `last` change only on the event loop, inside `refresh`.
 */
import type { ChildrenState, DataState, SessionEvent, Stat, Watch } from '../../../lib/zk';
import type { Lifecycle } from '../../../lib/lifecycle';
import { isOlderChildren, isOlderData, isSameChildren, isSameData } from '../../../lib/zk/watch-order';
import { isZkError } from '../../../lib/zk';
import { assertIsError } from '../../../lib/zk/errors';
import type { NodeChange } from './znode-tree';

/** What a watch needs from its in-memory session. Reads go through the session, so faults and connection state apply. */
export interface InMemoryWatchHost {
  getData(path: string): Promise<{ data: Buffer; stat: Stat }>;
  exists(path: string): Promise<Stat | undefined>;
  getChildren(path: string): Promise<{ children: string[]; stat: Stat }>;
  onSessionEvent(listener: (event: SessionEvent) => void): () => void;
  onNodeChange(path: string, listener: (change: NodeChange) => void): () => void;
  /** A read failed for a reason a retry will not fix, or the listener threw (the real watch logs both): kept by the fake. */
  onWatchError(err: Error, path: string): void;
  /** A refresh started (+1) or ended (-1); the fake's `idle()` waits for zero. */
  busy(delta: 1 | -1): void;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

abstract class InMemoryWatch<S extends DataState | ChildrenState> implements Watch {
  lifecycle: Lifecycle = 'idle';
  readonly ready: Promise<void>;
  /** The last state delivered to the listener. */
  last: S | undefined;
  private resolveReady!: () => void;
  private running = false;
  private dirty = false;
  private readonly unsubscribe: (() => void)[] = [];
  private readonly closeListeners: (() => void)[] = [];

  constructor(
    protected readonly host: InMemoryWatchHost,
    readonly path: string,
    private readonly listener: (state: S) => void,
    private readonly onUnreadable?: (error: Error) => void,
  ) {
    this.ready = new Promise((resolve) => (this.resolveReady = resolve));
  }

  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    this.unsubscribe.push(
      this.host.onSessionEvent((event) => {
        if (event === 'connected' || event === 'reset') void this.refresh();
      }),
      this.host.onNodeChange(this.path, (change) => {
        if (this.cares(change)) void this.refresh();
      }),
    );
    void this.refresh();
  }

  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const unsubscribe of this.unsubscribe.splice(0)) unsubscribe();
    this.resolveReady();
    for (const listener of this.closeListeners.splice(0)) listener();
  }

  onClose(listener: () => void): void {
    this.closeListeners.push(listener);
  }

  /** Which changes of the path the real watch would be armed for. */
  protected abstract cares(change: NodeChange): boolean;
  protected abstract read(): Promise<S>;
  protected abstract isOlder(next: S, prev: S): boolean;
  protected abstract isSame(next: S, prev: S): boolean;

  /** As lib/zk's watches: `read`; when the node is absent, `exists` (an existence watch), and again if it appeared. */
  protected async readWhileAbsentWatched<T extends S & { exists: true }>(read: () => Promise<T>): Promise<T | { exists: false }> {
    for (;;) {
      try {
        return await read();
      } catch (err) {
        if (!isZkError(err, 'noNode')) throw err;
      }
      const stat = await this.host.exists(this.path);
      if (!stat) return { exists: false };
    }
  }

  /** lib/zk's CoalescingTask: one pass at a time; calls meanwhile make one more pass afterwards. */
  private async refresh(): Promise<void> {
    if (this.lifecycle !== 'running') return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    this.host.busy(1);
    try {
      do {
        this.dirty = false;
        await nextTurn();
        if (this.lifecycle !== 'running') break;
        const state = await this.readOnce();
        if (state && this.lifecycle === 'running') this.deliver(state);
      } while (this.dirty && this.lifecycle === 'running');
    } finally {
      this.running = false;
      this.host.busy(-1);
    }
  }

  private async readOnce(): Promise<S | undefined> {
    try {
      return await this.read();
    } catch (err) {
      assertIsError(err);
      if (!isZkError(err, 'connectionLoss', 'sessionExpired', 'timeout', 'closed')) {
        this.host.onWatchError(err, this.path);
        if (this.lifecycle === 'running') this.tellUnreadable(err);
      }
      return undefined;
    }
  }

  private tellUnreadable(err: Error): void {
    try {
      this.onUnreadable?.(err);
    } catch (listenerErr) {
      assertIsError(listenerErr);
      // As the real watch: a throwing listener is logged (kept, here) and the watch carries on.
      this.host.onWatchError(listenerErr, this.path);
    }
  }

  private deliver(state: S): void {
    const prev = this.last;
    if (prev && (this.isOlder(state, prev) || this.isSame(state, prev))) return;
    this.last = state;
    try {
      this.listener(state);
    } catch (err) {
      assertIsError(err);
      // The real watch logs a throwing listener and carries on; so does the fake.
      this.host.onWatchError(err, this.path);
    }
    this.resolveReady();
  }
}

/** Data watch: re-reads on create, data change and delete of the path. */
export class InMemoryDataWatch extends InMemoryWatch<DataState> {
  protected cares(change: NodeChange): boolean {
    return change !== 'children';
  }

  protected read(): Promise<DataState> {
    // As the real watch: getData first (one round trip while the node exists), exists only when absent.
    return this.readWhileAbsentWatched(async () => ({ exists: true, ...(await this.host.getData(this.path)) }));
  }

  protected isOlder(next: DataState, prev: DataState): boolean {
    return isOlderData(next, prev);
  }

  protected isSame(next: DataState, prev: DataState): boolean {
    return isSameData(next, prev);
  }
}

/** Children watch: re-reads on create and delete of the path and of its children. */
export class InMemoryChildrenWatch extends InMemoryWatch<ChildrenState> {
  protected cares(change: NodeChange): boolean {
    return change !== 'data';
  }

  protected read(): Promise<ChildrenState> {
    return this.readWhileAbsentWatched(async () => ({ exists: true, ...(await this.host.getChildren(this.path)) }));
  }

  protected isOlder(next: ChildrenState, prev: ChildrenState): boolean {
    return isOlderChildren(next, prev);
  }

  protected isSame(next: ChildrenState, prev: ChildrenState): boolean {
    return isSameChildren(next, prev);
  }
}
