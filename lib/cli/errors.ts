import { OperatorError } from '../operator';

/** Exit codes of the CLI (architecture: "The failout CLI"). */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;

/**
 * The process exit code for an operator error: `input` → 2 (fix the command line or the
 * environment), `rejected` and `unavailable` → 1.
 */
export function exitCodeOf(error: OperatorError): number {
  return error.kind === 'input' ? EXIT.usage : EXIT.failed;
}
