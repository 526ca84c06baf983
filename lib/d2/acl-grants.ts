import type { AclGrants } from '../zk';

/**
 * What each role may do, beyond reading, to a child of `<base>/uris/<cluster>`: an announcement
 * (an announcing server's ephemeral node) or the bridge's persistent URI node. The bridge updates its
 * own in place; nobody changes an announcement's data (it lives and dies with its session; creating
 * and deleting it is a permission on the parent). Kept here because lib/d2 creates these nodes itself
 * (`ZooKeeperAnnouncer`); the access table (lib/requests `ACL_TABLE`, row `uri`) takes the row from
 * here, so the announcer and `failout zk secure` cannot disagree.
 */
export const URI_NODE_GRANTS: AclGrants = Object.freeze({ bridge: Object.freeze(['write'] as const) });
