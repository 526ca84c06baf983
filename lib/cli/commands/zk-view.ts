import { Command } from 'commander';
import { aclLayout, policyAcl } from '../../requests/acl';
import { decodeFailoutView, encodeFailoutView, rebuildFailoutView, viewDrift, viewPathFor, type ViewDrift } from '../../requests';
import { escapeControlChars } from '../../text';
import { isZkError, missingRoles, OPEN_ACL, type AclSource, type DigestCredential, type ZkSession } from '../../zk';
import { aclRolesFromEnv, allowOpenAclFromEnv } from '../../zk/config';
import { addOutputOptions, addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import { OperatorError, type OperatorSettings, type ConnectionFlags } from '../../operator';
import { inputError } from '../../operator';

/**
 * The view of open failouts (`/failout/view`, issue 21) from the operator's side: `failout zk check`
 * compares it with the cluster nodes (the truth), `failout zk reindex` rebuilds it from them. The
 * worker rebuilds a missing or unreadable view by itself on its next request; reindex is for a view a
 * hand edit or a restore from backup left wrong.
 */

/** What the check found. */
export interface ViewCheck {
  readonly path: string;
  /** False when there is no view node yet (the worker creates it with its first change). */
  readonly exists: boolean;
  /** Why the stored view could not be read, when it could not. */
  readonly unreadable?: string;
  readonly drift: readonly ViewDrift[];
}

/** Compares the stored view with the cluster nodes at `now`. */
export async function checkFailoutView(session: ZkSession, settings: OperatorSettings, now: number): Promise<ViewCheck> {
  const path = viewPathFor(settings.requestsBase);
  const node = await session.read(path);
  const truth = await rebuildFailoutView(session, settings.d2Base, now);
  // An empty node is one `failout zk secure` made (it creates the layout's roots): not written yet.
  if (!node.exists || node.data.length === 0) return { path, exists: false, drift: [...truth.keys()].map((cluster) => ({ cluster, kind: 'missing' as const })) };
  try {
    return { path, exists: true, drift: viewDrift(decodeFailoutView(node.data), truth, now) };
  } catch (err) {
    return { path, exists: true, unreadable: err instanceof Error ? err.message : String(err), drift: [] };
  }
}

/** Lines for `failout zk check` (empty when the view agrees). */
export function formatViewCheck(check: ViewCheck): string[] {
  const lines: string[] = [];
  if (check.unreadable !== undefined) lines.push(`view       ${check.path} cannot be read (${escapeControlChars(check.unreadable)}): run \`failout zk reindex\``);
  for (const d of check.drift) lines.push(`view       ${escapeControlChars(d.cluster)}: ${DRIFT_TEXT[d.kind]}`);
  if (!check.exists && check.drift.length > 0) lines.push(`view       ${check.path} does not exist yet: the worker builds it with its next request, or run \`failout zk reindex\``);
  return lines;
}

const DRIFT_TEXT: Record<ViewDrift['kind'], string> = {
  missing: 'has an open failout the view lacks (requests are judged without it): run `failout zk reindex`',
  stale: 'is in the view but its cluster node has no open failout: run `failout zk reindex`',
  differs: "the view's failout differs from the cluster node's: run `failout zk reindex`",
};

/** True when the view is a problem (`check` exits 1): drift in an existing view, or an unreadable one. A missing view with open failouts is drift too. */
export function viewCheckFailed(check: ViewCheck): boolean {
  return check.unreadable !== undefined || check.drift.length > 0;
}

type ReindexFlags = ConnectionFlags & { json?: boolean };

/** `failout zk reindex`: rewrite the view from the cluster nodes (a compare-and-set; retried if a worker writes meanwhile). */
export function reindexCommand(rt: CommandRuntime, admin: (required: boolean) => DigestCredential | undefined): Command {
  const command = new Command('reindex')
    .description('rebuild the view of open failouts (/failout/view) from the cluster nodes; the worker judges every request against it');
  addOutputOptions(addConnectionOptions(command));
  return command.action(async (flags: ReindexFlags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const credential = admin(false);
      const session = await connections.zk(credential ? [credential] : []);
      const result = await reindex(session, settings, rt.io.env);
      if (flags.json) printJson(rt.io, result);
      else rt.io.stdout(`${result.created ? 'created' : 'rewrote'} ${result.path}: ${result.clusters.length} open failout(s)${result.clusters.length > 0 ? ` (${result.clusters.map((c) => escapeControlChars(c)).join(', ')})` : ''}\n`);
      rt.setExit(EXIT.ok);
    });
  });
}

async function reindex(session: ZkSession, settings: OperatorSettings, env: Readonly<Record<string, string | undefined>>): Promise<{ path: string; created: boolean; clusters: string[] }> {
  const path = viewPathFor(settings.requestsBase);
  for (let attempt = 1; ; attempt++) {
    const node = await session.read(path);
    const view = await rebuildFailoutView(session, settings.d2Base, Date.now());
    const data = encodeFailoutView(view);
    try {
      if (node.exists) await session.set(path, data, node.stat.version);
      else await session.create(path, data, { acl: viewAcl(settings, env), parents: true });
      return { path, created: !node.exists, clusters: [...view.keys()] };
    } catch (err) {
      if (isZkError(err, 'badVersion', 'nodeExists', 'noNode') && attempt < 5) continue;
      if (isZkError(err, 'noAuth')) throw new OperatorError('rejected', `ZooKeeper refused the write of ${path} (NO_AUTH): run as the admin (ZK_ADMIN_DIGEST)`, { cause: err });
      throw err;
    }
  }
}

/**
 * The ACLs of what reindex creates: the table's, path by path, which needs the request writer's
 * identity (else the worker could not write the view). A missing parent (`/failout` on a fresh
 * ensemble) gets its own row (`ancestor`: the writer and the bridge may create under it), never the
 * view's, which would lock them out of the rest of their tree.
 */
function viewAcl(settings: OperatorSettings, env: Readonly<Record<string, string | undefined>>): AclSource {
  const parsed = aclRolesFromEnv(env);
  if (!parsed.ok) throw inputError(`${parsed.variable}: ${parsed.message}`);
  // The layout as the worker sees it (resolveWriterAcl), so a parent is classified as the worker's policy classifies it.
  const layout = aclLayout({ d2BasePath: settings.d2Base, requestsPath: settings.requestsBase, fabricsPath: settings.fabricsBase, evacuationsPath: settings.evacuationsBase });
  if (missingRoles(parsed.roles, ['requestWriter']).length === 0) return policyAcl(parsed.roles, layout);
  // An open tree (local stack, tests), as the worker's own FAILOUT_ALLOW_OPEN_ACL.
  if (allowOpenAclFromEnv(env)) return OPEN_ACL;
  throw inputError('no view node yet: the worker creates it with its next request; to create it here, set ZK_ACL_WRITER_ID so the worker may write it');
}
