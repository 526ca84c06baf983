// IPC messages between bench/failout-propagation/index.ts (the parent) and client-worker.ts.
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/** Parent → worker. */
export type ToWorker =
  | BaseToWorker
  | {
      readonly type: 'init';
      readonly connectString: string;
      /** D2 base path the clients follow. */
      readonly basePath: string;
      /** The cluster every client follows and whose failout is written. */
      readonly cluster: string;
      /** Clients (one ZooKeeper session, LoadBalancerState and provider each) this worker runs. */
      readonly clients: number;
      readonly sessionTimeoutMs: number;
      /** Sessions connected at once while setting up. */
      readonly connectConcurrency: number;
      /** The providers' peer watch teardown delay. */
      readonly teardownDelayMs: number;
    }
  /** Next round: every client reports when `getFailoutConfig(cluster)?.isFailedOut()` equals `failedOut`. */
  | { readonly type: 'arm'; readonly round: number; readonly failedOut: boolean };

/** Worker → parent. */
export type FromWorker =
  | BaseFromWorker
  | { readonly type: 'ready'; readonly clients: number; readonly setupMs: number }
  | { readonly type: 'armed'; readonly round: number }
  /** `times[i]`: the clock time at which client i's routing decision flipped. */
  | { readonly type: 'flipped'; readonly round: number; readonly times: readonly number[] };
