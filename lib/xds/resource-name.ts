/**
 * Resource names as the cache keys them (gRFC A47 "Resource Cache", xRFC TP1 "Normalization"): a
 * new-style `xdstp:` name's context parameters are sorted by key, and a key given twice keeps its last
 * value, so that `…/c?b=2&a=1` and `…/c?a=1&b=2` are one resource. Old-style names are kept as they are.
 *
 * The client subscribes the normalized name and normalizes the names in responses before matching them.
 */

/** The normalized form of `name` (see the module comment). */
export function canonicalResourceName(name: string): string {
  if (!name.startsWith('xdstp:')) return name;
  const at = name.indexOf('?');
  if (at < 0) return name;
  const params = new Map<string, string>();
  for (const pair of name.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const key = eq < 0 ? pair : pair.slice(0, eq);
    params.delete(key); // the last value wins, and takes the key's place
    params.set(key, eq < 0 ? '' : pair.slice(eq + 1));
  }
  const query = [...params.keys()]
    .sort()
    .map((key) => `${key}=${params.get(key) ?? ''}`)
    .join('&');
  return query === '' ? name.slice(0, at) : `${name.slice(0, at)}?${query}`;
}
