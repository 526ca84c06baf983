import { clusterPath, isSymlinkName, servicePath, urisPath } from '../d2/data';
import { decodeFabricMap, deriveFabrics, isFabricError, targetsOf, type FabricMap, type FabricMapConflict, type FabricSource, type MissingMappedCluster } from '../fabrics';
import { forEachLimit } from '../concurrency';
import { isZkError, type ZkReader } from '../zk';
import { describeCluster, unreadableProblem, type ClusterStatus } from './cluster-status';
import { assertIsError, inputError } from './errors';
import type { OperatorSettings } from './settings';

/**
 * The fabrics as an operator reads them (`failout fabric list|show`; the console's fabric view later):
 * lib/fabrics' derivation over what ZooKeeper holds now, with each cluster's hosts and failout state.
 * Reads only: `/d2/services` and `/d2/clusters` (children), each cluster's node (its failout, by
 * `describeCluster`, as `failout status` reads it) and `/d2/uris/<cluster>` (its child count: the
 * announced hosts), and the maps under `FAILOUT_FABRICS_PATH`. A map node that does not decode is
 * reported with its problem and left out, so the rule applies to its clusters; it never fails the read.
 */

/** Nodes read at the same time (a tree of 3,000 clusters must not open 6,000 requests at once). */
const READ_CONCURRENCY = 32;

/** One cluster of a fabric, as `failout fabric show` lists it. */
export interface FabricClusterView {
  readonly cluster: string;
  readonly service: string;
  readonly tier?: string;
  /** `rule` (`<service>-<fabric>`) or `map` (`/failout/fabrics/<fabric>`). */
  readonly source: FabricSource;
  /** Announced hosts: children of `/d2/uris/<cluster>`. */
  readonly hosts: number;
  /** Its failout now, as `failout status` says it. */
  readonly state: ClusterStatus['state'];
  /** For `malformed`: what is wrong with the cluster node. */
  readonly problem?: string;
  /** Candidate targets: the same service's clusters in the other fabrics (sorted by fabric, then cluster). */
  readonly targets: readonly { readonly cluster: string; readonly fabric: string }[];
}

/** One fabric with its clusters and their sums. */
export interface FabricView {
  readonly name: string;
  readonly services: readonly string[];
  readonly clusters: readonly FabricClusterView[];
  /** Hosts of all its clusters. */
  readonly hosts: number;
  /** Its clusters failed out now (state `failed-out`). */
  readonly failedOut: number;
}

/** Everything `failout fabric list` shows. */
export interface FabricsView {
  readonly fabrics: readonly FabricView[];
  /** Clusters that follow no rule and no map names (sorted). */
  readonly unassigned: readonly { readonly cluster: string; readonly hosts: number; readonly state: ClusterStatus['state'] }[];
  /** Map nodes that do not decode: their clusters follow the rule. */
  readonly brokenMaps: readonly { readonly fabric: string; readonly problem: string }[];
  /** Clusters several maps name (kept in the first fabric by name). */
  readonly conflicts: readonly FabricMapConflict[];
  /** Map entries naming clusters D2 does not have. */
  readonly missing: readonly MissingMappedCluster[];
}

/** What {@link readFabrics} reads through: a session or the in-memory fake. */
type FabricReader = Pick<ZkReader, 'children' | 'read' | 'exists'>;

/** One cluster as read: its node described at `now`, and its host count. */
interface ClusterRead {
  readonly status: ClusterStatus;
  readonly hosts: number;
}

/**
 * Reads the fabrics at `now` (bounded: {@link READ_CONCURRENCY} nodes at a time). A directory that does
 * not exist reads as empty; a cluster removed between the listing and its read is left out.
 * @throws OperatorError `input` for a `fabricsBase` that is not an absolute path; ZkError when ZooKeeper
 * cannot be read (connection loss, no READ permission).
 */
export async function readFabrics(session: FabricReader, settings: Pick<OperatorSettings, 'd2Base' | 'fabricsBase'>, now: number): Promise<FabricsView> {
  checkFabricsBase(settings.fabricsBase);
  const [services, clusterNames, mapNames] = await Promise.all([
    childrenOf(session, servicePath(settings.d2Base)),
    childrenOf(session, clusterPath(settings.d2Base)),
    childrenOf(session, settings.fabricsBase),
  ]);
  const reads = new Map<string, ClusterRead>();
  // A D2 symlink (`$FooClusterMaster`) holds the path of a cluster: no cluster of its own.
  await forEachLimit(clusterNames.filter((name) => !isSymlinkName(name)), READ_CONCURRENCY, async (cluster) => {
    const read = await readCluster(session, settings.d2Base, cluster, now);
    if (read !== undefined) reads.set(cluster, read);
  });
  const { maps, brokenMaps } = await readMaps(session, settings.fabricsBase, mapNames);
  const derived = deriveFabrics({ services, clusters: [...reads.keys()], maps });
  const fabrics = derived.fabrics.map((fabric): FabricView => {
    const clusters = fabric.clusters.map((member): FabricClusterView => {
      const read = reads.get(member.cluster)!;
      return {
        ...member,
        hosts: read.hosts,
        state: read.status.state,
        ...(read.status.problem === undefined ? {} : { problem: read.status.problem }),
        targets: targetsOf(derived.fabrics, member.cluster).map((t) => ({ cluster: t.cluster, fabric: t.fabric })),
      };
    });
    return {
      name: fabric.name,
      services: fabric.services,
      clusters,
      hosts: clusters.reduce((sum, c) => sum + c.hosts, 0),
      failedOut: clusters.filter((c) => c.state === 'failed-out').length,
    };
  });
  return {
    fabrics,
    unassigned: derived.unassigned.map((cluster) => ({ cluster, hosts: reads.get(cluster)!.hosts, state: reads.get(cluster)!.status.state })),
    brokenMaps: brokenMaps.sort((a, b) => (a.fabric < b.fabric ? -1 : a.fabric > b.fabric ? 1 : 0)),
    conflicts: derived.conflicts,
    missing: derived.missing,
  };
}

/**
 * Which fabric each cluster is in, by lib/fabrics' rule and the maps, without reading the cluster
 * nodes (`failout status` reads those itself and groups them by this): cluster → fabric, for the
 * clusters a fabric holds. A map that does not decode is left out, as in {@link readFabrics}.
 * @throws OperatorError `input` for a `fabricsBase` that is not an absolute path; ZkError when ZooKeeper cannot be read.
 */
export async function readFabricMembership(session: FabricReader, settings: Pick<OperatorSettings, 'd2Base' | 'fabricsBase'>): Promise<ReadonlyMap<string, string>> {
  checkFabricsBase(settings.fabricsBase);
  const [services, clusters, mapNames] = await Promise.all([
    childrenOf(session, servicePath(settings.d2Base)),
    childrenOf(session, clusterPath(settings.d2Base)),
    childrenOf(session, settings.fabricsBase),
  ]);
  const { maps } = await readMaps(session, settings.fabricsBase, mapNames);
  const derived = deriveFabrics({ services, clusters, maps });
  return new Map(derived.fabrics.flatMap((fabric) => fabric.clusters.map((member) => [member.cluster, fabric.name] as const)));
}

function checkFabricsBase(base: string): void {
  if (!base.startsWith('/')) throw inputError(`FAILOUT_FABRICS_PATH must be an absolute ZooKeeper path such as /failout/fabrics, not ${JSON.stringify(base)}`);
}

/** The maps named `mapNames` under `base` (bounded concurrency), and those that do not decode with their problem. */
async function readMaps(session: FabricReader, base: string, mapNames: readonly string[]): Promise<{ maps: FabricMap[]; brokenMaps: { fabric: string; problem: string }[] }> {
  const maps: FabricMap[] = [];
  const brokenMaps: { fabric: string; problem: string }[] = [];
  await forEachLimit(mapNames, READ_CONCURRENCY, async (fabric) => {
    const map = await readMap(session, base, fabric);
    if ('problem' in map) brokenMaps.push(map);
    else if (map.map !== undefined) maps.push(map.map);
  });
  return { maps, brokenMaps };
}

/** Sorted child names, or none when the node does not exist. */
async function childrenOf(session: FabricReader, path: string): Promise<string[]> {
  try {
    return [...(await session.children(path)).children].sort();
  } catch (err) {
    if (isZkError(err, 'noNode')) return [];
    throw err;
  }
}

/**
 * The cluster's node described at `now` and its host count; undefined when the node is gone. A node
 * this session may not read (`noAuth`) is described as such (`malformed`), never failing the read.
 */
async function readCluster(session: FabricReader, d2Base: string, cluster: string, now: number): Promise<ClusterRead | undefined> {
  const [node, uris] = await Promise.all([readOrUnreadable(session, clusterPath(d2Base, cluster)), session.exists(urisPath(d2Base, cluster))]);
  if (node instanceof Error) return { status: describeCluster(cluster, node, now), hosts: uris?.numChildren ?? 0 };
  if (!node.exists) return undefined;
  return { status: describeCluster(cluster, node.data.toString('utf8'), now), hosts: uris?.numChildren ?? 0 };
}

/** A node as read, or the error when this session may not read it (`noAuth`); other errors are thrown. */
async function readOrUnreadable(session: FabricReader, path: string): Promise<Awaited<ReturnType<FabricReader['read']>> | Error> {
  try {
    return await session.read(path);
  } catch (err) {
    if (isZkError(err, 'noAuth')) return err;
    throw err;
  }
}

/** The map of `fabric`; `{ map: undefined }` when the node went away; `{ fabric, problem }` when it does not decode. */
async function readMap(session: FabricReader, base: string, fabric: string): Promise<{ readonly map: FabricMap | undefined } | { readonly fabric: string; readonly problem: string }> {
  // A child name ZooKeeper listed is one path component, whatever it holds; the codec judges it.
  const node = await readOrUnreadable(session, `${base.replace(/\/+$/, '')}/${fabric}`);
  if (node instanceof Error) return { fabric, problem: unreadableProblem(node) };
  if (!node.exists) return { map: undefined };
  try {
    return { map: decodeFabricMap(fabric, node.data) };
  } catch (err) {
    assertIsError(err);
    if (!isFabricError(err)) throw err;
    return { fabric, problem: err.message };
  }
}
