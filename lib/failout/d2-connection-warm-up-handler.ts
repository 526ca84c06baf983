import { Counter, Registry } from 'prom-client';
import type { D2Client, WarmUpResult } from '../d2';
import { createLogger, type Logger } from '../logging';
import { systemScheduler, type FailoutScheduler } from './failed-out-cluster-manager';
import type { ConnectionWarmUpHandler, FailoutConfig } from './types';
import type { Lifecycle } from '../lifecycle';

/** Options for {@link D2ConnectionWarmUpHandler}. */
export interface D2ConnectionWarmUpHandlerOptions {
  /** Whose pools get the connections: the client the application (and FailoutClient) sends through. */
  readonly client: Pick<D2Client, 'warmUp'>;
  /** Path requested on each peer host (appended to its announced URI). Default `/`. */
  readonly path?: string;
  /** Deadline of one peer's warm-up (D2Client's `timeoutMs`). Default 5 s. */
  readonly timeoutMs?: number;
  /** Peers warmed at the same time by this handler; the rest queue. Default 2. */
  readonly maxConcurrentPeers?: number;
  /** Hosts of one peer warmed at the same time (D2Client's `concurrency`). Default 16. */
  readonly hostConcurrency?: number;
  /** Connections opened per host. Default 1. */
  readonly connectionsPerHost?: number;
  /**
   * Each warm-up first waits a uniformly random 0…maxJitterMs, so that the thousand clients that hear
   * a failout in the same ZooKeeper round do not all connect to the peer at once (rest.li #779's
   * "thundering herd"). Default 1000; 0 disables.
   */
  readonly maxJitterMs?: number;
  /** Randomness for the jitter, in [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  /** Timers for the jitter. Default the global, unref'd timers (`systemScheduler`). */
  readonly scheduler?: FailoutScheduler;
  /** Where the counters go; default a private registry. Handlers sharing one registry share the counters. */
  readonly registry?: Registry;
  /** Default a `failout-warm-up` logger from `createLogger`. */
  readonly logger?: Logger;
}

/** The counters, created once per registry (several handlers may share one). */
interface WarmUpCounters {
  readonly started: Counter<'peer'>;
  readonly succeeded: Counter<'peer'>;
  readonly failed: Counter<'peer'>;
  readonly cancelled: Counter<'peer'>;
  readonly connections: Counter<'peer'>;
}

function counter(registry: Registry, name: string, help: string): Counter<'peer'> {
  const existing = registry.getSingleMetric(name);
  if (existing instanceof Counter) return existing as Counter<'peer'>;
  return new Counter({ name, help, labelNames: ['peer'], registers: [registry] });
}

/**
 * Registers the warm-up counters (`failout_warmups_{started,succeeded,failed,cancelled}_total`,
 * `failout_warmup_connections_opened_total`) on `registry` if they are not there yet, so a scrape shows
 * them before the first failout; handlers created later count into the same ones.
 */
export function registerWarmUpCounters(registry: Registry): void {
  counters(registry);
}

function counters(registry: Registry): WarmUpCounters {
  return {
    started: counter(registry, 'failout_warmups_started_total', 'Peer warm-ups requested'),
    succeeded: counter(registry, 'failout_warmups_succeeded_total', 'Peer warm-ups where every warm-up request got a response'),
    failed: counter(registry, 'failout_warmups_failed_total', 'Peer warm-ups with at least one failed request (or that threw)'),
    cancelled: counter(registry, 'failout_warmups_cancelled_total', 'Peer warm-ups cancelled before they finished'),
    connections: counter(registry, 'failout_warmup_connections_opened_total', 'Warm-up requests that got a response (open connections)'),
  };
}

/** Thrown inside the handler when a warm-up is cancelled; never leaves it. */
class Cancelled extends Error {}

/** A queued slot request. */
interface Waiter {
  readonly grant: () => void;
  readonly signal: AbortSignal;
}

/**
 * The default {@link ConnectionWarmUpHandler}: opens keep-alive connections to a peer's hosts through
 * {@link D2Client.warmUp} (the pools requests use, so redirected requests find them open).
 *
 * - Each warm-up waits a random jitter, then a slot (at most `maxConcurrentPeers` at once), then runs.
 * - `cancelPendingRequests(peer)` aborts that peer's warm-ups: those still in jitter or queued never
 *   start; D2Client.warmUp cannot be aborted, so a running one finishes in the background (bounded by
 *   its own `timeoutMs`, still holding its slot) and its result is ignored.
 * - Never rejects: failures are logged and counted (a warm-up must not fail a failout).
 * - `close()` cancels everything; later calls do nothing.
 *
 * Concurrency: event loop only.
 */
export class D2ConnectionWarmUpHandler implements ConnectionWarmUpHandler {
  private readonly client: Pick<D2Client, 'warmUp'>;
  private readonly options: D2ConnectionWarmUpHandlerOptions;
  private readonly maxConcurrentPeers: number;
  private readonly maxJitterMs: number;
  private readonly random: () => number;
  private readonly scheduler: FailoutScheduler;
  private readonly counters: WarmUpCounters;
  private readonly log: Logger;
  /** Abort controllers of unfinished warm-ups, per peer. */
  private readonly pending = new Map<string, Set<AbortController>>();
  private readonly queue: Waiter[] = [];
  private running = 0;
  private lifecycle: Lifecycle = 'running';

  constructor(options: D2ConnectionWarmUpHandlerOptions) {
    this.client = options.client;
    this.options = options;
    this.maxConcurrentPeers = Math.max(1, options.maxConcurrentPeers ?? 2);
    this.maxJitterMs = Math.max(0, options.maxJitterMs ?? 1000);
    this.random = options.random ?? Math.random;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.counters = counters(options.registry ?? new Registry());
    this.log = options.logger ?? createLogger('failout-warm-up');
  }

  /** Warm-ups of this handler currently holding a slot (for tests and metrics). */
  activeWarmUps(): number {
    return this.running;
  }

  /** Warms `peer` up (only `hosts`, when given); resolves when done, failed or cancelled. Never rejects. */
  async warmUpConnections(peer: string, _config: FailoutConfig | undefined, hosts?: readonly string[]): Promise<void> {
    if (this.lifecycle === 'closed') return;
    const controller = new AbortController();
    let set = this.pending.get(peer);
    if (!set) this.pending.set(peer, (set = new Set()));
    set.add(controller);
    this.counters.started.inc({ peer });
    try {
      await this.delay(Math.floor(this.random() * this.maxJitterMs), controller.signal);
      await this.acquire(controller.signal);
      const result = await this.run(peer, hosts, controller.signal);
      this.counters.connections.inc({ peer }, result.succeeded);
      this.counters[result.failed === 0 ? 'succeeded' : 'failed'].inc({ peer });
      this.log.info({ peer, ...result }, 'failout peer warmed up');
    } catch (err) {
      if (err instanceof Cancelled) {
        this.counters.cancelled.inc({ peer });
      } else {
        this.counters.failed.inc({ peer });
        this.log.warn({ err, peer }, 'failout peer warm-up failed');
      }
    } finally {
      set.delete(controller);
      if (set.size === 0 && this.pending.get(peer) === set) this.pending.delete(peer);
    }
  }

  /** Cancels the peer's unfinished warm-ups (those not started never start). */
  cancelPendingRequests(peer: string): void {
    for (const controller of this.pending.get(peer) ?? []) controller.abort();
  }

  /** Cancels every warm-up; later calls do nothing. */
  close(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    for (const set of this.pending.values()) for (const controller of set) controller.abort();
  }

  /** Runs D2Client.warmUp in a slot; the slot is freed when warmUp settles, even after a cancel. */
  private async run(peer: string, hosts: readonly string[] | undefined, signal: AbortSignal): Promise<WarmUpResult> {
    let work: Promise<WarmUpResult>;
    try {
      work = this.client.warmUp(peer, {
        hosts,
        path: this.options.path,
        timeoutMs: this.options.timeoutMs,
        concurrency: this.options.hostConcurrency,
        connectionsPerHost: this.options.connectionsPerHost,
      });
    } catch (err) {
      work = Promise.reject(err);
    }
    work.then(
      () => this.releaseSlot(),
      () => this.releaseSlot(),
    );
    return await new Promise<WarmUpResult>((resolve, reject) => {
      const onAbort = (): void => reject(new Cancelled());
      if (signal.aborted) onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      void work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  private delay(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new Cancelled());
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = (): void => {
        this.scheduler.clearTimeout(timer);
        reject(new Cancelled());
      };
      const timer = this.scheduler.setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Waits for one of the `maxConcurrentPeers` slots. */
  private acquire(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(new Cancelled());
    if (this.running < this.maxConcurrentPeers) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        const index = this.queue.indexOf(waiter);
        if (index >= 0) this.queue.splice(index, 1);
        reject(new Cancelled());
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private releaseSlot(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next waiter, so `running` stays the same.
    if (next) next.grant();
    else this.running--;
  }
}
