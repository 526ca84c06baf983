import { EventEmitter } from 'node:events';
import { createClient, State, type Client } from 'node-zookeeper-client';
import { resolveAcl } from './acl';
import { isZkError, ZkError } from './errors';
import { createLogger, type Logger } from '../logging';
import { ChildrenWatch, DataWatch, type ResyncedWatch, type WatchHost } from './persistent-watch';
import * as raw from './raw-ops';
import type { ZkAclAccess, ZkReader, ZkWatcher, ZkWriter } from './ports';
import type { AclEntry, AclSource, ChildrenState, CreateOptions, DataState, DigestCredential, MultiOp, Stat } from './types';
import { assertZkTlsOptions, type ZkTlsOptions } from './tls-config';
import { describeTlsFailure, installTlsTransport, type TlsConnectFailure, type TlsTransport } from './tls-transport';
import { abandonConnection } from './abandon-connection';
import type { Lifecycle } from '../lifecycle';

/**
 * Connection state of a {@link ZkSession}, as recipes see it (Curator's ConnectionState), between
 * `idle` (not started) and `closed` (for good), the session's {@link Lifecycle} ends:
 * - `connected`: a live session; after a reconnect within the session timeout it is the same session.
 * - `suspended`: disconnected; the session may still live and its ephemeral nodes with it.
 * - `lost`: disconnected for longer than the session timeout (our own timer: the client library
 *   reports no expiry while cut off); a new session is being made.
 * - `expired`: the server said the session expired; a new session is being made.
 */
export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'suspended' | 'lost' | 'expired' | 'closed';

/**
 * Events a session publishes: every state change, plus `reset` once a NEW session is connected,
 * auth re-added and every watch re-armed. Recipes that own ephemeral nodes rebuild on `reset`.
 */
export type SessionEvent = Exclude<ConnectionState, 'idle' | 'connecting' | 'closed'> | 'reset';

/** Options for {@link connectSession} and the {@link ZkSession} constructor. */
export interface ZkSessionOptions {
  /** `host:port[,host:port…]` of the ensemble. */
  connectString: string;
  /** Requested session timeout; the server clamps it to its min/max. Default 15 s. */
  sessionTimeoutMs?: number;
  /** Digest credentials added to every session, including those made after expiry. */
  credentials?: readonly DigestCredential[];
  /** How long an operation waits for a connection before failing with `connectionLoss`. Default: the session timeout. */
  connectWaitMs?: number;
  /** Logger for session events. Default: a `zk-session` logger. */
  logger?: Logger;
  /** Connect over TLS (the servers' `secureClientPort`); plain TCP when absent. See `tls-transport.ts`. */
  tls?: ZkTlsOptions;
}

// Defined beside the ports (types.ts) so that ports.ts needs nothing from this file; re-exported for old importers.
export type { CreateOptions } from './types';

/**
 * A ZooKeeper session you can rely on: promise operations, persistent watches that survive reconnects
 * and session expiry, and one place that hears connection events (house rule 4).
 *
 * Concurrency: all state changes happen on Node's event loop; `client` and `generation` change only in
 * `replaceClient`, and events from a replaced client are ignored by generation.
 */
export class ZkSession implements ZkReader, ZkWriter, ZkWatcher, ZkAclAccess {
  private readonly events = new EventEmitter();
  private readonly log: Logger;
  private readonly sessionTimeoutMs: number;
  private readonly connectWaitMs: number;
  /** Digest credentials re-added to every new client: the options' plus {@link addCredential}'s. */
  private readonly credentials: DigestCredential[];
  private client: Client | undefined;
  /** The current client's TLS transport (with `options.tls`); changes with `client`. */
  private tlsTransport: TlsTransport | undefined;
  private generation = 0;
  private lostTimer: NodeJS.Timeout | undefined;
  private kickTimer: NodeJS.Timeout | undefined;
  private stateValue: ConnectionState = 'idle';
  private everConnected = false;
  /** The open watches: told of every reconnect and new session (`resync`), closed with the session. */
  private readonly watches = new Set<ResyncedWatch>();
  /** What every watch of this session is given: one object for all (a D2 client holds hundreds of watches). */
  private readonly watchHost: WatchHost;
  private readonly counters = { sessions: 0, suspended: 0, expired: 0, lost: 0, reconnects: 0 };
  /** Set once a digest credential went over plain TCP and that was said (issue 21: warned once per ZkSession). */
  private plainCredentialWarned = false;
  /** A new session is connected and its watches have not been told yet: the next resync arms {@link resyncGate}. */
  private renewed = false;
  /** After a new session, until every watch has read again: see {@link whenResynced}. */
  private resyncGate: Promise<void> | undefined;

  constructor(private readonly options: ZkSessionOptions) {
    if (!options.connectString) throw new ZkError('other', 'connectString is required');
    this.sessionTimeoutMs = options.sessionTimeoutMs ?? 15_000;
    this.connectWaitMs = options.connectWaitMs ?? this.sessionTimeoutMs;
    this.credentials = [...(options.credentials ?? [])];
    if (options.tls) assertZkTlsOptions(options.tls);
    this.log = options.logger ?? createLogger('zk-session');
    this.watchHost = { client: () => this.connectedClient(), forget: (watch) => this.watches.delete(watch), logger: this.log };
    this.events.setMaxListeners(0);
  }

  /** The current connection state. */
  get state(): ConnectionState {
    return this.stateValue;
  }

  /** The session's lifecycle, from its connection state: `idle` before {@link start}, `closed` after {@link close}, else `running`. */
  get lifecycle(): Lifecycle {
    return this.stateValue === 'idle' || this.stateValue === 'closed' ? this.stateValue : 'running';
  }

  /** Hex id of the current session (changes after expiry), undefined before the first connect. */
  get sessionId(): string | undefined {
    const id = this.client?.getSessionId();
    return id && this.everConnected ? id.toString('hex') : undefined;
  }

  /** Counts sessions: 1 after the first connect, +1 after every expiry or loss. */
  get sessionGeneration(): number {
    return this.generation;
  }

  /** The session id and password, so a test can force expiry from a second client. */
  sessionCredentials():
    | {
        /** The session id (8 bytes). */
        id: Buffer;
        /** The session password the server issued. */
        password: Buffer;
      }
    | undefined {
    if (!this.client || !this.everConnected) return undefined;
    return { id: this.client.getSessionId(), password: this.client.getSessionPassword() };
  }

  /** With TLS: the last failed connect attempt (its TLS reason) since the session last connected; else undefined. */
  get lastTlsFailure(): TlsConnectFailure | undefined {
    return this.tlsTransport?.lastFailure;
  }

  /** Negotiated session timeout in milliseconds (requested value until connected). */
  get negotiatedTimeoutMs(): number {
    const negotiated = this.client?.getSessionTimeout();
    return negotiated && negotiated > 0 ? negotiated : this.sessionTimeoutMs;
  }

  /**
   * Counters an operator alarms on: sessions made, disconnects (`suspended`), server-side expiries,
   * sessions given up by our timer (`lost`), reconnects within the same session; plus open watches.
   */
  stats(): {
    /** Sessions established: the first, plus one after every expiry or loss. */
    sessions: number;
    /** Disconnects from a live session. */
    suspended: number;
    /** Sessions the server reported expired. */
    expired: number;
    /** Sessions given up by our timer after a disconnect longer than the session timeout. */
    lost: number;
    /** Reconnects within the same session. */
    reconnects: number;
    /** Open watches right now. */
    watches: number;
  } {
    return { ...this.counters, watches: this.watches.size };
  }

  /**
   * Subscribes to session events; returns the unsubscribe function. A listener that throws is logged
   * and skipped: it cannot keep the session from recovering or the other listeners from hearing.
   */
  on(listener: (event: SessionEvent) => void): () => void {
    const safe = (event: SessionEvent): void => {
      try {
        listener(event);
      } catch (err) {
        this.log.error({ err, event }, 'session listener threw');
      }
    };
    this.events.on('event', safe);
    return () => this.events.off('event', safe);
  }

  /** Connects; resolves on the first `connected`. Rejects (and closes) after `timeoutMs`. */
  async start(timeoutMs = 30_000): Promise<void> {
    if (this.stateValue !== 'idle') throw new ZkError('other', 'session already started');
    this.stateValue = 'connecting';
    try {
      this.replaceClient();
      await this.waitConnected(timeoutMs, true);
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Closes the session (its ephemeral nodes go at once) and every watch. Safe to call twice. */
  async close(): Promise<void> {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    clearTimeout(this.lostTimer);
    clearInterval(this.kickTimer);
    for (const watch of [...this.watches]) watch.close();
    const client = this.client;
    this.client = undefined;
    this.generation++;
    this.events.emit('closed');
    // A client without an established session (connecting, or reconnecting) has no session to close,
    // and close() would make it misread the answer to a connect request in flight: abandon it instead.
    if (client && !hasSession(client) && abandonConnection(client)) return;
    // A client that never connected (a refused TLS handshake, an unreachable ensemble) has no session to
    // close and, already DISCONNECTED, never emits 'disconnected': waiting would only cost the full second.
    if (client && client.getState() !== State.DISCONNECTED) {
      // close() sends closeSession and drops the socket; give it a moment to reach the server.
      const closed = new Promise<void>((resolve) => {
        client.once('disconnected', () => resolve());
        setTimeout(resolve, 1000).unref();
      });
      client.close();
      await closed;
    } else {
      client?.close();
    }
  }

  /** Reads data; rejects with `noNode` when absent. */
  async get(path: string): Promise<{
    /** The node's data (empty when it has none). */
    data: Buffer;
    /** The node's stat. */
    stat: Stat;
  }> {
    return raw.getData(await this.connectedClient(), path);
  }

  /** Reads data or absence without throwing for `noNode`. */
  async read(path: string): Promise<DataState> {
    try {
      const { data, stat } = await this.get(path);
      return { exists: true, data, stat };
    } catch (err) {
      if (isZkError(err, 'noNode')) return { exists: false };
      throw err;
    }
  }

  /** The node's stat, or undefined when absent. */
  async exists(path: string): Promise<Stat | undefined> {
    return raw.exists(await this.connectedClient(), path);
  }

  /** Sorted child names and the parent's stat; rejects with `noNode` when absent. */
  async children(path: string): Promise<{
    /** Child names (not paths), sorted. */
    children: string[];
    /** The parent node's stat. */
    stat: Stat;
  }> {
    return raw.getChildren(await this.connectedClient(), path);
  }

  /**
   * Creates a node with `options.acl` (required: no default ACL); resolves its actual path (sequential
   * modes append a counter). @throws ZkError `invalidAcl` without an ACL, before anything is sent.
   */
  async create(path: string, data: Buffer | undefined, options: CreateOptions): Promise<string> {
    const acl = resolveAcl(options?.acl, path);
    const mode = options.mode ?? 'persistent';
    try {
      return await raw.create(await this.connectedClient(), path, data, mode, acl);
    } catch (err) {
      if (!options.parents || !isZkError(err, 'noNode')) throw err;
      await this.ensurePath(parentOf(path), options.acl);
      return raw.create(await this.connectedClient(), path, data, mode, acl);
    }
  }

  /**
   * Creates every missing node of `path` (persistent, empty), each with its ACL from `acl` (required).
   * Existing nodes are left alone, ACL included.
   */
  async ensurePath(path: string, acl: AclSource): Promise<void> {
    if (path === '/' || path === '') return;
    if (!acl) resolveAcl(acl, path); // throws: no ACL, even when nothing turns out to be missing
    if (await this.exists(path)) return;
    await this.ensurePath(parentOf(path), acl);
    try {
      await raw.create(await this.connectedClient(), path, undefined, 'persistent', resolveAcl(acl, path));
    } catch (err) {
      if (!isZkError(err, 'nodeExists')) throw err;
    }
  }

  /** The node's ACL and stat (`stat.aversion` for {@link setAcl}); rejects with `noNode`, or `noAuth` without READ or ADMIN. */
  async getAcl(path: string): Promise<{
    /** The node's ACL entries. */
    acl: AclEntry[];
    /** The node's stat. */
    stat: Stat;
  }> {
    return raw.getAcl(await this.connectedClient(), path);
  }

  /** Replaces a node's ACL if its ACL version is still `aclVersion` (-1: any); needs ADMIN on the node. */
  async setAcl(path: string, acl: readonly AclEntry[], aclVersion = -1): Promise<Stat> {
    return raw.setAcl(await this.connectedClient(), path, acl, aclVersion);
  }

  /**
   * Adds a digest credential to this session from now on: to the live connection at once, and to every
   * session made after expiry. ZooKeeper authenticates connections, not callers: everyone using this
   * session acts with the credential (an announcer given one, say).
   */
  addCredential(credential: DigestCredential): void {
    if (this.credentials.some((c) => c.user === credential.user && c.password === credential.password)) return;
    this.credentials.push(credential);
    this.client?.addAuthInfo('digest', Buffer.from(`${credential.user}:${credential.password}`));
    if (this.stateValue === 'connected') this.warnIfCredentialInClear();
  }

  /** Compare-and-set write: fails with `badVersion` when the node changed since `version` (-1: any). */
  async set(path: string, data: Buffer, version = -1): Promise<Stat> {
    return raw.setData(await this.connectedClient(), path, data, version);
  }

  /** Deletes a node (with a version check unless -1). */
  async remove(path: string, version = -1): Promise<void> {
    return raw.remove(await this.connectedClient(), path, version);
  }

  /**
   * Deletes a subtree of any depth, children first. Nodes that vanish meanwhile are fine; a node that
   * gains a child meanwhile is retried. (node-zookeeper-client's own version fails past two levels.)
   */
  async removeRecursive(path: string): Promise<void> {
    for (let attempt = 0; attempt < 10; attempt++) {
      let children: string[];
      try {
        children = (await this.children(path)).children;
      } catch (err) {
        if (isZkError(err, 'noNode')) return;
        throw err;
      }
      for (const child of children) await this.removeRecursive(`${path === '/' ? '' : path}/${child}`);
      if (path === '/') return;
      try {
        await this.remove(path);
        return;
      } catch (err) {
        if (isZkError(err, 'noNode')) return;
        if (!isZkError(err, 'notEmpty')) throw err;
      }
    }
    throw new ZkError('notEmpty', 'children kept appearing', { path });
  }

  /** Runs the operations atomically; resolves created paths by op index. */
  async multi(ops: readonly MultiOp[]): Promise<(string | undefined)[]> {
    return raw.multi(await this.connectedClient(), ops);
  }

  /**
   * Watches a node's data. The listener hears the current state first, then every change, across
   * reconnects and session expiry; it never hears an older state after a newer one, and never the same
   * state twice. Returns the watch; `close()` stops it. `onUnreadable`: see `ZkWatcher.watchData`.
   */
  watchData(path: string, listener: (state: DataState) => void, onUnreadable?: (error: Error) => void): DataWatch {
    return this.track(new DataWatch(this.watchHost, path, listener, onUnreadable));
  }

  /** Watches a node's children, with the guarantees of {@link watchData}. */
  watchChildren(path: string, listener: (state: ChildrenState) => void, onUnreadable?: (error: Error) => void): ChildrenWatch {
    return this.track(new ChildrenWatch(this.watchHost, path, listener, onUnreadable));
  }

  /**
   * After a new session (expiry, or a loss past the session timeout): a promise that resolves once every
   * watch open then has read the node again (and what it read was delivered), so that a reader can
   * decide on what ZooKeeper holds now rather than on what it held before the session went, as rest.li
   * does by rebuilding its load balancer on expiry. Undefined otherwise, and once those reads are over.
   * A read that fails ends the wait too (the watch reads again on the next event). See `ZkWatcher`.
   */
  whenResynced(): Promise<void> | undefined {
    return this.resyncGate;
  }

  /** Number of open watches (for tests and metrics). */
  get watchCount(): number {
    return this.watches.size;
  }

  private track<W extends ResyncedWatch>(watch: W): W {
    this.watches.add(watch);
    watch.start();
    return watch;
  }

  /** The current client once connected; waits up to `connectWaitMs`. */
  private async connectedClient(): Promise<Client> {
    if (this.stateValue === 'connected' && this.client) return this.client;
    if (this.stateValue === 'closed' || this.stateValue === 'idle') {
      throw new ZkError('closed', this.stateValue === 'closed' ? 'session is closed' : 'session not started');
    }
    await this.waitConnected(this.connectWaitMs);
    if (!this.client) throw new ZkError('closed', 'session is closed');
    return this.client;
  }

  /** Waits for `connected`; on timeout the error carries the last TLS failure (kind `tls` for `start`). */
  private waitConnected(timeoutMs: number, starting = false): Promise<void> {
    if (this.stateValue === 'connected') return Promise.resolve();
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
      const timer = setTimeout(() => done(this.notConnectedError(timeoutMs, starting)), timeoutMs);
      this.events.on('event', onEvent);
      this.events.on('closed', onClosed);
    });
  }

  /**
   * A TLS refusal at start is a configuration fault (kind `tls`); for operations it stays the transient
   * `connectionLoss` (recipes retry those, and a certificate being rotated heals), with the reason.
   */
  private notConnectedError(timeoutMs: number, starting: boolean): ZkError {
    const failure = this.tlsTransport?.lastFailure;
    if (!failure) return new ZkError('connectionLoss', `not connected within ${timeoutMs} ms`);
    const kind = starting && failure.phase === 'tls' ? 'tls' : 'connectionLoss';
    return new ZkError(kind, `not connected within ${timeoutMs} ms: ${describeTlsFailure(failure)}`, { cause: failure.error });
  }

  /** Makes a new client (a new session), adds auth, and connects. The old client is closed. */
  private replaceClient(): void {
    if (this.client) stopClient(this.client);
    const generation = ++this.generation;
    const client = createClient(this.options.connectString, {
      sessionTimeout: this.sessionTimeoutMs,
      spinDelay: 200,
      retries: 0,
    });
    // Before connect(): the transport replaces this client's socket; a client it cannot patch throws.
    this.tlsTransport = this.options.tls ? installTlsTransport(client, this.options.tls, this.log) : undefined;
    for (const c of this.credentials) client.addAuthInfo('digest', Buffer.from(`${c.user}:${c.password}`));
    client.on('state', (state: State) => {
      if (generation === this.generation) this.onClientState(state);
    });
    this.client = client;
    client.connect();
    this.armReconnectKick();
  }

  /**
   * node-zookeeper-client clears its connect timeout once TCP connects, so a server that accepts the
   * socket but never answers the handshake (a JVM still starting, a half-open proxy) hangs the client
   * forever. While not connected, drop the socket every third of the session timeout so that it tries
   * again.
   */
  private armReconnectKick(): void {
    clearInterval(this.kickTimer);
    const period = Math.max(500, Math.floor(this.negotiatedTimeoutMs / 3));
    this.kickTimer = setInterval(() => {
      if (this.stateValue === 'connected' || this.stateValue === 'closed') {
        clearInterval(this.kickTimer);
        return;
      }
      const manager = (this.client as unknown as { connectionManager?: { socket?: { destroy(): void } } } | undefined)?.connectionManager;
      manager?.socket?.destroy();
    }, period);
  }

  private onClientState(state: State): void {
    if (state === State.SYNC_CONNECTED) {
      clearTimeout(this.lostTimer);
      this.lostTimer = undefined;
      const newSession = this.stateValue === 'lost' || this.stateValue === 'expired';
      const first = !this.everConnected;
      if (first || newSession) this.counters.sessions++;
      else this.counters.reconnects++;
      this.everConnected = true;
      if (newSession) this.renewed = true;
      this.transition('connected');
      if (newSession) this.emit('reset');
      if (first || newSession) this.log.info({ sessionId: this.sessionId, generation: this.generation }, 'zookeeper session established');
      this.warnIfCredentialInClear();
    } else if (state === State.DISCONNECTED) {
      if (this.stateValue !== 'connected') return;
      this.transition('suspended');
      this.counters.suspended++;
      this.armReconnectKick();
      // The client library reports no expiry while cut off; assume the server expired us after the timeout.
      this.lostTimer = setTimeout(() => this.onSessionGone('lost'), this.negotiatedTimeoutMs);
    } else if (state === State.EXPIRED) {
      this.onSessionGone('expired');
    } else if (state === State.AUTH_FAILED) {
      this.log.error('zookeeper authentication failed');
    }
  }

  /**
   * Warns, once per ZkSession (not per reconnect: every new connection re-sends the credential, and the
   * first warning already says so), when a digest credential goes over plain TCP: ZooKeeper's digest
   * scheme sends `user:password` in the clear, so anyone on the path to that server can read it and
   * act as that role. A warning, as TLS without server verification is (the lesser exposure).
   */
  private warnIfCredentialInClear(): void {
    if (this.plainCredentialWarned || this.options.tls || this.credentials.length === 0) return;
    this.plainCredentialWarned = true;
    const server = this.connectedServer();
    this.log.warn(
      { server, connectString: this.options.connectString, credentials: this.credentials.length },
      `zookeeper digest credential sent over plain TCP to ${server}: anyone on the network path can read it; connect over TLS (the servers' secureClientPort, ZK_TLS_CA)`,
    );
  }

  /** `host:port` of the server the client is connected to, as the connect string names it; the connect string when unknown. */
  private connectedServer(): string {
    // node-zookeeper-client keeps its (shuffled) servers and moves its index past the one it dialled.
    const manager = (this.client as unknown as { connectionManager?: { servers?: { host: string; port: number }[]; nextServerIndex?: number } } | undefined)?.connectionManager;
    const servers = manager?.servers;
    if (!servers || servers.length === 0 || manager?.nextServerIndex === undefined) return this.options.connectString;
    const server = servers[(((manager.nextServerIndex - 1) % servers.length) + servers.length) % servers.length];
    return server ? `${server.host}:${server.port}` : this.options.connectString;
  }

  private onSessionGone(reason: 'lost' | 'expired'): void {
    if (this.stateValue === 'closed') return;
    clearTimeout(this.lostTimer);
    this.lostTimer = undefined;
    this.counters[reason]++;
    this.log.warn({ reason, sessionId: this.sessionId }, 'zookeeper session gone; starting a new one');
    this.transition(reason);
    this.replaceClient();
  }

  private transition(next: ConnectionState): void {
    if (this.stateValue === next || this.stateValue === 'closed') return;
    this.stateValue = next;
    if (next !== 'idle' && next !== 'connecting' && next !== 'closed') this.emit(next);
  }

  private emit(event: SessionEvent): void {
    // Same session (`connected`): events may have been missed while away. New session (`reset`): the
    // server forgot every watch. Either way each watch reads again (and re-arms); first, so that a
    // listener that throws cannot keep them from it (their reads go out after this turn anyway).
    if (event === 'connected' || event === 'reset') for (const watch of this.watches) watch.resync();
    // A new session: before anyone hears `connected`, so nobody can decide on the old state meanwhile.
    if (this.renewed) this.armResyncGate();
    this.events.emit('event', event);
  }

  /** Opens {@link whenResynced}'s promise over the re-reads just asked of every watch (one per watch, only now). */
  private armResyncGate(): void {
    this.renewed = false;
    const rereads = [...this.watches].map((watch) => watch.whenResynced());
    // The URI store publishes a turn later (setImmediate): wait that turn too.
    const gate: Promise<void> = Promise.all(rereads)
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .finally(() => {
        if (this.resyncGate === gate) this.resyncGate = undefined;
      });
    this.resyncGate = gate;
  }
}

/** Parent path of an absolute znode path (`/a/b` → `/a`, `/a` → `/`). */
export function parentOf(path: string): string {
  const index = path.lastIndexOf('/');
  return index <= 0 ? '/' : path.slice(0, index);
}

/** Creates and starts a session; resolves once connected. */
export async function connectSession(options: ZkSessionOptions, timeoutMs?: number): Promise<ZkSession> {
  const session = new ZkSession(options);
  await session.start(timeoutMs);
  return session;
}

/** The client holds an established session (so closing it sends closeSession). */
function hasSession(client: Client): boolean {
  const state = client.getState();
  return state === State.SYNC_CONNECTED || state === State.CONNECTED_READ_ONLY;
}

/** Stops a client being replaced: closes its session when it has one, else abandons the connection attempt. */
function stopClient(client: Client): void {
  if (hasSession(client) || !abandonConnection(client)) client.close();
}
