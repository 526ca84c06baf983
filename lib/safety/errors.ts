/**
 * Errors raised by lib/safety (house rule 6). Branch on `kind` (or `isSafetyError(e, kind)`), never on
 * the message. One class with a `kind` union, as lib/xds (`XdsError`) and lib/requests do.
 *
 * Public names (stable; only ever ADD kinds, never rename):
 * - `SafetyErrorKind` — literal union of kinds.
 * - `SafetyError` — the one error class (`kind`, `name`, `cause`, optional `clusters`).
 * - `SafetyErrorOptions` — constructor options.
 * - `isSafetyError(e, ...kinds)` — type guard.
 *
 * The states of the alarms a drill or a request names are read through lib/alarms, whose
 * `AlarmStatesError` (re-exported by lib/safety's face) stays that module's error.
 */

/** What went wrong, as a caller branches on it. */
export type SafetyErrorKind =
  /** An event is not a CloudWatch alarm state change event (`parseAlarmEvent`): a retry would not read it better. */
  | 'malformedEvent'
  /** The guard's or the drill runner's environment configuration is missing or malformed; the message names every offending variable. */
  | 'invalidConfig'
  /** The guard handled an ALARM but could not send some restores (`clusters`): the event is retried, with the same request ids. */
  | 'restoreNotSent';

/** Optional context carried by a {@link SafetyError}. */
export interface SafetyErrorOptions {
  /** For `restoreNotSent`: the clusters whose restore was not sent. */
  readonly clusters?: readonly string[];
  /** The underlying error. */
  readonly cause?: unknown;
}

/** Every error lib/safety throws or reports. */
export class SafetyError extends Error {
  /** Always 'SafetyError'. */
  override readonly name = 'SafetyError';
  /** For `restoreNotSent`: the clusters whose restore was not sent. */
  readonly clusters: readonly string[] | undefined;

  constructor(
    /** What went wrong; branch on this, never on the message. */
    readonly kind: SafetyErrorKind,
    message: string,
    options: SafetyErrorOptions = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.clusters = options.clusters;
  }
}

/** True for a {@link SafetyError} of one of the given kinds (any kind when none is given). */
export function isSafetyError(error: unknown, ...kinds: SafetyErrorKind[]): error is SafetyError {
  return error instanceof SafetyError && (kinds.length === 0 || kinds.includes(error.kind));
}
