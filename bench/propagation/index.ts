// bench/propagation: the whole failout path. `SendMessage` of a change request to the FIFO queue
// (fauxqs) → the poller → the REAL handler (Powertools FIFO batch processor, RequestWriter: guard rails,
// one ZooKeeper multi) → N client states (each its own session, LoadBalancerState and
// ZooKeeperFailoutConfigProvider, over P processes: bench/failout-propagation's worker) until every
// client routes to the peers (or back, on restore rounds). zk-fanout (bare watchers on one node) is
// measured first in the same run against the same ZooKeeper.
// `npm run bench -- propagation [--clients 1000] [--processes 4] [--rounds 20]`.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { clusterPath, parseClusterProperties, serializeClusterProperties, serializeUriProperties, urisPath } from '../../lib/d2/data';
import { SqsPoller, startLocalSqs, startZooKeeper, type LocalSqs, type ZooKeeperServer } from '../../lib/local';
import { createLogger, type Logger } from '../../lib/logging';
import { RequestWriter } from '../../lib/requests';
import { createHandler } from '../../lib/requests/lambda';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import { FANOUT_OPTIONS, fanoutParameters, parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import { calibrate, clock, mean, sleep, spawnWorker, split, type BenchWorker } from '../lib/workers';
import type { FromWorker, ToWorker } from '../failout-propagation/protocol';
import { measureZkFanout } from '../zk-fanout';

const BASE = '/propagation-bench/d2';
const REQUESTS = '/propagation-bench/requests';
const CLUSTER = 'greetings-lor1';
const PEERS = [
  { cluster: 'greetings-lva1', weight: 2 },
  { cluster: 'greetings-ltx1', weight: 1 },
];
/** Targets of issue 8. */
const TARGET = { endToEndP99Ms: 500, writeToRerouteRatio: 1.3 } as const;

type Worker = BenchWorker<ToWorker, FromWorker>;

function parameters(args: string[]) {
  const v = parseIntOptions(args, { clients: { default: 1000, min: 1 }, ...FANOUT_OPTIONS });
  return { clients: v.clients, ...fanoutParameters(v, v.clients) };
}
type Parameters = ReturnType<typeof parameters>;

interface Round {
  round: number;
  failedOut: boolean;
  /** SendMessage call → acknowledged. */
  sendMs: number;
  /** SendMessage → the handler's ZooKeeper multi starts. */
  toWriteMs: number;
  /** Per client: SendMessage → routing flipped. */
  endToEnd: number[];
  /** Per client: ZooKeeper multi sent → routing flipped. */
  fromWrite: number[];
}

async function seed(session: ZkSession): Promise<void> {
  const put = async (path: string, data: string): Promise<void> => {
    if (await session.exists(path)) await session.set(path, Buffer.from(data));
    else await session.create(path, Buffer.from(data), { parents: true, acl: OPEN_ACL });
  };
  for (const name of [CLUSTER, ...PEERS.map((p) => p.cluster)]) {
    await put(clusterPath(BASE, name), serializeClusterProperties(parseClusterProperties({ clusterName: name })));
    const uri = `http://127.0.0.1:9/${name}`;
    await put(`${urisPath(BASE, name)}/h1`, serializeUriProperties({ clusterName: name, partitionDesc: { [uri]: { 0: 1 } }, uriSpecificProperties: {} }));
  }
}

/** The real handler over a RequestWriter whose session reports when the multi goes out. */
async function startRequestWorker(connectString: string, sqs: LocalSqs, log: Logger, onWrite: (at: number) => void): Promise<{ poller: SqsPoller; session: ZkSession }> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const session = await connectSession({ connectString, sessionTimeoutMs: 30_000, logger: log });
  const multi = session.multi.bind(session);
  // The bench's only instrumentation: the time the request's one ZooKeeper write is sent.
  session.multi = (ops) => {
    onWrite(clock());
    return multi(ops);
  };
  const writer = new RequestWriter({ session, d2BasePath: BASE, requestsPath: REQUESTS, recordAcl: OPEN_ACL });
  const handler = createHandler({
    writer,
    logger: new PowertoolsLogger({ serviceName: 'failout-requests-bench', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-bench', serviceName: 'failout-requests-bench' }),
  });
  const poller = new SqsPoller({ client: sqs.client, queueUrl: sqs.queueUrl, queueArn: sqs.queueArn, handler, waitTimeSeconds: 1, logger: log });
  poller.start();
  return { poller, session };
}

function body(failedOut: boolean): string {
  const common = { version: 1, requestId: randomUUID(), cluster: CLUSTER, requestedBy: 'bench@local' };
  return JSON.stringify(failedOut ? { ...common, action: 'failout', peers: PEERS, duration: 'PT1H', reason: 'bench' } : { ...common, action: 'restore' });
}

async function runRound(sqs: LocalSqs, workers: readonly Worker[], roundNo: number, failedOut: boolean, p: Parameters, writes: number[]): Promise<Round> {
  await Promise.all(workers.map((w) => w.request({ type: 'arm', round: roundNo, failedOut }, 'armed', 5000, (m) => m.round === roundNo)));
  const flipped = workers.map((w) => w.expect('flipped', p.roundTimeoutMs, (m) => m.round === roundNo));
  for (const f of flipped) f.catch(() => undefined);
  const text = body(failedOut);
  const requestId = (JSON.parse(text) as { requestId: string }).requestId;
  writes.length = 0;
  const t0 = clock();
  await sqs.client.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: text, MessageGroupId: CLUSTER, MessageDeduplicationId: requestId }));
  const sendMs = clock() - t0;
  const replies = await Promise.all(flipped);
  const writeAt = writes[0] ?? t0;
  const times = replies.flatMap((reply, i) => reply.times.map((t) => t - (workers[i]?.offsetMs ?? 0)));
  return { round: roundNo, failedOut, sendMs, toWriteMs: writeAt - t0, endToEnd: times.map((t) => t - t0), fromWrite: times.map((t) => t - writeAt) };
}

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

export default async function propagation(args: string[]): Promise<void> {
  const p = parameters(args);
  const startedAt = clock();
  const log = createLogger('bench-propagation');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.stdout.write(`propagation: SQS → handler → ZooKeeper → ${p.clients} clients over ${p.processes} processes, ${p.rounds} rounds + ${p.warmup} warm-up; zk-fanout in the same run\n`);
  let zk: ZooKeeperServer | undefined;
  let sqs: LocalSqs | undefined;
  let worker: { poller: SqsPoller; session: ZkSession } | undefined;
  const workers: Worker[] = [];
  try {
    zk = await startZooKeeper();
    const fanout = await measureZkFanout(zk.connectString, { watchers: p.clients, processes: p.processes, rounds: p.rounds, warmup: p.warmup, gapMs: p.gapMs, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, roundTimeoutMs: p.roundTimeoutMs }, log);
    sqs = await startLocalSqs({ name: 'propagation-bench' });
    const writes: number[] = [];
    worker = await startRequestWorker(zk.connectString, sqs, log, (at) => writes.push(at));
    await seed(worker.session);
    split(p.clients, p.processes).forEach((n, i) => workers.push(spawnWorker<ToWorker, FromWorker>(join(__dirname, '..', 'failout-propagation', 'client-worker.ts'), i, n)));
    const init = { connectString: zk.connectString, basePath: BASE, cluster: CLUSTER, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, teardownDelayMs: 60_000 };
    await Promise.all(workers.map((w) => w.request({ type: 'init', ...init, clients: w.size }, 'ready', 60_000 + p.clients * 100)));
    for (const w of workers) await calibrate(w);
    const results: Round[] = [];
    // Warm-up rounds first, starting with a failout, as in failout-propagation.
    for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
      const result = await runRound(sqs, workers, r, k % 2 === 0, p, writes);
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
