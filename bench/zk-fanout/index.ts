// bench/zk-fanout: one setData, N watchers each on its own ZooKeeper session, spread over P processes.
// Measures the time from just before the `set` call until every watcher's listener has the new value:
// the physical floor for failout propagation. `npm run bench -- zk-fanout [--watchers 1000]
// [--processes 4] [--rounds 20] [--warmup 2] [--gap-ms 100]`.
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local/zookeeper';
import { createLogger } from '../../lib/logging';
import { connectSession, type ZkSession } from '../../lib/zk';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { clock, type FromWorker, type ToWorker } from './protocol';

interface Parameters {
  watchers: number;
  processes: number;
  rounds: number;
  warmup: number;
  gapMs: number;
  sessionTimeoutMs: number;
  connectConcurrency: number;
  roundTimeoutMs: number;
}

const PATH = '/failout-bench/zk-fanout/node';

function parameters(args: string[]): Parameters {
  const { values } = parseArgs({
    args,
    options: {
      watchers: { type: 'string', default: '1000' },
      processes: { type: 'string', default: '4' },
      rounds: { type: 'string', default: '20' },
      warmup: { type: 'string', default: '2' },
      'gap-ms': { type: 'string', default: '100' },
      'session-timeout-ms': { type: 'string', default: '30000' },
      'connect-concurrency': { type: 'string', default: '20' },
      'round-timeout-ms': { type: 'string', default: '30000' },
    },
    strict: true,
  });
  const int = (name: keyof typeof values, min: number): number => {
    const text = values[name];
    const value = Number(text);
    if (!Number.isInteger(value) || value < min) throw new Error(`--${name} must be an integer ≥ ${min}, got ${String(text)}`);
    return value;
  };
  const watchers = int('watchers', 1);
  return {
    watchers,
    // Never more processes than watchers: every worker runs at least one.
    processes: Math.min(int('processes', 1), watchers),
    rounds: int('rounds', 1),
    warmup: int('warmup', 0),
    gapMs: int('gap-ms', 0),
    sessionTimeoutMs: int('session-timeout-ms', 1000),
    connectConcurrency: int('connect-concurrency', 1),
    roundTimeoutMs: int('round-timeout-ms', 100),
  };
}

type Reply<T extends FromWorker['type']> = Extract<FromWorker, { type: T }>;

/** One watcher process and the replies awaited from it. */
class Worker {
  private readonly waiters = new Set<{ match: (m: FromWorker) => boolean; resolve: (m: FromWorker) => void; reject: (e: Error) => void }>();
  private failure: Error | undefined;
  private exited = false;
  private readonly exit: Promise<void>;
  /** Worker clock minus parent clock, applied to its times when distinguishable from 0. */
  offsetMs = 0;

  constructor(
    readonly index: number,
    readonly watchers: number,
    private readonly child: ChildProcess,
  ) {
    child.on('message', (raw: unknown) => this.onMessage(raw as FromWorker));
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
  request<T extends FromWorker['type']>(message: ToWorker, type: T, timeoutMs: number, match: (m: Reply<T>) => boolean = () => true): Promise<Reply<T>> {
    const reply = this.expect(type, timeoutMs, match);
    this.child.send(message);
    return reply;
  }

  /** Resolves with the next reply of `type` that `match` accepts (register before causing it). */
  expect<T extends FromWorker['type']>(type: T, timeoutMs: number, match: (m: Reply<T>) => boolean = () => true): Promise<Reply<T>> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<Reply<T>>((resolve, reject) => {
      const waiter = {
        match: (m: FromWorker) => m.type === type && match(m as Reply<T>),
        resolve: (m: FromWorker) => {
          clearTimeout(timer);
          resolve(m as Reply<T>);
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
  async stop(graceMs = 5000): Promise<void> {
    if (this.exited) return;
    this.fail(new Error(`worker ${this.index} stopped`));
    try {
      if (this.child.connected) this.child.send({ type: 'shutdown' } satisfies ToWorker);
    } catch {
      // Channel already gone: the kill below does it.
    }
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exit;
    clearTimeout(timer);
  }

  private onMessage(message: FromWorker): void {
    if (message.type === 'error') {
      this.fail(new Error(message.message));
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

function spawnWorker(index: number, watchers: number): Worker {
  const child = fork(join(__dirname, 'watcher-worker.ts'), [], {
    execArgv: ['--import', tsxLoader()],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    serialization: 'advanced',
  });
  return new Worker(index, watchers, child);
}

/**
 * Estimates the worker's clock offset from the ping with the smallest IPC round trip: the worker's
 * reading lies within ±rtt/2 of the parent's midpoint. Applied only when larger than that bound.
 */
async function calibrate(worker: Worker, pings = 30): Promise<{ offsetMs: number; rttMs: number; applied: boolean }> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let id = 0; id < pings; id++) {
    const sent = clock();
    const pong = await worker.request({ type: 'ping', id }, 'pong', 5000, (m) => m.id === id);
    const received = clock();
    if (received - sent < best.rttMs) best = { offsetMs: pong.at - (sent + received) / 2, rttMs: received - sent };
  }
  const applied = Math.abs(best.offsetMs) > best.rttMs / 2;
  worker.offsetMs = applied ? best.offsetMs : 0;
  return { ...best, applied };
}

function split(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, i) => Math.floor(total / parts) + (i < total % parts ? 1 : 0));
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);

interface RoundResult {
  round: number;
  setAckMs: number;
  firstMs: number;
  watcherP50Ms: number;
  watcherP99Ms: number;
  allNotifiedMs: number;
  latencies: number[];
}

async function runRound(writer: ZkSession, workers: readonly Worker[], round: number, p: Parameters): Promise<RoundResult> {
  const value = `round-${round}-${process.pid}-${clock()}`;
  await Promise.all(workers.map((w) => w.request({ type: 'arm', round, value }, 'armed', 5000, (m) => m.round === round)));
  const notified = workers.map((w) => w.expect('notified', p.roundTimeoutMs, (m) => m.round === round));
  // Keep the rejections of the other workers from going unhandled while one of them fails first.
  for (const n of notified) n.catch(() => undefined);
  const t0 = clock();
  await writer.set(PATH, Buffer.from(value));
  const setAckMs = clock() - t0;
  const replies = await Promise.all(notified);
  const latencies = replies.flatMap((reply, i) => reply.times.map((t) => t - (workers[i]?.offsetMs ?? 0) - t0));
  return {
    round,
    setAckMs,
    firstMs: Math.min(...latencies),
    watcherP50Ms: percentile(latencies, 50),
    watcherP99Ms: percentile(latencies, 99),
    allNotifiedMs: Math.max(...latencies),
    latencies,
  };
}

export default async function zkFanout(args: string[]): Promise<void> {
  const p = parameters(args);
  const startedAt = clock();
  const log = createLogger('bench-zk-fanout');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.stdout.write(
    `zk-fanout: ${p.watchers} watchers (one session each) over ${p.processes} processes, ` + `${p.rounds} rounds + ${p.warmup} warm-up\n`,
  );

  let zk: ZooKeeperServer | undefined;
  let writer: ZkSession | undefined;
  const workers: Worker[] = [];
  try {
    zk = await startZooKeeper();
    const connectString = zk.connectString;
    writer = await connectSession({ connectString, sessionTimeoutMs: p.sessionTimeoutMs, logger: log });
    await writer.create(PATH, Buffer.from('initial'), { parents: true });

    const setupStarted = clock();
    split(p.watchers, p.processes).forEach((n, i) => workers.push(spawnWorker(i, n)));
    const setupTimeoutMs = 60_000 + p.watchers * 100;
    const ready = await Promise.all(
      workers.map((w) =>
        w.request(
          { type: 'init', connectString, path: PATH, watchers: w.watchers, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency },
          'ready',
          setupTimeoutMs,
        ),
      ),
    );
    const setupMs = clock() - setupStarted;
    const clocks: Awaited<ReturnType<typeof calibrate>>[] = [];
    for (const w of workers) clocks.push(await calibrate(w));
    process.stdout.write(
      `${ready.reduce((n, r) => n + r.watchers, 0)} watchers ready in ${round(setupMs / 1000, 1)} s; ` +
        `worker clock offsets ${clocks.map((c) => `${round(c.offsetMs)}±${round(c.rttMs / 2)} ms${c.applied ? ' (applied)' : ''}`).join(', ')}\n`,
    );

    const results: RoundResult[] = [];
    for (let r = -p.warmup + 1; r <= p.rounds; r++) {
      const result = await runRound(writer, workers, r, p);
      if (r > 0) results.push(result);
      await sleep(p.gapMs);
    }

    const rows: Row[] = results.map((r) => ({
      round: r.round,
      setAckMs: round(r.setAckMs),
      firstMs: round(r.firstMs),
      watcherP50Ms: round(r.watcherP50Ms),
      watcherP99Ms: round(r.watcherP99Ms),
      allNotifiedMs: round(r.allNotifiedMs),
    }));
    const all = results.map((r) => r.allNotifiedMs);
    const pooled = results.flatMap((r) => r.latencies);
    const summary = {
      allNotifiedMs: { p50: round(percentile(all, 50)), p99: round(percentile(all, 99)), max: round(Math.max(...all)), mean: round(mean(all)) },
      /** Per-watcher latency percentiles within each round, averaged over the rounds. */
      perWatcherMs: { p50: round(mean(results.map((r) => r.watcherP50Ms))), p99: round(mean(results.map((r) => r.watcherP99Ms))) },
      /** Per-watcher latencies of every round pooled. */
      perWatcherPooledMs: { p50: round(percentile(pooled, 50)), p99: round(percentile(pooled, 99)), max: round(Math.max(...pooled)) },
      setAckMs: { p50: round(percentile(results.map((r) => r.setAckMs), 50)), p99: round(percentile(results.map((r) => r.setAckMs), 99)) },
      setupMs: round(setupMs),
      clockOffsets: clocks.map((c) => ({ offsetMs: round(c.offsetMs, 4), rttMs: round(c.rttMs, 4), applied: c.applied })),
      note:
        'Watchers use ZkSession.watchData (the product persistent watch): on each event it re-arms with exists() ' +
        'and re-reads with getData() before the listener runs, so every latency includes that re-read. Latency is ' +
        'from just before setData until the listener has the new value; times are performance.timeOrigin + ' +
        'performance.now() in each process. Many sessions share one worker event loop, so per-watcher latencies ' +
        'include queueing inside the worker.',
    };

    printTable(`zk-fanout: per round (ms; ${p.watchers} watchers, ${p.processes} processes)`, rows);
    printTable('zk-fanout: summary (ms)', [
      { metric: 'all notified', p50: summary.allNotifiedMs.p50, p99: summary.allNotifiedMs.p99, max: summary.allNotifiedMs.max, mean: summary.allNotifiedMs.mean },
      { metric: 'per watcher (per-round pct, averaged)', p50: summary.perWatcherMs.p50, p99: summary.perWatcherMs.p99, max: '', mean: '' },
      { metric: 'per watcher (pooled)', p50: summary.perWatcherPooledMs.p50, p99: summary.perWatcherPooledMs.p99, max: summary.perWatcherPooledMs.max, mean: '' },
      { metric: 'setData ack', p50: summary.setAckMs.p50, p99: summary.setAckMs.p99, max: '', mean: '' },
    ]);
    process.stdout.write(`note: ${summary.note}\n`);
    writeResults('zk-fanout', { parameters: { ...p }, rows, summary, elapsedMs: round(clock() - startedAt) });
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
    await writer?.close().catch(() => undefined);
    await zk?.stop();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
