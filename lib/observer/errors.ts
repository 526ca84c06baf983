/**
 * The errors of lib/observer (house rule 6): one class with a `kind` to branch on.
 */
import { types } from 'node:util';
import { isZkError } from '../zk';

/**
 * What went wrong in the observer, as a caller branches on it:
 * - `config`: the configuration is invalid; `field` names the bad setting (e.g. `grpc.port`).
 * - `malformed`: a znode holds data the observer will not serve (not JSON, not a valid D2 document);
 *   the last good version stays served.
 * - `closed`: the observer was closed.
 */
export type ObserverErrorKind = 'config' | 'malformed' | 'closed';

/** Every error lib/observer throws or reports. Branch on `kind`, never on `message`. */
export class ObserverError extends Error {
  override readonly name = 'ObserverError';
  /** For `config`: the offending setting. */
  readonly field: string | undefined;
  /** For `malformed`: the znode's path. */
  readonly path: string | undefined;

  constructor(
    readonly kind: ObserverErrorKind,
    message: string,
    options: { field?: string; path?: string; cause?: unknown } = {},
  ) {
    super(options.field !== undefined ? `${options.field}: ${message}` : message, { cause: options.cause });
    this.field = options.field;
    this.path = options.path;
  }
}

/**
 * A `malformed` error for a node the observer cannot read for a lasting reason (no read permission in
 * its ACL, say): it is not served, as a node with bad data is not.
 */
export function unreadableError(path: string, cause: Error): ObserverError {
  const why = isZkError(cause, 'noAuth') ? 'the observer may not read it (no read permission in its ACL)' : `it cannot be read (${cause.message})`;
  return new ObserverError('malformed', `${path}: not served, ${why}`, { path, cause });
}

/** True for an {@link ObserverError} of one of the given kinds (any kind when none is given). */
export function isObserverError(error: unknown, ...kinds: ObserverErrorKind[]): error is ObserverError {
  return error instanceof ObserverError && (kinds.length === 0 || kinds.includes(error.kind));
}

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else (cross-realm safe). */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error) && !types.isNativeError(error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}
