/**
 * Who the failout compute is to ZooKeeper (docs/deployers.md "Access control"): each component writes with its
 * own digest credential, read from its own secret, and is told the other roles' digest ids (never
 * their passwords) to build ACLs that grant them. One secret for the Lambda and the bridge would run
 * both as ONE identity holding both roles' permissions (issue 14), so the stack takes two secrets and
 * refuses the same one twice, and refuses one identity given for two roles.
 *
 * The ids are checked with lib/zk's own parser (`parseAclRoles`) and handed over in lib/zk's own
 * variables (`ACL_ROLE_VARIABLES`: `ZK_ACL_BRIDGE_ID`, `ZK_ACL_WRITER_ID`, `ZK_ACL_ANNOUNCER_ID`,
 * `ZK_ACL_ADMIN_ID`), so the synth check and the components' start-up check cannot drift.
 */
import { Token } from 'aws-cdk-lib';
import { ACL_ROLE_VARIABLES, parseAclRoles } from '../../lib/zk/config';

/** A ZooKeeper role of the access-control table (lib/zk `AclRole`). */
export type AclRole = keyof typeof ACL_ROLE_VARIABLES;

/** One role's identities: a digest id `user:base64(sha1(user:password))`, a comma list of them, or an array. */
export type DigestIds = string | readonly string[];

/**
 * The digest ids of every role, handed to both the Lambda and the bridge as `ZK_ACL_*`. A component
 * adds its own identity from its credential, so it needs the others'; its own role's ids matter while
 * a credential is rotated (old and new id both listed: replicas on either may write what the other
 * created).
 */
export interface ZooKeeperAclIds {
  /** The bridge's id(s) (`ZK_ACL_BRIDGE_ID`): the worker's parents of `/failout/bridge` grant it `c`. */
  readonly bridge: DigestIds;
  /** The request writer's id(s) (`ZK_ACL_WRITER_ID`): the bridge's cluster nodes grant it `w`. */
  readonly requestWriter: DigestIds;
  /**
   * Announcing services' id(s) (`ZK_ACL_ANNOUNCER_ID`): the bridge's `/d2/uris/<cluster>` grant them `cd`.
   * Without it no service can announce itself under a cluster directory the bridge creates.
   */
  readonly announcer?: DigestIds;
  /** The admin's id(s) (`ZK_ACL_ADMIN_ID`): `rwcda` on every node. Without it only ZooKeeper's super user can change an ACL. */
  readonly admin?: DigestIds;
}

/** Roles whose ids the stack cannot run without: the Lambda and the bridge each need the other's. */
export const REQUIRED_ACL_ROLES: readonly AclRole[] = ['bridge', 'requestWriter'];

/** What errors call each role's field: `<prefix>.bridge`, `<prefix>.requestWriter`, … */
export function aclIdFields(prefix: string): Readonly<Record<AclRole, string>> {
  return { bridge: `${prefix}.bridge`, requestWriter: `${prefix}.requestWriter`, announcer: `${prefix}.announcer`, admin: `${prefix}.admin` };
}

/** A bad {@link ZooKeeperAclIds}: the field (or context key) at fault. The message never holds the value. */
export class ZooKeeperIdentityError extends Error {
  constructor(
    /** The props field or context key at fault. */
    readonly field: string,
    /** What is wrong, without the value (a password pasted by mistake stays out of the output). */
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
    this.name = 'ZooKeeperIdentityError';
  }
}

/**
 * Validates the ids: the required roles present, every entry a digest id, no id under two roles.
 * Unresolved tokens (a `CfnParameter`) are passed through unchecked. `names` says what to call each
 * role in an error (default: `aclIds.<role>`).
 * @throws ZooKeeperIdentityError naming the field (or key) at fault.
 */
export function assertZooKeeperAclIds(ids: Partial<ZooKeeperAclIds> | undefined, names: Readonly<Record<AclRole, string>> = aclIdFields('aclIds')): asserts ids is ZooKeeperAclIds {
  for (const role of REQUIRED_ACL_ROLES) {
    if (entries(ids?.[role]).length === 0) throw new ZooKeeperIdentityError(names[role], `is required: the ${role} role's digest id user:base64(sha1(user:password))`);
  }
  const literal = Object.fromEntries((Object.keys(names) as AclRole[]).map((role) => [role, entries(ids?.[role]).filter((id) => !Token.isUnresolved(id))]));
  const parsed = parseAclRoles(literal, names);
  if (!parsed.ok) throw new ZooKeeperIdentityError(parsed.variable, parsed.message);
  const owner = new Map<string, AclRole>();
  for (const [role, roleIds] of Object.entries(parsed.roles) as Array<[AclRole, readonly string[]]>) {
    for (const id of roleIds) {
      const other = owner.get(id);
      if (other !== undefined && other !== role) {
        throw new ZooKeeperIdentityError(names[role], `holds an id also given for ${names[other]}: each role needs its own credential, or one identity holds both roles' permissions`);
      }
      owner.set(id, role);
    }
  }
}

/**
 * The `ZK_ACL_*` environment for `ids` (validated first), one variable per role given, each a comma list.
 * @throws ZooKeeperIdentityError naming the field at fault (`names`, default `aclIds.<role>`).
 */
export function zooKeeperAclEnvironment(ids: ZooKeeperAclIds, names: Readonly<Record<AclRole, string>> = aclIdFields('aclIds')): Record<string, string> {
  assertZooKeeperAclIds(ids, names);
  const env: Record<string, string> = {};
  for (const role of Object.keys(ACL_ROLE_VARIABLES) as AclRole[]) {
    const list = entries(ids[role]);
    if (list.length > 0) env[ACL_ROLE_VARIABLES[role]] = list.join(',');
  }
  return env;
}

/** The non-empty, trimmed entries of one role's value (a token stays whole). */
function entries(value: DigestIds | undefined): string[] {
  if (value === undefined) return [];
  const list = typeof value === 'string' ? (Token.isUnresolved(value) ? [value] : value.split(',')) : [...value];
  return list.map((id) => id.trim()).filter((id) => id !== '');
}
