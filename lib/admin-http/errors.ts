/**
 * lib/admin-http throws no errors of its own: a refused binding is reported as the caller's error (see
 * `AdminHttpOptions.refuse`), and a failing endpoint answers 500. What is left is the `catch` helper.
 */
import { types } from 'node:util';

/** Narrows `unknown` from a `catch` to `Error`, wrapping anything else (cross-realm safe). */
export function assertIsError(error: unknown): asserts error is Error {
  if (!(error instanceof Error) && !types.isNativeError(error)) throw new Error(`non-Error thrown: ${String(error)}`, { cause: error });
}
