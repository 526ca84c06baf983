/**
 * Who may reach the admin endpoints (issue 14), as one rule set that the configuration parser and the
 * admin server both apply, so the two cannot drift. Pure: no HTTP server here, so `lib/bridge/contract`
 * (which the CDK app loads at synth) can use it.
 *
 * - Loopback needs no token: only processes on the same host (or in the same task) can connect.
 * - Any other address needs a bearer token, which every HTTP path but `/healthz` and every call on
 *   the gRPC admin port (CSDS) then ask for. Binding 0.0.0.0 or a private address without one would
 *   hand `/status`, `/config_dump` and CSDS (the whole xDS view) to anything the network lets in, so it
 *   is refused rather than warned about.
 * - The token is checked the same way on both ports ({@link bearerMatches}): kept only as its SHA-256
 *   digest, compared in constant time, never logged or echoed.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
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

/** The SHA-256 digest a token is kept as ({@link bearerMatches} compares against it). */
export function adminTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * True when `header` (an HTTP `Authorization` header or gRPC `authorization` metadata) is
 * `Bearer <token>` (scheme in any case, RFC 7235 §2.1) and the token's digest is `expected`. Both
 * sides are hashed first, so `timingSafeEqual` compares equal lengths and the time taken says nothing
 * about the length or a matching prefix.
 */
export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(adminTokenDigest(match[1]!), expected);
}
