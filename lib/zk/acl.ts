import { createHash } from 'node:crypto';
import { ACL, Id, Permission as RawPermission } from 'node-zookeeper-client';
import type { AclEntry, DigestCredential, Permission } from './types';

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

/** ZooKeeper's OPEN_ACL_UNSAFE: everyone may do everything. The default for created nodes. */
export const OPEN_ACL: readonly AclEntry[] = [worldAcl(ALL)];

/**
 * The ACL of nodes that everyone reads and only the given writers change: the failout cluster nodes
 * (writers: the request worker and the bridge).
 */
export function readableByAllWritableBy(writers: readonly DigestCredential[]): AclEntry[] {
  return [worldAcl(['read']), ...writers.map((w) => digestAcl(w.user, w.password))];
}

/** Converts to node-zookeeper-client's ACL objects. */
export function toRawAcl(entries: readonly AclEntry[]): ACL[] {
  return entries.map((e) => new ACL(e.perms.reduce((bits, p) => bits | BITS[p], 0), new Id(e.scheme, e.id)));
}
