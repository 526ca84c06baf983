/**
 * Typed errors of the failout module. Callers branch on `kind` (or `instanceof FailoutError`), never on
 * the message.
 */

/**
 * What went wrong:
 * - `malformedConfig`: a cluster's `failoutProperties` break the schema of the "Failout properties"
 *   section of ARCHITECTURE.md; `field` names the offending entry.
 * - `noEligiblePeer`: a request's bucket is offline and no peer may take it, and the strategy is
 *   configured to fail closed.
 * - `strategyFailed`: a redirect strategy threw something that is not a failout decision, or returned
 *   something that is not a cluster name.
 * - `lookupFailed`: the service's cluster or its failout config could not be told in time.
 * - `closed`: the component was used after `close()`.
 */
export type FailoutErrorKind = 'malformedConfig' | 'noEligiblePeer' | 'strategyFailed' | 'lookupFailed' | 'closed';

/** Optional details of a {@link FailoutError}. */
export interface FailoutErrorOptions {
  /** The error that led to this one. */
  readonly cause?: unknown;
  /** The cluster the error is about. */
  readonly cluster?: string;
  /**
   * For `malformedConfig`: path of the offending field inside `failoutProperties`, dotted for keys and
   * `[i]` for list items, e.g. `failoutRedirectConfigs[1].weight`.
   */
  readonly field?: string;
}

/** The one error class of `lib/failout`. */
export class FailoutError extends Error {
  /** Always `'FailoutError'`. */
  override readonly name = 'FailoutError';
  /** What went wrong; see {@link FailoutErrorKind}. */
  readonly kind: FailoutErrorKind;
  /** The cluster concerned, when known. */
  readonly cluster: string | undefined;
  /** For `malformedConfig`: the offending field (see {@link FailoutErrorOptions.field}). */
  readonly field: string | undefined;

  constructor(kind: FailoutErrorKind, message: string, options: FailoutErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.kind = kind;
    this.cluster = options.cluster;
    this.field = options.field;
  }
}

/** True when `e` is a {@link FailoutError}, optionally of the given kind. */
export function isFailoutError(e: unknown, kind?: FailoutErrorKind): e is FailoutError {
  return e instanceof FailoutError && (kind === undefined || e.kind === kind);
}

/**
 * Narrows a caught value to `Error`; anything else (a thrown string, say) is re-thrown untouched.
 * Use it first thing in every `catch`.
 */
export function assertIsError(e: unknown): asserts e is Error {
  if (!(e instanceof Error)) {
    throw e;
  }
}
