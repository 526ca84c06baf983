import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { isZkError, type ZkReader } from '../zk';
import { decodeDrillNode, drillPath, type DrillDefinition, type DrillNode } from './drill-node';
import type { PutDrillChangeRequest, PutFabricDrillChangeRequest } from './drill-schema';
import { readFabricList } from './evacuation-judge';
import { drainTestStageProblems, fabricsOf } from './evacuation-plan';
import { readPeerStates } from './peer-states';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import { DEFAULT_REQUEST_LIMITS } from './schema';

/**
 * The drill checks that need ZooKeeper, once, for the worker (drill-writes.ts, which records their
 * verdict in its multi) and for the CLI (`failout drill put`, which refuses before sending), so the
 * two cannot drift (issue 21, item 8). The checks that need no state are the schema's (drill-schema.ts).
 */

/** A drill node as read, with its version; `node` undefined when there is none, or it does not decode (a drill action may rewrite it). */
export interface FoundDrill {
  readonly node: DrillNode | undefined;
  readonly version: number | undefined;
}

/**
 * Reads the drill node at `path`. A node this session may not read (noAuth) is read as one that does
 * not decode, with its version from `exists` (no READ needed): one such node must not fail every
 * request that looks at drills (a restore walks all of them) until the DLQ.
 */
export async function readDrillNode(session: ZkReader, path: string): Promise<FoundDrill> {
  let found: Awaited<ReturnType<ZkReader['read']>>;
  try {
    found = await session.read(path);
  } catch (e) {
    if (!isZkError(e, 'noAuth')) throw e;
    return { node: undefined, version: (await session.exists(path))?.version };
  }
  if (!found.exists) return { node: undefined, version: undefined };
  try {
    return { node: decodeDrillNode(found.data), version: found.stat.version };
  } catch {
    return { node: undefined, version: found.stat.version };
  }
}

/** `cluster "c"` or `fabric "f"`: what a drill's runs move. */
export function drillTargetText(definition: Pick<DrillDefinition, 'cluster' | 'fabric'>): string {
  return definition.fabric !== undefined ? `fabric ${JSON.stringify(definition.fabric)}` : `cluster ${JSON.stringify(definition.cluster)}`;
}

/** True when `definition` is the drill of `target` (a cluster's drill of that cluster, or a drain test of that fabric). */
export function isDrillOf(definition: Pick<DrillDefinition, 'cluster' | 'fabric'>, target: { readonly cluster?: string | undefined; readonly fabric?: string | undefined }): boolean {
  return target.fabric !== undefined ? definition.fabric === target.fabric : definition.fabric === undefined && definition.cluster === target.cluster;
}

/**
 * Why `putDrill` cannot be applied, given the drill node already stored under its name: the name is
 * another cluster's (or fabric's) drill (`badDrill`: names are global, a definition never moves
 * between targets), or a peer has no cluster node (`unknownPeer`). Undefined: it can. The drill's own
 * cluster is judged as every request's is (`unknownCluster`, judge-request.ts).
 */
export async function putDrillProblem(session: ZkReader, d2BasePath: string, request: PutDrillChangeRequest, existing: DrillNode | undefined): Promise<Problem | undefined> {
  if (existing !== undefined && !isDrillOf(existing.definition, request)) {
    return { reason: 'badDrill', message: `drill: ${JSON.stringify(request.drill)} is a drill of ${drillTargetText(existing.definition)}; delete it there first, or choose another name` };
  }
  const peers = await readPeerStates(session, d2BasePath, request.peers.map((p) => p.cluster));
  const unknown = request.peers.findIndex((p) => !peers.get(p.cluster)?.exists);
  if (unknown >= 0) return { reason: 'unknownPeer', message: `peers[${unknown}].cluster: ${JSON.stringify(request.peers[unknown]!.cluster)} has no cluster node` };
  return undefined;
}

/**
 * Why a drain test's `putDrill` cannot be applied (issue 23), given the drill node already stored
 * under its name: the name is another target's drill (`badDrill`); the fabric has no cluster or a
 * target fabric is unknown (`unknownFabric`); an excluded service is not the fabric's (`badTargets`);
 * a stage names a tier or a cluster the fabric does not have, puts a cluster in two stages, or could
 * not move before it returns in a run (`badStages`), or would return more than `paths.maxWindowMs`
 * (default 72 h, as the parse's) into a run (`windowTooLong`: every run's plan would refuse it). What a run's plan finds (capacity, services
 * without a target) is judged at each run, as the fabric stands then.
 */
export async function putFabricDrillProblem(session: ZkReader, paths: { readonly d2BasePath: string; readonly fabricsPath?: string | undefined; readonly maxWindowMs?: number | undefined }, request: PutFabricDrillChangeRequest, existing: DrillNode | undefined): Promise<Problem | undefined> {
  if (existing !== undefined && !isDrillOf(existing.definition, request)) {
    return { reason: 'badDrill', message: `drill: ${JSON.stringify(request.drill)} is a drill of ${drillTargetText(existing.definition)}; delete it there first, or choose another name` };
  }
  const fabrics = await readFabricList(session, paths.d2BasePath, paths.fabricsPath ?? DEFAULT_FABRICS_PATH);
  const chosen = fabricsOf({ fabric: request.fabric, ...request.evacuation }, fabrics);
  if ('problems' in chosen) return chosen.problems[0];
  // The stages as every run's plan would place them (drainTestStageProblems: the plan's own rules).
  return drainTestStageProblems({ fabric: request.fabric, ...request.evacuation }, chosen.members, request.durationMs, paths.maxWindowMs ?? DEFAULT_REQUEST_LIMITS.maxWindowMs)[0];
}

/** Where the drill checks read. */
export interface DrillCheckPaths {
  /** D2 base path (the peers' cluster nodes). */
  readonly d2BasePath: string;
  /** Parent of the drills. */
  readonly drillsPath: string;
  /** Parent of the fabric maps (a drain test's fabric); default `/failout/fabrics`. */
  readonly fabricsPath?: string;
  /** The maximum window (`MAX_FAILOUT_WINDOW`) a drain test's runs must return within; default 72 h, as the parse's. */
  readonly maxWindowMs?: number;
}

/**
 * {@link putDrillProblem} (or, for a drain test, {@link putFabricDrillProblem}) with the stored drill
 * read first, as a rejection (what the worker would record), or undefined when the worker would apply
 * it. Only ZooKeeper's errors throw.
 */
export async function checkPutDrill(session: ZkReader, paths: DrillCheckPaths, request: PutDrillChangeRequest | PutFabricDrillChangeRequest): Promise<Rejection | undefined> {
  const { node } = await readDrillNode(session, drillPath(paths.drillsPath, request.drill));
  const problem = 'fabric' in request ? await putFabricDrillProblem(session, paths, request, node) : await putDrillProblem(session, paths.d2BasePath, request, node);
  return problem === undefined ? undefined : rejectionOf([problem], request.requestId);
}
