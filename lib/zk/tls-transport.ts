/**
 * TLS for node-zookeeper-client 1.1.3, which speaks plain TCP only (its issues #40 and #56, open).
 *
 * ZooKeeper's `secureClientPort` speaks the same jute protocol inside TLS, so only the socket has to
 * change. The client's ConnectionManager opens its socket in `connect()` with `net.connect(server)`
 * and drives everything else through listeners on that socket. {@link installTlsTransport} replaces
 * `connect` (and wraps `close`) on ONE client's manager instance with a copy that opens
 * `tls.connect(...)` and hands `secureConnect` (not TCP `connect`) to `onSocketConnected`, so the
 * connect request and the digest credential go out only to a verified server. The prototype, `net`
 * and every other client stay untouched.
 *
 * Coupling to the 1.1.3 internals, checked here at install (a missing piece throws: TLS never falls
 * back to plain text) and by `test/unit/zk/tls-transport.internals.test.ts` (which also pins the
 * version and the body of `connect`, so an upgrade fails loudly):
 * - `client.connectionManager` with `connect`, `close`, `findNextServer(cb)`, `setState(n)`, `state`,
 *   `socket`, `connectTimeout`, `connectTimeoutHandler`;
 * - its socket handlers `onSocketConnected`, `onSocketData`, `onSocketDrain`, `onSocketClosed`,
 *   `onSocketError`, `onSocketConnectTimeout`, and `ConnectionManager.STATES`.
 *
 * Retry behaviour (decided for issue 14): a failed handshake is retried like any failed connect (an
 * ensemble may have one bad member; a certificate being rotated heals), but with a backoff of 250 ms
 * doubling to 5 s instead of the client's ~10 attempts a second, each a full handshake. The first
 * failure, and any change of server or reason, is logged at error level with the reason; repeats are
 * summarised at most every 30 s. `ZkSession.start()` rejects with a `tls` ZkError carrying the last
 * reason when its timeout passes. Nothing here logs certificates, keys or credentials.
 */
import type { Socket } from 'node:net';
import { connect as tlsConnect, type ConnectionOptions } from 'node:tls';
import type { Client } from 'node-zookeeper-client';
import type { Logger } from '../logging';
import { ZkError } from './errors';
import type { ZkTlsOptions } from './tls-config';

/** One failed attempt to open a TLS connection to a server. */
export interface TlsConnectFailure {
  /** `host:port` tried. */
  readonly server: string;
  /** `tls`: TCP connected but the handshake failed (certificate, name, plain-text server); `tcp`: no TCP connection. */
  readonly phase: 'tcp' | 'tls';
  /** Node's or OpenSSL's code: `UNABLE_TO_VERIFY_LEAF_SIGNATURE`, `ERR_TLS_CERT_ALTNAME_INVALID`, `ECONNRESET`, … */
  readonly code: string | undefined;
  /** What went wrong, e.g. `unable to verify the first certificate`. */
  readonly reason: string;
  /** Consecutive failed attempts, this one included; a successful handshake resets it. */
  readonly attempts: number;
  /** The error itself. */
  readonly error: Error;
}

/** What a session reads from the transport it installed. */
export interface TlsTransport {
  /** The last failed attempt since the last successful handshake; undefined once connected. */
  readonly lastFailure: TlsConnectFailure | undefined;
}

/** `TLS handshake with host:port failed: reason (CODE)`, for errors and the CLI. */
export function describeTlsFailure(failure: TlsConnectFailure): string {
  const what = failure.phase === 'tls' ? 'TLS handshake with' : 'TCP connection to';
  return `${what} ${failure.server} failed: ${failure.reason}${failure.code ? ` (${failure.code})` : ''}`;
}

const BACKOFF_BASE_MS = 250;
const BACKOFF_CAP_MS = 5000;
const REPEAT_LOG_MS = 30_000;

/** The parts of node-zookeeper-client 1.1.3's ConnectionManager this file uses. */
interface ConnectionManagerInternals {
  state: number;
  socket: Socket | undefined;
  connectTimeout: number;
  connectTimeoutHandler: NodeJS.Timeout | null;
  connect(): void;
  close(): void;
  setState(state: number): void;
  findNextServer(callback: (server: { host: string; port: string | number }) => void): void;
  onSocketConnected(): void;
  onSocketData(buffer: Buffer): void;
  onSocketDrain(): void;
  onSocketClosed(hadError: boolean): void;
  onSocketError(error: Error): void;
  onSocketConnectTimeout(): void;
}

const METHODS = ['connect', 'close', 'setState', 'findNextServer', 'onSocketConnected', 'onSocketData', 'onSocketDrain', 'onSocketClosed', 'onSocketError', 'onSocketConnectTimeout'] as const;

/** `ConnectionManager.STATES` values the copy of `connect` needs. */
interface States {
  CONNECTING: number;
  CLOSING: number;
}

/**
 * The client's ConnectionManager, checked against what this file relies on.
 * @throws ZkError `tls` when node-zookeeper-client is not shaped like 1.1.3.
 */
export function connectionManagerOf(client: Client): { manager: ConnectionManagerInternals; states: States } {
  const manager = (client as unknown as { connectionManager?: Record<string, unknown> }).connectionManager;
  const missing = manager ? METHODS.filter((m) => typeof manager[m] !== 'function') : ['connectionManager'];
  const states = (manager?.constructor as { STATES?: Partial<States> } | undefined)?.STATES;
  if (!manager || missing.length > 0 || typeof states?.CONNECTING !== 'number' || typeof states.CLOSING !== 'number') {
    throw new ZkError('tls', `node-zookeeper-client internals changed (missing: ${[...missing, ...(states ? [] : ['STATES'])].join(', ') || 'STATES values'}); TLS cannot be installed and will not fall back to plain text`);
  }
  return { manager: manager as unknown as ConnectionManagerInternals, states: { CONNECTING: states.CONNECTING, CLOSING: states.CLOSING } };
}

/** Node sets `reason` on OpenSSL errors; it reads better than the message with its source location. */
function reasonOf(error: Error): string {
  const reason = (error as { reason?: unknown }).reason;
  const code = (error as { code?: unknown }).code;
  return typeof reason === 'string' && typeof code === 'string' && code.startsWith('ERR_SSL_') ? reason : error.message;
}

/** Logging policy: error on the first failure and on every change; a summary at most every 30 s. */
class FailureLog {
  private lastKey: string | undefined;
  private lastLoggedAt = 0;

  constructor(private readonly log: Logger) {}

  failed(failure: TlsConnectFailure, retryInMs: number): void {
    if (failure.phase === 'tcp') {
      this.log.debug({ server: failure.server, code: failure.code, reason: failure.reason }, 'zookeeper TLS transport: TCP connect failed');
      return;
    }
    const key = `${failure.server} ${failure.code ?? failure.reason}`;
    const fields = { server: failure.server, code: failure.code, reason: failure.reason, attempts: failure.attempts, retryInMs };
    const now = Date.now();
    if (key !== this.lastKey) this.log.error(fields, 'zookeeper TLS handshake failed');
    else if (now - this.lastLoggedAt >= REPEAT_LOG_MS) this.log.warn(fields, 'zookeeper TLS handshake still failing');
    else return;
    this.lastKey = key;
    this.lastLoggedAt = now;
  }

  succeeded(server: string, protocol: string | null, failedBefore: number): void {
    this.log.debug({ server, protocol }, 'zookeeper TLS handshake done');
    if (failedBefore > 0) this.log.info({ server, protocol, failedAttempts: failedBefore }, 'zookeeper TLS handshake succeeded after failures');
    this.lastKey = undefined;
  }
}

/**
 * Makes this one client connect over TLS; call before `client.connect()`. See the module doc for how
 * and for the retry behaviour.
 * @throws ZkError `tls` when the client's internals are not those of 1.1.3.
 */
export function installTlsTransport(client: Client, tls: ZkTlsOptions, log: Logger): TlsTransport {
  const { manager, states } = connectionManagerOf(client);
  const secure: ConnectionOptions = {
    ...(tls.ca !== undefined ? { ca: tls.ca as ConnectionOptions['ca'] } : {}),
    ...(tls.cert !== undefined ? { cert: tls.cert, key: tls.key } : {}),
    ...(tls.servername !== undefined ? { servername: tls.servername } : {}),
    rejectUnauthorized: tls.verify ?? true,
    minVersion: 'TLSv1.2',
  };
  if (tls.verify === false) log.warn('zookeeper TLS without server verification (verify: false): any server is trusted');
  const failures = new FailureLog(log);
  let failed: TlsConnectFailure | undefined;
  let handshakeFailures = 0;
  let waiting: NodeJS.Timeout | undefined;

  // close() while no socket is open (the client's spin delay between rounds, or our backoff): no socket
  // will emit 'close', so finish the close the way a socket close would, and open nothing.
  const closedMeanwhile = (): boolean => {
    if (manager.state === states.CONNECTING) return false;
    if (manager.state === states.CLOSING) manager.onSocketClosed(false);
    return true;
  };

  const open = (server: { host: string; port: string | number }): void => {
    const label = `${server.host}:${server.port}`;
    const socket = tlsConnect({ ...secure, host: server.host, port: Number(server.port) });
    let phase: 'tcp' | 'tls' | 'open' = 'tcp';
    manager.socket = socket;
    // As 1.1.3's connect: the timeout now also covers the handshake (onSocketConnected clears it).
    manager.connectTimeoutHandler = setTimeout(() => manager.onSocketConnectTimeout(), manager.connectTimeout);
    socket.setNoDelay();
    socket.once('connect', () => (phase = 'tls'));
    socket.once('secureConnect', () => {
      phase = 'open';
      failures.succeeded(label, socket.getProtocol(), failed?.attempts ?? 0);
      failed = undefined;
      handshakeFailures = 0;
      manager.onSocketConnected();
    });
    socket.on('data', (buffer: Buffer) => manager.onSocketData(buffer));
    socket.on('drain', () => manager.onSocketDrain());
    let erred = false;
    const fail = (error: Error): void => {
      if (phase === 'open') return;
      if (phase === 'tls') handshakeFailures++;
      const code = (error as { code?: unknown }).code;
      failed = { server: label, phase, code: typeof code === 'string' ? code : undefined, reason: reasonOf(error), attempts: (failed?.attempts ?? 0) + 1, error };
      failures.failed(failed, backoffMs());
    };
    socket.on('close', (hadError: boolean) => {
      // Destroyed without an error (the connect timeout, the session's reconnect kick): a handshake that never finished.
      if (!erred && phase === 'tls') fail(new Error('the TLS handshake did not finish (timed out)'));
      manager.onSocketClosed(hadError);
    });
    socket.on('error', (error: Error) => {
      // 'error' comes before 'close', so the next connect() already sees this failure's backoff.
      erred = true;
      fail(error);
      manager.onSocketError(error);
    });
  };

  const backoffMs = (): number => (handshakeFailures === 0 ? 0 : Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** (handshakeFailures - 1)));

  // The copy of 1.1.3's connect(): same state change and server rotation; TLS socket; backoff after failed handshakes.
  manager.connect = () => {
    manager.setState(states.CONNECTING);
    manager.findNextServer((server) => {
      if (closedMeanwhile()) return;
      const delay = backoffMs();
      if (delay === 0) open(server);
      else {
        waiting = setTimeout(() => {
          waiting = undefined;
          if (!closedMeanwhile()) open(server);
        }, delay);
      }
    });
  };
  // close() during a backoff of up to 5 s: finish it now rather than when the timer fires.
  const close = manager.close.bind(manager);
  manager.close = () => {
    close();
    if (waiting === undefined) return;
    clearTimeout(waiting);
    waiting = undefined;
    manager.onSocketClosed(false);
  };
  return {
    get lastFailure() {
      return failed;
    },
  };
}
