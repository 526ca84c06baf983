/**
 * The console's access rules, in one place:
 * - Loopback by default; any other listen address needs an access token (at least 32 characters).
 *   With a token, every path but `/login` needs the session cookie (set by `/login?token=…`, HttpOnly,
 *   SameSite=Strict) or `Authorization: Bearer <token>`. The token is kept only as its SHA-256 digest
 *   and compared in constant time; it is never logged or echoed.
 * - Every action (POST) must be same-origin: a CSRF token (random per server, in the page's
 *   `<meta name="csrf-token">`) in the `x-csrf-token` header, an `Origin` (when the browser sends one)
 *   equal to the console's own, `Sec-Fetch-Site` (when sent) `same-origin`, and a JSON body — which
 *   no cross-site form can produce without a CORS preflight the console never answers.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Shortest access token accepted (as the bridge's admin token). */
export const MIN_TOKEN_LENGTH = 32;
/** Name of the access cookie. */
export const ACCESS_COOKIE = 'failout_console';

/** True for the loopback addresses the console may listen on without a token. */
export function isLoopback(host: string): boolean {
  return host === '127.0.0.1' || host === '::1' || host === 'localhost' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/**
 * Refuses a listen address that is not loopback without a token, and a short token.
 * @returns a problem to report, or undefined.
 */
export function listenProblem(host: string, token: string | undefined): string | undefined {
  if (token !== undefined && token.length < MIN_TOKEN_LENGTH) return `the console's access token must be at least ${MIN_TOKEN_LENGTH} characters (make one with: openssl rand -hex 24)`;
  if (!isLoopback(host) && token === undefined) return `listening on ${host} (not loopback) needs an access token (--token or FAILOUT_CONSOLE_TOKEN); or keep the loopback default and use an ssh tunnel`;
  return undefined;
}

/** SHA-256 of a secret, for constant-time comparison without keeping the secret. */
export function digest(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

/** Constant-time: does `given` match the secret whose digest is `expected`? */
export function matches(given: string | undefined, expected: Buffer): boolean {
  if (given === undefined || given === '') return false;
  return timingSafeEqual(digest(given), expected);
}

/** A fresh CSRF token (base64url, 32 random bytes). */
export function newCsrfToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The value of one cookie in a `Cookie` header. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

/** The headers of a request that the checks read. */
export interface RequestHeaders {
  readonly host?: string | undefined;
  readonly origin?: string | undefined;
  readonly 'sec-fetch-site'?: string | undefined;
  readonly 'x-csrf-token'?: string | undefined;
  readonly 'content-type'?: string | undefined;
  readonly cookie?: string | undefined;
  readonly authorization?: string | undefined;
}

/** Why an action was refused (the page shows the message; 403). */
export type CsrfRefusal = 'missingToken' | 'wrongToken' | 'crossOrigin' | 'notJson';

/**
 * Checks an action request: same origin and the CSRF token. Returns undefined when it may proceed.
 * `Origin` must name the host the request was sent to (`Host`), over http(s).
 */
export function csrfRefusal(headers: RequestHeaders, csrfDigest: Buffer): CsrfRefusal | undefined {
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') return 'crossOrigin';
  if (headers.origin !== undefined) {
    let originHost: string | undefined;
    try {
      const url = new URL(headers.origin);
      originHost = url.protocol === 'http:' || url.protocol === 'https:' ? url.host : undefined;
    } catch {
      originHost = undefined;
    }
    if (originHost === undefined || headers.host === undefined || originHost !== headers.host) return 'crossOrigin';
  }
  if (!(headers['content-type'] ?? '').toLowerCase().startsWith('application/json')) return 'notJson';
  const token = headers['x-csrf-token'];
  if (token === undefined || token === '') return 'missingToken';
  return matches(token, csrfDigest) ? undefined : 'wrongToken';
}

/** True when a request carries the access token (cookie or bearer); always true without a token. */
export function hasAccess(headers: RequestHeaders, tokenDigest: Buffer | undefined): boolean {
  if (tokenDigest === undefined) return true;
  const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
  return matches(bearer, tokenDigest) || matches(cookieValue(headers.cookie, ACCESS_COOKIE), tokenDigest);
}
