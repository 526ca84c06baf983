// bench/evacuate (issue 23, "Speed"): evacuating a fabric.
// A: 100 services × 3 fabrics, 1,000 clients (one session each, over ≥ 4 processes) following 10
//    services each: SendMessage of `evacuate lor1` → every client routes every service it follows
//    away from lor1, then `restore --fabric lor1` → home again; and, in the same run, the ZooKeeper
//    fan-out floor for the same changed nodes (one multi over mirrors of the 100 cluster nodes).
// B: 1,000 services × 3 fabrics: `RequestWriter.process` of one evacuation (judgement and write) and
//    of its restore, repeated; the multi's size and whether it fit in one.
// `npm run bench -- evacuate [--part all|propagation|judgement] [--writer real|stub] [--services 100]
// [--clients 1000] [--follow 10] [--processes 4] [--rounds 20] [--judge-services 1000] [--judge-rounds 20]`.
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local';
import { createLogger } from '../../lib/logging';
import { percentile, printTable, round, type Row } from '../lib/report';
import { clock, mean } from '../lib/workers';
import { measureJudgement, type JudgedRequest, type JudgementMeasurement } from './judgement';
import { parameters, type Parameters } from './parameters';
import { measurePropagation, type PropagationMeasurement } from './propagation';
import { writeEvacuateResults } from './results';

/** Targets of issue 23. */
const TARGET = { endToEndP99Ms: 2000, floorRatioP99: 1.5, judgementP99Ms: 1000 } as const;
/** ZooKeeper's default jute.maxbuffer (0xfffff): the largest request, a multi included, it accepts. */
const JUTE_MAXBUFFER = 0xfffff;

function stats(perRound: readonly number[], pooled: readonly number[]) {
  return {
    allP50: round(percentile(perRound, 50)),
    allP99: round(percentile(perRound, 99)),
    allMax: round(Math.max(...perRound)),
    allMean: round(mean(perRound)),
    perClientP50: round(percentile(pooled, 50)),
    perClientP99: round(percentile(pooled, 99)),
  };
}
type Stats = ReturnType<typeof stats>;

const max = (xs: readonly number[]): number => Math.max(...xs);

/** Part A's figures for one direction (evacuate or restore). */
function direction(m: PropagationMeasurement, evacuated: boolean) {
  const rounds = m.rounds.filter((r) => r.evacuated === evacuated);
  const floor = m.floor.filter((r) => r.evacuated === evacuated);
  const e2e = stats(rounds.map((r) => max(r.endToEnd)), rounds.flatMap((r) => r.endToEnd));
  const fromWrite = stats(rounds.map((r) => max(r.fromWrite)), rounds.flatMap((r) => r.fromWrite));
  const toWrite = stats(rounds.map((r) => r.toWriteMs), rounds.map((r) => r.toWriteMs));
  const zk = stats(floor.map((r) => max(r.latencies)), floor.flatMap((r) => r.latencies));
  const ratio = { endToEndP99: round(e2e.allP99 / zk.allP99), writeToRoutedP99: round(fromWrite.allP99 / zk.allP99), endToEndP50: round(e2e.allP50 / zk.allP50) };
  const met = { endToEndP99: e2e.allP99 <= TARGET.endToEndP99Ms, floorRatioP99: ratio.endToEndP99 <= TARGET.floorRatioP99 };
  const bytes = evacuated ? m.documentBytes.evacuated : m.documentBytes.restored;
  // What the latencies are made of: the clients and the floor's watchers share the cores with ZooKeeper.
  const cpuPerProcessRoundMs = { clients: round(mean(rounds.flatMap((r) => r.cpuMs))), floor: round(mean(floor.flatMap((r) => r.cpuMs))) };
  return { rounds: rounds.length, endToEnd: e2e, sendToWrite: toWrite, writeToRouted: fromWrite, floor: zk, ratio, met, documentBytes: bytes.reduce((a, b) => a + b, 0), cpuPerProcessRoundMs };
}

function reportPropagation(m: PropagationMeasurement, p: Parameters) {
  const a = p.propagation;
  const rows: Row[] = m.rounds.map((r, i) => {
    const floor = m.floor[i];
    return {
      round: r.round,
      request: r.evacuated ? 'evacuate' : 'restoreFabric',
      sendMs: round(r.sendMs),
      sendToWriteMs: round(r.toWriteMs),
      multiOps: r.multi?.ops ?? '',
      e2eP50Ms: round(percentile(r.endToEnd, 50)),
      e2eAllMs: round(max(r.endToEnd)),
      writeToAllMs: round(max(r.fromWrite)),
      floorAllMs: floor ? round(max(floor.latencies)) : '',
    };
  });
  const evacuate = direction(m, true);
  const restore = direction(m, false);
  printTable(`evacuate A: per round (ms; ${a.clients} clients × ${a.follow} of ${a.services} services, ${a.processes} processes; "all" = the last client)`, rows);
  const summaryRows: Row[] = [];
  for (const [name, d] of [['evacuate', evacuate], ['restore', restore]] as const) {
    const line = (measurement: string, s: Stats): Row => ({ measurement: `${name}: ${measurement}`, ...s });
    summaryRows.push(
      line(`SQS send → all clients routed (target p99 ≤ ${TARGET.endToEndP99Ms})`, d.endToEnd),
      { ...line('SQS send → writer multi', d.sendToWrite), perClientP50: '', perClientP99: '' },
      line('writer multi → all clients routed', d.writeToRouted),
      line(`floor: one multi of ${a.services} nodes → all watchers read back`, d.floor),
      { measurement: `${name}: ratio send→routed / floor (target p99 ≤ ${TARGET.floorRatioP99})`, allP50: d.ratio.endToEndP50, allP99: d.ratio.endToEndP99, allMax: '', allMean: '', perClientP50: '', perClientP99: '' },
      { measurement: `${name}: ratio multi→routed / floor`, allP50: '', allP99: d.ratio.writeToRoutedP99, allMax: '', allMean: '', perClientP50: '', perClientP99: '' },
      { measurement: `${name}: CPU per process and round, clients / floor`, allP50: '', allP99: '', allMax: '', allMean: `${d.cpuPerProcessRoundMs.clients} / ${d.cpuPerProcessRoundMs.floor}`, perClientP50: '', perClientP99: '' },
    );
  }
  printTable('evacuate A vs the fan-out floor (ms; over rounds, "all" = the last client of a round; perClient = pooled)', summaryRows);
  for (const [name, d] of [['evacuate', evacuate], ['restore', restore]] as const) {
    process.stdout.write(
      `target ${name}: p99 ${d.endToEnd.allP99} ms ${d.met.endToEndP99 ? 'MET' : 'MISSED'}; ratio to floor p99 ${d.ratio.endToEndP99} ${d.met.floorRatioP99 ? 'MET' : 'MISSED'}\n`,
    );
  }
  const setupMs = { seed: round(m.setupMs.seed), clients: round(m.setupMs.clients), floor: round(m.setupMs.floor) };
  return { rows, summary: { evacuate, restore, setupMs, nodesSeeded: m.nodesSeeded } };
}

function requestStats(requests: readonly JudgedRequest[]) {
  const ms = requests.map((r) => r.ms);
  const multiMs = requests.map((r) => r.multiMs);
  const largest = requests.map((r) => r.largest).filter((l) => l !== undefined);
  const evacuation = requests.map((r) => r.outcome.evacuation).find((e) => e !== undefined);
  return {
    p50Ms: round(percentile(ms, 50)),
    p99Ms: round(percentile(ms, 99)),
    maxMs: round(max(ms)),
    multiP50Ms: round(percentile(multiMs, 50)),
    multiP99Ms: round(percentile(multiMs, 99)),
    multisPerRequest: max(requests.map((r) => r.multis)),
    readsPerRequest: max(requests.map((r) => r.reads)),
    largestMultiOps: largest.length ? max(largest.map((l) => l.ops)) : 0,
    largestMultiBytes: largest.length ? max(largest.map((l) => l.bytes)) : 0,
    evacuation,
  };
}

/** What failed in part B, if anything: the error and the multis the failing call sent. */
function describeFailure(m: JudgementMeasurement) {
  const f = m.failure;
  if (!f) return undefined;
  const multis = f.multis.map((t) => ({ ops: t.ops, bytes: t.bytes, ok: t.ok, ms: round(t.doneAt - t.sentAt) }));
  const largestBytes = multis.reduce((n, t) => Math.max(n, t.bytes), 0);
  const failure = { round: f.round, request: f.request, error: f.error, ms: round(f.ms), reads: f.reads, multis, largestBytes, overJuteMaxBuffer: largestBytes > JUTE_MAXBUFFER };
  process.stdout.write(
    `evacuate B FAILED in round ${f.round} (${f.request}) after ${failure.ms} ms and ${f.reads} reads: ${f.error}; ` +
      `multis sent: ${multis.map((t) => `${t.ops} ops / ${t.bytes} bytes ${t.ok ? 'ok' : 'FAILED'}`).join(', ') || 'none'}` +
      (failure.overJuteMaxBuffer ? ` (over jute.maxbuffer ${JUTE_MAXBUFFER}: ZooKeeper drops the connection on a request that large)` : '') +
      '\n',
  );
  return failure;
}

function reportJudgement(m: JudgementMeasurement, p: Parameters) {
  const b = p.judgement;
  const failure = describeFailure(m);
  if (m.rounds.length === 0) return { rows: [], summary: { failure, seedMs: round(m.seedMs), nodesSeeded: m.nodesSeeded } };
  const rows: Row[] = m.rounds.map((r) => ({
    round: r.round,
    evacuateMs: round(r.evacuate.ms),
    evacuateMultiMs: round(r.evacuate.multiMs),
    evacuateMultis: r.evacuate.multis,
    evacuateReads: r.evacuate.reads,
    mode: r.evacuate.outcome.evacuation?.mode ?? '',
    multiBytes: r.evacuate.outcome.evacuation?.multiBytes ?? '',
    restoreMs: round(r.restore.ms),
    restoreMultiMs: round(r.restore.multiMs),
    restoreMultis: r.restore.multis,
    restoreReads: r.restore.reads,
  }));
  const evacuate = requestStats(m.rounds.map((r) => r.evacuate));
  const restore = requestStats(m.rounds.map((r) => r.restore));
  const fit = {
    mode: evacuate.evacuation?.mode ?? 'unknown',
    clusters: evacuate.evacuation?.clusters ?? null,
    recordMultiBytes: evacuate.evacuation?.multiBytes ?? null,
    observedLargestMultiBytes: evacuate.largestMultiBytes,
    observedLargestMultiOps: evacuate.largestMultiOps,
    juteMaxBuffer: JUTE_MAXBUFFER,
    shareOfJuteMaxBuffer: round(evacuate.largestMultiBytes / JUTE_MAXBUFFER),
    fitInOneMulti: evacuate.evacuation?.mode === 'multi',
  };
  const met = { evacuateP99: evacuate.p99Ms <= TARGET.judgementP99Ms, restoreP99: restore.p99Ms <= TARGET.judgementP99Ms };
  printTable(`evacuate B: RequestWriter.process per round (ms; ${b.services} services × 3 fabrics, ${b.hosts} hosts per cluster)`, rows);
  const line = (name: string, s: ReturnType<typeof requestStats>): Row => ({
    request: name,
    p50Ms: s.p50Ms,
    p99Ms: s.p99Ms,
    maxMs: s.maxMs,
    multiP50Ms: s.multiP50Ms,
    multiP99Ms: s.multiP99Ms,
    multis: s.multisPerRequest,
    reads: s.readsPerRequest,
    largestOps: s.largestMultiOps,
    largestBytes: s.largestMultiBytes,
  });
  printTable(`evacuate B: judgement + write (target p99 ≤ ${TARGET.judgementP99Ms} ms)`, [line('evacuate', evacuate), line('restoreFabric', restore)]);
  process.stdout.write(
    `evacuation write: mode ${fit.mode}, ${String(fit.clusters)} clusters, record multiBytes ${String(fit.recordMultiBytes)}, ` +
      `largest multi ${fit.observedLargestMultiOps} ops / ${fit.observedLargestMultiBytes} bytes of paths and data (${round(fit.shareOfJuteMaxBuffer * 100, 1)} % of jute.maxbuffer); ` +
      `target p99: evacuate ${evacuate.p99Ms} ms ${met.evacuateP99 ? 'MET' : 'MISSED'}, restore ${restore.p99Ms} ms ${met.restoreP99 ? 'MET' : 'MISSED'}\n`,
  );
  return { rows, summary: { evacuate, restore, fit, met, failure, seedMs: round(m.seedMs), nodesSeeded: m.nodesSeeded } };
}

export default async function evacuate(args: string[]): Promise<void> {
  const p = parameters(args);
  const startedAt = clock();
  const log = createLogger('bench-evacuate');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const a = p.propagation;
  process.stdout.write(
    `evacuate (${p.writer} writer): ` +
      (p.part !== 'judgement' ? `A ${a.services} services × 3 fabrics, ${a.clients} clients × ${a.follow} services over ${a.processes} processes, ${a.rounds} rounds + ${a.warmup} warm-up; ` : '') +
      (p.part !== 'propagation' ? `B ${p.judgement.services} services × 3 fabrics, ${p.judgement.rounds} evacuate + restore rounds` : '') +
      '\n',
  );
  let zk: ZooKeeperServer | undefined;
  try {
    let propagation: ReturnType<typeof reportPropagation> | undefined;
    if (p.part !== 'judgement') {
      zk = await startZooKeeper();
      propagation = reportPropagation(await measurePropagation(zk.connectString, a, p.writer, log), p);
      await zk.close();
      zk = undefined;
    }
    const judgement = p.part !== 'propagation' ? reportJudgement(await measureJudgement(p.judgement, p.writer, log), p) : undefined;
    const at = new Date().toISOString();
    writeEvacuateResults(
      {
        ...(propagation ? { propagation: { at, parameters: { writer: p.writer, ...a }, ...propagation } } : {}),
        ...(judgement ? { judgement: { at, parameters: { writer: p.writer, ...p.judgement }, ...judgement } } : {}),
      },
      {
        parameters: { ...p },
        targets: TARGET,
        elapsedMs: round(clock() - startedAt),
        note:
          'A: from just before SendMessage (fauxqs FIFO, group failout/fabrics) until a client routes EVERY service it follows ' +
          'as the round says: evacuated = getFailoutConfig(<service>-lor1) failed out in all 100 buckets with every peer outside ' +
          'lor1; restored = not failed out (what the redirect strategy reads per request). The poller (WaitTimeSeconds 1) runs ' +
          'the real failout-requests handler over the writer. The floor: the same number of bare watchData watchers (one ' +
          'session each, same processes) following mirrors of the same clusters, one multi writing all mirrors with data ' +
          'of the sizes the writer left in the cluster nodes; it runs after the clients are closed, against the same ' +
          'ZooKeeper. B: RequestWriter.process called directly (no queue) on its own ZooKeeper; multiMs is the time inside ' +
          'the multis the call sent; byte counts are paths plus data (jute framing adds a little). A part not run is ' +
          'carried over from the previous file (parts.<part>.carriedOver, with its own time).',
      },
    );
  } finally {
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
