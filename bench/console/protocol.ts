// IPC messages between bench/console (the parent) and console-worker.ts, the process the console
// server runs in alone, so that its CPU is its own.
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/** Parent → console worker. */
export type ToConsoleWorker =
  | BaseToWorker
  /** Start the console server on a free loopback port, reading ZooKeeper at these paths. */
  | {
      readonly type: 'start';
      readonly connectString: string;
      readonly d2Base: string;
      readonly requestsBase: string;
      /** The checkout whose lib/console runs (this repository's by default; `--console-from`). */
      readonly consoleRoot: string;
    }
  /** Report the process's CPU time so far. */
  | { readonly type: 'cpu'; readonly id: number };

/** Console worker → parent. */
export type FromConsoleWorker =
  | BaseFromWorker
  /** The console is listening at `url` (no access token: loopback). */
  | { readonly type: 'started'; readonly url: string; readonly pid: number }
  /** `process.cpuUsage()` (µs of user and system time since the process started) and the worker's clock. */
  | { readonly type: 'cpu'; readonly id: number; readonly userUs: number; readonly systemUs: number; readonly at: number };
