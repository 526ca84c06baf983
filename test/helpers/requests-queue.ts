import { randomUUID } from 'node:crypto';
import { GetQueueAttributesCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { parseClusterProperties, serializeClusterProperties } from '../../lib/d2';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs';
import { SqsPoller, type SqsHandler } from '../../lib/local/sqs-poller';
import { createHandler } from '../../lib/requests/lambda';
import { RequestWriter, type Outcome, type RequestMeta } from '../../lib/requests/request-writer';
import { decodeRequestRecord, type RequestRecord } from '../../lib/requests/request-record';
import { OPEN_ACL, type ZkSession } from '../../lib/zk';
import { closeSessions, openSession, sharedConnectString } from './zk';

/**
 * Shared pieces of the queue end-to-end tests: D2 clusters to fail out, the REAL handler
 * (lib/requests createHandler over a real RequestWriter) behind the local poller, and request bodies.
 *
 * These tests are about the queue, not access control: the seeding session and the writer play
 * unconstrained writers without credentials, so what they create gets the open ACL, explicitly
 * (test/integration/access/roles.test.ts runs the writer under its identity).
 */

// Powertools would print an EMF document per invocation and a log line per record.
process.env.POWERTOOLS_METRICS_DISABLED = 'true';
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';

/** Paths of one test's D2 tree and request records on the shared ZooKeeper. */
export interface TestPaths {
  readonly d2Base: string;
  readonly requestsPath: string;
}

export function testPaths(): TestPaths {
  const root = `/q-${randomUUID().slice(0, 8)}`;
  return { d2Base: `${root}/d2`, requestsPath: `${root}/requests` };
}

/** Creates `/d2/clusters/<name>` (with a key the writer must keep) and, with `hosts`, one announced host per cluster. */
export async function seedClusters(session: ZkSession, paths: TestPaths, names: readonly string[], options: { hosts?: boolean } = {}): Promise<void> {
  for (const name of names) {
    const cluster = { clusterName: name, prioritizedSchemes: ['http'], properties: { owner: 'team-x' }, someFutureKey: { kept: true } };
    // In the codec's canonical form (rest.li writes defaults out), so "untouched" compares like with like.
    const text = serializeClusterProperties(parseClusterProperties(JSON.stringify(cluster)));
    await session.create(`${paths.d2Base}/clusters/${name}`, Buffer.from(text), { parents: true, acl: OPEN_ACL });
    if (options.hosts !== false) {
      const uri = { clusterName: name, weights: { [`http://127.0.0.1:1/${name}`]: 1 } };
      await session.create(`${paths.d2Base}/uris/${name}/host-1`, Buffer.from(JSON.stringify(uri)), { parents: true, acl: OPEN_ACL });
    }
  }
}

/**
 * Announces hosts 2…`count` of a seeded cluster (one child each, weight 1), so it has `count` hosts in
 * all: the capacity guard's tests need clusters of different sizes.
 */
export async function announceHosts(session: ZkSession, paths: TestPaths, name: string, count: number): Promise<void> {
  for (let i = 2; i <= count; i++) {
    const uri = { clusterName: name, weights: { [`http://127.0.0.${i}:1/${name}`]: 1 } };
    await session.create(`${paths.d2Base}/uris/${name}/host-${i}`, Buffer.from(JSON.stringify(uri)), { parents: true, acl: OPEN_ACL });
  }
}

/** The cluster node as JSON, with its data version. */
export async function readCluster(session: ZkSession, paths: TestPaths, name: string): Promise<{ json: Record<string, unknown>; version: number }> {
  const { data, stat } = await session.get(`${paths.d2Base}/clusters/${name}`);
  return { json: JSON.parse(data.toString('utf8')) as Record<string, unknown>, version: stat.version };
}

/** The record of a request id, or undefined. */
export async function readRecord(session: ZkSession, paths: TestPaths, id: string): Promise<RequestRecord | undefined> {
  const node = await session.read(`${paths.requestsPath}/${id}`);
  return node.exists ? decodeRequestRecord(node.data) : undefined;
}

/** Every outcome the writer returned, in order, for assertions on effects and duplicates. */
export interface OutcomeLog {
  readonly outcomes: Outcome[];
}

/** Wraps a writer's `process` (e.g. to fail some messages); the default passes through. */
export type ProcessWrapper = (body: string, meta: RequestMeta, next: (body: string, meta: RequestMeta) => Promise<Outcome>) => Promise<Outcome>;

/**
 * The real handler over a real writer on `session`, recording each outcome in `log`. `wrap` lets a test
 * interpose (fail a cluster's messages transiently) without replacing the writer.
 */
export function realHandler(session: ZkSession, paths: TestPaths, log: OutcomeLog = { outcomes: [] }, wrap?: ProcessWrapper): SqsHandler {
  // Fabric maps and evacuations beside the test's own tree, never the shared defaults.
  const root = paths.d2Base.replace(/\/d2$/, '');
  const writer = new RequestWriter({ session, d2BasePath: paths.d2Base, requestsPath: paths.requestsPath, fabricsPath: `${root}/fabrics`, evacuationsPath: `${root}/evacuations`, recordAcl: OPEN_ACL });
  const next = async (body: string, meta: RequestMeta): Promise<Outcome> => {
    const outcome = await writer.process(body, meta);
    log.outcomes.push(outcome);
    return outcome;
  };
  return createHandler({
    writer: { process: (body, meta) => (wrap ? wrap(body, meta, next) : next(body, meta)) },
    logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
  });
}

/** Pollers started by {@link startPollers}, stopped by {@link stopPollers}. */
const pollers = new Set<SqsPoller>();

/**
 * Starts `count` pollers, each with its OWN handler from `handler()`: like Lambda execution
 * environments, a handler instance never runs two batches at once (Powertools' batch processor keeps
 * the invocation's records in the instance; sharing one across concurrent batches loses failures).
 */
export function startPollers(count: number, options: { client: SQSClient; queueUrl: string; handler: () => SqsHandler; batchSize?: number }): SqsPoller[] {
  return Array.from({ length: count }, () => {
    const poller = new SqsPoller({ client: options.client, queueUrl: options.queueUrl, handler: options.handler(), batchSize: options.batchSize ?? 10, waitTimeSeconds: 1 });
    pollers.add(poller);
    poller.start();
    return poller;
  });
}

export async function stopPollers(): Promise<void> {
  await Promise.all([...pollers].map((p) => p.close()));
  pollers.clear();
}

/** A failout body (version 1) with sensible defaults. */
export function failoutBody(cluster: string, peers: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    requestId: randomUUID(),
    action: 'failout',
    cluster,
    peers: peers.map((p, i) => ({ cluster: p, weight: i + 1 })),
    duration: 'PT1H',
    requestedBy: 'test@example.com',
    reason: 'test',
    ...overrides,
  };
}

export function restoreBody(cluster: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, requestId: randomUUID(), action: 'restore', cluster, requestedBy: 'test@example.com', ...overrides };
}

/**
 * Sends a body the way the CLI does: group = cluster, deduplication id = requestId (both overridable;
 * a raw string body is sent as is).
 */
export async function send(client: SQSClient, queueUrl: string, body: Record<string, unknown> | string, options: { group?: string; dedupId?: string } = {}): Promise<string> {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  const json = typeof body === 'string' ? {} : body;
  const out = await client.send(
    new SendMessageCommand({
      QueueUrl: queueUrl,
      MessageBody: text,
      MessageGroupId: options.group ?? String(json.cluster),
      MessageDeduplicationId: options.dedupId ?? String(json.requestId ?? randomUUID()),
    }),
  );
  return out.MessageId ?? '';
}

/** Visible plus in-flight messages of a queue. */
export async function queueDepth(client: SQSClient, queueUrl: string): Promise<number> {
  const out = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }),
  );
  return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
}

/**
 * The environment the `failout` CLI needs to reach a queue fixture: its queue, the shared ZooKeeper,
 * fauxqs, and this test's fresh paths.
 */
export function cliEnvFor(fx: QueueFixture, queueUrl: string): Record<string, string> {
  return {
    FAILOUT_QUEUE_URL: queueUrl,
    ZK_CONNECT: sharedConnectString(),
    SQS_ENDPOINT: fx.sqs.endpoint,
    D2_BASE_PATH: fx.paths.d2Base,
    FAILOUT_REQUESTS_PATH: fx.paths.requestsPath,
    FAILOUT_USER: 'oncall@example.com',
  };
}

/** What {@link useQueueFixture} provides; read it inside tests and hooks, where it is set. */
export interface QueueFixture {
  /** fauxqs, one for the test file. */
  readonly sqs: LocalSqs;
  /** This test's session on the shared ZooKeeper. */
  readonly session: ZkSession;
  /** This test's fresh paths, seeded. */
  readonly paths: TestPaths;
}

/**
 * The set-up every queue test file repeats, as jest hooks: fauxqs started once for the file (stopped
 * after it); before each test a session and fresh paths, seeded by `seed`; after each test the pollers
 * and the sessions stopped. Register further `beforeEach` hooks after calling this: they run after it.
 */
export function useQueueFixture(seed: (session: ZkSession, paths: TestPaths) => Promise<void>): QueueFixture {
  let sqs: LocalSqs | undefined;
  let session: ZkSession | undefined;
  let paths: TestPaths | undefined;
  const set = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`queue fixture: ${name} is read outside a test or hook`);
    return value;
  };
  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await sqs?.close();
  });
  beforeEach(async () => {
    session = await openSession();
    paths = testPaths();
    await seed(session, paths);
  });
  afterEach(async () => {
    await stopPollers();
    await closeSessions();
  });
  return {
    get sqs() {
      return set(sqs, 'sqs');
    },
    get session() {
      return set(session, 'session');
    },
    get paths() {
      return set(paths, 'paths');
    },
  };
}
