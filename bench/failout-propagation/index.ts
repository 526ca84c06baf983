// bench/failout-propagation: one write of a cluster's `failoutProperties` to ZooKeeper → N client
// states (each its own session, LoadBalancerState and ZooKeeperFailoutConfigProvider, over P
// processes) until every client's `getFailoutConfig(cluster)?.isFailedOut()` has flipped, i.e. it
// would route to the peers (or back). Rounds alternate failout and restore writes. The zk-fanout
// floor (bare watchers on one node) is measured in the same run against the same ZooKeeper, and the
// ratio reported. `npm run bench -- failout-propagation [--clients 1000] [--processes 4] [--rounds 20]`.
import { join } from 'node:path';
import { clusterPath, parseClusterProperties, serializeClusterProperties, serializeUriProperties, urisPath, type FailoutProperties } from '../../lib/d2/data';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local';
import { createLogger } from '../../lib/logging';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions, type FanoutParameters } from '../lib/args';
import { calibrate, clock, mean, sleep, spawnWorker, split, type BenchWorker, type ClockCalibration } from '../lib/workers';
import { measureZkFanout, type RoundResult as FanoutRound } from '../zk-fanout';
import type { FromWorker, ToWorker } from './protocol';

interface Parameters extends FanoutParameters {
  clients: number;
  teardownDelayMs: number;
}

const BASE = '/failout-bench/d2';
const CLUSTER = 'greetings-lor1';
const PEER = 'greetings-lva1';

function parameters(args: string[]): Parameters {
  const v = parseIntOptions(args, { clients: { default: 1000, min: 1 }, ...FANOUT_OPTIONS, 'teardown-delay-ms': { default: 60000, min: 0 } });
  return { clients: v.clients, ...fanoutParameters(v, v.clients), teardownDelayMs: v['teardown-delay-ms'] };
}

type Worker = BenchWorker<ToWorker, FromWorker>;

interface FlipRound {
  round: number;
  failedOut: boolean;
  setAckMs: number;
  latencies: number[];
  allFlippedMs: number;
}

/** The cluster document with or without a failout to the peer (the request worker's write). */
function clusterDocument(failedOut: boolean): Buffer {
  const failout: FailoutProperties | null = failedOut
    ? { redirects: [{ peer: PEER, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: 0 }] }
    : null;
  return Buffer.from(serializeClusterProperties({ ...parseClusterProperties({ clusterName: CLUSTER }), failoutProperties: failout }));
}

async function prepareClusters(writer: ZkSession): Promise<void> {
  const put = async (path: string, data: Buffer): Promise<void> => {
    if (await writer.exists(path)) await writer.set(path, data);
    else await writer.create(path, data, { parents: true, acl: OPEN_ACL });
  };
  await put(clusterPath(BASE, CLUSTER), clusterDocument(false));
  await put(clusterPath(BASE, PEER), Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: PEER }))));
  const uri = 'http://127.0.0.1:9';
  await put(`${urisPath(BASE, PEER)}/h1`, Buffer.from(serializeUriProperties({ clusterName: PEER, partitionDesc: { [uri]: { 0: 1 } }, uriSpecificProperties: {} })));
}

async function runRound(writer: ZkSession, workers: readonly Worker[], roundNo: number, failedOut: boolean, p: Parameters): Promise<FlipRound> {
  await Promise.all(workers.map((w) => w.request({ type: 'arm', round: roundNo, failedOut }, 'armed', 5000, (m) => m.round === roundNo)));
  const flipped = workers.map((w) => w.expect('flipped', p.roundTimeoutMs, (m) => m.round === roundNo));
  for (const f of flipped) f.catch(() => undefined);
  const data = clusterDocument(failedOut);
  const t0 = clock();
  await writer.set(clusterPath(BASE, CLUSTER), data);
  const setAckMs = clock() - t0;
  const replies = await Promise.all(flipped);
  const latencies = replies.flatMap((reply, i) => reply.times.map((t) => t - (workers[i]?.offsetMs ?? 0) - t0));
  return { round: roundNo, failedOut, setAckMs, latencies, allFlippedMs: Math.max(...latencies) };
}

async function measureFailout(connectString: string, p: Parameters): Promise<{ results: FlipRound[]; setupMs: number; clocks: ClockCalibration[] }> {
  const log = createLogger('bench-failout-propagation');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  let writer: ZkSession | undefined;
  const workers: Worker[] = [];
  try {
    writer = await connectSession({ connectString, sessionTimeoutMs: p.sessionTimeoutMs, logger: log });
    await prepareClusters(writer);
    const setupStarted = clock();
    split(p.clients, p.processes).forEach((n, i) => workers.push(spawnWorker<ToWorker, FromWorker>(join(__dirname, 'client-worker.ts'), i, n)));
    const init = { connectString, basePath: BASE, cluster: CLUSTER, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, teardownDelayMs: p.teardownDelayMs };
    await Promise.all(workers.map((w) => w.request({ type: 'init', ...init, clients: w.size }, 'ready', 60_000 + p.clients * 100)));
    const setupMs = clock() - setupStarted;
    const clocks: ClockCalibration[] = [];
    for (const w of workers) clocks.push(await calibrate(w));
    process.stdout.write(`${p.clients} failout clients ready in ${round(setupMs / 1000, 1)} s\n`);
    const results: FlipRound[] = [];
    // Warm-up rounds come first and start with a failout: the peer watches (kept through the restore
    // by the teardown delay) are set up outside the measured rounds, as in a service that has run a while.
    for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
      const result = await runRound(writer, workers, r, k % 2 === 0, p);
      if (r > 0) results.push(result);
      await sleep(p.gapMs);
    }
    return { results, setupMs, clocks };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await writer?.close().catch(() => undefined);
  }
}

function stats(allTimes: readonly number[], pooled: readonly number[]) {
  return {
    allP50: round(percentile(allTimes, 50)),
    allP99: round(percentile(allTimes, 99)),
    allMax: round(Math.max(...allTimes)),
    allMean: round(mean(allTimes)),
    perClientP50: round(percentile(pooled, 50)),
    perClientP99: round(percentile(pooled, 99)),
  };
}

export default async function failoutPropagation(args: string[]): Promise<void> {
  const p = parameters(args);
  const startedAt = clock();
  const log = createLogger('bench-failout-propagation');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.stdout.write(`failout-propagation: ${p.clients} clients over ${p.processes} processes, ${p.rounds} rounds + ${p.warmup} warm-up; zk-fanout baseline in the same run\n`);
  let zk: ZooKeeperServer | undefined;
  try {
    zk = await startZooKeeper();
    const fanoutParams = { watchers: p.clients, processes: p.processes, rounds: p.rounds, warmup: p.warmup, gapMs: p.gapMs, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, roundTimeoutMs: p.roundTimeoutMs };
    const fanout = await measureZkFanout(zk.connectString, fanoutParams, log);
    const failout = await measureFailout(zk.connectString, p);

    const rows: Row[] = failout.results.map((r, i) => {
      const base: FanoutRound | undefined = fanout.results[i];
      return {
        round: r.round,
        write: r.failedOut ? 'failout' : 'restore',
        setAckMs: round(r.setAckMs),
        clientP50Ms: round(percentile(r.latencies, 50)),
        clientP99Ms: round(percentile(r.latencies, 99)),
        allFlippedMs: round(r.allFlippedMs),
        fanoutAllNotifiedMs: base ? round(base.allNotifiedMs) : '',
      };
    });
    const f = stats(failout.results.map((r) => r.allFlippedMs), failout.results.flatMap((r) => r.latencies));
    const z = stats(fanout.results.map((r) => r.allNotifiedMs), fanout.results.flatMap((r) => r.latencies));
    const ratio = { p50: round(f.allP50 / z.allP50), p99: round(f.allP99 / z.allP99), perClientP99: round(f.perClientP99 / z.perClientP99) };
    printTable(`failout-propagation: per round (ms; ${p.clients} clients, ${p.processes} processes)`, rows);
    printTable('failout-propagation vs zk-fanout (ms; "all" = last client of a round, over rounds)', [
      { measurement: 'failout: all clients flipped', p50: f.allP50, p99: f.allP99, max: f.allMax, mean: f.allMean, clientP50: f.perClientP50, clientP99: f.perClientP99 },
      { measurement: 'zk-fanout: all watchers notified', p50: z.allP50, p99: z.allP99, max: z.allMax, mean: z.allMean, clientP50: z.perClientP50, clientP99: z.perClientP99 },
      { measurement: 'ratio (target p99 ≤ 1.3)', p50: ratio.p50, p99: ratio.p99, max: '', mean: '', clientP50: '', clientP99: ratio.perClientP99 },
    ]);
    writeResults('failout-propagation', {
      parameters: { ...p },
      rows,
      summary: { failout: f, zkFanout: z, ratio, setupMs: { failout: round(failout.setupMs), zkFanout: round(fanout.setupMs) } },
      note:
        'Latency: from just before setData until a client\'s LoadBalancerState has re-read the cluster, the ' +
        'provider has parsed the failout and getFailoutConfig(cluster)?.isFailedOut() answers the new way (what ' +
        'the redirect strategy reads per request). Rounds alternate failout and restore writes. The baseline is ' +
        'bench/zk-fanout (bare watchData watchers) with the same counts, run first against the same ZooKeeper.',
    });
  } finally {
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
