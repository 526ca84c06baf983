/**
 * The server side of the in-memory ZooKeeper: the znode tree, the zxid counter, ACL checks and the
 * transaction rules of ZooKeeper's PrepRequestProcessor (which error wins when several apply, what a
 * create or delete does to the parent's stat). Sessions (session.ts) talk to it; it knows nothing about
 * connections, faults or watches beyond telling subscribers which paths a transaction changed.
 *
 * Concurrency: everything is synchronous; a transaction is applied to a copy of the node map and the
 * copy replaces the map only when every operation succeeded (all or nothing).
 */
import { strict as assert } from 'node:assert';
import { Exception } from 'node-zookeeper-client';
import type { AclEntry, CreateMode, Permission, Stat, ZkErrorKind } from '../../../lib/zk';

/** What a transaction did to one path; a data watch cares about the first three, a children watch about all but `data`. */
export type NodeChange = 'created' | 'deleted' | 'data' | 'children';

/** An authenticated identity of a session (`digest`, `user:hash`). */
export interface AuthId {
  readonly scheme: string;
  readonly id: string;
}

/** Who runs a transaction: the session's identities and its id (the owner of the ephemerals it creates). */
export interface Caller {
  readonly auth: readonly AuthId[];
  readonly sessionId: bigint;
}

/** One write of a transaction: a {@link MultiOp} with its defaults filled in. */
export type TreeOp =
  | { readonly op: 'check'; readonly path: string; readonly version: number }
  | { readonly op: 'create'; readonly path: string; readonly data: Buffer; readonly mode: CreateMode; readonly acl: readonly AclEntry[] }
  | { readonly op: 'set'; readonly path: string; readonly data: Buffer; readonly version: number }
  | { readonly op: 'remove'; readonly path: string; readonly version: number };

/** What one op of a committed transaction yields: the created path, or the written node's stat. */
export interface OpResult {
  readonly path?: string;
  readonly stat?: Stat;
}

/** An operation the server refused, before the session turns it into a ZkError. */
export class TreeFailure extends Error {
  override readonly name = 'TreeFailure';
  /** In a transaction: the index of the op that failed. */
  opIndex: number | undefined;
  constructor(
    readonly kind: ZkErrorKind,
    /** node-zookeeper-client's numeric code (as the real session's errors carry it). */
    readonly code: number,
    /** The exception name the real client gives (`NO_NODE`), the real single-op error's message. */
    readonly codeName: string,
  ) {
    super(codeName);
  }
}

/** The numeric code and exception name of each server answer, as node-zookeeper-client reports them. */
const CODES: Partial<Record<ZkErrorKind, { code: number; name: string }>> = {
  connectionLoss: { code: Exception.CONNECTION_LOSS, name: 'CONNECTION_LOSS' },
  timeout: { code: Exception.OPERATION_TIMEOUT, name: 'OPERATION_TIMEOUT' },
  sessionExpired: { code: Exception.SESSION_EXPIRED, name: 'SESSION_EXPIRED' },
  noNode: { code: Exception.NO_NODE, name: 'NO_NODE' },
  nodeExists: { code: Exception.NODE_EXISTS, name: 'NODE_EXISTS' },
  badVersion: { code: Exception.BAD_VERSION, name: 'BAD_VERSION' },
  notEmpty: { code: Exception.NOT_EMPTY, name: 'NOT_EMPTY' },
  noAuth: { code: Exception.NO_AUTH, name: 'NO_AUTH' },
  authFailed: { code: Exception.AUTH_FAILED, name: 'AUTH_FAILED' },
  invalidAcl: { code: Exception.INVALID_ACL, name: 'INVALID_ACL' },
  noChildrenForEphemerals: { code: Exception.NO_CHILDREN_FOR_EPHEMERALS, name: 'NO_CHILDREN_FOR_EPHEMERALS' },
};

/** Code and exception name of a kind (undefined for kinds only lib/zk makes: `closed`, `notLeader`, `other`). */
export function codeOf(kind: ZkErrorKind): { code: number; name: string } | undefined {
  return CODES[kind];
}

function fail(kind: ZkErrorKind): never {
  const known = codeOf(kind);
  // BAD_ARGUMENTS (-8) is what ZooKeeper answers for the root's parent; lib/zk maps it to `other`.
  throw new TreeFailure(kind, known?.code ?? Exception.BAD_ARGUMENTS, known?.name ?? 'BAD_ARGUMENTS');
}

/** One znode. Immutable: a transaction replaces the objects it changes. */
interface Znode {
  readonly data: Buffer;
  readonly acl: readonly AclEntry[];
  readonly children: ReadonlySet<string>;
  readonly version: number;
  readonly aversion: number;
  readonly cversion: number;
  readonly czxid: bigint;
  readonly mzxid: bigint;
  readonly pzxid: bigint;
  readonly ephemeralOwner: bigint;
  readonly mtime: number;
}

/** node-zookeeper-client's path validation (lib/Path.js), which the real session hits before any request. */
export function validatePath(path: string): void {
  assert(path && typeof path === 'string', 'Node path must be a non-empty string.');
  assert(path[0] === '/', 'Node path must start with / character.');
  if (path.length === 1) return;
  assert(path[path.length - 1] !== '/', 'Node path must not end with / character.');
  assert(!/\/\//.test(path), 'Node path must not contain empty node name.');
  assert(!/\/\.(\.)?(\/|$)/.test(path), 'Node path must not contain relative path(s).');
}

function parentAndName(path: string): { parent: string; name: string } {
  const index = path.lastIndexOf('/');
  return { parent: index === 0 ? '/' : path.slice(0, index), name: path.slice(index + 1) };
}

/** ZooKeeper's checkACL: an empty ACL lets everyone in; otherwise some entry must grant `perm` to the caller. */
function allowed(acl: readonly AclEntry[], perm: Permission, caller: Caller): boolean {
  if (acl.length === 0) return true;
  return acl.some(
    (e) => e.perms.includes(perm) && ((e.scheme === 'world' && e.id === 'anyone') || caller.auth.some((a) => a.scheme === e.scheme && a.id === e.id)),
  );
}

/** ZooKeeper's fixupACL: no empty list, `auth` becomes the caller's identities, ids must be well formed. */
function fixupAcl(acl: readonly AclEntry[], caller: Caller): AclEntry[] {
  if (acl.length === 0) fail('invalidAcl');
  const fixed: AclEntry[] = [];
  for (const entry of acl) {
    if (entry.scheme === 'auth') {
      if (caller.auth.length === 0) fail('invalidAcl');
      for (const id of caller.auth) fixed.push({ perms: entry.perms, scheme: id.scheme, id: id.id });
    } else if ((entry.scheme === 'world' && entry.id === 'anyone') || (entry.scheme === 'digest' && entry.id.includes(':')) || entry.scheme === 'ip') {
      fixed.push(entry);
    } else {
      fail('invalidAcl');
    }
  }
  return fixed;
}

/** The in-memory znode tree with ZooKeeper's transaction semantics. */
export class ZnodeTree {
  private nodes = new Map<string, Znode>();
  private zxid = 0n;
  private readonly subscribers = new Map<string, Set<(change: NodeChange) => void>>();

  /** @param clock the server clock for `mtime` (epoch ms). */
  constructor(private readonly clock: () => number) {
    // The root exists from the start, with zxid 0 and an open ACL, as on a fresh ensemble.
    this.nodes.set('/', {
      data: Buffer.alloc(0),
      acl: [{ perms: ['read', 'write', 'create', 'delete', 'admin'], scheme: 'world', id: 'anyone' }],
      children: new Set(),
      version: 0,
      aversion: 0,
      cversion: 0,
      czxid: 0n,
      mzxid: 0n,
      pzxid: 0n,
      ephemeralOwner: 0n,
      mtime: 0,
    });
  }

  /** The last committed zxid. */
  get lastZxid(): bigint {
    return this.zxid;
  }

  /** Every path (root excluded), sorted: what a test compares to prove a failed transaction changed nothing. */
  paths(): string[] {
    return [...this.nodes.keys()].filter((p) => p !== '/').sort();
  }

  /** getData: NO_NODE, then READ permission. */
  getData(path: string, caller: Caller): { data: Buffer; stat: Stat } {
    const node = this.existing(this.nodes, path);
    if (!allowed(node.acl, 'read', caller)) fail('noAuth');
    return { data: Buffer.from(node.data), stat: statOf(node) };
  }

  /** exists: no ACL check (ZooKeeper checks none for exists). */
  exists(path: string): Stat | undefined {
    const node = this.nodes.get(path);
    return node && statOf(node);
  }

  /** getChildren: NO_NODE, then READ permission; names sorted. */
  getChildren(path: string, caller: Caller): { children: string[]; stat: Stat } {
    const node = this.existing(this.nodes, path);
    if (!allowed(node.acl, 'read', caller)) fail('noAuth');
    return { children: [...node.children].sort(), stat: statOf(node) };
  }

  /**
   * getACL: NO_NODE, then READ or ADMIN permission (ZOOKEEPER-1392). A caller without ADMIN sees
   * digest ids with the hash replaced by `x` (`user:x`), as ZooKeeper 3.6+ answers.
   */
  getAcl(path: string, caller: Caller): { acl: AclEntry[]; stat: Stat } {
    const node = this.existing(this.nodes, path);
    const admin = allowed(node.acl, 'admin', caller);
    if (!allowed(node.acl, 'read', caller) && !admin) fail('noAuth');
    const redact = (e: AclEntry): string => (admin || e.scheme !== 'digest' ? e.id : `${e.id.slice(0, e.id.indexOf(':'))}:x`);
    return { acl: node.acl.map((e) => ({ ...e, id: redact(e), perms: [...e.perms] })), stat: statOf(node) };
  }

  /**
   * setACL, in PrepRequestProcessor's order: INVALID_ACL, NO_NODE, ADMIN permission, then the ACL
   * version. A transaction of its own (a new zxid) that changes neither data nor mzxid, and fires no watch.
   */
  setAcl(path: string, acl: readonly AclEntry[], version: number, caller: Caller): Stat {
    const fixed = fixupAcl(acl, caller);
    const node = this.existing(this.nodes, path);
    if (!allowed(node.acl, 'admin', caller)) fail('noAuth');
    if (version !== -1 && version !== node.aversion) fail('badVersion');
    const next: Znode = { ...node, acl: fixed, aversion: node.aversion + 1 };
    this.zxid++;
    this.nodes = new Map(this.nodes).set(path, next);
    return statOf(next);
  }

  /**
   * Applies `ops` as one transaction with one zxid, or not at all. On failure throws the first failing
   * op's {@link TreeFailure} with its index (ZooKeeper stops there: later ops are never evaluated).
   */
  transact(ops: readonly TreeOp[], caller: Caller): OpResult[] {
    const staged = new Map(this.nodes);
    const zxid = this.zxid + 1n;
    const now = this.clock();
    const changes: [string, NodeChange][] = [];
    const results: OpResult[] = [];
    for (const [index, op] of ops.entries()) {
      try {
        results.push(this.apply(staged, op, caller, zxid, now, changes));
      } catch (err) {
        if (err instanceof TreeFailure) err.opIndex = index;
        throw err;
      }
    }
    // A transaction of checks only writes nothing; ZooKeeper still gives it a zxid, but no node shows it.
    this.zxid = zxid;
    this.nodes = staged;
    this.notify(changes);
    return results;
  }

  /** Deletes every ephemeral node `owner` holds, in one transaction (ZooKeeper's closeSession). */
  removeEphemerals(owner: bigint): void {
    const owned = [...this.nodes].filter(([, n]) => n.ephemeralOwner === owner).map(([p]) => p);
    if (owned.length === 0) return;
    // Children first is moot (ephemerals have none); remove without ACL or version checks, as the server does.
    const staged = new Map(this.nodes);
    const zxid = ++this.zxid;
    const changes: [string, NodeChange][] = [];
    for (const path of owned) this.unlink(staged, path, zxid, changes);
    this.nodes = staged;
    this.notify(changes);
  }

  /** Calls `listener` after every committed transaction that changed `path`; returns the unsubscribe function. */
  subscribe(path: string, listener: (change: NodeChange) => void): () => void {
    let set = this.subscribers.get(path);
    if (!set) this.subscribers.set(path, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.subscribers.delete(path);
    };
  }

  private existing(nodes: ReadonlyMap<string, Znode>, path: string): Znode {
    const node = nodes.get(path);
    if (!node) fail('noNode');
    return node;
  }

  private apply(staged: Map<string, Znode>, op: TreeOp, caller: Caller, zxid: bigint, now: number, changes: [string, NodeChange][]): OpResult {
    switch (op.op) {
      case 'check': {
        const node = this.existing(staged, op.path);
        if (!allowed(node.acl, 'read', caller)) fail('noAuth');
        if (op.version !== -1 && op.version !== node.version) fail('badVersion');
        return {};
      }
      case 'create':
        return { path: this.create(staged, op, caller, zxid, now, changes) };
      case 'set': {
        const node = this.existing(staged, op.path);
        if (!allowed(node.acl, 'write', caller)) fail('noAuth');
        if (op.version !== -1 && op.version !== node.version) fail('badVersion');
        const next: Znode = { ...node, data: Buffer.from(op.data), version: node.version + 1, mzxid: zxid, mtime: now };
        staged.set(op.path, next);
        changes.push([op.path, 'data']);
        return { stat: statOf(next) };
      }
      case 'remove': {
        if (op.path === '/') fail('other');
        const parent = this.existing(staged, parentAndName(op.path).parent);
        if (!allowed(parent.acl, 'delete', caller)) fail('noAuth');
        const node = this.existing(staged, op.path);
        if (op.version !== -1 && op.version !== node.version) fail('badVersion');
        if (node.children.size > 0) fail('notEmpty');
        this.unlink(staged, op.path, zxid, changes);
        return {};
      }
    }
  }

  /** PrepRequestProcessor's create order: INVALID_ACL, parent NO_NODE, CREATE permission, sequence, NODE_EXISTS, ephemeral parent. */
  private create(staged: Map<string, Znode>, op: Extract<TreeOp, { op: 'create' }>, caller: Caller, zxid: bigint, now: number, changes: [string, NodeChange][]): string {
    if (op.path === '/') fail('nodeExists');
    const acl = fixupAcl(op.acl, caller);
    const { parent: parentPath } = parentAndName(op.path);
    const parent = this.existing(staged, parentPath);
    if (!allowed(parent.acl, 'create', caller)) fail('noAuth');
    const sequential = op.mode === 'persistentSequential' || op.mode === 'ephemeralSequential';
    // The sequence number is the parent's cversion, zero-padded to 10 digits (ZooKeeper's "%010d").
    const path = sequential ? `${op.path}${String(parent.cversion).padStart(10, '0')}` : op.path;
    if (staged.has(path)) fail('nodeExists');
    if (parent.ephemeralOwner !== 0n) fail('noChildrenForEphemerals');
    const ephemeral = op.mode === 'ephemeral' || op.mode === 'ephemeralSequential';
    staged.set(path, {
      data: Buffer.from(op.data),
      acl,
      children: new Set(),
      version: 0,
      aversion: 0,
      cversion: 0,
      czxid: zxid,
      mzxid: zxid,
      pzxid: zxid,
      ephemeralOwner: ephemeral ? caller.sessionId : 0n,
      mtime: now,
    });
    const name = path.slice(path.lastIndexOf('/') + 1);
    staged.set(parentPath, { ...parent, children: new Set([...parent.children, name]), cversion: parent.cversion + 1, pzxid: zxid });
    changes.push([path, 'created'], [parentPath, 'children']);
    return path;
  }

  private unlink(staged: Map<string, Znode>, path: string, zxid: bigint, changes: [string, NodeChange][]): void {
    const { parent: parentPath, name } = parentAndName(path);
    const parent = this.existing(staged, parentPath);
    const children = new Set(parent.children);
    children.delete(name);
    staged.delete(path);
    staged.set(parentPath, { ...parent, children, cversion: parent.cversion + 1, pzxid: zxid });
    changes.push([path, 'deleted'], [parentPath, 'children']);
  }

  private notify(changes: readonly [string, NodeChange][]): void {
    for (const [path, change] of changes) {
      for (const listener of [...(this.subscribers.get(path) ?? [])]) listener(change);
    }
  }
}

function statOf(node: Znode): Stat {
  return {
    version: node.version,
    aversion: node.aversion,
    cversion: node.cversion,
    czxid: node.czxid,
    mzxid: node.mzxid,
    pzxid: node.pzxid,
    ephemeralOwner: node.ephemeralOwner,
    dataLength: node.data.length,
    numChildren: node.children.size,
    mtime: node.mtime,
  };
}
