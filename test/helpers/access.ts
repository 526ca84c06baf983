/**
 * Factories for access-control tests: one digest identity per role (docs/deployers.md "Access control"), their
 * ids as the components are configured with them, and a probe that tells whether ZooKeeper lets a
 * session do something to a node WITHOUT changing the node when it may.
 */
import { digestId, isZkError, worldAcl, type AclRoles, type DigestCredential, type ZkReader, type ZkWriter } from '../../lib/zk';

/** The credential of each role (test values; passwords never leave this file but for sessions). */
export const CREDENTIALS = {
  bridge: { user: 'acl-bridge', password: 'bridge-secret' },
  writer: { user: 'acl-writer', password: 'writer-secret' },
  announcer: { user: 'acl-announcer', password: 'announcer-secret' },
  admin: { user: 'acl-admin', password: 'admin-secret' },
} as const satisfies Record<string, DigestCredential>;

/** Each role's digest id. */
export const IDS = {
  bridge: digestId(CREDENTIALS.bridge.user, CREDENTIALS.bridge.password),
  writer: digestId(CREDENTIALS.writer.user, CREDENTIALS.writer.password),
  announcer: digestId(CREDENTIALS.announcer.user, CREDENTIALS.announcer.password),
  admin: digestId(CREDENTIALS.admin.user, CREDENTIALS.admin.password),
};

/** Every role's identity, as `failout zk secure` is configured with them. */
export const ROLES: AclRoles = { bridge: [IDS.bridge], requestWriter: [IDS.writer], announcer: [IDS.announcer], admin: [IDS.admin] };

/** The environment of the CLI or a component with every role's id (`ZK_ACL_*`). */
export const ROLE_ENV = {
  ZK_ACL_BRIDGE_ID: IDS.bridge,
  ZK_ACL_WRITER_ID: IDS.writer,
  ZK_ACL_ANNOUNCER_ID: IDS.announcer,
  ZK_ACL_ADMIN_ID: IDS.admin,
};

/** A change to a node: set its data, create a child under it, delete it. */
export type Change = 'set' | 'create' | 'delete';

/** What ZooKeeper made of a probed change. */
export type Verdict = 'noAuth' | 'allowed';

const IMPOSSIBLE_VERSION = 999_999;

/**
 * Whether `session` may make `change` to `path`, asked so that a permitted change does not happen:
 * `set` and `delete` carry a version the node never has (ZooKeeper checks the ACL first, then the
 * version: `badVersion` means permitted); `create` uses an existing child's name when there is one
 * (`nodeExists` comes after the CREATE check), under an ephemeral node it fails with
 * `noChildrenForEphemerals` after the check. Anything else rejects.
 */
export async function probe(session: ZkReader & ZkWriter, path: string, change: Change): Promise<Verdict> {
  try {
    if (change === 'set') await session.set(path, Buffer.from('probe'), IMPOSSIBLE_VERSION);
    else if (change === 'delete') await session.remove(path, IMPOSSIBLE_VERSION);
    else {
      const existing = (await session.children(path)).children[0];
      // Ephemeral and read-only: a probe that does get created (the admin's) changes nothing and goes with the session.
      await session.create(`${path}/${existing ?? 'acl-probe'}`, undefined, { acl: [worldAcl(['read'])], mode: 'ephemeral' });
    }
    return 'allowed';
  } catch (err) {
    if (isZkError(err, 'noAuth')) return 'noAuth';
    if (isZkError(err, 'badVersion', 'nodeExists', 'noChildrenForEphemerals')) return 'allowed';
    throw err;
  }
}

/** Every node under `root` (itself included), parents first. */
export async function treeOf(session: ZkReader, root: string): Promise<string[]> {
  const out: string[] = [];
  const visit = async (path: string): Promise<void> => {
    out.push(path);
    for (const child of (await session.children(path)).children) await visit(`${path}/${child}`);
  };
  await visit(root);
  return out;
}
