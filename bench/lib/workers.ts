// Child processes for multi-process benchmarks (zk-fanout, failout-propagation): forking TypeScript
// workers with tsx (or compiled to plain JavaScript), request/reply over IPC, and clock calibration
// between processes.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';

/**
 * High-resolution absolute time in ms since the epoch. `performance.timeOrigin` is the wall clock taken
 * together with the monotonic clock at process start, so this is comparable across processes on one
 * machine (to a few µs) and monotonic within one. {@link calibrate} measures each worker's offset over
 * IPC as a check.
 */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}

/** CPU time (user + system, ms) this process has spent since `start` (a `process.cpuUsage()`). */
export function cpuSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Every message has a `type`; a worker reports a fatal problem as `error`. */
export interface WorkerMessage {
  readonly type: string;
}

/** What every worker protocol includes: ping/pong for {@link calibrate}, shutdown, error. */
export type BaseToWorker = { readonly type: 'ping'; readonly id: number } | { readonly type: 'shutdown' };
export type BaseFromWorker = { readonly type: 'pong'; readonly id: number; readonly at: number } | { readonly type: 'error'; readonly message: string };

type Reply<F extends WorkerMessage, T extends F['type']> = Extract<F, { type: T }>;

/** One worker process and the replies awaited from it. */
export class BenchWorker<To extends WorkerMessage, From extends WorkerMessage> {
  private readonly waiters = new Set<{ match: (m: From) => boolean; resolve: (m: From) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;
  private exited = false;
  private readonly exit: Promise<void>;
  /** Worker clock minus parent clock, applied to its times when distinguishable from 0. */
  offsetMs = 0;

  constructor(
    readonly index: number,
    /** Units of work (watchers, clients) this worker runs. */
    readonly size: number,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (raw: unknown) => this.onMessage(raw as From));
    child.on('error', (err) => this.fail(err));
    this.exit = new Promise((resolve) =>
      child.once('exit', (code, signal) => {
        this.exited = true;
        this.fail(new Error(`worker ${index} exited (${signal ?? `code ${String(code)}`})`));
        resolve();
      }),
    );
  }

  /** Sends `message` and resolves with the first reply of `type` that `match` accepts. */
  request<T extends From['type']>(message: To | BaseToWorker, type: T, timeoutMs: number, match: (m: Reply<From, T>) => boolean = () => true): Promise<Reply<From, T>> {
    const reply = this.expect(type, timeoutMs, match);
    this.child.send(message);
    return reply;
  }

  /** Resolves with the next reply of `type` that `match` accepts (register before causing it). */
  expect<T extends From['type']>(type: T, timeoutMs: number, match: (m: Reply<From, T>) => boolean = () => true): Promise<Reply<From, T>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply<From, T>>((resolve, reject) => {
      const waiter = {
        match: (m: From) => m.type === type && match(m as Reply<From, T>),
        resolve: (m: From) => {
          clearTimeout(timer);
          resolve(m as Reply<From, T>);
        },
        reject: (e: Error) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(new Error(`worker ${this.index}: no '${type}' within ${timeoutMs} ms`));
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Asks the worker to close its sessions and exit; kills it if it has not after `graceMs`. */
  async close(graceMs = 5000): Promise<void> {
    if (this.exited) return;
    this.fail(new Error(`worker ${this.index} stopped`));
    try {
      if (this.child.connected) this.child.send({ type: 'shutdown' } satisfies BaseToWorker);
    } catch {
      // Channel already gone: the kill below does it.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  private onMessage(message: From): void {
    if (message.type === 'error') {
      this.fail(new Error((message as unknown as { message: string }).message));
      return;
    }
    for (const waiter of this.waiters) {
      if (waiter.match(message)) {
        this.waiters.delete(waiter);
        waiter.resolve(message);
        return;
      }
    }
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const waiter of this.waiters) waiter.reject(this.failure);
    this.waiters.clear();
  }
}

/** tsx's ESM loader by absolute URL, so workers start whatever the current directory is. */
function tsxLoader(): string {
  return pathToFileURL(require.resolve('tsx')).href;
}

/** How a worker's TypeScript runs. */
export type WorkerRuntime =
  /**
   * Under tsx's loader (about 80 MiB RSS before the worker's own modules load). tsx keeps function
   * names by wrapping every closure it creates in `__name` (a defineProperty), which a compiled
   * service does not pay: measured on bench/evacuate's clients, about a fifth of their CPU.
   */
  | 'tsx'
  /** Bundled once per run by esbuild into plain CommonJS (npm packages left external) and run by bare node (about 40 MiB). */
  | 'compiled';

const compiled = new Map<string, string>();

/**
 * Bundles `script` with its local imports into `bench/.build/<name>.cjs` (inside the repository, so
 * that `node_modules` resolves as it does from source) and returns the output path; once per process.
 */
function compileWorker(script: string): string {
  const done = compiled.get(script);
  if (done) return done;
  const outDir = join(__dirname, '..', '.build');
  mkdirSync(outDir, { recursive: true });
  const outfile = join(outDir, `${basename(dirname(script))}-${basename(script, '.ts')}.cjs`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a devDependency, loaded only when a bench asks for it
  const esbuild = require('esbuild') as typeof import('esbuild');
  esbuild.buildSync({ entryPoints: [script], outfile, bundle: true, platform: 'node', format: 'cjs', target: 'node20', packages: 'external', logLevel: 'error' });
  compiled.set(script, outfile);
  return outfile;
}

/**
 * Forks `script` (a .ts file) with an IPC channel, under tsx or {@link WorkerRuntime} 'compiled';
 * `nodeFlags` are the benchmark's own node flags for it (a GC setting, say).
 */
export function spawnWorker<To extends WorkerMessage, From extends WorkerMessage>(
  script: string,
  index: number,
  size: number,
  runtime: WorkerRuntime = 'tsx',
  nodeFlags: readonly string[] = [],
): BenchWorker<To, From> {
  // BENCH_WORKER_FLAGS: node flags for every worker, to see where a run's time goes (e.g.
  // `--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc`); split on spaces.
  const flags = [...nodeFlags, ...(process.env.BENCH_WORKER_FLAGS ?? '').split(' ').filter((flag) => flag !== '')];
  const child =
    runtime === 'tsx'
      ? fork(script, [], { execArgv: ['--import', tsxLoader(), ...flags], stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' })
      : fork(compileWorker(script), [], { execArgv: flags, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
  return new BenchWorker<To, From>(index, size, child);
}

/** A worker's measured clock offset. */
export interface ClockCalibration {
  offsetMs: number;
  rttMs: number;
  applied: boolean;
}

/**
 * Estimates the worker's clock offset from the ping with the smallest IPC round trip: the worker's
 * reading lies within ±rtt/2 of the parent's midpoint. Applied only when larger than that bound.
 */
export async function calibrate<To extends WorkerMessage, From extends WorkerMessage>(worker: BenchWorker<To, From>, pings = 30): Promise<ClockCalibration> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let id = 0; id < pings; id++) {
    const sent = clock();
    const isPong = (m: unknown): boolean => (m as { id?: number }).id === id;
    const pong = (await worker.request({ type: 'ping', id }, 'pong' as From['type'], 5000, isPong)) as unknown as { at: number };
    const received = clock();
    if (received - sent < best.rttMs) best = { offsetMs: pong.at - (sent + received) / 2, rttMs: received - sent };
  }
  const applied = Math.abs(best.offsetMs) > best.rttMs / 2;
  worker.offsetMs = applied ? best.offsetMs : 0;
  return { ...best, applied };
}

/** Runs `start(0 … count-1)` with at most `concurrency` at once (sessions connected while setting up). */
export async function inLanes(count: number, concurrency: number, start: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await start(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}

/** `total` split into `parts` near-equal integers. */
export function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

/**
 * Inside a worker, once its setup is done and before it says ready: a full GC when node runs with
 * `--expose-gc` (nothing without it). Connecting hundreds of sessions leaves a few hundred MiB of
 * garbage whose mark-compact would otherwise land in the first measured rounds, on whichever side of
 * a ratio set up the most; every measured process settles alike, so rounds measure the steady state.
 */
export function settleHeap(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Inside a worker: the process's RSS and used heap after a full GC when node runs with `--expose-gc`
 * (as taken, without it), so that deltas between two readings count live objects, not garbage.
 */
export function memoryAfterGc(): { rssBytes: number; heapUsedBytes: number } {
  settleHeap();
  const m = process.memoryUsage();
  return { rssBytes: m.rss, heapUsedBytes: m.heapUsed };
}

/**
 * Inside a worker: reports `err` to the parent (or to stderr when the IPC channel is gone), then
 * shuts the worker down with exit code 1.
 */
export function failWorker(err: unknown, send: (message: BaseFromWorker) => void, shutdown: (code: number) => Promise<never>): void {
  const message = err instanceof Error ? (err.stack ?? err.message) : String(err);
  try {
    send({ type: 'error', message: `worker ${process.pid}: ${message}` });
  } catch {
    process.stderr.write(`${message}\n`);
  }
  void shutdown(1);
}

/**
 * Inside a worker: exits when the parent dies or closes the channel (no lingering sessions), and
 * reports uncaught errors through `fail`.
 */
export function guardWorker(fail: (err: unknown) => void, shutdown: (code: number) => Promise<never>): void {
  process.on('disconnect', () => void shutdown(0));
  process.on('uncaughtException', fail);
  process.on('unhandledRejection', fail);
}

/** Inside a worker: sends `message` to the parent over the IPC channel `fork` opened. */
export function sendToParent(message: WorkerMessage): void {
  if (!process.send) throw new Error(`worker ${process.pid} must be started with an IPC channel (fork)`);
  process.send(message);
}

/** What a worker process serves besides ping and shutdown, and what it holds. */
export interface WorkerService<To extends WorkerMessage> {
  /** Handles every message but `ping` and `shutdown`; a throw or a rejection fails the worker. */
  readonly onMessage: (message: Exclude<To, BaseToWorker>) => void | Promise<void>;
  /** Closes what the worker holds (its sessions), once, before it exits. */
  readonly close: () => Promise<void>;
}

/**
 * Inside a worker: the one message loop of every bench worker. Answers `ping` with the worker's clock,
 * exits on `shutdown` or when the parent goes (closing what it holds first), and reports errors to the
 * parent ({@link failWorker}, {@link guardWorker}); every other message goes to `service.onMessage`.
 */
export function serveWorker<To extends WorkerMessage>(service: WorkerService<To>): void {
  let shuttingDown = false;
  const shutdown = async (code: number): Promise<never> => {
    if (!shuttingDown) {
      shuttingDown = true;
      await service.close().catch(() => undefined);
    }
    process.exit(code);
  };
  const fail = (err: unknown): void => failWorker(err, sendToParent, shutdown);
  process.on('message', (raw: unknown) => {
    const message = raw as To | BaseToWorker;
    if (message.type === 'ping') sendToParent({ type: 'pong', id: (message as { id: number }).id, at: clock() } as BaseFromWorker);
    else if (message.type === 'shutdown') void shutdown(0);
    else Promise.resolve().then(() => service.onMessage(message as Exclude<To, BaseToWorker>)).catch(fail);
  });
  guardWorker(fail, shutdown);
}
