// bench/propagation --discovery xds (issue 25, "Speed"): one ZooKeeper write of a failout, by the same
// writer path as the ZooKeeper mode (SQS → poller → the real handler → one multi), → C failout clients
// (over P processes, each client its own XdsClient) reading the D2 tree from N observers (each in its
// own process, all watching the same ZooKeeper, on loopback) until every client routes to the peers
// (and back on restore rounds). At each size, in the same run and against the same ZooKeeper: the
// ZooKeeper fan-out floor (bench/zk-fanout's measureZkFanout) first, then the xDS path, then the
// transport floor (bench/grpc-fanout's measureGrpcFanout: as many servers as observers, the same
// clients and processes, raw messages the size of the response the xDS clients received, and ACKs the
// size of theirs; off with --no-grpc-floor), then (with --compare-zk) the ZooKeeper-discovery path
// with the same client worker. Each observer reports its memory before and after its clients
// subscribed and its CPU per round.
// `npm run bench -- propagation --discovery xds [--clients 1000 | --clients-series 1000,4000,10000]
// [--observers 4] [--processes 4] [--rounds 20] [--compare-zk | --no-compare-zk] [--no-grpc-floor] [--delta]`.
import { join } from 'node:path';
import { startLocalSqs, startZooKeeper, type LocalSqs, type ZooKeeperServer } from '../../lib/local';
import { createLogger, type Logger } from '../../lib/logging';
import { round } from '../lib/report';
import { calibrate, clock, sleep, spawnWorker, split, type BenchWorker } from '../lib/workers';
import { measureGrpcFanout } from '../grpc-fanout';
import { measureZkFanout } from '../zk-fanout';
import { compareZkAt, gcFlags, type XdsParameters } from './parameters';
import type { ClientDiscovery, FromClientWorker, FromObserverWorker, MemoryReply, SotwBytes, ToClientWorker, ToObserverWorker } from './protocol';
import { BASE, CLUSTER, runRound, seed, startRequestWorker, type RequestWorker, type Round, type RoundWorker } from './rounds';
import { summarizeSize, type ObserverSample, type SizeMeasurement } from './summary';
import { reportXds, type SizeSetup } from './xds-report';

type ClientWorker = BenchWorker<ToClientWorker, FromClientWorker>;
type ObserverWorker = BenchWorker<ToObserverWorker, FromObserverWorker>;

/** How long an observer keeps a watch after its last subscriber (the observer's default). */
const LINGER_MS = 10_000;

/** The observers of one size, started before their clients. */
interface ObserverTier {
  readonly workers: ObserverWorker[];
  readonly addresses: string[];
  readonly before: MemoryReply[];
}

async function startObservers(connectString: string, p: XdsParameters): Promise<ObserverTier> {
  // Compiled, as a service runs; --expose-gc so the memory readings are live objects only.
  const workers = Array.from({ length: p.observers }, (_, i) => spawnWorker<ToObserverWorker, FromObserverWorker>(join(__dirname, 'observer-worker.ts'), i, 1, 'compiled', ['--expose-gc']));
  try {
    const ready = await Promise.all(workers.map((w) => w.request({ type: 'init', connectString, basePath: BASE, sessionTimeoutMs: p.sessionTimeoutMs, lingerMs: LINGER_MS }, 'ready', 60_000)));
    for (const w of workers) await calibrate(w);
    const before = await Promise.all(workers.map((w) => w.request({ type: 'memory' }, 'memory', 10_000)));
    return { workers, addresses: ready.map((r) => r.address), before };
  } catch (err) {
    await Promise.all(workers.map((w) => w.close()));
    throw err;
  }
}

/** Starts `clients` clients over `p.processes` workers; the i-th client of the population is client i everywhere. */
async function startClients(discovery: ClientDiscovery, clients: number, p: XdsParameters): Promise<ClientWorker[]> {
  // The same young generation for both paths, so the ratio compares where the data comes from.
  const flags = gcFlags(p);
  const workers = split(clients, Math.min(p.processes, clients)).map((n, i) => spawnWorker<ToClientWorker, FromClientWorker>(join(__dirname, 'client-worker.ts'), i, n, 'compiled', flags));
  try {
    let first = 0;
    await Promise.all(
      workers.map((w) => {
        const init: ToClientWorker = { type: 'init', discovery, first, clients: w.size, basePath: BASE, cluster: CLUSTER, connectConcurrency: p.connectConcurrency, teardownDelayMs: p.teardownDelayMs };
        first += w.size;
        return w.request(init, 'ready', 60_000 + clients * 100);
      }),
    );
    for (const w of workers) await calibrate(w);
    return workers;
  } catch (err) {
    await Promise.all(workers.map((w) => w.close()));
    throw err;
  }
}

/**
 * Warm-up and measured rounds, alternating failout and restore, starting with a failout; ends with an
 * unmeasured restore when the last round was a failout, so the next path starts from home. `beforeRound`
 * and `afterRound` bracket each measured round (the observers' CPU).
 */
async function runRounds(sqs: LocalSqs, writer: RequestWorker, workers: readonly RoundWorker[], p: XdsParameters, hooks?: { before(r: number): Promise<void>; after(r: number): Promise<void> }): Promise<Round[]> {
  const rounds: Round[] = [];
  let failedOut = false;
  for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
    failedOut = k % 2 === 0;
    if (r > 0) await hooks?.before(r);
    const result = await runRound(sqs, workers, r, failedOut, p.roundTimeoutMs, writer.writes);
    if (r > 0) {
      await hooks?.after(r);
      rounds.push(result);
    }
    await sleep(p.gapMs);
  }
  if (failedOut) await runRound(sqs, workers, p.rounds + 1, false, p.roundTimeoutMs, writer.writes);
  return rounds;
}

/** The xDS path at one size: observers, clients over them, rounds; everything closed after. */
async function measureXdsPath(zk: ZooKeeperServer, sqs: LocalSqs, writer: RequestWorker, clients: number, p: XdsParameters) {
  let tier: ObserverTier | undefined;
  let workers: ClientWorker[] = [];
  try {
    tier = await startObservers(zk.connectString, p);
    const observers = tier.workers;
    const started = clock();
    workers = await startClients({ kind: 'xds', observers: tier.addresses, delta: p.delta }, clients, p);
    const setupMs = clock() - started;
    const after = await Promise.all(observers.map((w) => w.request({ type: 'memory' }, 'memory', 10_000)));
    const clientMemory = await Promise.all(workers.map((w) => w.request({ type: 'memory' }, 'memory', 10_000)));
    process.stdout.write(`${clients} xDS clients over ${observers.length} observers ready in ${round(setupMs / 1000, 1)} s; streams per observer ${after.map((a) => a.streams).join(' / ')}\n`);
    const cpuMs: number[][] = observers.map(() => []);
    const rounds = await runRounds(sqs, writer, workers, p, {
      before: async (r) => void (await Promise.all(observers.map((w) => w.request({ type: 'arm', round: r }, 'armed', 5000, (m) => m.round === r)))),
      after: async (r) => {
        const replies = await Promise.all(observers.map((w) => w.request({ type: 'cpu', round: r }, 'cpu', 5000, (m) => m.round === r)));
        replies.forEach((reply, o) => cpuMs[o]!.push(reply.cpuMs));
      },
    });
    const samples: ObserverSample[] = observers.map((_, o) => ({ before: tier!.before[o]!, after: after[o]!, streams: after[o]!.streams, cpuMs: cpuMs[o]! }));
    // After the rounds: the clients follow the cluster's peers too by then, so the response is the one they received.
    const { type: _type, ...sotw } = await workers[0]!.request({ type: 'sotwBytes' }, 'sotwBytes', 10_000);
    return { rounds, samples, setupMs, clientRssBytes: clientMemory.map((m) => m.rssBytes), sotw: sotw satisfies SotwBytes };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
    await Promise.all((tier?.workers ?? []).map((w) => w.close()));
  }
}

/** The ZooKeeper-discovery path at one size: the same client worker, each client its own session. */
async function measureZkPath(zk: ZooKeeperServer, sqs: LocalSqs, writer: RequestWorker, clients: number, p: XdsParameters) {
  let workers: ClientWorker[] = [];
  try {
    const started = clock();
    workers = await startClients({ kind: 'zookeeper', connectString: zk.connectString, sessionTimeoutMs: p.sessionTimeoutMs }, clients, p);
    const setupMs = clock() - started;
    process.stdout.write(`${clients} ZooKeeper-discovery clients ready in ${round(setupMs / 1000, 1)} s\n`);
    return { rounds: await runRounds(sqs, writer, workers, p), setupMs };
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
}

/** One size: the floor, the xDS path, the transport floor, then the ZooKeeper path if asked. */
async function measureSize(zk: ZooKeeperServer, sqs: LocalSqs, writer: RequestWorker, clients: number, p: XdsParameters, log: Logger) {
  const processes = Math.min(p.processes, clients);
  const fanout = { processes, rounds: p.rounds, warmup: p.warmup, gapMs: p.gapMs, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, roundTimeoutMs: p.roundTimeoutMs };
  const floor = await measureZkFanout(zk.connectString, { watchers: clients, ...fanout, nodeFlags: gcFlags(p) }, log);
  const xds = await measureXdsPath(zk, sqs, writer, clients, p);
  const transport = p.grpcFloor ? await measureGrpcFanout({ clients, servers: p.observers, bytes: xds.sotw.response, ackBytes: xds.sotw.ack, ...fanout, clientFlags: gcFlags(p) }, log) : undefined;
  const zkPath = compareZkAt(p, clients) ? await measureZkPath(zk, sqs, writer, clients, p) : undefined;
  const measurement: SizeMeasurement = {
    clients,
    observers: p.observers,
    xds: xds.rounds,
    floor: floor.results,
    transportFloor: transport && { rounds: transport.rounds, ...xds.sotw },
    zkPath: zkPath?.rounds,
    observerSamples: xds.samples,
  };
  const setup: SizeSetup = { floorMs: floor.setupMs, xdsClientsMs: xds.setupMs, zkClientsMs: zkPath?.setupMs, clientRssBytes: xds.clientRssBytes };
  return { measurement, summary: summarizeSize(measurement), setup };
}

export async function propagationOverXds(p: XdsParameters): Promise<void> {
  const startedAt = clock();
  const log = createLogger('bench-propagation-xds');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  process.stdout.write(
    `propagation over xDS: SQS → handler → ZooKeeper → ${p.observers} observers → ${p.sizes.join(' / ')} clients over ${p.processes} processes, ` +
      `${p.rounds} rounds + ${p.warmup} warm-up per path; the fan-out floor${p.compareZk === false ? '' : ' and the ZooKeeper path'} in the same run\n`,
  );
  let zk: ZooKeeperServer | undefined;
  let sqs: LocalSqs | undefined;
  let writer: RequestWorker | undefined;
  try {
    zk = await startZooKeeper();
    sqs = await startLocalSqs({ name: 'propagation-xds-bench' });
    writer = await startRequestWorker(zk.connectString, sqs, log);
    await seed(writer.session);
    const sizes = [];
    for (const clients of p.sizes) sizes.push(await measureSize(zk, sqs, writer, clients, p, log));
    await reportXds(sizes, p, clock() - startedAt);
  } finally {
    await writer?.poller.close();
    await writer?.session.close().catch(() => undefined);
    await sqs?.close();
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - startedAt) / 1000, 1)} s\n`);
  }
}
