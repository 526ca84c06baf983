/**
 * Who may reach the observer's admin HTTP, by the bridge's rules (lib/bridge/admin-access.ts,
 * issue 14): loopback needs no token; any other address needs a bearer token of at least 32
 * characters, which every path but `/healthz` then asks for; the token is kept only as its SHA-256
 * digest and compared in constant time, never logged or echoed.
 *
 * A copy of the bridge's rules, not an import: the bridge's are not on its face, their errors are
 * the bridge's, and a wing must not import another wing (STYLE "arrows point down"). Both belong in
 * one module below the two; until then, keep them the same.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { ObserverError } from './errors';

/** The shortest bearer token accepted. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/**
 * Checks that the admin server may bind `host` with `token`.
 * @throws ObserverError `config` on field `admin.token`.
 */
export function assertAdminAccess(admin: { readonly host: string; readonly token?: string | undefined }): void {
  if (admin.token !== undefined && admin.token.length < ADMIN_TOKEN_MIN_LENGTH) {
    throw new ObserverError('config', `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (got ${admin.token.length})`, { field: 'admin.token' });
  }
  if (admin.token === undefined && !isLoopbackHost(admin.host)) {
    throw new ObserverError('config', `binding ${admin.host} (not loopback) needs a bearer token (OBSERVER_ADMIN_TOKEN)`, { field: 'admin.token' });
  }
}

/** The SHA-256 digest a token is kept as. */
export function adminTokenDigest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** True when `header` is `Bearer <token>` and the token's digest is `expected` (constant time). */
export function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = /^bearer +(\S+) *$/i.exec(header ?? '');
  return match !== null && timingSafeEqual(adminTokenDigest(match[1]!), expected);
}
