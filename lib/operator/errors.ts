/**
 * Errors of the operator's request path, by what the operator should do about them:
 * - `input`: a value is wrong or missing (the command line, a form field, the environment); `field`
 *   names it when one field is at fault, so each client can point at it its own way;
 * - `rejected`: the request was refused (change it);
 * - `unavailable`: ZooKeeper or SQS could not be reached or did not answer in time.
 * The CLI turns them into exit codes (2 for `input`, 1 otherwise); the console into field marks.
 */
export type OperatorErrorKind = 'input' | 'rejected' | 'unavailable';

/** One error of the operator path: its `message` says what to do. */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
  /** The input field at fault (`peers`, `for`, `until`, …), for `input` errors about one field. */
  readonly field: string | undefined;

  constructor(
    readonly kind: OperatorErrorKind,
    message: string,
    options: { readonly cause?: unknown; readonly field?: string | undefined } = {},
  ) {
    super(message, options.cause === undefined ? {} : { cause: options.cause });
    this.field = options.field;
  }
}

/** An `input` error: a bad value, a missing required setting. */
export function inputError(message: string, field?: string): OperatorError {
  return new OperatorError('input', message, { field });
}

/** Whether `err` is an {@link OperatorError}, optionally of one kind. */
export function isOperatorError(err: unknown, kind?: OperatorErrorKind): err is OperatorError {
  return err instanceof OperatorError && (kind === undefined || err.kind === kind);
}

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else. */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}

/** The environment variables the operator path reads (process.env, or a test's own). */
export type OperatorEnv = Readonly<Record<string, string | undefined>>;
