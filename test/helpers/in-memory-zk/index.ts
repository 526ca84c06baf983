/** An in-memory ZooKeeper with ZkSession's semantics and fault hooks, for unit tests (see in-memory-zk.ts). */
export { InMemoryZk, type InMemoryZkOptions } from './in-memory-zk';
export { InMemoryZkSession } from './session';
export type { Fault, FaultMatch, InMemorySessionOptions, LoggedRequest, RequestSource, WireOp } from './session';
export type { NodeChange } from './znode-tree';
