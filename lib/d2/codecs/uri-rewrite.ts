/**
 * Turning `d2://<service>/<rest>` into the URL of a chosen host (rest.li `D2URIRewriter`, the
 * `skipReEncoding` variant that joins raw components, which `TestD2URIRewriter` shows gives the same
 * result as the builder variant).
 */

/** RFC 3986 appendix B: splits any string into its five components; never fails. */
const URI_PARTS = /^(?:([^:/?#]+):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/s;

interface UriParts {
  scheme: string | undefined;
  authority: string | undefined;
  path: string;
  query: string | undefined;
  fragment: string | undefined;
}

function split(uri: string): UriParts {
  const m = URI_PARTS.exec(uri) ?? [];
  return { scheme: m[1], authority: m[2], path: m[3] ?? '', query: m[4], fragment: m[5] };
}

/**
 * Builds the request URL for a host: the base is `hostUri + servicePath` joined as plain strings
 * (`SimpleLoadBalancer`), then the d2 URI's raw path is appended with exactly one `/` at the seam, and its
 * query and fragment replace the base's. Nothing is re-encoded.
 * @param hostUri - the announced URI, e.g. `http://localhost:39901`.
 * @param servicePath - the service's `path`, e.g. `/articleRecommendation`.
 * @param d2Uri - the request, e.g. `d2://articleRecommendation/x?q=1`; its authority (the service name)
 * and scheme are not checked here.
 * @example rewriteD2Uri('http://www.linkedin.com:1234', '/test', 'd2://serviceName/request/query?q=5678')
 * // → 'http://www.linkedin.com:1234/test/request/query?q=5678'
 */
export function rewriteD2Uri(hostUri: string, servicePath: string, d2Uri: string): string {
  const base = split(hostUri + servicePath);
  const d2 = split(d2Uri);
  let out = '';
  if (base.scheme !== undefined) {
    out += `${base.scheme}://`;
  }
  out += (base.authority ?? '') + base.path;
  const append = d2.path;
  if (append !== '') {
    const baseEndsWithSlash = base.path.endsWith('/');
    const appendStartsWithSlash = append.startsWith('/');
    if (baseEndsWithSlash && appendStartsWithSlash) {
      out += append.slice(1);
    } else if (!baseEndsWithSlash && !appendStartsWithSlash && out.length > 0) {
      out += `/${append}`;
    } else {
      out += append;
    }
  }
  if (d2.query !== undefined) {
    out += `?${d2.query}`;
  }
  if (d2.fragment !== undefined) {
    out += `#${d2.fragment}`;
  }
  return out;
}
