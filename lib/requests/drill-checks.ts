import type { ZkReader } from '../zk';
import { decodeDrillNode, drillPath, type DrillNode } from './drill-node';
import type { PutDrillChangeRequest } from './drill-schema';
import { readPeerStates } from './peer-states';
import { rejectionOf, type Problem, type Rejection } from './rejection';

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

/** Reads the drill node at `path`. */
export async function readDrillNode(session: ZkReader, path: string): Promise<FoundDrill> {
  const found = await session.read(path);
  if (!found.exists) return { node: undefined, version: undefined };
  try {
    return { node: decodeDrillNode(found.data), version: found.stat.version };
  } catch {
    return { node: undefined, version: found.stat.version };
  }
}

/**
 * Why `putDrill` cannot be applied, given the drill node already stored under its name: the name is
 * another cluster's drill (`badDrill`: names are global, a definition never moves between clusters),
 * or a peer has no cluster node (`unknownPeer`). Undefined: it can. The drill's own cluster is judged
 * as every request's is (`unknownCluster`, judge-request.ts).
 */
export async function putDrillProblem(session: ZkReader, d2BasePath: string, request: PutDrillChangeRequest, existing: DrillNode | undefined): Promise<Problem | undefined> {
  if (existing !== undefined && existing.definition.cluster !== request.cluster) {
    return { reason: 'badDrill', message: `drill: ${JSON.stringify(request.drill)} is a drill of cluster ${JSON.stringify(existing.definition.cluster)}; delete it there first, or choose another name` };
  }
  const peers = await readPeerStates(session, d2BasePath, request.peers.map((p) => p.cluster));
  const unknown = request.peers.findIndex((p) => !peers.get(p.cluster)?.exists);
  if (unknown >= 0) return { reason: 'unknownPeer', message: `peers[${unknown}].cluster: ${JSON.stringify(request.peers[unknown]!.cluster)} has no cluster node` };
  return undefined;
}

/** Where the drill checks read. */
export interface DrillCheckPaths {
  /** D2 base path (the peers' cluster nodes). */
  readonly d2BasePath: string;
  /** Parent of the drills. */
  readonly drillsPath: string;
}

/**
 * {@link putDrillProblem} with the stored drill read first, as a rejection (what the worker would
 * record), or undefined when the worker would apply it. Only ZooKeeper's errors throw.
 */
export async function checkPutDrill(session: ZkReader, paths: DrillCheckPaths, request: PutDrillChangeRequest): Promise<Rejection | undefined> {
  const { node } = await readDrillNode(session, drillPath(paths.drillsPath, request.drill));
  const problem = await putDrillProblem(session, paths.d2BasePath, request, node);
  return problem === undefined ? undefined : rejectionOf([problem], request.requestId);
}
