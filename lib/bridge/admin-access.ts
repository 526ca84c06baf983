/**
 * Who may reach the bridge's admin endpoints (issue 14): the rules of `lib/admin-http` (loopback
 * without a token, otherwise a bearer token of at least 32 characters, kept as its SHA-256 digest and
 * compared in constant time), reported as the bridge's own error, so the configuration parser and both
 * admin ports (HTTP and gRPC/CSDS) refuse alike. Pure: no server here, so `lib/bridge/contract` (which
 * the CDK app loads at synth) can use it.
 */
import { adminAccessProblem, adminTokenProblem } from '../admin-http';
import { BridgeError } from './errors';

/** The environment variable that sets the bridge's admin token, named when a binding is refused. */
export const BRIDGE_ADMIN_TOKEN_VARIABLE = 'BRIDGE_ADMIN_TOKEN';

/** A refused admin setting as the bridge reports it: `config` on field `admin.token`. */
export function adminAccessError(problem: string): BridgeError {
  return new BridgeError('config', problem, { field: 'admin.token' });
}

/**
 * Checks a configured token's strength. Never puts the token into the message.
 * @throws BridgeError `config` on field `admin.token`.
 */
export function assertAdminToken(token: string | undefined): void {
  const problem = adminTokenProblem(token);
  if (problem !== undefined) throw adminAccessError(problem);
}

/**
 * Checks that an admin server may bind `host` with `token`: a strong enough token, and one at all
 * unless the host is loopback.
 * @throws BridgeError `config` on field `admin.token`.
 */
export function assertAdminAccess(admin: { readonly host: string; readonly token?: string | undefined }): void {
  const problem = adminAccessProblem(admin, BRIDGE_ADMIN_TOKEN_VARIABLE);
  if (problem !== undefined) throw adminAccessError(problem);
}
