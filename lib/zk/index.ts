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
export { ZkSession, connectSession, parentOf } from './session';
// The narrow faces logic depends on (ZkSession implements all three); see ports.ts.
export type { ZkReader, ZkWriter, ZkWatcher, ZkAclAccess } from './ports';
export type { ConnectionState, SessionEvent, ZkSessionOptions, CreateOptions } from './session';
export type { Watch, WatchHost, WatchLifecycle, DataWatch, ChildrenWatch } from './persistent-watch';
export { LeaderElection } from './leader-election';
export { CoalescingTask } from './coalescing-task';
export type { LeaderElectionEvents, LeaderElectionOptions, ElectionLifecycle } from './leader-election';
export { ZkError, isZkError, assertIsError } from './errors';
// ZooKeeper over TLS (secureClientPort): options, loading them from files or ZK_TLS_*, failures.
export { loadZkTlsFiles, loadZkTlsFromEnv, zkTlsFilesFromEnv, ZkTlsConfigError, ZK_TLS_VARIABLES } from './config';
export type { ZkTlsFileField, ZkTlsFiles, ZkTlsOptions } from './config';
export { describeTlsFailure } from './tls-transport';
export type { TlsConnectFailure } from './tls-transport';
export type { ZkErrorKind } from './errors';
export { digestAcl, digestId, worldAcl, readableByAllWritableBy, resolveAcl, OPEN_ACL } from './acl';
export type { AclEntry, AclSource, ChildrenState, CreateMode, DataState, DigestCredential, MultiOp, Permission, Stat } from './types';
// Access control: the one role → path → permission table, its identities, and the audit / secure walks.
export {
  ACL_TABLE,
  DEFAULT_ACL_LAYOUT,
  aclFor,
  aclLayout,
  classifyPath,
  formatAcl,
  layoutRoots,
  missingRoles,
  normalizeAcl,
  openPermissions,
  policyAcl,
  sameAcl,
  siblingPath,
  withOwnIdentity,
} from './acl-policy';
export type { AclLayout, AclRole, AclRoles, AclTableRow, NodeClass } from './acl-policy';
export { ACL_ROLE_VARIABLES, aclRolesFromEnv, allowOpenAclFromEnv, isDigestId, parseAclRoles } from './acl-config';
export { parseDigestCredential } from './credential-text';
export type { DigestCredentialResult } from './credential-text';
export type { AclRolesResult } from './acl-config';
export { auditAcls, auditPassed, describeAudit, secureAcls } from './acl-audit';
export type { AclAudit, AclChange, AclChangeFailure, OpenAclNode, SecureOptions, SecureReport, UnreadableNode } from './acl-audit';
