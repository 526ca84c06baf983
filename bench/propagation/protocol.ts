// IPC messages between bench/propagation's xDS mode (the parent) and its children: client-worker.ts
// (failout clients reading D2 data over xDS, or over ZooKeeper for the comparison) and
// observer-worker.ts (one D2 observer each). The clients answer rounds as bench/failout-propagation's
// worker does ('arm' → 'armed' → 'flipped'), so both modes share one round driver (rounds.ts).
import type { FromWorker as FailoutFromWorker } from '../failout-propagation/protocol';
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/** Where a client worker's clients read D2 data. */
export type ClientDiscovery =
  /** Each client its own XdsClient over these observers (`host:port`), in the order of `observerOrder`. */
  | { readonly kind: 'xds'; readonly observers: readonly string[]; readonly delta: boolean }
  /** Each client its own ZooKeeper session (as bench/failout-propagation's clients). */
  | { readonly kind: 'zookeeper'; readonly connectString: string; readonly sessionTimeoutMs: number };

/** A round: every client reports when `getFailoutConfig(cluster)?.isFailedOut()` equals `failedOut`. */
export type ArmClients = { readonly type: 'arm'; readonly round: number; readonly failedOut: boolean };

/** Parent → client worker. */
export type ToClientWorker =
  | BaseToWorker
  | {
      readonly type: 'init';
      readonly discovery: ClientDiscovery;
      /** Index of this worker's first client in the whole population: it picks each client's observers. */
      readonly first: number;
      /** Clients this worker runs. */
      readonly clients: number;
      /** D2 base path the clients follow. */
      readonly basePath: string;
      /** The cluster every client follows and whose failout is written. */
      readonly cluster: string;
      /** Clients set up at once. */
      readonly connectConcurrency: number;
      /** The providers' peer watch teardown delay. */
      readonly teardownDelayMs: number;
    }
  | ArmClients
  | { readonly type: 'memory' }
  /** Over xDS: the sizes of the SotW response of the type a failout write changes and of its ACK, as the first client has them. */
  | { readonly type: 'sotwBytes' };

/** Worker → parent: bench/failout-propagation's replies, and the process's memory. */
export type FromClientWorker = FailoutFromWorker | MemoryReply | ({ readonly type: 'sotwBytes' } & SotwBytes);

/** Encoded sizes of one SotW exchange: the response a client receives and the ACK it sends back. */
export interface SotwBytes {
  readonly response: number;
  readonly ack: number;
}

/** A process's memory after a full GC (when node runs with --expose-gc). */
export interface MemoryReply {
  readonly type: 'memory';
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
}

/** Parent → observer worker. */
export type ToObserverWorker =
  | BaseToWorker
  | { readonly type: 'init'; readonly connectString: string; readonly basePath: string; readonly sessionTimeoutMs: number; readonly lingerMs: number }
  | { readonly type: 'memory' }
  /** Starts counting the process's CPU (just before a round's write). */
  | { readonly type: 'arm'; readonly round: number }
  /** The CPU since 'arm' (sent once every client has the round's change). */
  | { readonly type: 'cpu'; readonly round: number };

/** Observer worker → parent. */
export type FromObserverWorker =
  | BaseFromWorker
  /** The observer serves ADS at `address` and has read the base path. */
  | { readonly type: 'ready'; readonly address: string }
  | (MemoryReply & { readonly streams: number; readonly subscriptions: number })
  | { readonly type: 'armed'; readonly round: number }
  | { readonly type: 'cpu'; readonly round: number; readonly cpuMs: number };
