// bench/propagation: the whole failout path. `SendMessage` of a change request to the FIFO queue
// (fauxqs) → the poller → the REAL handler (Powertools FIFO batch processor, RequestWriter: guard rails,
// one ZooKeeper multi) → N client states (each its own session, LoadBalancerState and
// ZooKeeperFailoutConfigProvider, over P processes: bench/failout-propagation's worker) until every
// client routes to the peers (or back, on restore rounds). zk-fanout (bare watchers on one node) is
// measured first in the same run against the same ZooKeeper.
// `npm run bench -- propagation [--clients 1000] [--processes 4] [--rounds 20]`.
// `--discovery xds` (issue 25): the same writes to clients reading through a tier of D2 observers over
// xDS instead (xds.ts), with the floor and the ZooKeeper path at the same size in the same run.
import { join } from 'node:path';
import { startLocalSqs, startZooKeeper, type LocalSqs, type ZooKeeperServer } from '../../lib/local';
import { createLogger } from '../../lib/logging';
import { overRounds as stats, percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { calibrate, clock, sleep, spawnWorker, split, type BenchWorker } from '../lib/workers';
import type { FromWorker, ToWorker } from '../failout-propagation/protocol';
import { measureZkFanout } from '../zk-fanout';
import { gcFlags, parameters, type ZooKeeperParameters } from './parameters';
import { BASE, CLUSTER, runRound, seed, startRequestWorker, type RequestWorker, type Round } from './rounds';
import { propagationOverXds } from './xds';

/** Targets of issue 8. */
const TARGET = { endToEndP99Ms: 500, writeToRerouteRatio: 1.3 } as const;

type Worker = BenchWorker<ToWorker, FromWorker>;

export default async function propagation(args: string[]): Promise<void> {
  const p = parameters(args);
  if (p.discovery === 'xds') return propagationOverXds(p);
  return propagationOverZooKeeper(p);
}

/** The ZooKeeper mode: what `npm run bench -- propagation` has always measured. */
async function propagationOverZooKeeper(p: ZooKeeperParameters): Promise<void> {
  const startedAt = clock();
  const log = createLogger('bench-propagation');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.stdout.write(`propagation: SQS → handler → ZooKeeper → ${p.clients} clients over ${p.processes} processes, ${p.rounds} rounds + ${p.warmup} warm-up; zk-fanout in the same run\n`);
  let zk: ZooKeeperServer | undefined;
  let sqs: LocalSqs | undefined;
  let worker: RequestWorker | undefined;
  const workers: Worker[] = [];
  try {
    zk = await startZooKeeper();
    const fanout = await measureZkFanout(zk.connectString, { watchers: p.clients, processes: p.processes, rounds: p.rounds, warmup: p.warmup, gapMs: p.gapMs, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, roundTimeoutMs: p.roundTimeoutMs, nodeFlags: gcFlags(p) }, log);
    sqs = await startLocalSqs({ name: 'propagation-bench' });
    worker = await startRequestWorker(zk.connectString, sqs, log);
    await seed(worker.session);
    split(p.clients, p.processes).forEach((n, i) => workers.push(spawnWorker<ToWorker, FromWorker>(join(__dirname, '..', 'failout-propagation', 'client-worker.ts'), i, n, 'tsx', gcFlags(p))));
    const init = { connectString: zk.connectString, basePath: BASE, cluster: CLUSTER, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, teardownDelayMs: 60_000 };
    await Promise.all(workers.map((w) => w.request({ type: 'init', ...init, clients: w.size }, 'ready', 60_000 + p.clients * 100)));
    for (const w of workers) await calibrate(w);
    const results: Round[] = [];
    // Warm-up rounds first, starting with a failout, as in failout-propagation.
    for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
      const result = await runRound(sqs, workers, r, k % 2 === 0, p.roundTimeoutMs, worker.writes);
      if (r > 0) results.push(result);
      await sleep(p.gapMs);
    }

    const rows: Row[] = results.map((r) => ({
      round: r.round,
      request: r.failedOut ? 'failout' : 'restore',
      sendMs: round(r.sendMs),
      sendToWriteMs: round(r.toWriteMs),
      e2eP50Ms: round(percentile(r.endToEnd, 50)),
      e2eAllMs: round(Math.max(...r.endToEnd)),
      writeToAllMs: round(Math.max(...r.fromWrite)),
      fanoutAllMs: fanout.results[r.round - 1] ? round(fanout.results[r.round - 1]!.allNotifiedMs) : '',
    }));
    const e2e = stats(results.map((r) => Math.max(...r.endToEnd)), results.flatMap((r) => r.endToEnd));
    const fromWrite = stats(results.map((r) => Math.max(...r.fromWrite)), results.flatMap((r) => r.fromWrite));
    const z = stats(fanout.results.map((r) => r.allNotifiedMs), fanout.results.flatMap((r) => r.latencies));
    const toWrite = stats(results.map((r) => r.toWriteMs), results.map((r) => r.toWriteMs));
    const ratio = { p50: round(fromWrite.allP50 / z.allP50), p99: round(fromWrite.allP99 / z.allP99) };
    const verdict = { endToEndP99: e2e.allP99 <= TARGET.endToEndP99Ms, writeToRerouteRatioP99: ratio.p99 <= TARGET.writeToRerouteRatio };
    printTable(`propagation: per round (ms; ${p.clients} clients, ${p.processes} processes; "all" = the last client)`, rows);
    printTable('propagation vs zk-fanout (ms; over rounds, "all" = last client of a round)', [
      { measurement: `SQS send → all clients rerouted (target p99 ≤ ${TARGET.endToEndP99Ms})`, ...e2e },
      { measurement: 'SQS send → handler write', ...toWrite, perClientP50: '', perClientP99: '' },
      { measurement: 'ZooKeeper write → all clients rerouted', ...fromWrite },
      { measurement: 'zk-fanout: setData → all watchers notified', ...z },
      { measurement: `ratio write→rerouted / fan-out (target p99 ≤ ${TARGET.writeToRerouteRatio})`, allP50: ratio.p50, allP99: ratio.p99, allMax: '', allMean: '', perClientP50: '', perClientP99: '' },
    ]);
    process.stdout.write(`targets: end-to-end p99 ${e2e.allP99} ms ${verdict.endToEndP99 ? 'MET' : 'MISSED'}; write→rerouted / fan-out p99 ${ratio.p99} ${verdict.writeToRerouteRatioP99 ? 'MET' : 'MISSED'}\n`);
    writeResults('propagation', {
      parameters: { ...p },
      rows,
      summary: { endToEnd: e2e, sendToWrite: toWrite, writeToRerouted: fromWrite, zkFanout: z, ratio, targets: TARGET, met: verdict },
      note:
        'End to end: from just before SendMessage until a client\'s getFailoutConfig(cluster)?.isFailedOut() answers the ' +
        'new way (what the redirect strategy reads per request). The write time is when the handler\'s RequestWriter ' +
        'sends its one ZooKeeper multi. Rounds alternate failout (to lva1:2, ltx1:1) and restore requests. The poller ' +
        'long-polls with WaitTimeSeconds 1, as the local stack does.',
    });
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await worker?.poller.close();
    await worker?.session.close().catch(() => undefined);
    await sqs?.close();
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
