/**
 * Who may reach an admin endpoint (issue 14), as one rule set for every admin port of failout (the
 * bridge's HTTP and gRPC admin ports, the observer's admin HTTP) and for the configuration parsers that
 * check the same settings, so none of them can drift:
 *
 * - Loopback needs no token: only processes on the same host (or in the same task) can connect.
 * - Any other address needs a bearer token, which every HTTP path but `/healthz` and every call on a
 *   gRPC admin port then ask for. Binding 0.0.0.0 or a private address without one would hand the
 *   whole view to anything the network lets in, so it is refused rather than warned about.
 * - The token is checked the same way everywhere ({@link bearerMatches}): kept only as its SHA-256
 *   digest, compared in constant time, never logged or echoed.
 *
 * Pure: no server here. The checks return the problem as text instead of throwing, because the error
 * is the caller's own (`BridgeError`, `ObserverError`: `config` on field `admin.token`).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';

/** The shortest bearer token accepted: 32 characters, about 190 bits from the generated alphabet. */
export const ADMIN_TOKEN_MIN_LENGTH = 32;

/** True for `localhost`, 127.0.0.0/8, `::1` and IPv4-mapped loopback: addresses nothing off the host can reach. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (h === 'localhost' || h === '::1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  return isIP(v4) === 4 && v4.startsWith('127.');
}

/** What is wrong with a configured token's strength, or undefined. Never puts the token into the text. */
export function adminTokenProblem(token: string | undefined): string | undefined {
  return token !== undefined && token.length < ADMIN_TOKEN_MIN_LENGTH ? `must be at least ${ADMIN_TOKEN_MIN_LENGTH} characters (got ${token.length})` : undefined;
}

/**
 * Why an admin server may not bind `host` with `token`, or undefined when it may: a strong enough
 * token, and one at all unless the host is loopback.
 * @param tokenVariable the environment variable that sets the caller's token (`BRIDGE_ADMIN_TOKEN`),
 * named in the text so an operator knows what to set.
 */
export function adminAccessProblem(admin: { readonly host: string; readonly token?: string | undefined }, tokenVariable: string): string | undefined {
  const weak = adminTokenProblem(admin.token);
  if (weak !== undefined) return weak;
  return admin.token === undefined && !isLoopbackHost(admin.host) ? `binding ${admin.host} (not loopback) needs a bearer token (${tokenVariable})` : undefined;
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
