// bench/console: the world the console shows, and the changes made to it. S services `svcNNNN`, each
// with one cluster per fabric (bench/evacuate's world: `svcNNNN-lor1|lva1|ltx1`, H hosts each, the
// service's home cluster in lor1); F of the lor1 clusters failed out to their service's other two
// fabrics, one window each that ends an hour after seeding (so a countdown runs on every such card);
// R request records, the newest F of them the records of those failouts. Everything is written with
// the project's codecs (lib/d2/data for cluster documents, the request-record codec for the
// records), in multis. The measured changes fail out (or, on a second pass, restore) ltx1 clusters,
// never a cluster that was failed out at seeding, so each change's new state is one the card did not
// show before.
import { clusterPath, parseClusterProperties, serializeClusterProperties, type FailoutProperties } from '../../lib/d2/data';
import { encodeRequestRecord, newRequestId, requestRecordPath, type RequestRecord } from '../../lib/requests';
import { OPEN_ACL, type MultiOp, type ZkReader, type ZkWriter } from '../../lib/zk';
import { clusterName, FABRICS, inMultis, seedFabrics, serviceName } from '../evacuate/fabric';

/** How long a seeded failout window lasts (its countdown runs through the whole benchmark). */
export const WINDOW_MS = 60 * 60_000;
/** The fabric of the clusters the measured changes fail out (the seeded failouts are all in lor1). */
export const CHANGED_FABRIC = 'ltx1';
/** Who the seeded failouts and records say asked. */
const REQUESTER = 'bench@local';

/** What to seed: sizes only; the names follow from them. */
export interface WorldPlan {
  readonly services: number;
  readonly hosts: number;
  readonly failedOut: number;
  readonly records: number;
}

/** Where the console reads: the D2 base path and the request records path. */
export interface WorldPaths {
  readonly d2Base: string;
  readonly requestsBase: string;
}

/**
 * The services (indices) whose lor1 cluster is failed out at seeding: `count` of them spread evenly
 * over all services (every ⌊services/count⌋-th from 0), so they sit across the page, not at its top.
 */
export function failedOutServices(services: number, count: number): number[] {
  const n = Math.min(count, services);
  const stride = Math.floor(services / n);
  return Array.from({ length: n }, (_, i) => i * stride);
}

/** The cluster failed out at seeding for service `i`. */
export function seededFailoutCluster(i: number): string {
  return clusterName(serviceName(i), FABRICS[0]);
}

/** One measured change: the cluster written and the state its card must show afterwards. */
export interface PlannedChange {
  readonly cluster: string;
  /** True: a failout is written (card state `failed-out`); false: the failout is removed (`serving`). */
  readonly failout: boolean;
}

/** The card state a change leads to (lib/console/page.ts `card()`: the badge's `data-state`). */
export function expectedState(change: PlannedChange): 'failed-out' | 'serving' {
  return change.failout ? 'failed-out' : 'serving';
}

/**
 * Change `k` (0-based, counted over the whole run): the ltx1 cluster of service `k mod services`,
 * failed out on the first pass over the services and restored on the second, and so on. Consecutive
 * changes touch different cards, and every change makes its card show a state it did not show.
 */
export function changeAt(k: number, services: number): PlannedChange {
  return { cluster: clusterName(serviceName(k % services), CHANGED_FABRIC), failout: Math.floor(k / services) % 2 === 0 };
}

/** The peers of a cluster: its service's clusters in the other fabrics, weight 1 each. */
export function peersOf(cluster: string): string[] {
  const cut = cluster.lastIndexOf('-');
  const service = cluster.slice(0, cut);
  const own = cluster.slice(cut + 1);
  return FABRICS.filter((f) => f !== own).map((f) => clusterName(service, f));
}

/** A failout of `cluster` to {@link peersOf} it, all buckets, one window from `now` to `now + WINDOW_MS`. */
export function failoutOf(cluster: string, requestId: string, now: number): FailoutProperties {
  return {
    redirects: peersOf(cluster).map((peer) => ({ peer, weight: 1 })),
    ignoredRedirectEntries: 0,
    buckets: [{ offlineAt: now - 1000, onlineAt: now + WINDOW_MS, requestId, requestedBy: REQUESTER, reason: `bench console ${cluster}` }],
  };
}

/** The cluster document of `cluster` with `failout` (null: none), as the worker writes it. */
export function clusterDocument(cluster: string, failout: FailoutProperties | null): Buffer {
  const props = parseClusterProperties({ clusterName: cluster });
  props.failoutProperties = failout;
  return Buffer.from(serializeClusterProperties(props), 'utf8');
}

/**
 * Record `i` of `count` (0 is the newest): the newest `failedOut` are the applied failouts of the
 * seeded windows (same request ids); the others, a minute apart going back, alternate failout and
 * restore of clusters across the world.
 */
export function recordAt(i: number, plan: WorldPlan, seeded: readonly { readonly cluster: string; readonly requestId: string }[], now: number): RequestRecord {
  const own = seeded[i];
  const appliedAt = now - 1000 - i * 60_000;
  const cluster = own?.cluster ?? clusterName(serviceName(i % plan.services), FABRICS[i % FABRICS.length]!);
  const action = own !== undefined || i % 2 === 0 ? 'failout' : 'restore';
  return {
    requestId: own?.requestId ?? newRequestId(appliedAt),
    status: 'applied',
    cluster,
    action,
    appliedAt,
    clusterVersion: 1,
    requestedBy: REQUESTER,
    requestReason: `bench console record ${i}`,
  };
}

/** What {@link seedWorld} wrote. */
export interface SeededWorld {
  /** The clusters failed out at seeding, each with its window's request id. */
  readonly failedOut: readonly { readonly cluster: string; readonly requestId: string }[];
  /** Znodes created or written. */
  readonly nodes: number;
}

/** Writes the world of `plan` under `paths` (which must not hold it yet). */
export async function seedWorld(session: ZkWriter, paths: WorldPaths, plan: WorldPlan, now = Date.now()): Promise<SeededWorld> {
  let nodes = await seedFabrics(session, paths.d2Base, plan.services, plan.hosts);
  const failedOut = failedOutServices(plan.services, plan.failedOut).map((i) => ({ cluster: seededFailoutCluster(i), requestId: newRequestId(now - 1000) }));
  const sets: MultiOp[] = failedOut.map(({ cluster, requestId }) => ({ op: 'set', path: clusterPath(paths.d2Base, cluster), data: clusterDocument(cluster, failoutOf(cluster, requestId, now)), version: -1 }));
  await inMultis(session, sets);
  nodes += sets.length;
  await session.ensurePath(paths.requestsBase, OPEN_ACL);
  const records: MultiOp[] = Array.from({ length: plan.records }, (_, i) => {
    const record = recordAt(i, plan, failedOut, now);
    return { op: 'create', path: requestRecordPath(paths.requestsBase, record.requestId), data: encodeRequestRecord(record), acl: OPEN_ACL };
  });
  await inMultis(session, records);
  return { failedOut, nodes: nodes + records.length };
}

/** A change ready to write: the node and the document; {@link ChangeWriter.write} only sends it. */
export interface PreparedChange extends PlannedChange {
  readonly path: string;
  readonly data: Buffer;
}

/**
 * Writes the measured changes as the worker would (the cluster's document with its failout set or
 * removed, lib/d2's codec). The document is built before the clock starts: a change is timed from
 * the `set` going out.
 */
export class ChangeWriter {
  private next = 0;

  constructor(
    private readonly session: ZkReader & ZkWriter,
    private readonly d2Base: string,
    private readonly services: number,
  ) {}

  /** The next change of the run, its document built. */
  prepare(now = Date.now()): PreparedChange {
    const change = changeAt(this.next++, this.services);
    const failout = change.failout ? failoutOf(change.cluster, newRequestId(now), now) : null;
    return { ...change, path: clusterPath(this.d2Base, change.cluster), data: clusterDocument(change.cluster, failout) };
  }

  /** Sends the prepared change. */
  async write(change: PreparedChange): Promise<void> {
    await this.session.set(change.path, change.data);
  }
}
