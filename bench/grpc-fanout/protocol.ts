// IPC messages between bench/grpc-fanout/index.ts (the parent) and its children: server-worker.ts
// (one gRPC server each, as one observer replica) and client-worker.ts (gRPC clients, one channel and
// one bidirectional stream each, as each xDS client holds its ADS stream).
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/** Parent → server worker. */
export type ToServerWorker =
  | BaseToWorker
  | { readonly type: 'init' }
  /** Starts counting the process's CPU (just before a round's push). */
  | { readonly type: 'arm'; readonly round: number }
  /** Writes one message of `bytes` bytes, carrying `round`, on every open stream. */
  | { readonly type: 'push'; readonly round: number; readonly bytes: number }
  /** The CPU since 'arm' (sent once every client has the round's message). */
  | { readonly type: 'cpu'; readonly round: number }
  | { readonly type: 'streams' };

/** Server worker → parent. */
export type FromServerWorker =
  | BaseFromWorker
  | { readonly type: 'ready'; readonly address: string }
  | { readonly type: 'armed'; readonly round: number }
  | { readonly type: 'pushed'; readonly round: number; readonly streams: number }
  | { readonly type: 'cpu'; readonly round: number; readonly cpuMs: number }
  | { readonly type: 'streams'; readonly streams: number; readonly acks: number };

/** Parent → client worker. */
export type ToClientWorker =
  | BaseToWorker
  | {
      readonly type: 'init';
      /** The servers, `host:port`; client i of the whole population uses server i mod N. */
      readonly servers: readonly string[];
      /** Index of this worker's first client in the whole population. */
      readonly first: number;
      readonly clients: number;
      /** Clients connected at once while setting up. */
      readonly connectConcurrency: number;
      /** Size of each client's acknowledgement (an xDS ACK names the version, nonce and resources). */
      readonly ackBytes: number;
    }
  /** Next round: every client reports when it has the message carrying `round`. */
  | { readonly type: 'arm'; readonly round: number };

/** Client worker → parent. */
export type FromClientWorker =
  | BaseFromWorker
  | { readonly type: 'ready'; readonly clients: number; readonly setupMs: number }
  | { readonly type: 'armed'; readonly round: number }
  /** `times[i]`: when client i had the round's message; `cpuMs`: the process's CPU from 'arm' to the last. */
  | { readonly type: 'received'; readonly round: number; readonly times: readonly number[]; readonly cpuMs: number };
