/**
 * The access-control settings every component reads the same way (bridge, request worker, CLI): the
 * other roles' identities (digest ids, never passwords) and the `allowOpenAcl` escape hatch. One
 * parser, so the variable names and the id grammar cannot drift between components.
 *
 * | variable | meaning |
 * | --- | --- |
 * | `ZK_ACL_BRIDGE_ID` | digest id(s) of the bridge (`user:base64(sha1(user:password))`, comma-separated) |
 * | `ZK_ACL_WRITER_ID` | digest id(s) of the request writer |
 * | `ZK_ACL_ANNOUNCER_ID` | digest id(s) of announcing services |
 * | `ZK_ACL_ADMIN_ID` | digest id(s) of the admin |
 * | `FAILOUT_ALLOW_OPEN_ACL` | `1` or `true`: start even when the tree is writable without credentials |
 */
import type { AclRole, AclRoles } from './acl-policy';

/** The environment variable of each role's identities. */
export const ACL_ROLE_VARIABLES: Readonly<Record<AclRole, string>> = Object.freeze({
  bridge: 'ZK_ACL_BRIDGE_ID',
  requestWriter: 'ZK_ACL_WRITER_ID',
  announcer: 'ZK_ACL_ANNOUNCER_ID',
  admin: 'ZK_ACL_ADMIN_ID',
});

/** `user:` + base64 of a 20-byte SHA-1: 27 characters and one `=`. */
const DIGEST_ID = /^[^:,\s]+:[A-Za-z0-9+/]{27}=$/;

/** True for a digest id as ZooKeeper's DigestAuthenticationProvider writes it (see `digestId`). */
export function isDigestId(text: string): boolean {
  return DIGEST_ID.test(text);
}

/** What {@link aclRolesFromEnv} and {@link parseAclRoles} give: the roles, or which setting is wrong. */
export type AclRolesResult =
  | {
      /** Every identity parsed. */
      readonly ok: true;
      /** The roles with at least one identity. */
      readonly roles: AclRoles;
    }
  | {
      /** A setting is malformed. */
      readonly ok: false;
      /** The variable (or field) at fault. */
      readonly variable: string;
      /** What is wrong; never the value (it may be a password pasted by mistake). */
      readonly message: string;
    };

/**
 * Parses role identities: each value a digest id or a comma-separated list of them (a string array
 * from JSON works too). `names` says what to call each role in an error (its variable or field).
 */
export function parseAclRoles(values: { readonly [R in AclRole]?: string | readonly string[] | undefined }, names: Readonly<Record<AclRole, string>>): AclRolesResult {
  const roles: { [R in AclRole]?: string[] } = {};
  for (const role of Object.keys(names) as AclRole[]) {
    const value = values[role];
    const ids = (typeof value === 'string' ? value.split(',') : (value ?? [])).map((id) => id.trim()).filter((id) => id !== '');
    const bad = ids.findIndex((id) => !isDigestId(id));
    if (bad >= 0) {
      return { ok: false, variable: names[role], message: `entry ${bad + 1} is not a digest id user:base64(sha1(user:password)) (give the id, never the password)` };
    }
    if (ids.length > 0) roles[role] = ids;
  }
  return { ok: true, roles };
}

/** Reads the role identities from `ZK_ACL_*` (see the module doc). */
export function aclRolesFromEnv(env: Readonly<Record<string, string | undefined>>): AclRolesResult {
  return parseAclRoles(
    {
      bridge: env[ACL_ROLE_VARIABLES.bridge],
      requestWriter: env[ACL_ROLE_VARIABLES.requestWriter],
      announcer: env[ACL_ROLE_VARIABLES.announcer],
      admin: env[ACL_ROLE_VARIABLES.admin],
    },
    ACL_ROLE_VARIABLES,
  );
}

/** `FAILOUT_ALLOW_OPEN_ACL=1` (or `true`): the operator accepts a tree writable without credentials. */
export function allowOpenAclFromEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.FAILOUT_ALLOW_OPEN_ACL?.trim().toLowerCase();
  return value === '1' || value === 'true';
}
