/**
 * The diffing half of the sync: from what ZooKeeper holds (as last read or written) and what it should
 * hold, the minimal write operations, plus the view ZooKeeper will have once they succeed. Pure.
 *
 * Every `set` and `remove` carries the version it was planned against (compare-and-set), so a node
 * changed meanwhile — by the request worker writing `failoutProperties`, say — fails the batch
 * instead of being overwritten; the sync then re-reads and plans again.
 *
 * Every `create` carries its ACL from `acl` (the bridge's ACL policy, `aclFor`): no node is created
 * without one.
 */
import type { AclEntry, MultiOp } from '../zk';
import type { EntityTarget, NodeView, UrisView } from './model';

/** The ACL of a node the bridge creates (its policy: `policyAcl(roles, layout)`, or `OPEN_ACL` when opted in). */
export type NodeAcl = (path: string) => readonly AclEntry[];

/** Operations for one entity and the view after they succeed. */
export interface Plan<V> {
  readonly ops: readonly MultiOp[];
  readonly after: V;
}

/**
 * Plans a service or cluster node. `keep` and a `render` that declines give no operations;
 * `absent` removes an existing node at its version.
 */
export function planNode(path: string, current: NodeView, target: EntityTarget, acl: NodeAcl): Plan<NodeView> {
  if (target.kind === 'absent') {
    return current.exists ? { ops: [{ op: 'remove', path, version: current.version }], after: { exists: false } } : { ops: [], after: current };
  }
  if (target.kind !== 'node') return { ops: [], after: current };
  const data = target.render(current.exists ? current.data : undefined);
  if (data === undefined || (current.exists && current.data === data)) return { ops: [], after: current };
  const buffer = Buffer.from(data, 'utf8');
  if (!current.exists) return { ops: [{ op: 'create', path, data: buffer, mode: 'persistent', acl: acl(path) }], after: { exists: true, data, version: 0 } };
  return { ops: [{ op: 'set', path, data: buffer, version: current.version }], after: { exists: true, data, version: current.version + 1 } };
}

/**
 * Plans the bridge-owned children of `/d2/uris/<cluster>` (`directory`): creates the directory when
 * missing, creates new children, sets changed ones in place (one write per changed endpoint), then
 * removes children no longer wanted (in that order, so a plan split over batches never empties the cluster). Only names in `current.children` are ever removed or set, so servers'
 * own (ephemeral) announcements are never touched.
 */
export function planUris(directory: string, current: UrisView, target: EntityTarget, acl: NodeAcl): Plan<UrisView> {
  if (target.kind !== 'uris') return { ops: [], after: current };
  const ops: MultiOp[] = [];
  const after = new Map(current.children);
  if (!current.parentExists && target.children.size > 0) ops.push({ op: 'create', path: directory, mode: 'persistent', acl: acl(directory) });
  // New and changed hosts before removed ones: a plan larger than one multi is written in several
  // batches, and ZooKeeper (and every D2 client) sees each batch on its own; so does whoever reads
  // after a bridge killed between two batches. Adding first means every such state holds the hosts
  // of before or after, never neither (removing first emptied a cluster whose hosts were all replaced).
  for (const [name, data] of target.children) {
    const have = current.children.get(name);
    if (have?.data === data) continue;
    const path = `${directory}/${name}`;
    const buffer = Buffer.from(data, 'utf8');
    ops.push(have ? { op: 'set', path, data: buffer, version: have.version } : { op: 'create', path, data: buffer, mode: 'persistent', acl: acl(path) });
    after.set(name, { data, version: have ? have.version + 1 : 0 });
  }
  for (const [name, have] of current.children) {
    if (!target.children.has(name)) {
      ops.push({ op: 'remove', path: `${directory}/${name}`, version: have.version });
      after.delete(name);
    }
  }
  return { ops, after: { parentExists: current.parentExists || ops.some((o) => o.path === directory), children: after } };
}

/** Bytes an operation adds to a multi request (payload plus path; headers are small). */
export function opBytes(op: MultiOp): number {
  return op.path.length + ('data' in op && op.data ? op.data.length : 0) + 16;
}

/**
 * Groups plans into batches of at most `maxOps` operations and `maxBytes` bytes, keeping each plan's
 * operations together (and in order) unless a single plan is larger than a batch by itself.
 */
export function batchPlans<K>(plans: readonly { key: K; ops: readonly MultiOp[] }[], maxOps: number, maxBytes: number): { keys: K[]; ops: MultiOp[] }[] {
  const batches: { keys: K[]; ops: MultiOp[]; bytes: number }[] = [];
  let current: { keys: K[]; ops: MultiOp[]; bytes: number } = { keys: [], ops: [], bytes: 0 };
  const flush = (): void => {
    if (current.ops.length > 0) batches.push(current);
    current = { keys: [], ops: [], bytes: 0 };
  };
  for (const plan of plans) {
    if (plan.ops.length === 0) continue;
    const bytes = plan.ops.reduce((sum, op) => sum + opBytes(op), 0);
    if (current.ops.length + plan.ops.length > maxOps || current.bytes + bytes > maxBytes) flush();
    if (!current.keys.includes(plan.key)) current.keys.push(plan.key);
    for (const op of plan.ops) {
      if (current.ops.length >= maxOps || (current.ops.length > 0 && current.bytes + opBytes(op) > maxBytes)) {
        flush();
        current.keys.push(plan.key);
      }
      current.ops.push(op);
      current.bytes += opBytes(op);
    }
  }
  flush();
  return batches.map(({ keys, ops }) => ({ keys, ops }));
}
