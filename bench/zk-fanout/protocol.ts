// IPC messages between bench/zk-fanout/index.ts (the parent) and watcher-worker.ts (its children).
// The clock moved to bench/lib/workers.ts (shared with failout-propagation); re-exported for the worker.
export { clock } from '../lib/workers';

/** Parent → worker. */
export type ToWorker =
  | {
      readonly type: 'init';
      readonly connectString: string;
      readonly path: string;
      /** Watchers (one ZooKeeper session each) this worker runs. */
      readonly watchers: number;
      readonly sessionTimeoutMs: number;
      /** Sessions connected at once while setting up. */
      readonly connectConcurrency: number;
    }
  | { readonly type: 'ping'; readonly id: number }
  /** Next round: every watcher reports when it hears `value`. */
  | { readonly type: 'arm'; readonly round: number; readonly value: string }
  | { readonly type: 'shutdown' };

/** Worker → parent. */
export type FromWorker =
  | { readonly type: 'ready'; readonly watchers: number; readonly setupMs: number }
  | { readonly type: 'pong'; readonly id: number; readonly at: number }
  | { readonly type: 'armed'; readonly round: number }
  /** `times[i]`: the {@link clock} time at which watcher i's listener got the round's value. */
  | { readonly type: 'notified'; readonly round: number; readonly times: readonly number[] }
  | { readonly type: 'error'; readonly message: string };
