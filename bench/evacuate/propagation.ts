// bench/evacuate, part A: one evacuation from the queue to every client. `SendMessage` of `evacuate
// lor1` (then `restore --fabric lor1`) to the FIFO queue (fauxqs) → the poller → the REAL
// failout-requests handler (Powertools FIFO batch) → the writer's judgement and multi → C clients
// (client-worker.ts, over P processes) until every client routes every service it follows away from
// lor1 (or home again). Then, in the same run and against the same ZooKeeper, the fan-out floor for
// the same changed nodes: C bare watchers following mirrors of the same clusters, one multi writing
// all of them with data of the sizes the worker wrote, until every watcher has read all its nodes back.
import { join } from 'node:path';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { clusterPath, DEFAULT_BASE_PATH } from '../../lib/d2/data';
import { SqsPoller, startLocalSqs, type LocalSqs } from '../../lib/local';
import type { Logger } from '../../lib/logging';
import { RequestWriter } from '../../lib/requests';
import { createHandler } from '../../lib/requests/lambda';
import { connectSession, OPEN_ACL, type MultiOp, type ZkSession } from '../../lib/zk';
import { calibrate, clock, sleep, spawnWorker, split, type BenchWorker } from '../lib/workers';
import { EVACUATED, evacuateRequest, evacuatedCluster, FABRIC_GROUP, floorValue, inMultis, restoreRequest, seedFabrics, type BenchRequest } from './fabric';
import { largestMulti, tapMultis, type TappedMulti } from './session-tap';
import type { PropagationParameters, WriterKind } from './parameters';
import { FIRST_MEASURED_ROUND, type FromWorker, type ToClientWorker, type ToFloorWorker } from './protocol';
import { StubEvacuationWriter } from './stub-writer';
import { applied, describeOutcome, type OutcomeSummary, summarize } from './outcome';

type ClientWorker = BenchWorker<ToClientWorker, FromWorker>;

/** The mirror nodes of the floor: one per evacuated cluster, outside the D2 tree. */
const FLOOR_PATH = '/evacuate-bench/floor';

/** One measured evacuate or restore. */
export interface PropagationRound {
  round: number;
  evacuated: boolean;
  /** SendMessage call → acknowledged. */
  sendMs: number;
  /** SendMessage → the writer's multi is sent. */
  toWriteMs: number;
  /** Per client: SendMessage → every followed service routed as wanted. */
  endToEnd: number[];
  /** Per client: the writer's multi sent → every followed service routed as wanted. */
  fromWrite: number[];
  /** The writer's largest multi of the round (its write of the cluster nodes). */
  multi: TappedMulti | undefined;
  outcome: OutcomeSummary;
  /** Per client process: CPU ms from armed to its last client routed. */
  cpuMs: number[];
}

/** One floor round: one multi over the mirrors of every evacuated cluster. */
export interface FloorRound {
  round: number;
  /** Written with the sizes of the evacuate write (true) or of the restore write. */
  evacuated: boolean;
  setAckMs: number;
  /** Per watcher: multi sent → every node it follows read back. */
  latencies: number[];
  /** Per floor process: CPU ms from armed to its last watcher done. */
  cpuMs: number[];
}

export interface PropagationMeasurement {
  rounds: PropagationRound[];
  floor: FloorRound[];
  setupMs: { seed: number; clients: number; floor: number };
  /** Bytes of every evacuated cluster's document after an evacuate and after a restore (the floor writes these sizes). */
  documentBytes: { evacuated: number[]; restored: number[] };
  nodesSeeded: number;
}

/** The request worker: the real handler over the chosen writer, behind a poller, its multis tapped. */
interface RequestWorker {
  poller: SqsPoller;
  session: ZkSession;
  tapped: TappedMulti[];
  board: OutcomeBoard;
}

/** Where the handler posts each outcome: kept by request id, and told to the round waiting for it. */
interface OutcomeBoard {
  readonly outcomes: Map<string, OutcomeSummary>;
  onOutcome: ((summary: OutcomeSummary) => void) | undefined;
}

async function startRequestWorker(connectString: string, sqs: LocalSqs, writerKind: WriterKind, log: Logger): Promise<RequestWorker> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const session = await connectSession({ connectString, sessionTimeoutMs: 30_000, logger: log });
  const tapped = tapMultis(session);
  const writer = writerKind === 'stub' ? new StubEvacuationWriter(session, DEFAULT_BASE_PATH) : new RequestWriter({ session, recordAcl: OPEN_ACL, retention: false });
  const board: OutcomeBoard = { outcomes: new Map(), onOutcome: undefined };
  const handler = createHandler({
    writer: {
      process: async (body, meta) => {
        const outcome = await writer.process(body, meta);
        const summary = summarize(outcome);
        board.outcomes.set(summary.requestId, summary);
        board.onOutcome?.(summary);
        return outcome;
      },
    },
    logger: new PowertoolsLogger({ serviceName: 'failout-requests-bench', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-bench', serviceName: 'failout-requests-bench' }),
  });
  const poller = new SqsPoller({ client: sqs.client, queueUrl: sqs.queueUrl, queueArn: sqs.queueArn, handler, waitTimeSeconds: 1, logger: log });
  poller.start();
  return { poller, session, tapped, board };
}

/** Resolves with the request's outcome once the writer has returned it; rejects if it was not applied. */
function appliedOutcome(board: OutcomeBoard, requestId: string, timeoutMs: number): Promise<OutcomeSummary> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no outcome for ${requestId} within ${timeoutMs} ms`)), timeoutMs);
    const settle = (s: OutcomeSummary): void => {
      clearTimeout(timer);
      board.onOutcome = undefined;
      if (applied(s)) resolve(s);
      else reject(new Error(`the writer did not apply the request: ${describeOutcome(s)}`));
    };
    const known = board.outcomes.get(requestId);
    if (known) return settle(known);
    board.onOutcome = (s) => void (s.requestId === requestId && settle(s));
  });
}

async function runRound(sqs: LocalSqs, worker: RequestWorker, workers: readonly ClientWorker[], roundNo: number, evacuated: boolean, p: PropagationParameters): Promise<PropagationRound> {
  await Promise.all(workers.map((w) => w.request({ type: 'arm', round: roundNo, evacuated }, 'armed', 5000, (m) => m.round === roundNo)));
  const done = workers.map((w) => w.expect('done', p.roundTimeoutMs, (m) => m.round === roundNo));
  for (const d of done) d.catch(() => undefined);
  const request: BenchRequest = evacuated ? evacuateRequest(`round ${roundNo}`) : restoreRequest(`round ${roundNo}`);
  const outcome = appliedOutcome(worker.board, request.requestId, p.roundTimeoutMs);
  outcome.catch(() => undefined);
  worker.tapped.length = 0;
  const t0 = clock();
  await sqs.client.send(new SendMessageCommand({ QueueUrl: sqs.queueUrl, MessageBody: request.body, MessageGroupId: FABRIC_GROUP, MessageDeduplicationId: request.requestId }));
  const sendMs = clock() - t0;
  // A rejected request fails the round at once instead of at the clients' timeout.
  const [summary, replies] = await Promise.all([outcome, Promise.all(done)]);
  const multi = largestMulti(worker.tapped);
  const writeAt = multi?.sentAt ?? t0;
  const times = replies.flatMap((reply, i) => reply.times.map((t) => t - (workers[i]?.offsetMs ?? 0)));
  return { round: roundNo, evacuated, sendMs, toWriteMs: writeAt - t0, endToEnd: times.map((t) => t - t0), fromWrite: times.map((t) => t - writeAt), multi, outcome: summary, cpuMs: replies.map((reply) => reply.cpuMs) };
}

/** Data bytes of every evacuated cluster's node, in service order. */
async function documentSizes(session: ZkSession, services: number): Promise<number[]> {
  return Promise.all(Array.from({ length: services }, async (_, i) => (await session.exists(clusterPath(DEFAULT_BASE_PATH, evacuatedCluster(i))))?.dataLength ?? 0));
}

async function spawnAll<To extends ToClientWorker | ToFloorWorker>(script: string, p: PropagationParameters, init: (first: number, count: number) => To): Promise<BenchWorker<To, FromWorker>[]> {
  const workers: BenchWorker<To, FromWorker>[] = [];
  // Compiled, as a service runs the library (tsx's per-closure `__name` is no part of the product);
  // the clients and the floor's watchers alike.
  // The same young generation for both, so the ratio compares the library with the bare watchers under one runtime.
  // --expose-gc: every worker settles its heap after setup and again before the last warm-up round (`settleHeap`, FIRST_MEASURED_ROUND).
  const flags = ['--expose-gc', ...(p.semiSpaceMb > 0 ? [`--max-semi-space-size=${p.semiSpaceMb}`] : [])];
  split(p.clients, p.processes).forEach((n, i) => workers.push(spawnWorker<To, FromWorker>(join(__dirname, script), i, n, 'compiled', flags)));
  try {
    let first = 0;
    await Promise.all(
      workers.map((w) => {
        const message = init(first, w.size);
        first += w.size;
        return w.request(message, 'ready', 60_000 + p.clients * p.follow * 50);
      }),
    );
    for (const w of workers) await calibrate(w);
    return workers;
  } catch (err) {
    await Promise.all(workers.map((w) => w.close()));
    throw err;
  }
}

/** The floor: watchers on mirrors of the evacuated clusters, `rounds` multis alternating the evacuate and restore sizes. */
async function measureFloor(connectString: string, writer: ZkSession, sizes: PropagationMeasurement['documentBytes'], p: PropagationParameters): Promise<{ rounds: FloorRound[]; setupMs: number }> {
  const paths = Array.from({ length: p.services }, (_, i) => `${FLOOR_PATH}/${evacuatedCluster(i)}`);
  await writer.ensurePath(FLOOR_PATH, OPEN_ACL);
  const existing = new Set((await writer.children(FLOOR_PATH)).children);
  await inMultis(writer, paths.filter((path) => !existing.has(path.slice(FLOOR_PATH.length + 1))).map((path): MultiOp => ({ op: 'create', path, data: Buffer.from('initial'), acl: OPEN_ACL })));
  const started = clock();
  const common = { connectString, services: p.services, follow: p.follow, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, floorPath: FLOOR_PATH };
  const workers = await spawnAll<ToFloorWorker>('floor-worker.ts', p, (first, count) => ({ type: 'init', ...common, first, count }));
  const setupMs = clock() - started;
  const rounds: FloorRound[] = [];
  try {
    for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
      const evacuated = k % 2 === 0;
      const token = `floor-${r}-${process.pid}-${clock()}`;
      await Promise.all(workers.map((w) => w.request({ type: 'arm', round: r, token }, 'armed', 5000, (m) => m.round === r)));
      const done = workers.map((w) => w.expect('done', p.roundTimeoutMs, (m) => m.round === r));
      for (const d of done) d.catch(() => undefined);
      const bytes = evacuated ? sizes.evacuated : sizes.restored;
      const ops = paths.map((path, i): MultiOp => ({ op: 'set', path, data: floorValue(token, bytes[i] ?? 0), version: -1 }));
      const t0 = clock();
      await writer.multi(ops);
      const setAckMs = clock() - t0;
      const replies = await Promise.all(done);
      const latencies = replies.flatMap((reply, i) => reply.times.map((t) => t - (workers[i]?.offsetMs ?? 0) - t0));
      if (r >= FIRST_MEASURED_ROUND) rounds.push({ round: r, evacuated, setAckMs, latencies, cpuMs: replies.map((reply) => reply.cpuMs) });
      await sleep(p.gapMs);
    }
  } finally {
    await Promise.all(workers.map((w) => w.close()));
  }
  return { rounds, setupMs };
}

/**
 * Runs part A against the ZooKeeper at `connectString` (which must hold no D2 tree yet): seeds the
 * fabrics, starts fauxqs and the request worker, the clients, runs the warm-up and measured rounds
 * (evacuate, restore, …), then the floor with the clients gone.
 */
export async function measurePropagation(connectString: string, p: PropagationParameters, writerKind: WriterKind, log: Logger): Promise<PropagationMeasurement> {
  let sqs: LocalSqs | undefined;
  let worker: RequestWorker | undefined;
  let clients: ClientWorker[] = [];
  try {
    sqs = await startLocalSqs({ name: 'evacuate-bench' });
    worker = await startRequestWorker(connectString, sqs, writerKind, log);
    const seedStarted = clock();
    const nodesSeeded = await seedFabrics(worker.session, DEFAULT_BASE_PATH, p.services, p.hosts);
    const seedMs = clock() - seedStarted;
    const clientsStarted = clock();
    const common = { connectString, basePath: DEFAULT_BASE_PATH, fabric: EVACUATED, services: p.services, follow: p.follow, sessionTimeoutMs: p.sessionTimeoutMs, connectConcurrency: p.connectConcurrency, teardownDelayMs: p.teardownDelayMs };
    clients = await spawnAll<ToClientWorker>('client-worker.ts', p, (first, count) => ({ type: 'init', ...common, first, count }));
    const clientsMs = clock() - clientsStarted;
    process.stdout.write(`${p.clients} clients following ${p.follow} of ${p.services} services each ready in ${Math.round(clientsMs / 100) / 10} s\n`);
    const rounds: PropagationRound[] = [];
    const documentBytes = { evacuated: [] as number[], restored: [] as number[] };
    // Warm-up rounds first, starting with an evacuation: the clients' peer watches (kept through the
    // restore by the teardown delay) are set up outside the measured rounds, as in a service that has run a while.
    for (let r = -p.warmup + 1, k = 0; r <= p.rounds; r++, k++) {
      const evacuated = k % 2 === 0;
      const result = await runRound(sqs, worker, clients, r, evacuated, p);
      if (r >= FIRST_MEASURED_ROUND) rounds.push(result);
      const sizes = evacuated ? documentBytes.evacuated : documentBytes.restored;
      if (r >= FIRST_MEASURED_ROUND && sizes.length === 0) sizes.push(...(await documentSizes(worker.session, p.services)));
      await sleep(p.gapMs);
    }
    await Promise.all(clients.map((w) => w.close()));
    clients = [];
    await worker.poller.close();
    // Fewer than two measured rounds: the floor writes the sizes it has for both.
    if (documentBytes.restored.length === 0) documentBytes.restored.push(...documentBytes.evacuated);
    const floor = await measureFloor(connectString, worker.session, documentBytes, p);
    return { rounds, floor: floor.rounds, setupMs: { seed: seedMs, clients: clientsMs, floor: floor.setupMs }, documentBytes, nodesSeeded };
  } finally {
    await Promise.all(clients.map((w) => w.close()));
    await worker?.poller.close();
    await worker?.session.close().catch(() => undefined);
    await sqs?.close();
  }
}
