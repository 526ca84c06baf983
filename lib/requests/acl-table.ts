/**
 * Who may change what in failout's part of ZooKeeper: the ONE role → path → permission table
 * (ARCHITECTURE.md "ZooKeeper layout", docs "Access control"), as pure functions of a path. Every
 * creator (bridge, request writer, announcer, leader election) takes its ACLs from {@link aclFor}, and
 * `failout zk secure` / `check` apply and audit the same table, so the two cannot drift.
 *
 * It lives with the failout domain, beside the paths it covers: the records, the drills and the view
 * are this module's (`DEFAULT_REQUESTS_PATH`, `DEFAULT_DRILLS_PATH`, `DEFAULT_VIEW_PATH`), D2's
 * directories come from lib/d2's path helpers, and the row of the URI nodes D2 creates itself from
 * lib/d2 (`URI_NODE_GRANTS`). lib/zk holds the mechanism: grants made into ACLs, auditing and
 * applying a policy on a live tree.
 *
 * ZooKeeper ACLs are per node and not inherited, and the permission to create or delete a node is
 * checked on its PARENT: so the table names parents (`/d2/uris/<cluster>` grants announcers create and
 * delete) as well as the nodes holding data. Everyone reads every node; the admin identity, when
 * configured, may do everything (see lib/zk `aclFromGrants`).
 */
import { clusterPath, D2_DIRECTORIES, DEFAULT_BASE_PATH, servicePath, URI_NODE_GRANTS, urisPath } from '../d2/data';
import {
  aclFromGrants,
  applyAclPolicy,
  siblingPath,
  ZkError,
  type AclEntry,
  type AclGrants,
  type AclPolicy,
  type AclRoles,
  type SecureReport,
  type ZkAclAccess,
  type ZkReader,
  type ZkWriter,
} from '../zk';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { DEFAULT_DRILLS_PATH } from './drill-node';
import { DEFAULT_VIEW_PATH } from './failout-view';
import { DEFAULT_REQUESTS_PATH } from './request-record';
import { DEFAULT_EVACUATIONS_PATH } from './evacuation-node';

/** Where failout's nodes live. Each component fills in what it configures; the rest are defaults. */
export interface AclLayout {
  /** D2 base path (rest.li `zkBasePath`), default `/d2`. Never the root. */
  readonly d2BasePath: string;
  /** Parent of the request records, default `/failout/requests`. */
  readonly requestsPath: string;
  /** Parent of drill definitions and runs, default `/failout/drills`. */
  readonly drillsPath: string;
  /** The view of open failouts the request writer keeps (issue 21), default `/failout/view`. */
  readonly viewPath: string;
  /** Parent of the fabric maps the request writer keeps (issue 23), default `/failout/fabrics`. */
  readonly fabricsPath: string;
  /** Parent of the evacuation nodes the request writer keeps (issue 23), default `/failout/evacuations`. */
  readonly evacuationsPath: string;
  /** Parents of the bridge's election candidates, default `/failout/bridge/leader`. */
  readonly electionPaths: readonly string[];
}

/** The layout every component assumes unless configured otherwise. */
export const DEFAULT_ACL_LAYOUT: AclLayout = Object.freeze({
  d2BasePath: DEFAULT_BASE_PATH,
  requestsPath: DEFAULT_REQUESTS_PATH,
  drillsPath: DEFAULT_DRILLS_PATH,
  viewPath: DEFAULT_VIEW_PATH,
  fabricsPath: DEFAULT_FABRICS_PATH,
  evacuationsPath: DEFAULT_EVACUATIONS_PATH,
  // The bridge's default `zookeeper.electionPath` (lib/bridge sits above this module).
  electionPaths: Object.freeze(['/failout/bridge/leader']),
});

/**
 * The class of a node in the layout. `ancestor` is a proper ancestor of a layout root other than `/`
 * (e.g. `/failout`); `d2Other` is any other node under the D2 base (rest.li service-variant
 * directories, deeper nodes), which only the admin changes.
 */
export type NodeClass =
  | 'ancestor'
  | 'd2Base'
  | 'd2Directory'
  | 'service'
  | 'cluster'
  | 'clusterUris'
  | 'uri'
  | 'd2Other'
  | 'election'
  | 'candidate'
  | 'requests'
  | 'record'
  | 'drills'
  | 'drill'
  | 'fabrics'
  | 'fabricMap'
  | 'evacuations'
  | 'evacuation'
  | 'view';

/** One row of {@link ACL_TABLE}. */
export interface AclTableRow {
  /** The paths of the class, in the default layout (as the docs show them). */
  readonly pattern: string;
  /** What each role may do beyond reading; absent roles may only read. The admin may do everything. */
  readonly grants: AclGrants;
}

/**
 * The table. Why each row is as it is:
 * - ancestors: the bridge creates its election path's parents, the writer `/failout/requests`'s;
 *   both get `create` (whoever comes first must not lock the other out).
 * - D2 directories: the bridge creates and deletes services, clusters and cluster URI directories.
 * - cluster nodes: the bridge and the request writer both set data (the writer only
 *   `failoutProperties`, by contract; ZooKeeper cannot see inside the JSON).
 * - `/d2/uris/<cluster>`: announcers create and delete their ephemeral children there, the bridge its
 *   persistent ones. An announcer may NOT create a missing cluster directory (no `create` on
 *   `/d2/uris`): the bridge creates it, or the admin (`failout zk secure --cluster <name>`). A side
 *   effect ZooKeeper gives no way around: `delete` on the directory lets any announcer delete any
 *   child of it, the bridge's included.
 * - URI children: the bridge updates its own in place; nobody changes an announcement's data
 *   (lib/d2 `URI_NODE_GRANTS`, which the announcer creates its nodes with).
 * - election: the bridge creates and deletes candidates; candidates themselves are never written
 *   (fencing is a version check, which needs only read).
 * - request records are write-once: created and pruned through their parent, never set.
 * - fabric maps (issue 23) change only through the queue: the request writer creates, sets and
 *   deletes them, and sets their parent (every map change bumps its version, so two changes cannot
 *   both pass the check against the other maps); everyone reads, as the drills.
 * - evacuation nodes (issue 23): the request writer creates and sets a fabric's node in the multi of
 *   its evacuation and restore; everyone reads (status, the console).
 */
export const ACL_TABLE: Readonly<Record<NodeClass, AclTableRow>> = Object.freeze({
  ancestor: { pattern: '`/failout`, `/failout/bridge` (parents of the roots below)', grants: { bridge: ['create'], requestWriter: ['create'] } },
  d2Base: { pattern: '`/d2`', grants: { bridge: ['create'] } },
  d2Directory: { pattern: '`/d2/services`, `/d2/clusters`, `/d2/uris`', grants: { bridge: ['create', 'delete'] } },
  service: { pattern: '`/d2/services/<service>`', grants: { bridge: ['write'] } },
  cluster: { pattern: '`/d2/clusters/<cluster>`', grants: { bridge: ['write'], requestWriter: ['write'] } },
  clusterUris: { pattern: '`/d2/uris/<cluster>`', grants: { bridge: ['create', 'delete'], announcer: ['create', 'delete'] } },
  uri: { pattern: '`/d2/uris/<cluster>/<child>`', grants: URI_NODE_GRANTS },
  d2Other: { pattern: 'any other node under `/d2`', grants: {} },
  election: { pattern: '`/failout/bridge/leader` (election)', grants: { bridge: ['create', 'delete'] } },
  candidate: { pattern: '`/failout/bridge/leader/<candidate>`', grants: {} },
  requests: { pattern: '`/failout/requests`', grants: { requestWriter: ['create', 'delete'] } },
  record: { pattern: '`/failout/requests/<requestId>`', grants: {} },
  drills: { pattern: '`/failout/drills`', grants: { requestWriter: ['create', 'delete'] } },
  drill: { pattern: '`/failout/drills/…` (every node below)', grants: { requestWriter: ['write', 'create', 'delete'] } },
  fabrics: { pattern: '`/failout/fabrics`', grants: { requestWriter: ['write', 'create', 'delete'] } },
  fabricMap: { pattern: '`/failout/fabrics/<fabric>` (a fabric map, written through the queue)', grants: { requestWriter: ['write'] } },
  evacuations: { pattern: '`/failout/evacuations`', grants: { requestWriter: ['create', 'delete'] } },
  evacuation: { pattern: '`/failout/evacuations/<fabric>` (a fabric\'s last evacuation and its progress)', grants: { requestWriter: ['write'] } },
  view: { pattern: '`/failout/view` (every open failout, kept by the request writer)', grants: { requestWriter: ['write'] } },
});

function stripTrailingSlashes(path: string): string {
  let end = path.length;
  while (end > 1 && path.charCodeAt(end - 1) === 0x2f /* '/' */) end--;
  return path.slice(0, end);
}

/**
 * A layout from what a component configures, defaults for the rest, trailing slashes stripped.
 * @throws ZkError `other` when the D2 base is the root (the whole ensemble would be in the layout) or
 *   a path is not absolute.
 */
export function aclLayout(partial: Partial<AclLayout> = {}): AclLayout {
  const layout = { ...DEFAULT_ACL_LAYOUT, ...partial };
  // The view sits beside the records unless configured: a deployment (or a test) with its own
  // records parent gets its own view, never another's.
  if (partial.viewPath === undefined) layout.viewPath = siblingPath(stripTrailingSlashes(layout.requestsPath), 'view');
  const normalized: AclLayout = {
    d2BasePath: stripTrailingSlashes(layout.d2BasePath),
    requestsPath: stripTrailingSlashes(layout.requestsPath),
    drillsPath: stripTrailingSlashes(layout.drillsPath),
    viewPath: stripTrailingSlashes(layout.viewPath),
    fabricsPath: stripTrailingSlashes(layout.fabricsPath),
    evacuationsPath: stripTrailingSlashes(layout.evacuationsPath),
    electionPaths: layout.electionPaths.map(stripTrailingSlashes),
  };
  for (const root of layoutRoots(normalized)) {
    if (!root.startsWith('/')) throw new ZkError('other', `layout path ${JSON.stringify(root)} is not absolute`);
  }
  if (normalized.d2BasePath === '/') throw new ZkError('other', 'the D2 base path must not be the root: access control would cover the whole ensemble');
  return normalized;
}

/** The layout's roots: the D2 base, the records, drills and fabric maps parents, the view, the election paths. */
export function layoutRoots(layout: AclLayout): string[] {
  return [layout.d2BasePath, layout.requestsPath, layout.drillsPath, layout.viewPath, layout.fabricsPath, layout.evacuationsPath, ...layout.electionPaths];
}

/** Path segments of `path` below `root`, or undefined when `path` is not `root` or below it. */
function below(path: string, root: string): string[] | undefined {
  if (path === root) return [];
  if (!path.startsWith(`${root}/`)) return undefined;
  return path.slice(root.length + 1).split('/');
}

function classifyD2(rest: readonly string[]): NodeClass {
  const [directory, name, child, ...deeper] = rest;
  if (directory === undefined) return 'd2Base';
  if (directory !== D2_DIRECTORIES.services && directory !== D2_DIRECTORIES.clusters && directory !== D2_DIRECTORIES.uris) return 'd2Other';
  if (name === undefined) return 'd2Directory';
  if (child === undefined) return directory === D2_DIRECTORIES.services ? 'service' : directory === D2_DIRECTORIES.clusters ? 'cluster' : 'clusterUris';
  return directory === D2_DIRECTORIES.uris && deeper.length === 0 ? 'uri' : 'd2Other';
}

/** The class of a node, or undefined for a node outside the layout (never touched by failout). */
export function classifyPath(path: string, layout: AclLayout): NodeClass | undefined {
  const p = stripTrailingSlashes(path);
  if (p === '/' || p === '') return undefined;
  const requests = below(p, layout.requestsPath);
  if (requests) return requests.length === 0 ? 'requests' : 'record';
  const drills = below(p, layout.drillsPath);
  if (drills) return drills.length === 0 ? 'drills' : 'drill';
  if (p === layout.viewPath) return 'view';
  const fabrics = below(p, layout.fabricsPath);
  if (fabrics) return fabrics.length === 0 ? 'fabrics' : fabrics.length === 1 ? 'fabricMap' : undefined;
  const evacuations = below(p, layout.evacuationsPath);
  if (evacuations) return evacuations.length === 0 ? 'evacuations' : evacuations.length === 1 ? 'evacuation' : undefined;
  for (const election of layout.electionPaths) {
    const rest = below(p, election);
    if (rest) return rest.length === 0 ? 'election' : 'candidate';
  }
  const d2 = below(p, layout.d2BasePath);
  if (d2) return classifyD2(d2);
  if (layoutRoots(layout).some((root) => root.startsWith(`${p}/`))) return 'ancestor';
  return undefined;
}

/**
 * The ACL of the node at `path`: world may read; each role with a configured identity gets its
 * permissions from {@link ACL_TABLE}; the admin gets everything (lib/zk `aclFromGrants`).
 * @throws ZkError `invalidAcl` for a path outside the layout: failout creates nothing there.
 */
export function aclFor(path: string, roles: AclRoles, layout: AclLayout = DEFAULT_ACL_LAYOUT): AclEntry[] {
  const kind = classifyPath(path, layout);
  if (kind === undefined) throw new ZkError('invalidAcl', 'outside the failout ZooKeeper layout: no ACL for it', { path });
  return aclFromGrants(ACL_TABLE[kind].grants, roles);
}

/** `aclFor` bound to roles and a layout: the `acl` a creator passes to `create` / `ensurePath`. */
export function policyAcl(roles: AclRoles, layout: AclLayout = DEFAULT_ACL_LAYOUT): (path: string) => AclEntry[] {
  return (path) => aclFor(path, roles, layout);
}

/** The table bound to identities and a layout, as lib/zk's `applyAclPolicy` applies it to a tree. */
export function aclPolicy(roles: AclRoles, layout: AclLayout): AclPolicy {
  const d2Directories = [servicePath(layout.d2BasePath), clusterPath(layout.d2BasePath), urisPath(layout.d2BasePath)];
  return {
    roots: layoutRoots(layout),
    aclOf: (path) => (classifyPath(path, layout) === undefined ? undefined : aclFor(path, roles, layout)),
    requiredBelow: (root) => (root === layout.d2BasePath ? d2Directories : []),
  };
}

/** Options of {@link secureAcls}. */
export interface SecureOptions {
  /** Identities the ACLs grant (the admin's should be among them, or nobody can change an ACL again). */
  readonly roles: AclRoles;
  /** Where failout's nodes are (see {@link aclLayout}). */
  readonly layout: AclLayout;
  /** Subtrees to secure. Default: every root of the layout. */
  readonly roots?: readonly string[];
  /** Further nodes to create when missing (e.g. `/d2/uris/<cluster>` so servers can announce). */
  readonly ensure?: readonly string[];
  /** Report what would change, change nothing. */
  readonly dryRun?: boolean;
}

/**
 * Applies the table to a tree (`failout zk secure`): creates the layout's missing parents (each root,
 * its ancestors below `/`, the D2 directories, `ensure`) with their ACLs, then sets the ACL of every
 * existing node that differs from the table; idempotent, with a dry run. See lib/zk `applyAclPolicy`.
 * @throws ZkError on connection loss or session expiry; per-node refusals are in `failures`.
 */
export async function secureAcls(session: ZkReader & ZkWriter & ZkAclAccess, options: SecureOptions): Promise<SecureReport> {
  const { roles, layout, ...apply } = options;
  return applyAclPolicy(session, aclPolicy(roles, layout), apply);
}
