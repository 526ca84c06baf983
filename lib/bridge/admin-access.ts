/**
 * Who may reach the admin endpoints (issue 14), as one rule set that the configuration parser and the
 * admin server both apply, so the two cannot drift. Pure: no HTTP server here, so `lib/bridge/contract`
 * (which the CDK app loads at synth) can use it.
 *
 * - Loopback needs no token: only processes on the same host (or in the same task) can connect.
 * - Any other address needs a bearer token, which every path but `/healthz` then asks for. Binding
 *   0.0.0.0 or a private address without one would hand `/status` and `/config_dump` (the whole xDS
 *   view) to anything the network lets in, so it is refused rather than warned about.
 */
import { isIP } from 'node:net';
import { BridgeError } from './errors';

/** The shortest bearer token accepted: 32 characters, about 190 bits from the generated alphabet. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback: addresses nothing off the host can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * Checks a configured token's strength. Never puts the token into the message.
 * @throws BridgeError `config` on field `admin.token`.
 */
export function assertAdminToken(token: string | undefined): void {
  if (token !== undefined && token.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new BridgeError('config', `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (got ${token.length})`, { field: 'admin.token' });
  }
}

/**
 * Checks that the admin server may bind `host` with `token`: a strong enough token, and one at all
 * unless the host is loopback.
 * @throws BridgeError `config` on field `admin.token`.
 */
export function assertAdminAccess(admin: { readonly host: string; readonly token?: string | undefined }): void {
  assertAdminToken(admin.token);
  if (admin.token === undefined && !isLoopbackHost(admin.host)) {
    throw new BridgeError('config', `binding ${admin.host} (not loopback) needs a bearer token (BRIDGE_ADMIN_TOKEN)`, { field: 'admin.token' });
  }
}
