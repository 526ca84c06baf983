/**
 * Which strings `java.net.URI.create` accepts, and the scheme it sees.
 *
 * rest.li passes cluster `bannedUris` and every URI key of a URI document through `URI.create`, and an
 * exception there fails the whole read. This is a port of the checks in `java.net.URI.Parser` (RFC 2396
 * with Java's deviations: empty authority before a path, `[` `]` in reserved characters, visible
 * non-ASCII characters allowed where escapes are). It only validates; it never normalises.
 * Known simplification: an IPv6 literal is checked with Node's `isIPv6`, not Java's own parser.
 */

import { isIPv6 } from 'node:net';

const ALPHA = 'A-Za-z';
const DIGIT = '0-9';
const MARK = "\\-_.!~*'()";
const UNRESERVED = ALPHA + DIGIT + MARK;
/** RFC 2396 reserved characters plus `[` and `]`, as `java.net.URI` has them. */
const RESERVED = ';/?:@&=+$,\\[\\]';

const SCHEME = new RegExp(`^[${ALPHA}][${ALPHA}${DIGIT}+\\-.]*$`);
/** Characters (besides escapes) allowed in each component. */
const URIC = charClass(RESERVED + UNRESERVED);
const PATH = charClass(`${UNRESERVED}:@&=+$,;/`);
const REG_NAME = charClass(`${UNRESERVED}$,;:@&=+`);
const SERVER = new RegExp(`^(?:[${UNRESERVED};:&=+$,%]*@)?\\[([^\\]]*)\\](?::[${DIGIT}]*)?$`);

/**
 * A component is valid when each character is in `allowed`, is a `%XX` escape, or is a visible
 * non-ASCII character (neither a space separator nor an ISO control).
 */
function charClass(allowed: string): RegExp {
  return new RegExp(`^(?:[${allowed}]|%[0-9A-Fa-f]{2}|[^\\u0000-\\u0080\\p{Zs}\\p{Zl}\\p{Zp}\\u0080-\\u009f])*$`, 'u');
}

/** True when Java's `URI.create(uri)` would succeed. */
export function isJavaUri(uri: string): boolean {
  let rest = uri;
  const fragmentAt = rest.indexOf('#');
  if (fragmentAt >= 0) {
    if (!URIC.test(rest.slice(fragmentAt + 1))) {
      return false;
    }
    rest = rest.slice(0, fragmentAt);
  }
  const scheme = schemeOf(uri);
  if (scheme === undefined) {
    return false;
  }
  if (scheme === null) {
    return isHierarchical(rest);
  }
  const specific = rest.slice(scheme.length + 1);
  if (specific.startsWith('/')) {
    return isHierarchical(specific);
  }
  // An opaque URI such as "mailto:a@b" needs a non-empty scheme-specific part.
  return specific.length > 0 && URIC.test(specific);
}

/**
 * The scheme Java's `URI.getScheme()` returns, case preserved (`http` for `http://h:1/x`), or `null` for a
 * relative URI. Returns `null` as well for strings that are not valid URIs.
 */
export function javaUriScheme(uri: string): string | null {
  return isJavaUri(uri) ? (schemeOf(uri) ?? null) : null;
}

/** The text before the first `:` that precedes any `/`, `?`, `#`; null if none; undefined if invalid. */
function schemeOf(uri: string): string | null | undefined {
  const match = /^[^/?#:]*:/.exec(uri);
  if (match === null) {
    return null;
  }
  const scheme = match[0].slice(0, -1);
  return SCHEME.test(scheme) ? scheme : undefined;
}

/** `[//authority]path[?query]`, without the fragment. */
function isHierarchical(text: string): boolean {
  let rest = text;
  if (rest.startsWith('//')) {
    const end = rest.slice(2).search(/[/?#]/);
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end + 2);
    rest = end < 0 ? '' : rest.slice(end + 2);
    // Java allows an empty authority only when a path or query follows ("file:///x", not "http://").
    if (authority === '' ? rest === '' : !isAuthority(authority)) {
      return false;
    }
  }
  const queryAt = rest.indexOf('?');
  const path = queryAt < 0 ? rest : rest.slice(0, queryAt);
  return PATH.test(path) && (queryAt < 0 || URIC.test(rest.slice(queryAt + 1)));
}

/** Registry-based (any reg_name characters) or server-based with an IPv6 literal. */
function isAuthority(authority: string): boolean {
  if (REG_NAME.test(authority)) {
    return true;
  }
  const server = SERVER.exec(authority);
  if (server === null) {
    return false;
  }
  const zoneAt = server[1].indexOf('%');
  return isIPv6(zoneAt < 0 ? server[1] : server[1].slice(0, zoneAt));
}
