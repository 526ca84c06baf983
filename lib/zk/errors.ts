import { Exception } from 'node-zookeeper-client';

/**
 * What went wrong, as a caller branches on it. `connectionLoss` and `sessionExpired` are transient
 * (retry on a new connection or session); the others are answers about the data.
 */
export type ZkErrorKind =
  | 'connectionLoss'
  | 'sessionExpired'
  | 'noNode'
  | 'nodeExists'
  | 'badVersion'
  | 'notEmpty'
  | 'noAuth'
  | 'authFailed'
  | 'invalidAcl'
  | 'noChildrenForEphemerals'
  | 'timeout'
  | 'closed'
  | 'notLeader'
  // No server completed a TLS handshake (start() timed out): a certificate the CA does not verify, a
  // name mismatch, a missing client certificate, a plain-text port; or node-zookeeper-client's internals
  // changed so TLS cannot be installed. Not transient: it needs a fix.
  // (Unusable TLS settings are a ZkTlsConfigError, thrown while reading the configuration.)
  | 'tls'
  | 'other';

const KIND_BY_CODE: ReadonlyMap<number, ZkErrorKind> = new Map<number, ZkErrorKind>([
  [Exception.CONNECTION_LOSS, 'connectionLoss'],
  [Exception.OPERATION_TIMEOUT, 'timeout'],
  [Exception.SESSION_EXPIRED, 'sessionExpired'],
  [Exception.NO_NODE, 'noNode'],
  [Exception.NODE_EXISTS, 'nodeExists'],
  [Exception.BAD_VERSION, 'badVersion'],
  [Exception.NOT_EMPTY, 'notEmpty'],
  [Exception.NO_AUTH, 'noAuth'],
  [Exception.AUTH_FAILED, 'authFailed'],
  [Exception.INVALID_ACL, 'invalidAcl'],
  [Exception.NO_CHILDREN_FOR_EPHEMERALS, 'noChildrenForEphemerals'],
]);

const TRANSIENT: ReadonlySet<ZkErrorKind> = new Set(['connectionLoss', 'sessionExpired', 'timeout']);

/** Every error lib/zk rejects with. Branch on `kind`, never on `message`. */
export class ZkError extends Error {
  /** Always `ZkError`. */
  override readonly name = 'ZkError';
  /** ZooKeeper's numeric code when the server or client library gave one. */
  readonly code: number | undefined;
  /** For a failed `multi`: the index of the operation that failed. */
  readonly opIndex: number | undefined;

  constructor(
    /** What went wrong; branch on this. */
    readonly kind: ZkErrorKind,
    message: string,
    options: { path?: string; code?: number; opIndex?: number; cause?: unknown } = {},
  ) {
    super(options.path ? `${message} (${options.path})` : message, { cause: options.cause });
    this.path = options.path;
    this.code = options.code;
    this.opIndex = options.opIndex;
  }

  /** The znode the operation was about. */
  readonly path: string | undefined;

  /** True when retrying on a healthy connection may succeed. */
  get transient(): boolean {
    return TRANSIENT.has(this.kind);
  }
}

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else. */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}

/** True for a {@link ZkError} of one of the given kinds. */
export function isZkError(error: unknown, ...kinds: ZkErrorKind[]): error is ZkError {
  return error instanceof ZkError && (kinds.length === 0 || kinds.includes(error.kind));
}

/** A {@link ZkError} for a numeric ZooKeeper result code (as found in multi results). */
export function zkErrorFromCode(code: number, path?: string, opIndex?: number, cause?: unknown): ZkError {
  const kind = KIND_BY_CODE.get(code) ?? 'other';
  return new ZkError(kind, `ZooKeeper error ${code} (${kind})`, { path, code, opIndex, cause });
}

/** Converts what node-zookeeper-client passes to callbacks into a {@link ZkError}. */
export function toZkError(error: unknown, path?: string, opIndex?: number): ZkError {
  if (error instanceof ZkError) return error;
  if (error instanceof Exception) {
    const code = error.getCode();
    const kind = KIND_BY_CODE.get(code) ?? 'other';
    return new ZkError(kind, error.getName(), { path, code, opIndex, cause: error });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new ZkError('other', message, { path, opIndex, cause: error });
}
