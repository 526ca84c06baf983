/**
 * Errors of the `failout` CLI, by what the operator should do about them. Each maps to an exit code:
 * `usage` → 2 (fix the command line or the environment), `rejected` → 1 (the request was refused:
 * change it), `unavailable` → 1 (ZooKeeper or SQS could not be reached or did not answer in time).
 */
export type CliErrorKind = 'usage' | 'rejected' | 'unavailable';

/** Exit codes of the CLI (architecture: "The failout CLI"). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/** An error the CLI reports as one message (its `message` says what to do) and an exit code. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    readonly kind: CliErrorKind,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
  }

  /** The process exit code for this error. */
  get exitCode(): number {
    return this.kind === 'usage' ? EXIT.usage : EXIT.failed;
  }
}

/** A usage error: a bad flag value, a missing required setting. */
export function usageError(message: string): CliError {
  return new CliError('usage', message);
}

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else. */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}
