/**
 * Who may change what in failout's part of ZooKeeper: the ONE role → path → permission table
 * (README "Access control", ARCHITECTURE.md "ZooKeeper layout"), as pure functions of a path. Every
 * creator (bridge, request writer, announcer, leader election) takes its ACLs from {@link aclFor}, and
 * `failout zk secure` / `check` apply and audit the same table, so the two cannot drift.
 *
 * ZooKeeper ACLs are per node and not inherited, and the permission to create or delete a node is
 * checked on its PARENT: so the table names parents (`/d2/uris/<cluster>` grants announcers create and
 * delete) as well as the nodes holding data. Everyone reads every node (D2 clients read without
 * credentials); the admin identity, when configured, may do everything, including changing ACLs; no
 * other role gets `admin`, so without an admin identity only ZooKeeper's super user can change an ACL
 * once set.
 *
 * lib/zk cannot import lib/d2 (the D2 module depends on this one), so the D2 directory names are
 * spelled here as rest.li's ZKFSUtil spells them; a unit test holds them equal to lib/d2's.
 */
import { digestId } from './acl';
import { ZkError } from './errors';
import type { AclEntry, DigestCredential, Permission } from './types';

/** The identities failout knows. `admin` is optional and used by `failout zk secure`. */
export type AclRole = 'bridge' | 'requestWriter' | 'announcer' | 'admin';

/**
 * The digest ids (`user:base64(sha1(user:password))`, see {@link digestId}) holding each role; a role
 * may list several (for rotation). Never passwords: these are what ACLs name, safe to log.
 */
export type AclRoles = { readonly [R in AclRole]?: readonly string[] };

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
  /** Parents of the bridge's election candidates, default `/failout/bridge/leader`. */
  readonly electionPaths: readonly string[];
}

/** The layout every component assumes unless configured otherwise. */
export const DEFAULT_ACL_LAYOUT: AclLayout = Object.freeze({
  d2BasePath: '/d2',
  requestsPath: '/failout/requests',
  drillsPath: '/failout/drills',
  viewPath: '/failout/view',
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
  | 'view';

/** One row of {@link ACL_TABLE}. */
export interface AclTableRow {
  /** The paths of the class, in the default layout (as the README shows them). */
  readonly pattern: string;
  /** What each role may do beyond reading; absent roles may only read. The admin may do everything. */
  readonly grants: {
    /** The bridge's permissions. */
    readonly bridge?: readonly Permission[];
    /** The request writer's permissions. */
    readonly requestWriter?: readonly Permission[];
    /** Announcing services' permissions. */
    readonly announcer?: readonly Permission[];
  };
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
 * - URI children: the bridge updates its own in place; nobody changes an announcement's data.
 * - election: the bridge creates and deletes candidates; candidates themselves are never written
 *   (fencing is a version check, which needs only read).
 * - request records are write-once: created and pruned through their parent, never set.
 */
export const ACL_TABLE: Readonly<Record<NodeClass, AclTableRow>> = Object.freeze({
  ancestor: { pattern: '`/failout`, `/failout/bridge` (parents of the roots below)', grants: { bridge: ['create'], requestWriter: ['create'] } },
  d2Base: { pattern: '`/d2`', grants: { bridge: ['create'] } },
  d2Directory: { pattern: '`/d2/services`, `/d2/clusters`, `/d2/uris`', grants: { bridge: ['create', 'delete'] } },
  service: { pattern: '`/d2/services/<service>`', grants: { bridge: ['write'] } },
  cluster: { pattern: '`/d2/clusters/<cluster>`', grants: { bridge: ['write'], requestWriter: ['write'] } },
  clusterUris: { pattern: '`/d2/uris/<cluster>`', grants: { bridge: ['create', 'delete'], announcer: ['create', 'delete'] } },
  uri: { pattern: '`/d2/uris/<cluster>/<child>`', grants: { bridge: ['write'] } },
  d2Other: { pattern: 'any other node under `/d2`', grants: {} },
  election: { pattern: '`/failout/bridge/leader` (election)', grants: { bridge: ['create', 'delete'] } },
  candidate: { pattern: '`/failout/bridge/leader/<candidate>`', grants: {} },
  requests: { pattern: '`/failout/requests`', grants: { requestWriter: ['create', 'delete'] } },
  record: { pattern: '`/failout/requests/<requestId>`', grants: {} },
  drills: { pattern: '`/failout/drills`', grants: { requestWriter: ['create', 'delete'] } },
  drill: { pattern: '`/failout/drills/…` (every node below)', grants: { requestWriter: ['write', 'create', 'delete'] } },
  view: { pattern: '`/failout/view` (every open failout, kept by the request writer)', grants: { requestWriter: ['write'] } },
});

const PERMISSION_ORDER: readonly Permission[] = ['read', 'write', 'create', 'delete', 'admin'];
const GRANTED_ROLES = ['bridge', 'requestWriter', 'announcer'] as const;

/** `name` beside `path` (`/failout/requests`, `view` → `/failout/view`; `/requests` → `/view`). */
export function siblingPath(path: string, name: string): string {
  const parent = path.slice(0, path.lastIndexOf('/'));
  return `${parent}/${name}`;
}

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
    electionPaths: layout.electionPaths.map(stripTrailingSlashes),
  };
  for (const root of layoutRoots(normalized)) {
    if (!root.startsWith('/')) throw new ZkError('other', `layout path ${JSON.stringify(root)} is not absolute`);
  }
  if (normalized.d2BasePath === '/') throw new ZkError('other', 'the D2 base path must not be the root: access control would cover the whole ensemble');
  return normalized;
}

/** The layout's roots: the D2 base, the records and drills parents, the view, the election paths. */
export function layoutRoots(layout: AclLayout): string[] {
  return [layout.d2BasePath, layout.requestsPath, layout.drillsPath, layout.viewPath, ...layout.electionPaths];
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
  // D2_DIRECTORIES of lib/d2/paths.ts (rest.li ZKFSUtil): services, clusters, uris.
  if (directory !== 'services' && directory !== 'clusters' && directory !== 'uris') return 'd2Other';
  if (name === undefined) return 'd2Directory';
  if (child === undefined) return directory === 'services' ? 'service' : directory === 'clusters' ? 'cluster' : 'clusterUris';
  return directory === 'uris' && deeper.length === 0 ? 'uri' : 'd2Other';
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
 * permissions from {@link ACL_TABLE}; the admin gets everything. Entries are merged per identity and
 * in canonical order (see {@link normalizeAcl}).
 * @throws ZkError `invalidAcl` for a path outside the layout: failout creates nothing there.
 */
export function aclFor(path: string, roles: AclRoles, layout: AclLayout = DEFAULT_ACL_LAYOUT): AclEntry[] {
  const kind = classifyPath(path, layout);
  if (kind === undefined) throw new ZkError('invalidAcl', 'outside the failout ZooKeeper layout: no ACL for it', { path });
  const { grants } = ACL_TABLE[kind];
  const entries: AclEntry[] = [{ scheme: 'world', id: 'anyone', perms: ['read'] }];
  for (const role of GRANTED_ROLES) {
    const perms = grants[role];
    if (perms && perms.length > 0) for (const id of roles[role] ?? []) entries.push({ scheme: 'digest', id, perms });
  }
  for (const id of roles.admin ?? []) entries.push({ scheme: 'digest', id, perms: PERMISSION_ORDER });
  return normalizeAcl(entries);
}

/** `aclFor` bound to roles and a layout: the `acl` a creator passes to `create` / `ensurePath`. */
export function policyAcl(roles: AclRoles, layout: AclLayout = DEFAULT_ACL_LAYOUT): (path: string) => AclEntry[] {
  return (path) => aclFor(path, roles, layout);
}

/**
 * One entry per identity with the union of its permissions, in canonical order: world first, then by
 * scheme and id; permissions as `rwcda`. Two ACLs that grant the same are equal after this.
 */
export function normalizeAcl(acl: readonly AclEntry[]): AclEntry[] {
  const byId = new Map<string, { scheme: string; id: string; perms: Set<Permission> }>();
  for (const e of acl) {
    const key = `${e.scheme}\u0000${e.id}`;
    const entry = byId.get(key) ?? { scheme: e.scheme, id: e.id, perms: new Set<Permission>() };
    for (const p of e.perms) entry.perms.add(p);
    byId.set(key, entry);
  }
  const rank = (scheme: string): number => (scheme === 'world' ? 0 : 1);
  return [...byId.values()]
    .filter((e) => e.perms.size > 0)
    .sort((a, b) => rank(a.scheme) - rank(b.scheme) || a.scheme.localeCompare(b.scheme) || a.id.localeCompare(b.id))
    .map((e) => ({ scheme: e.scheme, id: e.id, perms: PERMISSION_ORDER.filter((p) => e.perms.has(p)) }));
}

/** True when two ACLs grant the same permissions to the same identities. */
export function sameAcl(a: readonly AclEntry[], b: readonly AclEntry[]): boolean {
  return JSON.stringify(normalizeAcl(a)) === JSON.stringify(normalizeAcl(b));
}

/**
 * What a client WITHOUT credentials may do to a node beyond reading it: the permissions of
 * `world:anyone` entries and of `ip` entries (an address needs no credential), read left out.
 */
export function openPermissions(acl: readonly AclEntry[]): Permission[] {
  const open = new Set<Permission>();
  for (const e of acl) {
    if ((e.scheme === 'world' && e.id === 'anyone') || e.scheme === 'ip') for (const p of e.perms) open.add(p);
  }
  return PERMISSION_ORDER.filter((p) => p !== 'read' && open.has(p));
}

/** `scheme:id:rwcda`, ZooKeeper's own notation (digest ids are hashes: safe to print). */
export function formatAcl(acl: readonly AclEntry[]): string {
  return normalizeAcl(acl)
    .map((e) => `${e.scheme}:${e.id}:${e.perms.map((p) => p[0]).join('')}`)
    .join(', ');
}

/** Roles with `role` holding (also) the identities of the component's own credentials. */
export function withOwnIdentity(roles: AclRoles, role: AclRole, credentials: readonly DigestCredential[]): AclRoles {
  const ids = [...(roles[role] ?? []), ...credentials.map((c) => digestId(c.user, c.password))];
  return { ...roles, [role]: [...new Set(ids)] };
}

/** Roles whose identities are unknown (so nodes created now do not grant them anything). */
export function missingRoles(roles: AclRoles, wanted: readonly AclRole[]): AclRole[] {
  return wanted.filter((role) => (roles[role] ?? []).length === 0);
}
