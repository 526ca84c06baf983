/**
 * The mechanism of failout's access control, with no layout in it: the roles and their identities,
 * a row of grants (what each role may do to a node beyond reading) made into the node's ACL
 * ({@link aclFromGrants}), and comparing, auditing and printing ACLs. WHICH node gets which grants
 * is the access table of the failout domain (lib/requests `ACL_TABLE`, beside the paths it covers,
 * D2's taken from lib/d2); lib/zk applies and audits a table it is given (see `acl-audit.ts`).
 *
 * Every ACL made here has the same shape: everyone reads every node (D2 clients read without
 * credentials); each role with a configured identity gets its row's permissions; the admin identity,
 * when configured, may do everything, including changing ACLs. No other role gets `admin`, so without
 * an admin identity only ZooKeeper's super user can change an ACL once set.
 */
import { digestId } from './acl';
import type { AclEntry, DigestCredential, Permission } from './types';

/** The identities failout knows. `admin` is optional and used by `failout zk secure`. */
export type AclRole = 'bridge' | 'requestWriter' | 'announcer' | 'admin';

/**
 * The digest ids (`user:base64(sha1(user:password))`, see {@link digestId}) holding each role; a role
 * may list several (for rotation). Never passwords: these are what ACLs name, safe to log.
 */
export type AclRoles = { readonly [R in AclRole]?: readonly string[] };

/** What each role may do to a node beyond reading; absent roles may only read. The admin may do everything. */
export interface AclGrants {
  /** The bridge's permissions. */
  readonly bridge?: readonly Permission[];
  /** The request writer's permissions. */
  readonly requestWriter?: readonly Permission[];
  /** Announcing services' permissions. */
  readonly announcer?: readonly Permission[];
}

const PERMISSION_ORDER: readonly Permission[] = ['read', 'write', 'create', 'delete', 'admin'];
const GRANTED_ROLES = ['bridge', 'requestWriter', 'announcer'] as const;

/**
 * The ACL of a node with these grants: world may read; each role with a configured identity gets its
 * grants; the admin gets everything. Entries are merged per identity and in canonical order (see
 * `normalizeAcl`).
 */
export function aclFromGrants(grants: AclGrants, roles: AclRoles): AclEntry[] {
  const entries: AclEntry[] = [{ scheme: 'world', id: 'anyone', perms: ['read'] }];
  for (const role of GRANTED_ROLES) {
    const perms = grants[role];
    if (perms && perms.length > 0) for (const id of roles[role] ?? []) entries.push({ scheme: 'digest', id, perms });
  }
  for (const id of roles.admin ?? []) entries.push({ scheme: 'digest', id, perms: PERMISSION_ORDER });
  return normalizeAcl(entries);
}

/**
 * A table bound to its layout and identities, as `applyAclPolicy` (lib/zk `acl-audit.ts`) applies it
 * to a live tree. The failout domain builds it (lib/requests `aclPolicy`).
 */
export interface AclPolicy {
  /** Every subtree the policy covers (the default of what is secured). */
  readonly roots: readonly string[];
  /** The ACL the node at `path` should have; undefined for a node outside the layout (left alone). */
  aclOf(path: string): AclEntry[] | undefined;
  /** Nodes below a secured root that must exist besides it (e.g. D2's directories below its base). */
  requiredBelow(root: string): readonly string[];
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

/** `name` beside `path` (`/failout/requests`, `view` → `/failout/view`; `/requests` → `/view`). */
export function siblingPath(path: string, name: string): string {
  const parent = path.slice(0, path.lastIndexOf('/'));
  return `${parent}/${name}`;
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
