/**
 * Auditing and applying an ACL policy on a live tree: {@link auditAcls} lists every node a client
 * WITHOUT credentials could change (`failout zk check`, and the bridge's and the worker's refusal to
 * start on such a tree); {@link applyAclPolicy} sets every node's ACL to the policy's and creates the
 * layout's missing parents (`failout zk secure`, through lib/requests `secureAcls`, which gives it the
 * failout access table), idempotently, with a dry run.
 *
 * Both walk the same nodes: each root's proper ancestors below `/` (the node only, not their other
 * children) and each root's whole subtree. Nodes that vanish during the walk (ephemeral
 * announcements) are skipped.
 */
import { normalizeAcl, openPermissions, sameAcl, type AclPolicy } from './acl-policy';
import { assertIsError, isZkError, ZkError, type ZkErrorKind } from './errors';
import type { ZkAclAccess, ZkReader, ZkWriter } from './ports';
import { parentOf } from './session';
import type { AclEntry, Permission } from './types';

/** A node a client without credentials could change. */
export interface OpenAclNode {
  /** The node. */
  readonly path: string;
  /** What such a client may do beyond reading (`write`, `create`, `delete`, `admin`). */
  readonly perms: readonly Permission[];
  /** The node's whole ACL. */
  readonly acl: readonly AclEntry[];
}

/** A node whose ACL or children could not be read (so the audit could not vouch for it). */
export interface UnreadableNode {
  /** The node. */
  readonly path: string;
  /** Why: `noAuth` mostly. */
  readonly kind: ZkErrorKind;
}

/** What {@link auditAcls} found. */
export interface AclAudit {
  /** Nodes whose ACL was read. */
  readonly checked: number;
  /** Nodes writable without credentials, sorted by path. */
  readonly open: readonly OpenAclNode[];
  /** Nodes that could not be checked, sorted by path. */
  readonly unreadable: readonly UnreadableNode[];
}

/** How many reads a walk keeps in flight. */
const CONCURRENCY = 32;

/** A node met by {@link walk}: its ACL, or why it could not be read. */
type Visit = { readonly path: string; readonly acl: AclEntry[]; readonly aversion: number } | { readonly path: string; readonly error: ZkError };

/** Proper ancestors of `path` below the root, nearest last: `/a/b/c` → `/a`, `/a/b`. */
function ancestorsOf(path: string): string[] {
  const out: string[] = [];
  for (let p = parentOf(path); p !== '/'; p = parentOf(p)) out.unshift(p);
  return out;
}

/**
 * Visits the roots' ancestors (node only) and subtrees, reading each node's ACL, with bounded
 * concurrency. Missing nodes are skipped; unreadable ones are visited with their error.
 */
async function walk(session: ZkReader & ZkAclAccess, roots: readonly string[], visit: (v: Visit) => Promise<void>): Promise<void> {
  const seen = new Set<string>();
  const queue: { path: string; subtree: boolean }[] = [];
  const push = (path: string, subtree: boolean): void => {
    if (seen.has(path)) return;
    seen.add(path);
    queue.push({ path, subtree });
  };
  for (const root of roots) {
    for (const ancestor of ancestorsOf(root)) push(ancestor, false);
    push(root, true);
  }
  const one = async (item: { path: string; subtree: boolean }): Promise<void> => {
    let node: { acl: AclEntry[]; aversion: number; numChildren: number };
    try {
      const { acl, stat } = await session.getAcl(item.path);
      node = { acl, aversion: stat.aversion, numChildren: stat.numChildren };
    } catch (err) {
      assertIsError(err);
      if (isZkError(err, 'noNode')) return;
      if (!(err instanceof ZkError) || err.transient || err.kind === 'closed') throw err;
      return visit({ path: item.path, error: err });
    }
    await visit({ path: item.path, acl: node.acl, aversion: node.aversion });
    // A leaf (most nodes: announcements, records) needs no children read; one created since is new
    // data, not part of what this walk vouches for.
    if (!item.subtree || node.numChildren === 0) return;
    try {
      for (const child of (await session.children(item.path)).children) push(`${item.path}/${child}`, true);
    } catch (err) {
      assertIsError(err);
      if (isZkError(err, 'noNode')) return;
      if (!(err instanceof ZkError) || err.transient || err.kind === 'closed') throw err;
      await visit({ path: item.path, error: err });
    }
  };
  // A pool of at most CONCURRENCY reads: each finished node may have queued its children, so the pool
  // refills after every completion (a fixed set of workers would shrink to one on a deep, narrow start).
  await new Promise<void>((resolve, reject) => {
    let active = 0;
    let failed = false;
    const pump = (): void => {
      while (!failed && active < CONCURRENCY && queue.length > 0) {
        const item = queue.shift()!;
        active++;
        one(item).then(
          () => {
            active--;
            pump();
          },
          (err: unknown) => {
            failed = true;
            reject(err);
          },
        );
      }
      if (!failed && active === 0 && queue.length === 0) resolve();
    };
    pump();
  });
}

/**
 * Lists every node under `roots` (and the roots' ancestors below `/`) that a client without
 * credentials could change. Needs only read access (an unauthenticated session will do).
 * @throws ZkError on connection loss or session expiry (an audit cut short proves nothing).
 */
export async function auditAcls(session: ZkReader & ZkAclAccess, roots: readonly string[]): Promise<AclAudit> {
  const open: OpenAclNode[] = [];
  const unreadable = new Map<string, UnreadableNode>();
  let checked = 0;
  await walk(session, roots, async (v) => {
    if ('error' in v) {
      unreadable.set(v.path, { path: v.path, kind: v.error.kind });
      return;
    }
    checked++;
    const perms = openPermissions(v.acl);
    if (perms.length > 0) open.push({ path: v.path, perms, acl: normalizeAcl(v.acl) });
  });
  const byPath = <T extends { path: string }>(a: T, b: T): number => a.path.localeCompare(b.path);
  return { checked, open: open.sort(byPath), unreadable: [...unreadable.values()].sort(byPath) };
}

/** True when the audit found nothing a client without credentials could change, and nothing unreadable. */
export function auditPassed(audit: AclAudit): boolean {
  return audit.open.length === 0 && audit.unreadable.length === 0;
}

/**
 * One line per finding (at most `max`, then a count), for error messages and the CLI: which nodes,
 * and what an unauthenticated client may do there.
 */
export function describeAudit(audit: AclAudit, max = 10): string[] {
  const lines = [
    ...audit.open.map((n) => `${n.path}: anyone may ${n.perms.join(', ')}`),
    ...audit.unreadable.map((n) => `${n.path}: cannot read its ACL or children (${n.kind})`),
  ];
  return lines.length > max ? [...lines.slice(0, max), `… and ${lines.length - max} more`] : lines;
}

/** One change {@link applyAclPolicy} made, or would make in a dry run. */
export interface AclChange {
  /** The node. */
  readonly path: string;
  /** `create`: a missing layout parent; `setAcl`: an existing node's ACL replaced. */
  readonly action: 'create' | 'setAcl';
  /** The ACL before (for `setAcl`). */
  readonly from?: readonly AclEntry[];
  /** The ACL after. */
  readonly to: readonly AclEntry[];
}

/** A change that failed, and why. */
export interface AclChangeFailure extends AclChange {
  /** Why ZooKeeper refused it. */
  readonly error: ZkError;
}

/** What {@link applyAclPolicy} did. */
export interface SecureReport {
  /** Changes made (or, in a dry run, that would be made), in walk order. */
  readonly changes: readonly AclChange[];
  /** Nodes already as the policy wants them. */
  readonly unchanged: number;
  /** Changes that failed: `noAuth` (the admin lacks ADMIN on the node), `badVersion` (changed meanwhile; run again). */
  readonly failures: readonly AclChangeFailure[];
}

/** Options of {@link applyAclPolicy}. */
export interface AclApplyOptions {
  /** Subtrees to secure. Default: every root of the policy. */
  readonly roots?: readonly string[];
  /** Further nodes to create when missing (e.g. `/d2/uris/<cluster>` so servers can announce). */
  readonly ensure?: readonly string[];
  /** Report what would change, change nothing. */
  readonly dryRun?: boolean;
}

/**
 * Applies a policy (its `aclOf`) to a tree: creates the layout's missing parents (each root, its
 * ancestors below `/`, the nodes the policy requires below a root, `ensure`) with their ACLs, then
 * sets the ACL of every existing node of the roots' subtrees (and the ancestors) that differs from the
 * policy. Data is never touched. Running it twice changes nothing the second time. Adopts a D2 tree
 * rest.li services already use: their announcements get the announcement ACL, unknown nodes under the
 * D2 base the read-only one.
 *
 * The session needs ADMIN on every node it changes (the admin identity, or ZooKeeper's super user;
 * world on a still-open tree) and CREATE on the parents of missing ones.
 * @throws ZkError `invalidAcl` when a node to create is outside the layout; on connection loss or
 *   session expiry; per-node refusals are in `failures`.
 */
export async function applyAclPolicy(session: ZkReader & ZkWriter & ZkAclAccess, policy: AclPolicy, options: AclApplyOptions = {}): Promise<SecureReport> {
  const roots = options.roots ?? policy.roots;
  const aclFor = (path: string): AclEntry[] => {
    const acl = policy.aclOf(path);
    if (acl === undefined) throw new ZkError('invalidAcl', 'outside the failout ZooKeeper layout: no ACL for it', { path });
    return acl;
  };
  const changes: AclChange[] = [];
  const failures: AclChangeFailure[] = [];
  let unchanged = 0;
  const attempt = async (change: AclChange, run: () => Promise<unknown>): Promise<void> => {
    if (options.dryRun) {
      changes.push(change);
      return;
    }
    try {
      await run();
      changes.push(change);
    } catch (err) {
      assertIsError(err);
      if (isZkError(err, 'noNode') && change.action === 'setAcl') return; // gone meanwhile: nothing to secure
      if (isZkError(err, 'nodeExists') && change.action === 'create') return;
      if (!(err instanceof ZkError) || err.transient || err.kind === 'closed') throw err;
      failures.push({ ...change, error: err });
    }
  };
  for (const path of skeleton(policy, roots, options.ensure ?? [])) {
    if (await session.exists(path)) continue;
    const to = aclFor(path);
    await attempt({ path, action: 'create', to }, () => session.create(path, undefined, { acl: to }));
  }
  await walk(session, roots, async (v) => {
    if ('error' in v) {
      failures.push({ path: v.path, action: 'setAcl', to: [], error: v.error });
      return;
    }
    const to = policy.aclOf(v.path);
    if (to === undefined) return;
    if (sameAcl(v.acl, to)) {
      unchanged++;
      return;
    }
    await attempt({ path: v.path, action: 'setAcl', from: normalizeAcl(v.acl), to }, () => session.setAcl(v.path, to, v.aversion));
  });
  return { changes, unchanged, failures };
}

/** The nodes `secure` makes sure exist, parents first: ancestors, roots, the nodes required below them, extras. */
function skeleton(policy: AclPolicy, roots: readonly string[], ensure: readonly string[]): string[] {
  const wanted = [...roots, ...roots.flatMap((root) => policy.requiredBelow(root)), ...ensure];
  const out: string[] = [];
  for (const path of wanted) for (const p of [...ancestorsOf(path), path]) if (!out.includes(p)) out.push(p);
  return out;
}
