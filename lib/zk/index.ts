/**
 * lib/zk: a ZooKeeper session you can rely on. Promise operations with compare-and-set and multi,
 * persistent watches that survive reconnects and session expiry, digest ACLs, leader election.
 */
export { ZkSession, connectSession, parentOf } from './session';
export type { ConnectionState, SessionEvent, ZkSessionOptions, CreateOptions } from './session';
export type { Watch, WatchLifecycle, DataWatch, ChildrenWatch } from './persistent-watch';
export { LeaderElection } from './leader-election';
export type { LeaderElectionOptions, ElectionLifecycle } from './leader-election';
export { ZkError, isZkError, assertIsError } from './errors';
export type { ZkErrorKind } from './errors';
export { digestAcl, digestId, worldAcl, readableByAllWritableBy, OPEN_ACL } from './acl';
export type { AclEntry, ChildrenState, CreateMode, DataState, DigestCredential, MultiOp, Permission, Stat } from './types';
