import { createHash } from 'node:crypto';
import { ACL, Id, Permission as RawPermission } from 'node-zookeeper-client';
import { ZkError } from './errors';
import type { AclEntry, AclSource, DigestCredential, Permission } from './types';

const ALL: readonly Permission[] = ['read', 'write', 'create', 'delete', 'admin'];

const BITS: Record<Permission, number> = {
  read: RawPermission.READ,
  write: RawPermission.WRITE,
  create: RawPermission.CREATE,
  delete: RawPermission.DELETE,
  admin: RawPermission.ADMIN,
};

/**
 * The id ZooKeeper's DigestAuthenticationProvider derives: `user:` + base64(sha1(`user:password`)).
 * node-zookeeper-client has no helper for it.
 */
export function digestId(user: string, password: string): string {
  const hash = createHash('sha1').update(`${user}:${password}`).digest('base64');
  return `${user}:${hash}`;
}

/** An ACL entry granting `perms` (all by default) to the holder of the digest credential. */
export function digestAcl(user: string, password: string, perms: readonly Permission[] = ALL): AclEntry {
  return { perms, scheme: 'digest', id: digestId(user, password) };
}

/** Everyone may read (and, with `perms`, more). */
export function worldAcl(perms: readonly Permission[] = ['read']): AclEntry {
  return { perms, scheme: 'world', id: 'anyone' };
}

/**
 * ZooKeeper's OPEN_ACL_UNSAFE: everyone may do everything. Never a default: pass it explicitly, only
 * where an operator opted in (`allowOpenAcl` without credentials) or a test plays an unconstrained writer.
 */
export const OPEN_ACL: readonly AclEntry[] = [worldAcl(ALL)];

/**
 * The ACL of nodes that everyone reads and only the given writers change: the failout cluster nodes
 * (writers: the request worker and the bridge).
 */
export function readableByAllWritableBy(writers: readonly DigestCredential[]): AclEntry[] {
  return [worldAcl(['read']), ...writers.map((w) => digestAcl(w.user, w.password))];
}

/**
 * The ACL a create gives the node at `path`.
 * @throws ZkError `invalidAcl` when there is none (a JavaScript caller without types passed no `acl`,
 *   or a policy gave an empty list): nothing is created without an explicit ACL.
 */
export function resolveAcl(source: AclSource | undefined, path: string): readonly AclEntry[] {
  const acl = typeof source === 'function' ? source(path) : source;
  if (!acl || acl.length === 0) throw new ZkError('invalidAcl', 'create needs an explicit, non-empty ACL', { path });
  return acl;
}

/** Converts from node-zookeeper-client's ACL objects (as `getACL` returns them). */
export function fromRawAcl(raw: readonly ACL[]): AclEntry[] {
  return raw.map((acl) => {
    // The typings call the bit field `perms`; the 1.1.3 runtime calls it `permission`.
    const bits = (acl as unknown as { permission?: number }).permission ?? acl.perms;
    return { perms: ALL.filter((p) => (bits & BITS[p]) !== 0), scheme: acl.id.scheme, id: acl.id.id };
  });
}

/** Converts to node-zookeeper-client's ACL objects. */
export function toRawAcl(entries: readonly AclEntry[]): ACL[] {
  return entries.map((e) => new ACL(e.perms.reduce((bits, p) => bits | BITS[p], 0), new Id(e.scheme, e.id)));
}
