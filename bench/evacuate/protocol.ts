// IPC messages between bench/evacuate (the parent) and its two kinds of children: client-worker.ts
// (D2 clients following services) and floor-worker.ts (bare watchers on the same number of nodes).
import type { BaseFromWorker, BaseToWorker } from '../lib/workers';

/**
 * The number of the first measured round (warm-up rounds are numbered up to 0). Every worker settles
 * its heap again when armed for the last warm-up round, as after its setup (`settleHeap`): the first
 * evacuation is when each client starts following its services' peers (about 100 MB more live heap
 * per client process, kept through the restore by the teardown delay), and the collection of that
 * growth otherwise spreads over the first measured rounds of the clients alone. A round right after
 * a full GC runs slow itself (the young generation grows back), so the settle is a warm-up round's.
 * The measured rounds are those of a client that has followed its peers before, as a service that
 * has run a while has.
 */
export const FIRST_MEASURED_ROUND = 1;

/** What both workers are told at start: who they are in the whole population, and what to follow. */
interface InitCommon {
  readonly connectString: string;
  /** Index of this worker's first client (or watcher) in the whole population: it picks the services followed. */
  readonly first: number;
  /** Clients (or watchers), one ZooKeeper session each, this worker runs. */
  readonly count: number;
  /** Services in the world. */
  readonly services: number;
  /** Services each client follows (see `followedServices`). */
  readonly follow: number;
  readonly sessionTimeoutMs: number;
  /** Sessions connected at once while setting up. */
  readonly connectConcurrency: number;
}

/** Parent → client worker. */
export type ToClientWorker =
  | BaseToWorker
  | (InitCommon & {
      readonly type: 'init';
      /** D2 base path the clients follow. */
      readonly basePath: string;
      /** The evacuated fabric: an evacuated service's peers must all be outside it. */
      readonly fabric: string;
      /** The providers' peer watch teardown delay. */
      readonly teardownDelayMs: number;
    })
  /** Next round: every client reports when every service it follows routes as `evacuated` says. */
  | { readonly type: 'arm'; readonly round: number; readonly evacuated: boolean };

/** Worker → parent (both kinds). */
export type FromWorker =
  | BaseFromWorker
  | { readonly type: 'ready'; readonly count: number; readonly setupMs: number }
  | { readonly type: 'armed'; readonly round: number }
  /** `times[i]`: the clock time at which client (or watcher) i had the round's state of every node it follows. */
  /** `cpuMs`: CPU time (user + system) the worker's process spent from `armed` to `done`. */
  | { readonly type: 'done'; readonly round: number; readonly times: readonly number[]; readonly cpuMs: number };

/** Parent → floor worker. */
export type ToFloorWorker =
  | BaseToWorker
  | (InitCommon & {
      readonly type: 'init';
      /** The parent of the mirror nodes, one per followed cluster, named as the clusters. */
      readonly floorPath: string;
    })
  /** Next round: every watcher reports when every node it follows reads back starting with `token`. */
  | { readonly type: 'arm'; readonly round: number; readonly token: string };
