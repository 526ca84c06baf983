/**
 * Typed errors of lib/alarms (house rule 6): branch on `kind` or `instanceof`, never on the message.
 */

/**
 * Why a source gave no answer:
 * - `alarmStatesUnavailable`: the source could not be reached or refused the call (network, HTTP
 *   status, CloudWatch error, timeout);
 * - `alarmStatesMalformed`: it answered, but not in the contract's shape.
 */
export type AlarmStatesErrorKind = 'alarmStatesUnavailable' | 'alarmStatesMalformed';

/**
 * The source could not be read: the caller decides nothing on it (a drill waits for the next tick;
 * the request worker applies the request and records that its alarms were not checked).
 */
export class AlarmStatesError extends Error {
  override readonly name = 'AlarmStatesError';

  constructor(
    message: string,
    options: { readonly cause?: unknown } = {},
    /** What went wrong; branch on this. */
    readonly kind: AlarmStatesErrorKind = 'alarmStatesUnavailable',
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** Access key ids (`AKIA…`, `ASIA…`) an SDK error might quote: never in a message that is printed or logged. */
const ACCESS_KEY_ID = /\b(?:AKIA|ASIA|AIDA|AROA)[A-Z0-9]{12,}\b/g;

/** The message of anything thrown, for an error that wraps it, without anything that looks like an access key id. */
export function messageOf(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(ACCESS_KEY_ID, '<access key id>');
}
