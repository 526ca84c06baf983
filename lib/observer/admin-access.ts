/**
 * Who may reach the observer's admin HTTP (issue 14): the rules of `lib/admin-http`, the same as the
 * bridge's (loopback without a token, otherwise a bearer token of at least 32 characters, which every
 * path but `/healthz` then asks for, kept as its SHA-256 digest and compared in constant time), reported
 * as the observer's own error so the configuration parser and the admin server refuse alike.
 */
import { adminAccessProblem } from '../admin-http';
import { ObserverError } from './errors';

/** The environment variable that sets the observer's admin token, named when a binding is refused. */
export const OBSERVER_ADMIN_TOKEN_VARIABLE = 'OBSERVER_ADMIN_TOKEN';

/** A refused admin setting as the observer reports it: `config` on field `admin.token`. */
export function adminAccessError(problem: string): ObserverError {
  return new ObserverError('config', problem, { field: 'admin.token' });
}

/**
 * Checks that the admin server may bind `host` with `token`.
 * @throws ObserverError `config` on field `admin.token`.
 */
export function assertAdminAccess(admin: { readonly host: string; readonly token?: string | undefined }): void {
  const problem = adminAccessProblem(admin, OBSERVER_ADMIN_TOKEN_VARIABLE);
  if (problem !== undefined) throw adminAccessError(problem);
}
