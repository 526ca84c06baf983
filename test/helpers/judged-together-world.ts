import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import pino from 'pino';
import { D2Client, LoadBalancerState, serializeClusterProperties, serializeServiceProperties, serializeUriProperties } from '../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../lib/d2/paths';
import { bucketOf } from '../../lib/failout/bucket';
import {
  FailoutClient,
  FailoutClusterInfoProvider,
  WeightedFailoutRedirectStrategy,
  ZooKeeperFailoutConfigProviderFactory,
  type FailoutConfigProvider,
} from '../../lib/failout';
import { RequestWriter } from '../../lib/requests';
import { type Outcome } from '../../lib/requests/request-writer';
import { createHandler, type FailoutRequestsHandler } from '../../lib/requests/lambda';
import { OPEN_ACL, type MultiOp } from '../../lib/zk';
import { clusterDoc, serviceDoc } from './d2';
import { InMemoryZk, type InMemoryZkSession } from './in-memory-zk';
import { rawFailoutOf, type RawFailout } from './judged-together-oracle';
import { sqsRecord } from './requests';

/**
 * The world of the "judged together" model test (issue 21, item 9): one in-memory ZooKeeper (held to
 * the real server by test/integration/zk/in-memory-zk.parity.test.ts, `multi` with check/set/create
 * included) holding a six-cluster, two-service D2 tree; the REAL `failout-requests` handler
 * (createHandler over a RequestWriter with the model's clock) to send requests through; and the REAL
 * `FailoutClient` (D2Client, LoadBalancerState, the ZooKeeper failout config provider and the weighted
 * strategy, wired as `buildD2Client` wires them) over a session of its own, to route keys through.
 *
 * Why FailoutClient is built here and not by `buildD2Client`: the builder gives FailoutClient no clock
 * (it reads the wall clock), and the model moves time. Here FailoutClient and its strategy read the
 * model's clock, the parts are the builder's. The provider's peer managers still read the wall clock:
 * they only decide when to watch and warm up peers, and every cluster is followed here anyway (each
 * cluster has a service of its own that the client listens to), so their hosts are always known.
 */

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** The two services and their clusters (one per fabric a, b, c). */
export const SERVICES: Readonly<Record<string, readonly string[]>> = { s1: ['s1-a', 's1-b', 's1-c'], s2: ['s2-a', 's2-b', 's2-c'] };
/** Every cluster of the model. */
export const CLUSTERS: readonly string[] = Object.values(SERVICES).flat();
/** 2026-11-30T16:00:00Z: where the model's clock starts (fixed, so a seed replays the same requests). */
export const MODEL_START = Date.parse('2026-11-30T16:00:00Z');

const D2 = '/d2';
const REQUESTS = '/failout/requests';
/** The drills' parent. */
export const DRILLS = '/failout/drills';
/** Keys routed after every step, each with its home cluster (i mod 6) and bucket. */
export const KEYS: readonly { readonly key: string; readonly home: string; readonly bucket: number }[] = Array.from({ length: 1000 }, (_, i) => {
  const key = `member-${i}`;
  return { key, home: CLUSTERS[i % CLUSTERS.length]!, bucket: bucketOf(key) };
});

/** The service of a cluster. */
export function serviceOf(cluster: string): string {
  return Object.keys(SERVICES).find((s) => SERVICES[s]!.includes(cluster))!;
}

/** The other clusters of a cluster's service: where its traffic may go. */
export function peersOf(cluster: string): string[] {
  return SERVICES[serviceOf(cluster)]!.filter((c) => c !== cluster);
}

/** The D2 service each cluster's own clients call (one per cluster, so a key can start anywhere). */
function serviceFor(cluster: string): string {
  return `svc-${cluster}`;
}

// One set for the file: Powertools instances are costly to build and hold nothing per run.
const silentLogger = new Logger({ serviceName: 'failout-model', logLevel: 'SILENT' });
const metrics = new Metrics({ namespace: 'failout-model', serviceName: 'failout-model' });
const quiet = pino({ level: 'silent' });

/** The model's clock: every component of a world reads `now` from it. */
export interface ModelClock {
  now: number;
}

/** What the model reads back after a step: every cluster's failout (as the contract's JSON) and every drill node. */
export interface Snapshot {
  readonly failouts: ReadonlyMap<string, RawFailout | null>;
  /** Drill nodes by name, as stored (JSON). */
  readonly drills: ReadonlyMap<string, StoredDrill>;
}

/** A drill node as JSON (only what the model reads). */
export interface StoredDrill {
  readonly definition: { readonly cluster: string; readonly outcomeAlarm: string };
  readonly runs: readonly { readonly runId: string; readonly status: string; readonly endsAt?: number }[];
}

/** One run of the model: the ZooKeeper, the handler, the client. */
export interface ModelWorld {
  readonly clock: ModelClock;
  readonly hosts: ReadonlyMap<string, number>;
  /** Sends one request body through the handler; resolves the writer's outcome (throws on a batch item failure). */
  send(body: Record<string, unknown>): Promise<Outcome>;
  /** Sends two bodies at once, through two workers on two sessions (two Lambda environments): they meet only in ZooKeeper. */
  sendTogether(first: Record<string, unknown>, second: Record<string, unknown>): Promise<[Outcome, Outcome]>;
  /** Waits until every watch (the client's) has delivered what there is. */
  settle(): Promise<void>;
  /** The cluster FailoutClient sends `key` (a client of `home`'s service) to, through D2Client (`resolve`: the host pick included). */
  route(key: string, home: string): Promise<string>;
  /**
   * FailoutClient's decision alone for `key` (its `route`, the ClusterRouter call D2Client makes with
   * the service it looked up): the cluster, without D2Client's URL parsing and host pick. Synchronous
   * when the peers are loaded, as FailoutClient's decision is.
   */
  decide(key: string, home: string): string | Promise<string>;
  snapshot(): Promise<Snapshot>;
  close(): Promise<void>;
}

const CONTEXT = { functionName: 'failout-requests', awsRequestId: 'model', getRemainingTimeInMillis: () => 30_000 } as unknown as Parameters<FailoutRequestsHandler>[1];

/**
 * One worker (a Lambda execution environment): the real handler over its own RequestWriter on
 * `session`, with the model's clock; sends one body as one SQS record and resolves the writer's outcome.
 */
function workerOn(session: InMemoryZkSession, clock: ModelClock): (body: Record<string, unknown>) => Promise<Outcome> {
  const writer = new RequestWriter({
    session,
    d2BasePath: D2,
    requestsPath: REQUESTS,
    drillsPath: DRILLS,
    recordAcl: OPEN_ACL,
    clock: () => clock.now,
    random: () => 0,
    sleep: async () => undefined,
  });
  const outcomes: Outcome[] = [];
  // Not test/helpers/requests-handler.ts's directHandler: that builds Powertools' Logger and Metrics per
  // handler, and a run makes two handlers, a thousand runs two thousand.
  const handler: FailoutRequestsHandler = createHandler({
    writer: {
      process: async (body, meta) => {
        const outcome = await writer.process(body, meta);
        outcomes.push(outcome);
        return outcome;
      },
      sweepIfDue: () => writer.sweepIfDue(),
    },
    logger: silentLogger,
    metrics,
  });
  return async (body) => {
    const before = outcomes.length;
    const response = await handler({ Records: [sqsRecord(body, String(body.cluster))] }, CONTEXT);
    if (response.batchItemFailures.length > 0 || outcomes.length !== before + 1) throw new Error(`request ${String(body.requestId)} was not processed: ${JSON.stringify(response)}`);
    return outcomes[before]!;
  };
}

/** A tiny deterministic generator, so the client's random picks replay with the seed. */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

/** The seed's documents, written once per file (as the bridge would write them). */
const DOCS = CLUSTERS.map((cluster) => ({
  cluster: serializeClusterProperties(clusterDoc(cluster)),
  service: serializeServiceProperties(serviceDoc(serviceFor(cluster), cluster, `/${serviceFor(cluster)}`)),
  uris: Array.from({ length: 4 }, (_, i) => serializeUriProperties({ clusterName: cluster, partitionDesc: { [`http://${cluster}-${i + 1}:8080`]: { 0: 1 } }, uriSpecificProperties: {} })),
}));

/** Every cluster, its service and `hosts` announced hosts, in one transaction (one tree copy in the fake). */
async function seed(session: InMemoryZkSession, hosts: ReadonlyMap<string, number>): Promise<void> {
  for (const parent of ['clusters', 'services', 'uris']) await session.ensurePath(`${D2}/${parent}`, OPEN_ACL);
  const ops: MultiOp[] = [];
  const create = (path: string, text?: string): void => void ops.push({ op: 'create', path, ...(text === undefined ? {} : { data: Buffer.from(text, 'utf8') }), acl: OPEN_ACL });
  CLUSTERS.forEach((cluster, i) => {
    const docs = DOCS[i]!;
    create(clusterPath(D2, cluster), docs.cluster);
    create(servicePath(D2, serviceFor(cluster)), docs.service);
    create(urisPath(D2, cluster));
    for (let h = 0; h < hosts.get(cluster)!; h++) create(`${urisPath(D2, cluster)}/host-${h + 1}`, docs.uris[h]);
  });
  await session.multi(ops);
}

interface Client {
  readonly state: LoadBalancerState;
  readonly d2: D2Client;
  readonly provider: FailoutConfigProvider;
  readonly client: FailoutClient;
}

async function startClient(session: InMemoryZkSession, clock: ModelClock): Promise<Client> {
  const now = (): number => clock.now;
  const state = new LoadBalancerState({ session, basePath: D2, logger: quiet });
  const d2 = new D2Client({ state, discoveryTimeoutMs: 1000, random: lcg(7), logger: quiet });
  const provider = new ZooKeeperFailoutConfigProviderFactory({ logger: quiet }).create(state);
  provider.start();
  const view = new FailoutClusterInfoProvider(state, provider, d2);
  const strategy = new WeightedFailoutRedirectStrategy({ view, now, random: lcg(11), logger: quiet });
  const client = new FailoutClient({ d2, provider, strategy, now, discoveryTimeoutMs: 1000, logger: quiet });
  await Promise.all(CLUSTERS.map((c) => state.listenToService(serviceFor(c))));
  return { state, d2, provider, client };
}

/** A fresh world: the tree seeded with `hosts` announced hosts per cluster, the handler and the client started. */
export async function createWorld(hosts: ReadonlyMap<string, number>, clock: ModelClock): Promise<ModelWorld> {
  const zk = new InMemoryZk({ clock: () => clock.now });
  const session = zk.session();
  await seed(session, hosts);
  const workers = [workerOn(session, clock), workerOn(zk.session(), clock)] as const;
  const client = await startClient(zk.session(), clock);
  await zk.idle();
  return {
    clock,
    hosts,
    send: (body) => workers[0](body),
    sendTogether: async (first, second) => Promise.all([workers[0](first), workers[1](second)]),
    settle: () => zk.idle(),
    async route(key, home) {
      return (await client.client.resolve(`d2://${serviceFor(home)}/x`, { routingKey: key })).cluster;
    },
    decide(key, home) {
      const service = serviceFor(home);
      const properties = client.state.getServiceProperties(service);
      if (properties === undefined) throw new Error(`service ${service} is not loaded`);
      const route = client.client.route(service, properties, `d2://${service}/x`, key);
      return route instanceof Promise ? route.then((r) => r ?? properties.clusterName) : (route ?? properties.clusterName);
    },
    async snapshot() {
      const failouts = new Map<string, RawFailout | null>();
      for (const cluster of CLUSTERS) failouts.set(cluster, rawFailoutOf(JSON.parse((await session.get(clusterPath(D2, cluster))).data.toString('utf8'))));
      const drills = new Map<string, StoredDrill>();
      const names = (await session.exists(DRILLS)) ? (await session.children(DRILLS)).children : [];
      for (const name of names) drills.set(name, JSON.parse((await session.get(`${DRILLS}/${name}`)).data.toString('utf8')) as StoredDrill);
      return { failouts, drills };
    },
    async close() {
      await client.client.close();
      client.provider.close();
      client.state.close();
    },
  };
}
