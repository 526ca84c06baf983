// bench/zk-fanout: one setData, N watchers each on its own ZooKeeper session, spread over P processes.
// Measures the time from just before the `set` call until every watcher's listener has the new value:
// the physical floor for failout propagation. `npm run bench -- zk-fanout [--watchers 1000]
// [--processes 4] [--rounds 20] [--warmup 2] [--gap-ms 100]`.
import { join } from 'node:path';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local';
import { createLogger, type Logger } from '../../lib/logging';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions, type FanoutParameters } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { calibrate, clock, mean, sleep, spawnWorker, split, type BenchWorker, type ClockCalibration } from '../lib/workers';
import type { FromWorker, ToWorker } from './protocol';

/** Parameters of a zk-fanout measurement. */
export interface Parameters extends FanoutParameters {
  watchers: number;
  /** Node flags of the watcher processes (a benchmark that compares gives its own clients the same ones). */
  nodeFlags?: readonly string[];
}

/** The node written each round. */
export const PATH = '/failout-bench/zk-fanout/node';

/** Parses `--watchers … --processes …` into {@link Parameters}. */
export function parameters(args: string[]): Parameters {
  const v = parseIntOptions(args, { watchers: { default: 1000, min: 1 }, ...FANOUT_OPTIONS });
  return { watchers: v.watchers, ...fanoutParameters(v, v.watchers) };
}

type Worker = BenchWorker<ToWorker, FromWorker>;

/** One measured round. */
export interface RoundResult {
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

/** What {@link measureZkFanout} measured. */
export interface ZkFanoutMeasurement {
  results: RoundResult[];
  setupMs: number;
  clocks: ClockCalibration[];
}

/**
 * Runs the measurement against a ZooKeeper already running at `connectString`: creates the node,
 * starts the watcher processes, runs the warm-up and measured rounds, and stops the workers.
 * Reused by bench/failout-propagation to measure its baseline in the same run.
 */
export async function measureZkFanout(connectString: string, p: Parameters, log: Logger): Promise<ZkFanoutMeasurement> {
  let writer: ZkSession | undefined;
  const workers: Worker[] = [];
  try {
    writer = await connectSession({ connectString, sessionTimeoutMs: p.sessionTimeoutMs, logger: log });
    if (!(await writer.exists(PATH))) await writer.create(PATH, Buffer.from('initial'), { parents: true, acl: OPEN_ACL });

    const setupStarted = clock();
    split(p.watchers, p.processes).forEach((n, i) => workers.push(spawnWorker<ToWorker, FromWorker>(join(__dirname, 'watcher-worker.ts'), i, n, 'tsx', p.nodeFlags ?? [])));
    const setupTimeoutMs = 60_000 + p.watchers * 100;
    const ready = await Promise.all(
      workers.map((w) =>
        w.request(
          { type: 'init', connectString, path: PATH, watchers: w.size, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency },
          'ready',
          setupTimeoutMs,
        ),
      ),
    );
    const setupMs = clock() - setupStarted;
    const clocks: ClockCalibration[] = [];
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
    return { results, setupMs, clocks };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await writer?.close().catch(() => undefined);
  }
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
  try {
    zk = await startZooKeeper();
    const { results, setupMs, clocks } = await measureZkFanout(zk.connectString, p, log);

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
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
