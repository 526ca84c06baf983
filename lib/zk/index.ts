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
 * ```
 *
 * @packageDocumentation
 * @module failout/zk
 */
export { ZkSession, connectSession, parentOf } from './session';
// The narrow faces logic depends on (ZkSession implements all three); see ports.ts.
export type { ZkReader, ZkWriter, ZkWatcher } from './ports';
export type { ConnectionState, SessionEvent, ZkSessionOptions, CreateOptions } from './session';
export type { Watch, WatchHost, WatchLifecycle, DataWatch, ChildrenWatch } from './persistent-watch';
export { LeaderElection } from './leader-election';
export { CoalescingTask } from './coalescing-task';
export type { LeaderElectionEvents, LeaderElectionOptions, ElectionLifecycle } from './leader-election';
export { ZkError, isZkError, assertIsError } from './errors';
export type { ZkErrorKind } from './errors';
export { digestAcl, digestId, worldAcl, readableByAllWritableBy, OPEN_ACL } from './acl';
export type { AclEntry, ChildrenState, CreateMode, DataState, DigestCredential, MultiOp, Permission, Stat } from './types';
