/**
 * One client session of the in-memory ZooKeeper: the {@link ZkReader}, {@link ZkWriter} and
 * {@link ZkWatcher} faces with the errors, defaults and connection behaviour of lib/zk's ZkSession,
 * plus the hooks a unit test needs to reach every error path:
 * - {@link InMemoryZkSession.inject} / {@link InMemoryZkSession.failNext}: fail the next matching
 *   request with any ZkError kind, before it reaches the server or (`afterApply`) after it was applied
 *   and its reply lost; {@link InMemoryZkSession.beforeNext}: run a concurrent writer first.
 * - {@link InMemoryZkSession.disconnect} / `reconnect` / `expire` / `close`: the session events
 *   (`suspended`, `connected`, `expired` / `lost`, `reset`) in ZkSession's order; expiry deletes the
 *   session's ephemeral nodes and watches re-read on `connected` and `reset`.
 * - {@link InMemoryZkSession.requests}: every request in order (an execution log to assert on).
 *
 * Concurrency: everything happens on the event loop; the tree is changed only inside `request`.
 */
import { strict as assert } from 'node:assert';
import { EventEmitter } from 'node:events';
import { parentOf } from '../../../lib/zk/session';
import {
  digestId,
  isZkError,
  resolveAcl,
  ZkError,
  type AclEntry,
  type AclSource,
  type ChildrenState,
  type ConnectionState,
  type CreateOptions,
  type DataState,
  type DigestCredential,
  type MultiOp,
  type SessionEvent,
  type Stat,
  type Watch,
  type ZkAclAccess,
  type ZkErrorKind,
  type ZkReader,
  type ZkWatcher,
  type ZkWriter,
} from '../../../lib/zk';
import { InMemoryChildrenWatch, InMemoryDataWatch, type InMemoryWatchHost } from './watch';
import { codeOf, TreeFailure, validatePath, type Caller, type NodeChange, type OpResult, type TreeOp, type ZnodeTree } from './znode-tree';

/** A request as it goes over the wire (node-zookeeper-client's method names). */
export type WireOp = 'getData' | 'exists' | 'getChildren' | 'create' | 'setData' | 'remove' | 'multi' | 'getACL' | 'setACL';

/** Who sent a request: a direct call, or a persistent watch re-reading. */
export type RequestSource = 'call' | 'watch';

/** One logged request. */
export interface LoggedRequest {
  readonly op: WireOp;
  /** The request's path; for `multi`, the paths of its ops. */
  readonly paths: readonly string[];
  readonly source: RequestSource;
}

/** Which requests a fault hits; every given field must match. */
export interface FaultMatch {
  readonly op?: WireOp | readonly WireOp[];
  /** The request's path (for `multi`: any of its ops' paths). */
  readonly path?: string | RegExp;
  readonly source?: RequestSource;
}

/** A fault: what happens to the next `times` matching requests. */
export interface Fault extends FaultMatch {
  /** Reject with a ZkError of this kind. */
  readonly fail?: ZkErrorKind;
  /** With `fail`: apply the request first, then reject (the server applied it; the reply was lost). */
  readonly afterApply?: boolean;
  /** `multi` only, without `afterApply`: report the failure at this op index (with that op's path), as a server answer would be; nothing is applied. */
  readonly opIndex?: number;
  /** Runs (and is awaited) before the request reaches the server: a concurrent writer, say. */
  readonly before?: () => void | Promise<void>;
  /** How many matching requests it hits. Default 1; `Infinity` for every one. */
  readonly times?: number;
}

/** Options of {@link InMemoryZkSession} (via `InMemoryZk.session`). */
export interface InMemorySessionOptions {
  /** Digest credentials of the session (its ACL identities). */
  readonly credentials?: readonly DigestCredential[];
  /** How long a request waits for a connection before `connectionLoss`, as ZkSession's option. Default 0: at once. */
  readonly connectWaitMs?: number;
}

/** What a session needs from its server (kept as an interface so the server can import this file). */
export interface ServerSide {
  readonly tree: ZnodeTree;
  newSessionId(): bigint;
  busy(delta: 1 | -1): void;
  watchError(err: Error, path: string): void;
}

interface ActiveFault extends Fault {
  left: number;
}

/** An in-memory ZooKeeper session; make one with `InMemoryZk.session()`. It starts connected. */
export class InMemoryZkSession implements ZkReader, ZkWriter, ZkWatcher, ZkAclAccess {
  /** Every request this session sent, in order. */
  readonly requests: LoggedRequest[] = [];
  private readonly events = new EventEmitter();
  private readonly faults: ActiveFault[] = [];
  private readonly watches = new Set<Watch>();
  private readonly auth: readonly { scheme: string; id: string }[];
  private readonly connectWaitMs: number;
  private stateValue: ConnectionState = 'connected';
  private id: bigint;
  private generation = 1;

  constructor(
    private readonly server: ServerSide,
    options: InMemorySessionOptions = {},
  ) {
    this.auth = (options.credentials ?? []).map((c) => ({ scheme: 'digest', id: digestId(c.user, c.password) }));
    this.connectWaitMs = options.connectWaitMs ?? 0;
    this.id = server.newSessionId();
    this.events.setMaxListeners(0);
  }

  /** The connection state (ZkSession's vocabulary). */
  get state(): ConnectionState {
    return this.stateValue;
  }

  /** The current session's id: the `ephemeralOwner` of its ephemeral nodes; changes after expiry. */
  get sessionId(): bigint {
    return this.id;
  }

  /** 1, plus one per expiry or loss (ZkSession's `sessionGeneration`). */
  get sessionGeneration(): number {
    return this.generation;
  }

  /** Open watches. */
  get watchCount(): number {
    return this.watches.size;
  }

  /** Subscribes to session events, as ZkSession.on; returns the unsubscribe function. */
  on(listener: (event: SessionEvent) => void): () => void {
    // As ZkSession: a listener that throws is skipped (the real session logs it; this one keeps it in
    // `listenerErrors`), so it cannot keep the others from hearing.
    const safe = (event: SessionEvent): void => {
      try {
        listener(event);
      } catch (err) {
        this.listenerErrors.push(err);
      }
    };
    this.events.on('event', safe);
    return () => this.events.off('event', safe);
  }

  /** What session listeners threw (ZkSession logs these). */
  readonly listenerErrors: unknown[] = [];

  // ---- ZkReader ----

  async get(path: string): Promise<{ data: Buffer; stat: Stat }> {
    return this.getData(path, 'call');
  }

  async read(path: string): Promise<DataState> {
    try {
      const { data, stat } = await this.get(path);
      return { exists: true, data, stat };
    } catch (err) {
      if (isZkError(err, 'noNode')) return { exists: false };
      throw err;
    }
  }

  async exists(path: string): Promise<Stat | undefined> {
    return this.existsOf(path, 'call');
  }

  async children(path: string): Promise<{ children: string[]; stat: Stat }> {
    return this.childrenOf(path, 'call');
  }

  // ---- ZkWriter ----

  async create(path: string, data: Buffer | undefined, options: CreateOptions): Promise<string> {
    // As ZkSession: no default ACL, a missing one fails before anything is sent.
    const acl = resolveAcl(options?.acl, path);
    const op: TreeOp = { op: 'create', path, data: data ?? Buffer.alloc(0), mode: options.mode ?? 'persistent', acl };
    try {
      return await this.write('create', op, createdPath);
    } catch (err) {
      if (!options.parents || !isZkError(err, 'noNode')) throw err;
      await this.ensurePath(parentOf(path), options.acl);
      return this.write('create', op, createdPath);
    }
  }

  async ensurePath(path: string, acl: AclSource): Promise<void> {
    if (path === '/' || path === '') return;
    if (!acl) resolveAcl(acl, path);
    if (await this.exists(path)) return;
    await this.ensurePath(parentOf(path), acl);
    try {
      await this.write('create', { op: 'create', path, data: Buffer.alloc(0), mode: 'persistent', acl: resolveAcl(acl, path) }, createdPath);
    } catch (err) {
      if (!isZkError(err, 'nodeExists')) throw err;
    }
  }

  async set(path: string, data: Buffer, version = -1): Promise<Stat> {
    return this.write('setData', { op: 'set', path, data, version }, (r) => r.stat!);
  }

  async remove(path: string, version = -1): Promise<void> {
    await this.write('remove', { op: 'remove', path, version }, () => undefined);
  }

  async multi(ops: readonly MultiOp[]): Promise<(string | undefined)[]> {
    const treeOps = ops.map((op): TreeOp => (op.op === 'create' ? { op: 'create', path: op.path, data: op.data ?? Buffer.alloc(0), mode: op.mode ?? 'persistent', acl: resolveAcl(op.acl, op.path) } : op));
    treeOps.forEach(validateOp);
    const paths = ops.map((op) => op.path);
    return this.request('multi', paths, 'call', (fault) => {
      if (fault?.opIndex !== undefined && fault.fail && !fault.afterApply) throw this.multiError(fault.fail, ops, fault.opIndex);
      try {
        return this.server.tree.transact(treeOps, this.caller()).map((r) => r.path);
      } catch (err) {
        if (err instanceof TreeFailure && err.opIndex !== undefined) throw this.multiError(err.kind, ops, err.opIndex, err.code);
        throw err;
      }
    });
  }

  // ---- ZkAclAccess ----

  async getAcl(path: string): Promise<{ acl: AclEntry[]; stat: Stat }> {
    validatePath(path);
    return this.request('getACL', [path], 'call', () => this.single(path, () => this.server.tree.getAcl(path, this.caller())));
  }

  async setAcl(path: string, acl: readonly AclEntry[], aclVersion = -1): Promise<Stat> {
    validatePath(path);
    assert(acl.length > 0, 'acls must be a non-empty array.');
    return this.request('setACL', [path], 'call', () => this.single(path, () => this.server.tree.setAcl(path, acl, aclVersion, this.caller())));
  }

  // ---- ZkWatcher ----

  watchData(path: string, listener: (state: DataState) => void, onUnreadable?: (error: Error) => void): Watch {
    return this.track(new InMemoryDataWatch(this.watchHost(), path, listener, onUnreadable));
  }

  watchChildren(path: string, listener: (state: ChildrenState) => void, onUnreadable?: (error: Error) => void): Watch {
    return this.track(new InMemoryChildrenWatch(this.watchHost(), path, listener, onUnreadable));
  }

  // ---- fault injection ----

  /** Adds a fault; returns the function that removes it early. Faults are tried in the order added. */
  inject(fault: Fault): () => void {
    const active: ActiveFault = { ...fault, left: fault.times ?? 1 };
    this.faults.push(active);
    return () => {
      const index = this.faults.indexOf(active);
      if (index >= 0) this.faults.splice(index, 1);
    };
  }

  /** Fails the next request matching `match` (any request by default) with `kind`. */
  failNext(kind: ZkErrorKind, match: FaultMatch & Pick<Fault, 'afterApply' | 'opIndex' | 'times'> = {}): () => void {
    return this.inject({ ...match, fail: kind });
  }

  /** Runs `action` before the next request matching `match` reaches the server (e.g. another session's write). */
  beforeNext(match: FaultMatch & Pick<Fault, 'times'>, action: () => void | Promise<void>): () => void {
    return this.inject({ ...match, before: action });
  }

  // ---- connection ----

  /** The connection drops; the session lives on (`suspended`). Requests fail with `connectionLoss` (after `connectWaitMs`) until {@link reconnect}. */
  disconnect(): void {
    if (this.stateValue !== 'connected') return;
    this.transition('suspended');
  }

  /**
   * Connects again: the same session after {@link disconnect} (`connected`), a new one after expiry
   * or loss (`connected`, then `reset`). Watches re-read on both.
   */
  reconnect(): void {
    if (this.stateValue === 'suspended') {
      this.transition('connected');
    } else if (this.stateValue === 'expired' || this.stateValue === 'lost') {
      this.id = this.server.newSessionId();
      this.generation++;
      this.transition('connected');
      this.emit('reset');
    }
  }

  /**
   * The server expires the session (or, with `reason: 'lost'`, ZkSession gives it up): its ephemeral
   * nodes are deleted and `expired` / `lost` is published; unless `reconnect` is false, a new session
   * connects on the next turn of the event loop (`connected`, `reset`). Resolves after that.
   */
  async expire(options: { reason?: 'expired' | 'lost'; reconnect?: boolean } = {}): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.server.tree.removeEphemerals(this.id);
    this.transition(options.reason ?? 'expired');
    if (options.reconnect === false) return;
    await new Promise((resolve) => setImmediate(resolve));
    this.reconnect();
  }

  /** Closes the session: its watches stop, its ephemeral nodes go, requests fail with `closed`. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    for (const watch of [...this.watches]) watch.close();
    this.server.tree.removeEphemerals(this.id);
    this.events.emit('closed');
  }

  // ---- internals ----

  private caller(): Caller {
    return { auth: this.auth, sessionId: this.id };
  }

  private getData(path: string, source: RequestSource): Promise<{ data: Buffer; stat: Stat }> {
    validatePath(path);
    return this.request('getData', [path], source, () => this.single(path, () => this.server.tree.getData(path, this.caller())));
  }

  private existsOf(path: string, source: RequestSource): Promise<Stat | undefined> {
    validatePath(path);
    return this.request('exists', [path], source, () => this.server.tree.exists(path));
  }

  private childrenOf(path: string, source: RequestSource): Promise<{ children: string[]; stat: Stat }> {
    validatePath(path);
    return this.request('getChildren', [path], source, () => this.single(path, () => this.server.tree.getChildren(path, this.caller())));
  }

  /** A single write as a transaction of one op; `pick` takes what the real client resolves from its result. */
  private write<T>(wire: 'create' | 'setData' | 'remove', op: TreeOp, pick: (result: OpResult) => T): Promise<T> {
    validateOp(op);
    return this.request(wire, [op.path], 'call', () => this.single(op.path, () => pick(this.server.tree.transact([op], this.caller())[0]!)));
  }

  /** Runs a single-op request; a server refusal becomes the ZkError the real client gives (name as message, code, path). */
  private single<T>(path: string, run: () => T): T {
    try {
      return run();
    } catch (err) {
      if (err instanceof TreeFailure) throw new ZkError(err.kind, err.codeName, { path, code: err.code });
      throw err;
    }
  }

  /** A failed multi as lib/zk's raw multi reports it: the failing op's kind, code, index and path. */
  private multiError(kind: ZkErrorKind, ops: readonly MultiOp[], opIndex: number, code = codeOf(kind)?.code): ZkError {
    return new ZkError(kind, `ZooKeeper error ${code ?? '?'} (${kind})`, { path: ops[opIndex]?.path, code, opIndex });
  }

  /** Every request: connection check, log, faults, then the server. */
  private async request<T>(op: WireOp, paths: readonly string[], source: RequestSource, run: (fault: ActiveFault | undefined) => T): Promise<T> {
    await this.connected();
    this.requests.push({ op, paths, source });
    const fault = this.takeFault(op, paths, source);
    if (fault?.before) {
      await fault.before();
      await this.connected();
    }
    if (fault?.fail && !fault.afterApply && (op !== 'multi' || fault.opIndex === undefined)) throw this.injected(fault.fail, op, paths);
    const result = run(fault);
    if (fault?.fail && fault.afterApply) throw this.injected(fault.fail, op, paths);
    return result;
  }

  private injected(kind: ZkErrorKind, op: WireOp, paths: readonly string[]): ZkError {
    const known = codeOf(kind);
    // node-zookeeper-client reports a lost multi without results, so lib/zk's error has no path for it.
    const path = op === 'multi' ? undefined : paths[0];
    return new ZkError(kind, known?.name ?? `injected ${kind}`, { path, code: known?.code });
  }

  private takeFault(op: WireOp, paths: readonly string[], source: RequestSource): ActiveFault | undefined {
    const index = this.faults.findIndex((f) => matches(f, op, paths, source));
    if (index < 0) return undefined;
    const fault = this.faults[index]!;
    if (--fault.left <= 0) this.faults.splice(index, 1);
    return fault;
  }

  /** ZkSession's connectedClient(): closed fails at once; otherwise wait up to `connectWaitMs` for `connected`. */
  private connected(): Promise<void> {
    if (this.stateValue === 'connected') return Promise.resolve();
    if (this.stateValue === 'closed') return Promise.reject(new ZkError('closed', 'session is closed'));
    return new Promise((resolve, reject) => {
      const done = (error?: ZkError): void => {
        clearTimeout(timer);
        this.events.off('event', onEvent);
        this.events.off('closed', onClosed);
        if (error) reject(error);
        else resolve();
      };
      const onEvent = (event: SessionEvent): void => {
        if (event === 'connected') done();
      };
      const onClosed = (): void => done(new ZkError('closed', 'session is closed'));
      const timer = setTimeout(() => done(new ZkError('connectionLoss', `not connected within ${this.connectWaitMs} ms`)), this.connectWaitMs);
      this.events.on('event', onEvent);
      this.events.on('closed', onClosed);
    });
  }

  private track(watch: Watch): Watch {
    this.watches.add(watch);
    watch.onClose(() => this.watches.delete(watch));
    watch.start();
    return watch;
  }

  private watchHost(): InMemoryWatchHost {
    return {
      getData: (path) => this.getData(path, 'watch'),
      exists: (path) => this.existsOf(path, 'watch'),
      getChildren: (path) => this.childrenOf(path, 'watch'),
      onSessionEvent: (listener) => this.on(listener),
      onNodeChange: (path, listener: (change: NodeChange) => void) => this.server.tree.subscribe(path, listener),
      onWatchError: (err, path) => this.server.watchError(err, path),
      busy: (delta) => this.server.busy(delta),
    };
  }

  private transition(next: ConnectionState): void {
    if (this.stateValue === next || this.stateValue === 'closed') return;
    this.stateValue = next;
    if (next !== 'idle' && next !== 'connecting' && next !== 'closed') this.emit(next);
  }

  private emit(event: SessionEvent): void {
    this.events.emit('event', event);
  }
}

/** node-zookeeper-client's own checks, made before anything is sent: a plain assertion error, not a ZkError. */
function validateOp(op: TreeOp): void {
  validatePath(op.path);
  if (op.op === 'create') assert(op.acl.length > 0, 'acls must be a non-empty array.');
}

function createdPath(result: OpResult): string {
  return result.path!;
}

function matches(fault: Fault, op: WireOp, paths: readonly string[], source: RequestSource): boolean {
  if (fault.op !== undefined && (typeof fault.op === 'string' ? fault.op !== op : !fault.op.includes(op))) return false;
  if (fault.source !== undefined && fault.source !== source) return false;
  if (fault.path === undefined) return true;
  const want = fault.path;
  return paths.some((p) => (typeof want === 'string' ? p === want : want.test(p)));
}
