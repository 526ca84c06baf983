import { decodeFabricMap, encodeFabricMap, fabricMapPath, isFabricError, type FabricMap } from '../fabrics';
import { isZkError, resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import type { FabricChangeRequest, PutFabricChangeRequest } from './fabric-schema';
import { rejectionOf, type Rejection } from './rejection';

/**
 * What a fabric map change (issue 23, fabric-schema.ts) writes, for the writer's one multi with the
 * request record (exactly once, as every other action):
 * - `putFabric`: creates or sets `<fabricsPath>/<fabric>` (lib/fabrics' codec) at the version read,
 *   with the ACL of the table (acl-table.ts `fabric`); refused (`fabricConflict`, nothing written but
 *   the record) when another fabric's map already names one of its clusters, saying which fabric.
 * - `deleteFabric`: removes the map at the version read; no map: applied, nothing written (`unchanged`).
 * Every write also sets the maps' parent at the version read (its data unchanged): the conflict check
 * reads every map, so two map changes must not both pass it on the same state. ZooKeeper's check op
 * cannot see a new sibling; the parent's version, bumped by every map change, can.
 */
export interface FabricEffects {
  /** Ops before the record's create. */
  readonly ops: readonly MultiOp[];
  /** Set when the request is refused. */
  readonly rejection?: Rejection;
  /** The map node's version after the write; null when removed or absent. */
  readonly version: number | null;
  /** A delete of a map that does not exist: nothing to write. */
  readonly unchanged?: true;
}

/** Where the maps live, and the ACL of created nodes. */
export interface FabricWriteContext {
  readonly session: ZkReader;
  readonly fabricsPath: string;
  readonly acl: AclSource;
}

/** The effects of `request` on the maps, read now. */
export async function fabricEffectsOf(context: FabricWriteContext, request: FabricChangeRequest): Promise<FabricEffects> {
  const { session, fabricsPath } = context;
  const path = fabricMapPath(fabricsPath, request.fabric);
  const parentNode = await session.read(fabricsPath);
  const parent = parentNode.exists ? parentNode.stat.version : undefined;
  const node = parent === undefined ? undefined : await session.read(path);
  const current = node?.exists ? node : undefined;
  // The parent is touched (data as read, version checked) by every write: see the interface's doc.
  // No parent yet: the writer creates it with the map (a racing first map fails on its create).
  const guard = async (): Promise<MultiOp[]> => (parentNode.exists ? [{ op: 'set', path: fabricsPath, data: parentNode.data, version: parentNode.stat.version }] : []);
  if (request.action === 'deleteFabric') {
    if (current === undefined) return { ops: parent === undefined ? [] : [{ op: 'check', path: fabricsPath, version: parent }], version: null, unchanged: true };
    return { ops: [...(await guard()), { op: 'remove', path, version: current.stat.version }], version: null };
  }
  const judged = await putJudgement(context, parent, request);
  if ('rejection' in judged) {
    return { ops: parent === undefined ? [] : [{ op: 'check', path: fabricsPath, version: parent }], version: null, rejection: judged.rejection };
  }
  const { data } = judged;
  if (current === undefined) return { ops: [...(await guard()), { op: 'create', path, data, acl: resolveAcl(context.acl, path) }], version: 0 };
  return { ops: [...(await guard()), { op: 'set', path, data, version: current.stat.version }], version: current.stat.version + 1 };
}

/**
 * Why the worker would refuse `request` against the maps in ZooKeeper now, or undefined when it would
 * apply it: the worker's own check ({@link fabricEffectsOf}), read only, for a client to refuse before
 * sending (`failout fabric put`). A `deleteFabric` is never refused. ZooKeeper errors propagate.
 */
export async function judgeFabricChange(context: Pick<FabricWriteContext, 'session' | 'fabricsPath'>, request: FabricChangeRequest): Promise<Rejection | undefined> {
  if (request.action === 'deleteFabric') return undefined;
  const parentNode = await context.session.read(context.fabricsPath);
  const judged = await putJudgement(context, parentNode.exists ? parentNode.stat.version : undefined, request);
  return 'rejection' in judged ? judged.rejection : undefined;
}

/**
 * A `putFabric` judged: refused (`fabricConflict`) when another fabric's map names one of its clusters,
 * or (`badFabric`) when the map's codec would not write it; else the node's bytes, by that codec.
 */
async function putJudgement(context: Pick<FabricWriteContext, 'session' | 'fabricsPath'>, parent: number | undefined, request: PutFabricChangeRequest): Promise<{ readonly data: Buffer } | { readonly rejection: Rejection }> {
  const conflict = await conflictOf(context, parent, request.map);
  if (conflict !== undefined) return { rejection: rejectionOf([{ reason: 'fabricConflict', message: conflict }], request.requestId) };
  try {
    return { data: encodeFabricMap(request.map) };
  } catch (e) {
    if (!isFabricError(e)) throw e;
    return { rejection: rejectionOf([{ reason: 'badFabric', message: e.message }], request.requestId) };
  }
}

/** Which of `map`'s clusters other fabrics' maps name, as a message; undefined when none. A map that does not decode places nothing (as `readFabrics` reads it). */
async function conflictOf(context: Pick<FabricWriteContext, 'session' | 'fabricsPath'>, parent: number | undefined, map: FabricMap): Promise<string | undefined> {
  if (parent === undefined) return undefined;
  let names: readonly string[];
  try {
    names = (await context.session.children(context.fabricsPath)).children;
  } catch (e) {
    if (isZkError(e, 'noNode')) return undefined;
    throw e;
  }
  const wanted = new Set(map.clusters.map((c) => c.cluster));
  const found: string[] = [];
  for (const name of [...names].sort()) {
    if (name === map.fabric) continue;
    let other: FabricMap;
    try {
      const node = await context.session.read(fabricMapPath(context.fabricsPath, name));
      if (!node.exists) continue;
      other = decodeFabricMap(name, node.data);
    } catch (e) {
      if (isFabricError(e)) continue;
      throw e;
    }
    for (const entry of other.clusters) if (wanted.has(entry.cluster)) found.push(`cluster ${JSON.stringify(entry.cluster)} is in fabric ${JSON.stringify(name)}'s map`);
  }
  if (found.length === 0) return undefined;
  return `${found.slice(0, 5).join('; ')}${found.length > 5 ? `; and ${found.length - 5} more` : ''}: a cluster is in one fabric; change or delete that map first`;
}
