// bench/propagation: the writer path and one round, shared by both modes so their numbers compare.
// `SendMessage` of a change request to the FIFO queue (fauxqs) → the poller → the REAL handler
// (Powertools FIFO batch processor, RequestWriter: guard rails, one ZooKeeper multi) → the clients'
// workers report when every client routes to the peers (or back, on restore rounds).
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { clusterPath, parseClusterProperties, serializeClusterProperties, serializeUriProperties, urisPath } from '../../lib/d2/data';
import { SqsPoller, type LocalSqs } from '../../lib/local';
import type { Logger } from '../../lib/logging';
import { RequestWriter } from '../../lib/requests';
import { createHandler } from '../../lib/requests/lambda';
import { connectSession, OPEN_ACL, type ZkSession } from '../../lib/zk';
import type { FromWorker } from '../failout-propagation/protocol';
import { clock } from '../lib/workers';
import type { ArmClients } from './protocol';

export const BASE = '/propagation-bench/d2';
const REQUESTS = '/propagation-bench/requests';
export const CLUSTER = 'greetings-lor1';
const PEERS = [
  { cluster: 'greetings-lva1', weight: 2 },
  { cluster: 'greetings-ltx1', weight: 1 },
];

/**
 * What a round needs of a client worker (a `BenchWorker`): 'arm' in, 'armed' and 'flipped' out. Both
 * client workers speak it (bench/failout-propagation's and client-worker.ts, which answers more).
 */
export interface RoundWorker {
  readonly offsetMs: number;
  request(message: ArmClients, type: 'armed', timeoutMs: number, match: (m: { readonly round: number }) => boolean): Promise<unknown>;
  expect(type: 'flipped', timeoutMs: number, match: (m: { readonly round: number }) => boolean): Promise<Pick<Extract<FromWorker, { type: 'flipped' }>, 'times'>>;
}

/** One measured round. */
export interface Round {
  round: number;
  failedOut: boolean;
  /** SendMessage call → acknowledged. */
  sendMs: number;
  /** SendMessage → the handler's ZooKeeper multi starts. */
  toWriteMs: number;
  /** Per client, in population order: SendMessage → routing flipped. */
  endToEnd: number[];
  /** Per client, in population order: ZooKeeper multi sent → routing flipped. */
  fromWrite: number[];
}

/** The D2 tree the clients follow: the measured cluster and its two peers, one host each. */
export async function seed(session: ZkSession): Promise<void> {
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

/** The real handler over a RequestWriter, behind a poller. */
export interface RequestWorker {
  readonly poller: SqsPoller;
  readonly session: ZkSession;
  /** Times the handler's multis were sent, since the round cleared it. */
  readonly writes: number[];
}

/** The real handler over a RequestWriter whose session reports when the multi goes out. */
export async function startRequestWorker(connectString: string, sqs: LocalSqs, log: Logger): Promise<RequestWorker> {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  const session = await connectSession({ connectString, sessionTimeoutMs: 30_000, logger: log });
  const multi = session.multi.bind(session);
  const writes: number[] = [];
  // The bench's only instrumentation: the time the request's one ZooKeeper write is sent.
  session.multi = (ops) => {
    writes.push(clock());
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
  return { poller, session, writes };
}

function body(failedOut: boolean): string {
  const common = { version: 1, requestId: randomUUID(), cluster: CLUSTER, requestedBy: 'bench@local' };
  return JSON.stringify(failedOut ? { ...common, action: 'failout', peers: PEERS, duration: 'PT1H', reason: 'bench' } : { ...common, action: 'restore' });
}

/** Sends one failout (or restore) request and waits until every client of `workers` routes the new way. */
export async function runRound(sqs: LocalSqs, workers: readonly RoundWorker[], roundNo: number, failedOut: boolean, roundTimeoutMs: number, writes: number[]): Promise<Round> {
  await Promise.all(workers.map((w) => w.request({ type: 'arm', round: roundNo, failedOut }, 'armed', 5000, (m) => m.round === roundNo)));
  const flipped = workers.map((w) => w.expect('flipped', roundTimeoutMs, (m) => m.round === roundNo));
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
