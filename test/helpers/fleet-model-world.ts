import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { AlarmReader, AlarmReading, AlarmState } from '../../lib/alarms';
import { clusterPath, parseClusterProperties, type FailoutProperties } from '../../lib/d2/data';
import { decodeFailoutView, decodeRequestRecord, rebuildFailoutView, RequestWriter, viewPathFor, type RequestRecord } from '../../lib/requests';
import { createHandler, type FailoutRequestsHandler } from '../../lib/requests/lambda';
import { type Outcome } from '../../lib/requests/request-writer';
import { OPEN_ACL, type ZkReader, type ZkWriter } from '../../lib/zk';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from './d2';
import { sqsRecord } from './requests';

/**
 * The world of the fleet model test (test/integration/requests/fleet.model.test.ts): three services in three
 * fabrics (`svcA-lor1` … `svcC-ltx1`, placed in their fabric by the naming rule, docs/operators.md
 * "Fabrics"), 1–3 hosts each, in a D2 tree on any session (the real ZooKeeper or the in-memory fake);
 * the REAL `failout-requests` handler (createHandler over a RequestWriter with the model's clock and a
 * fake alarm source) as several workers, one per session, so requests of different clusters can
 * meet only in ZooKeeper; and a read-back of everything a request may write: every cluster node (its
 * version and `failoutProperties` through the cluster codec), the view of open failouts, the
 * evacuation nodes, and the records.
 */

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

/** The services, each with one cluster per fabric. */
export const SERVICES = ['svcA', 'svcB', 'svcC'] as const;
/** The fabrics. */
export const FABRICS = ['lor1', 'lva1', 'ltx1'] as const;
/** Every cluster, `<service>-<fabric>`. */
export const CLUSTERS: readonly string[] = SERVICES.flatMap((s) => FABRICS.map((f) => `${s}-${f}`));
/** 2026-11-30T16:00:00Z: where the model's clock starts. */
export const FLEET_START = Date.parse('2026-11-30T16:00:00Z');
/** The stop alarm every evacuation of the model may name. */
export const EVACUATION_ALARM = 'evac-errors';

/** The service of a cluster. */
export function serviceOf(cluster: string): string {
  return cluster.slice(0, cluster.lastIndexOf('-'));
}

/** The fabric of a cluster. */
export function fabricOf(cluster: string): string {
  return cluster.slice(cluster.lastIndexOf('-') + 1);
}

/** The name of a cluster's drill. */
export function drillOf(cluster: string): string {
  return `drill-${cluster}`;
}

/** The clusters of a fabric. */
export function membersOf(fabric: string): string[] {
  return CLUSTERS.filter((c) => fabricOf(c) === fabric);
}

/** The same service's clusters in the other fabrics. */
export function peersOf(cluster: string): string[] {
  return CLUSTERS.filter((c) => c !== cluster && serviceOf(c) === serviceOf(cluster));
}

/** Where one world's nodes live (a fresh root per run on the shared real server). */
export interface FleetPaths {
  readonly d2Base: string;
  readonly requestsPath: string;
  readonly drillsPath: string;
  readonly fabricsPath: string;
  readonly evacuationsPath: string;
}

/** The paths of a world under `root` (`''` for the tree's root). */
export function fleetPaths(root: string): FleetPaths {
  return { d2Base: `${root}/d2`, requestsPath: `${root}/failout/requests`, drillsPath: `${root}/failout/drills`, fabricsPath: `${root}/failout/fabrics`, evacuationsPath: `${root}/failout/evacuations` };
}

/** The alarm source the workers read: every alarm named here has a state; any other name is unknown. */
export class FakeAlarms implements AlarmReader {
  readonly states = new Map<string, AlarmState>([
    ...CLUSTERS.flatMap((c): [string, AlarmState][] => [`${c}-errors`, `${drillOf(c)}-outcome`, `${drillOf(c)}-deploys`].map((n) => [n, 'OK'])),
    [EVACUATION_ALARM, 'OK'],
  ]);
  read(names: readonly string[]): Promise<ReadonlyMap<string, AlarmReading>> {
    return Promise.resolve(new Map(names.map((n) => [n, this.states.get(n) ?? 'unknown'])));
  }
}

/** One cluster node as read back. */
export interface ClusterState {
  readonly version: number;
  readonly failout: FailoutProperties | null;
}

/** Everything a request may write, read back after a step. */
export interface FleetSnapshot {
  readonly clusters: ReadonlyMap<string, ClusterState>;
  /** The view node's entries and version (undefined: no view node yet). */
  readonly view: { readonly entries: ReadonlyMap<string, FailoutProperties>; readonly version: number } | undefined;
  /** The view the cluster nodes make (the product's rebuild from `/d2/clusters`): what the view must agree with. */
  readonly truth: ReadonlyMap<string, FailoutProperties>;
  /** Evacuation nodes by fabric: their data version and JSON. */
  readonly evacuations: ReadonlyMap<string, { readonly version: number; readonly json: string }>;
  /** Names of the records (dot names, the prune mark, left out). */
  readonly recordNames: readonly string[];
}

type Session = ZkReader & ZkWriter;

/** The model's clock (epoch ms), moved by the model's steps. */
export interface FleetClock {
  now: number;
}

/** One run's world. */
export interface FleetWorld {
  readonly paths: FleetPaths;
  readonly hosts: ReadonlyMap<string, number>;
  readonly alarms: FakeAlarms;
  /** How many workers {@link FleetWorld.sendAll} spreads requests over. */
  readonly workers: number;
  /** The model's clock: every worker reads `now` from it. */
  readonly clock: FleetClock;
  /** Sends one body as one SQS record through the first worker's handler; the writer's outcome. */
  send(body: Record<string, unknown>): Promise<Outcome>;
  /** Sends the bodies at once, body i through worker i mod {@link FleetWorld.workers}. */
  sendAll(bodies: readonly Record<string, unknown>[]): Promise<Outcome[]>;
  snapshot(now: number): Promise<FleetSnapshot>;
  /** A record as stored (undefined: none). */
  record(id: string): Promise<RequestRecord | undefined>;
}

const CONTEXT = { functionName: 'failout-requests', awsRequestId: 'fleet-model', getRemainingTimeInMillis: () => 30_000 } as unknown as Parameters<FailoutRequestsHandler>[1];
// One set for the file: Powertools instances hold nothing per run.
const logger = new Logger({ serviceName: 'failout-fleet-model', logLevel: 'SILENT' });
const metrics = new Metrics({ namespace: 'failout-fleet-model', serviceName: 'failout-fleet-model' });

/** One worker (a Lambda environment) on `session`: the real handler over its own RequestWriter. */
function workerOn(session: Session, paths: FleetPaths, clock: () => number, alarms: AlarmReader): (body: Record<string, unknown>) => Promise<Outcome> {
  const { d2Base, requestsPath, drillsPath, fabricsPath, evacuationsPath } = paths;
  const writer = new RequestWriter({ session, d2BasePath: d2Base, requestsPath, drillsPath, fabricsPath, evacuationsPath, recordAcl: OPEN_ACL, clock, alarms, retention: false, random: () => 0, sleep: async () => undefined });
  const outcomes = new Map<string, Outcome>();
  const handler = createHandler({
    writer: {
      process: async (body, meta) => {
        const outcome = await writer.process(body, meta);
        outcomes.set(meta.messageId, outcome);
        return outcome;
      },
      sweepIfDue: () => writer.sweepIfDue(),
    },
    logger,
    metrics,
  });
  return async (body) => {
    const record = sqsRecord(body, String(body.cluster ?? `fabric ${String(body.fabric)}`));
    const response = await handler({ Records: [record] }, CONTEXT);
    const outcome = outcomes.get(record.messageId);
    if (response.batchItemFailures.length > 0 || outcome === undefined) throw new Error(`request ${String(body.requestId)} was not processed: ${JSON.stringify(response)}`);
    return outcome;
  };
}

/** Seeds the tree: each service (its node, so the naming rule places its clusters), each cluster with `hosts` announced hosts. */
async function seed(session: Session, paths: FleetPaths, hosts: ReadonlyMap<string, number>): Promise<void> {
  for (const service of SERVICES) await putService(session, paths.d2Base, serviceDoc(service, `${service}-lor1`));
  for (const cluster of CLUSTERS) {
    await putCluster(session, paths.d2Base, clusterDoc(cluster));
    for (let h = 1; h <= hosts.get(cluster)!; h++) await putUri(session, paths.d2Base, cluster, `host-${h}`, `http://${cluster}-${h}:8080`);
  }
}

/**
 * A world on `sessions` (the first seeds and reads back; each one is a worker's), the tree seeded
 * with `hosts` announced hosts per cluster.
 */
export async function createFleetWorld(sessions: readonly Session[], paths: FleetPaths, hosts: ReadonlyMap<string, number>, clock: FleetClock): Promise<FleetWorld> {
  const reader = sessions[0]!;
  await seed(reader, paths, hosts);
  const alarms = new FakeAlarms();
  const workers = sessions.map((s) => workerOn(s, paths, () => clock.now, alarms));
  const viewPath = viewPathFor(paths.requestsPath);
  const childrenOf = async (path: string): Promise<string[]> => ((await reader.exists(path)) ? (await reader.children(path)).children : []);
  return {
    paths,
    hosts,
    alarms,
    workers: workers.length,
    clock,
    send: (body) => workers[0]!(body),
    sendAll: (bodies) => Promise.all(bodies.map((b, i) => workers[i % workers.length]!(b))),
    async snapshot(now) {
      const clusters = new Map<string, ClusterState>();
      for (const cluster of CLUSTERS) {
        const { data, stat } = await reader.get(clusterPath(paths.d2Base, cluster));
        clusters.set(cluster, { version: stat.version, failout: parseClusterProperties(JSON.parse(data.toString('utf8'))).failoutProperties ?? null });
      }
      const node = await reader.read(viewPath);
      const view = node.exists ? { entries: decodeFailoutView(node.data), version: node.stat.version } : undefined;
      const evacuations = new Map<string, { version: number; json: string }>();
      for (const fabric of await childrenOf(paths.evacuationsPath)) {
        const { data, stat } = await reader.get(`${paths.evacuationsPath}/${fabric}`);
        evacuations.set(fabric, { version: stat.version, json: data.toString('utf8') });
      }
      const recordNames = (await childrenOf(paths.requestsPath)).filter((n) => !n.startsWith('.'));
      return { clusters, view, truth: await rebuildFailoutView(reader, paths.d2Base, now), evacuations, recordNames };
    },
    async record(id) {
      const node = await reader.read(`${paths.requestsPath}/${id}`);
      return node.exists ? decodeRequestRecord(node.data) : undefined;
    },
  };
}
