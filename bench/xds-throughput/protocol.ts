// IPC messages between bench/xds-throughput/index.ts (the parent) and client-worker.ts.
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/** Which xDS client a worker drives. */
export type ClientUnderTest = 'ours' | 'grpc-js-xds';

/** Parent → worker. */
export type ToWorker =
  | BaseToWorker
  /** Load the client (protos, registries) and build it against `serverUri`; reply `ready`. */
  | { readonly type: 'init'; readonly client: ClientUnderTest; readonly serverUri: string; readonly resources: number }
  /** Watch `resources` clusters (CDS) and as many endpoint sets (EDS); reply `done` when all arrived or after `timeoutMs`. */
  | { readonly type: 'go'; readonly timeoutMs: number };

/** What one measurement saw. */
export interface WatchResult {
  /** Every CDS and EDS resource arrived. */
  readonly complete: boolean;
  readonly clustersReceived: number;
  readonly endpointsReceived: number;
  /** From the first watch to the last first-arrival (or the timeout). */
  readonly elapsedMs: number;
  /** does-not-exist callbacks, over both types. */
  readonly doesNotExist: number;
  /** Error callbacks, over both types. */
  readonly errors: number;
  /** `process.resourceUsage().maxRSS` at the end, in KiB (covers setup and the run). */
  readonly maxRssKiB: number;
  readonly heapUsedBytes: number;
}

/** Worker → parent. */
export type FromWorker =
  | BaseFromWorker
  | {
      readonly type: 'ready';
      readonly setupMs: number;
      /** RSS before the client's modules were loaded: node + tsx + this worker (the same for both clients). */
      readonly baselineRssBytes: number;
      readonly rssAfterSetupBytes: number;
    }
  | ({ readonly type: 'done' } & WatchResult);
