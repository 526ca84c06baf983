/**
 * lib/zk (`failout/zk`): a ZooKeeper session you can rely on. Promise operations with compare-and-set and multi,
 * persistent watches that survive reconnects and session expiry, digest ACLs, leader election.
 *
 * @example
 * ```ts
 * import { connectSession } from 'failout/zk';
 *
 * const session = await connectSession({ connectString: 'zk1:2181,zk2:2181' });
 * const watch = session.watchData('/d2/clusters/greetings-lor1', (state) => console.log(state));
 *
 * // Over TLS (the ensemble's secureClientPort): PEM contents, or ZK_TLS_CA / ZK_TLS_CERT / ZK_TLS_KEY files.
 * const secure = await connectSession({ connectString: 'zk1:2182', tls: loadZkTlsFromEnv(process.env) });
 * ```
 *
 * @packageDocumentation
 * @module failout/zk
 */
export { ZkSession, connectSession } from './session';
// The narrow faces logic depends on (ZkSession implements all three); see ports.ts.
export type { ZkReader, ZkWriter, ZkWatcher, ZkAclAccess } from './ports';
export type { ConnectionState, SessionEvent, ZkSessionOptions, CreateOptions } from './session';
export type { Watch, DataWatch, ChildrenWatch } from './persistent-watch';
export { LeaderElection } from './leader-election';
export { CoalescingTask, type CoalescedPass } from './coalescing-task';
export type { LeaderElectionEvents, LeaderElectionOptions } from './leader-election';
export { ZkError, isZkError } from './errors';
// ZooKeeper over TLS (secureClientPort): options, loading them from files or ZK_TLS_*, failures.
export { loadZkTlsFiles, loadZkTlsFromEnv, ZkTlsConfigError } from './config';
export type { ZkTlsFileField, ZkTlsFiles, ZkTlsOptions } from './config';
export type { TlsConnectFailure } from './tls-transport';
export type { ZkErrorKind } from './errors';
export { digestAcl, digestId, worldAcl, readableByAllWritableBy, resolveAcl, OPEN_ACL } from './acl';
export type { AclEntry, AclSource, ChildrenState, CreateMode, DataState, DigestCredential, MultiOp, Permission, Stat } from './types';
// Access control's mechanism: roles and identities, grants made into ACLs, and the audit / apply walks.
// The table of which role may change which path is the failout domain's (lib/requests `ACL_TABLE`).
export { aclFromGrants, formatAcl, missingRoles, siblingPath, withOwnIdentity } from './acl-policy';
export type { AclGrants, AclPolicy, AclRoles } from './acl-policy';
// The other roles' identities from ZK_ACL_* (the rest of the configuration readers: lib/zk/config).
export { ACL_ROLE_VARIABLES, aclRolesFromEnv } from './acl-config';
export { parseDigestCredential } from './credential-text';
export { applyAclPolicy, auditAcls, auditPassed, describeAudit } from './acl-audit';
export type { AclAudit, SecureReport } from './acl-audit';
