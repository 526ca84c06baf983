import { Command, Option } from 'commander';
import { urisPath } from '../../d2/data';
import { aclLayout, layoutRoots, secureAcls, type AclLayout } from '../../requests/acl';
import { escapeControlChars } from '../../text';
import {
  ACL_ROLE_VARIABLES,
  aclRolesFromEnv,
  auditAcls,
  auditPassed,
  formatAcl,
  isZkError,
  missingRoles,
  withOwnIdentity,
  type AclRoles,
  type DigestCredential,
} from '../../zk';
import { addOutputOptions, addConnectionOptions, printJson, withConnections, type CommandRuntime } from '../command-context';
import { EXIT } from '../errors';
import type { CliIo } from '../io';
import { checkFailoutView, formatViewCheck, reindexCommand, viewCheckFailed } from './zk-view';
import { OperatorError, type OperatorSettings, type ConnectionFlags } from '../../operator';
import { inputError } from '../../operator';

/**
 * `failout zk secure|check`: the ACL policy (lib/zk `aclFor`, docs/deployers.md "Access control") on a live tree.
 * `check` needs no credentials; `secure` runs as the admin (`ZK_ADMIN_DIGEST`).
 */

/** The bridge's default election path (lib/bridge config `zookeeper.electionPath`). */
const DEFAULT_ELECTION_PATH = '/failout/bridge/leader';
/** Where drills live by default (the ACL policy's `drillsPath`). */
const DEFAULT_DRILLS_PATH = '/failout/drills';

const OVERVIEW = `
Every node failout uses gets its ACL from one table (docs/deployers.md "Access control"): everyone reads;
the bridge, the request writer and announcers change only their own paths; the admin may do everything.

  check   lists every node a client WITHOUT credentials could change, and where the view of open
          failouts (/failout/view) disagrees with the cluster nodes (exit 1 if any, 0 otherwise)
  reindex rebuilds that view from the cluster nodes (the worker judges every request against it)
  secure  applies the table to an existing tree (e.g. a D2 tree rest.li services already use),
          creating missing parents; idempotent; --dry-run prints what it would change

Environment:
  ZK_ADMIN_DIGEST      user:password of the admin (secure: required; check: optional, to read every node)
  ZK_ACL_BRIDGE_ID     digest id of the bridge (secure: required)
  ZK_ACL_WRITER_ID     digest id of the request writer (secure: required)
  ZK_ACL_ANNOUNCER_ID  digest id of announcing services (optional)
  ZK_ACL_ADMIN_ID      further admin digest ids (optional)
A digest id is user:base64(sha1(user:password)) — the id, never the password.
`;

const CHECK_EXAMPLES = `
Examples:
  failout zk check
  failout zk check --election-path /failout/bridge/leader --json
`;

const SECURE_EXAMPLES = `
Examples:
  failout zk secure --dry-run
  failout zk secure --cluster greetings-lor1     # also create /d2/uris/greetings-lor1 for announcers
`;

type ZkFlags = ConnectionFlags & { electionPath?: string; drillsPath?: string; json?: boolean; dryRun?: boolean; cluster?: string[] };

/** `failout zk`: the `check` and `secure` subcommands. */
export function zkCommand(rt: CommandRuntime): Command {
  const zk = new Command('zk').description('ZooKeeper access control: apply the ACL table (secure) or list nodes anyone may change (check)').addHelpText('after', OVERVIEW);
  for (const sub of [checkCommand(rt), secureCommand(rt), reindexCommand(rt, (required) => adminCredential(rt.io.env, required))]) {
    // Nested subcommands inherit neither exitOverride nor the output hooks (see program.ts).
    sub
      .exitOverride()
      .showHelpAfterError('(add --help for usage and examples)')
      .configureOutput({ writeOut: (text) => rt.io.stdout(text), writeErr: (text) => rt.io.stderr(text) });
    zk.addCommand(sub);
  }
  return zk;
}

function withLayoutOptions(command: Command): Command {
  addConnectionOptions(command)
    .addOption(new Option('--election-path <path>', `the bridge's election path (default: ${DEFAULT_ELECTION_PATH})`))
    .addOption(new Option('--drills-path <path>', `where drills live (default: ${DEFAULT_DRILLS_PATH})`));
  return command;
}

function checkCommand(rt: CommandRuntime): Command {
  const command = new Command('check')
    .description('list every node of the failout layout a client without credentials could change; exit 1 if there is one');
  addOutputOptions(withLayoutOptions(command)).addHelpText('after', CHECK_EXAMPLES);
  return command.action(async (flags: ZkFlags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const layout = layoutOf(settings, flags);
      const admin = adminCredential(rt.io.env, false);
      const roots = layoutRoots(layout);
      const audit = await unlessUnavailable(async () => auditAcls(await connections.zk(admin ? [admin] : []), roots));
      const view = await unlessUnavailable(async () => checkFailoutView(await connections.zk(admin ? [admin] : []), settings, Date.now()));
      const passed = auditPassed(audit) && !viewCheckFailed(view);
      if (flags.json) {
        printJson(rt.io, { roots, checked: audit.checked, open: audit.open, unreadable: audit.unreadable, view, passed });
      } else {
        for (const line of formatViewCheck(view)) rt.io.stdout(`${line}\n`);
        for (const node of audit.open) rt.io.stdout(`open       ${escapeControlChars(node.path)}  anyone may ${node.perms.join(', ')}  (${formatAcl(node.acl)})\n`);
        for (const node of audit.unreadable) rt.io.stdout(`unchecked  ${escapeControlChars(node.path)}  cannot read its ACL or children (${node.kind})\n`);
        rt.io.stdout(
          auditPassed(audit)
            ? `${audit.checked} nodes checked under ${roots.join(', ')}: none can be changed without credentials\n`
            : `${audit.checked} nodes checked: ${audit.open.length} can be changed without credentials, ${audit.unreadable.length} could not be checked. ` +
                'Run `failout zk secure --dry-run`, then `failout zk secure` (ZK_ADMIN_DIGEST, ZK_ACL_BRIDGE_ID, ZK_ACL_WRITER_ID)\n',
        );
      }
      rt.setExit(passed ? EXIT.ok : EXIT.failed);
    });
  });
}

function secureCommand(rt: CommandRuntime): Command {
  const command = new Command('secure')
    .description('apply the ACL table to every node of the failout layout (as the admin, ZK_ADMIN_DIGEST); idempotent')
    .option('--dry-run', 'print what would change; change nothing')
    .addOption(new Option('--cluster <name...>', 'also create /d2/uris/<name> (with its ACL) so servers can announce before the bridge writes it'));
  withLayoutOptions(command).addHelpText('after', SECURE_EXAMPLES);
  return command.action(async (flags: ZkFlags) => {
    await withConnections(flags, rt.io, async (connections, settings) => {
      const layout = layoutOf(settings, flags);
      const admin = adminCredential(rt.io.env, true)!;
      const roles = secureRoles(rt.io, admin);
      const ensure = (flags.cluster ?? []).map((name) => clusterDirectory(layout, name));
      const dryRun = flags.dryRun === true;
      const report = await unlessUnavailable(async () => secureAcls(await connections.zk([admin]), { roles, layout, ensure, dryRun }));
      const verb = (action: 'create' | 'setAcl'): string => (dryRun ? `would ${action === 'create' ? 'create' : 'set'}` : action === 'create' ? 'created' : 'set');
      for (const c of report.changes) {
        const acl = c.from ? `${formatAcl(c.from)} → ${formatAcl(c.to)}` : formatAcl(c.to);
        rt.io.stdout(`${verb(c.action)}  ${escapeControlChars(c.path)}  ${acl}\n`);
      }
      for (const f of report.failures) rt.io.stdout(`failed  ${escapeControlChars(f.path)}: ${f.error.kind} (${f.action === 'create' ? 'create' : 'set ACL'}); the admin needs ADMIN on it, or ZooKeeper's super user\n`);
      rt.io.stdout(
        `${dryRun ? 'dry run: ' : ''}${report.changes.length} change(s)${dryRun ? ' would be made' : ' made'}, ${report.unchanged} node(s) already as the table wants` +
          `${report.failures.length > 0 ? `, ${report.failures.length} failed` : ''}${dryRun ? '; nothing was changed' : ''}\n`,
      );
      rt.setExit(report.failures.length > 0 ? EXIT.failed : EXIT.ok);
    });
  });
}

/** The layout from the connection settings (`--d2-base`, `--requests-base`, `FAILOUT_FABRICS_PATH`, `FAILOUT_EVACUATIONS_PATH`), `--election-path` and `--drills-path`. */
function layoutOf(settings: OperatorSettings, flags: ZkFlags): AclLayout {
  try {
    return aclLayout({
      d2BasePath: settings.d2Base,
      requestsPath: settings.requestsBase,
      drillsPath: flags.drillsPath ?? DEFAULT_DRILLS_PATH,
      // The fabric maps' parent (issue 23): FAILOUT_FABRICS_PATH, as `failout fabric` reads it.
      fabricsPath: settings.fabricsBase,
      // The evacuation nodes' parent (issue 23): FAILOUT_EVACUATIONS_PATH, as `failout status` reads it.
      evacuationsPath: settings.evacuationsBase,
      electionPaths: [flags.electionPath ?? DEFAULT_ELECTION_PATH],
    });
  } catch (err) {
    throw inputError(`bad ZooKeeper layout: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** `ZK_ADMIN_DIGEST` as a credential; a usage error when `required` and unset, or malformed (never echoed). */
function adminCredential(env: CliIo['env'], required: boolean): DigestCredential | undefined {
  const text = env.ZK_ADMIN_DIGEST?.trim();
  if (!text) {
    if (required) throw inputError('set ZK_ADMIN_DIGEST=user:password (the admin identity): only the admin may change ACLs');
    return undefined;
  }
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw inputError('ZK_ADMIN_DIGEST must hold user:password');
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

/** The identities `secure` grants: `ZK_ACL_*` plus the admin's own; the bridge and the writer are required. */
function secureRoles(io: CliIo, admin: DigestCredential): AclRoles {
  const parsed = aclRolesFromEnv(io.env);
  if (!parsed.ok) throw inputError(`${parsed.variable}: ${parsed.message}`);
  const roles = withOwnIdentity(parsed.roles, 'admin', [admin]);
  const missing = missingRoles(roles, ['bridge', 'requestWriter']);
  if (missing.length > 0) {
    throw inputError(`set ${missing.map((r) => ACL_ROLE_VARIABLES[r]).join(' and ')}: securing without them would lock those components out of their own nodes`);
  }
  if (missingRoles(roles, ['announcer']).length > 0) io.stderr(`note: no ${ACL_ROLE_VARIABLES.announcer}: servers announcing themselves will get NoAuth under /d2/uris\n`);
  return roles;
}

function clusterDirectory(layout: AclLayout, name: string): string {
  try {
    return urisPath(layout.d2BasePath, name);
  } catch {
    throw inputError(`--cluster ${JSON.stringify(escapeControlChars(name))} is not a valid cluster name`);
  }
}

/** Runs a tree walk; a connection lost on the way is `unavailable` (a walk cut short proves nothing). */
async function unlessUnavailable<T>(walk: () => Promise<T>): Promise<T> {
  try {
    return await walk();
  } catch (err) {
    if (isZkError(err) && (err.transient || err.kind === 'closed')) {
      throw new OperatorError('unavailable', `ZooKeeper stopped answering during the walk (${err.kind}): nothing is proven; run it again`, { cause: err });
    }
    throw err;
  }
}
