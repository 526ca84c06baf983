/**
 * The narrow faces of a ZooKeeper session (ARCHITECTURE "Depend on the narrow thing"): logic takes the
 * smallest intersection it uses (`ZkReader & ZkWriter` for the request writer, `ZkWatcher` for the
 * D2 stores) instead of the whole `ZkSession` class, so it can be unit-tested against an
 * in-memory fake (test/helpers/in-memory-zk) that keeps ZooKeeper's semantics.
 *
 * Every method rejects with a `ZkError`; branch on its `kind`. The contracts below are the ones
 * `ZkSession` keeps, and a fake must keep them too.
 */
import type { Watch } from './persistent-watch';
import type { AclEntry, AclSource, ChildrenState, CreateOptions, DataState, MultiOp, Stat } from './types';

/** Reads znodes. No method arms a watch; use {@link ZkWatcher} to follow changes. */
export interface ZkReader {
  /** Reads data and stat; rejects with `noNode` when absent, `noAuth` without READ permission. */
  get(path: string): Promise<{
    /** The node's data (empty when it has none). */
    data: Buffer;
    /** The node's stat as of this read. */
    stat: Stat;
  }>;
  /** Reads data or absence: like {@link ZkReader.get}, but absence resolves `{ exists: false }` instead of rejecting. */
  read(path: string): Promise<DataState>;
  /** The node's stat, or undefined when absent (ZooKeeper checks no ACL for this). */
  exists(path: string): Promise<Stat | undefined>;
  /** Sorted child names (not paths) and the parent's stat; rejects with `noNode` when absent. */
  children(path: string): Promise<{
    /** Child names, sorted. */
    children: string[];
    /** The parent node's stat; `cversion` and `pzxid` change with every child create or delete. */
    stat: Stat;
  }>;
}

/**
 * Changes znodes. `version` -1 matches any data version; any other value makes the write a
 * compare-and-set that rejects with `badVersion` when the node changed since.
 */
export interface ZkWriter {
  /**
   * Creates a node and resolves its actual path (sequential modes append a 10-digit counter).
   * Rejects with `nodeExists`, `noNode` (missing parent, unless `options.parents`),
   * `noChildrenForEphemerals`, `noAuth` (no CREATE permission on the parent) or `invalidAcl` (also
   * when `options.acl` is missing: there is no default ACL).
   */
  create(path: string, data: Buffer | undefined, options: CreateOptions): Promise<string>;
  /** Writes a node's data and resolves its new stat; rejects with `noNode`, `badVersion` or `noAuth`. */
  set(path: string, data: Buffer, version?: number): Promise<Stat>;
  /** Deletes a node; rejects with `noNode`, `badVersion`, `notEmpty` or `noAuth` (no DELETE permission on the parent). */
  remove(path: string, version?: number): Promise<void>;
  /**
   * Runs the operations atomically: all apply, or none does. Resolves the created paths by op index
   * (undefined for other ops). On failure rejects with the failing operation's kind, its `opIndex`
   * and its `path` (the first failing op; ZooKeeper does not evaluate the rest).
   */
  multi(ops: readonly MultiOp[]): Promise<(string | undefined)[]>;
  /** Creates every missing node of `path` (persistent, empty, each with its ACL from `acl`); existing nodes are left alone. */
  ensurePath(path: string, acl: AclSource): Promise<void>;
}

/** Reads and changes ACLs (`failout zk secure` and `check`, and the components' start-up check). */
export interface ZkAclAccess {
  /** The node's ACL and stat; rejects with `noNode`, or `noAuth` without READ or ADMIN permission. */
  getAcl(path: string): Promise<{
    /** The node's ACL entries, as stored. */
    acl: AclEntry[];
    /** The node's stat; `aversion` is the ACL version {@link ZkAclAccess.setAcl} compares. */
    stat: Stat;
  }>;
  /** Replaces the node's ACL if its ACL version is still `aclVersion` (-1: any); rejects with `noNode`, `badVersion` or `noAuth` (no ADMIN). */
  setAcl(path: string, acl: readonly AclEntry[], aclVersion?: number): Promise<Stat>;
}

/**
 * Follows znodes with persistent watches. The listener hears the current state first, then changes,
 * asynchronously (never inside the call that made the change), across reconnects and session expiry:
 * after each event the watch re-reads, so changes made between two deliveries arrive as one delivery
 * of the latest state. It never hears an older state after a newer one, nor the same state twice.
 */
export interface ZkWatcher {
  /**
   * Watches a node's data (absent → created → changed → deleted). `close()` on the result stops it.
   * `onUnreadable` hears a read that failed for a reason a retry will not fix (`noAuth`: the session may
   * not read the node), which is also logged: the listener hears nothing for it, and the watch reads
   * again after the session's next reconnect or new session. Without it the failure is only logged.
   */
  watchData(path: string, listener: (state: DataState) => void, onUnreadable?: (error: Error) => void): Watch;
  /** Watches a node's children list, with the guarantees of {@link ZkWatcher.watchData}. */
  watchChildren(path: string, listener: (state: ChildrenState) => void, onUnreadable?: (error: Error) => void): Watch;
  /**
   * After a new session (the old one expired): resolves once every watch has read again and delivered
   * what it read; undefined when no such re-read is pending. Optional: a source without sessions (or a
   * fake) may leave it out, and readers then decide on what they have.
   */
  whenResynced?(): Promise<void> | undefined;
}
