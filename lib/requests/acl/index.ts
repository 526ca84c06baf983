/**
 * lib/requests/acl: the one role → path ACL table of the failout ZooKeeper layout (the records, the
 * drills, the view, the fabric maps, the evacuations and the D2 tree), for the components that create
 * or secure nodes: the bridge, the local stack and `failout zk secure|check`. lib/zk holds the
 * mechanism (grants → ACLs, apply, audit); the table is the failout domain's.
 */
export { aclFor, aclLayout, layoutRoots, policyAcl, secureAcls } from '../acl-table';
export type { AclLayout } from '../acl-table';
