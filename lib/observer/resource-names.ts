/**
 * Which znodes a subscribed resource name stands for. Names are the ZooKeeper paths themselves
 * (rest.li `XdsToD2PropertiesAdaptor`): `<base>/services/<s>` and `<base>/clusters/<c>` as
 * `indis.D2Node`, `<base>/clusters/$<name>` and `<base>/uris/$<name>` (a name starting with `$`, rest.li
 * `SymlinkUtil`) as `indis.D2SymlinkNode`, `<base>/uris/<c>` as
 * `indis.D2URIMap`. Anything else (another type, a path outside the base, a deeper path) is no
 * resource the observer serves: it is never watched and reads as absent, so a client sees
 * does-not-exist instead of the observer following arbitrary paths for it.
 */
import { D2_DIRECTORIES, isSymlinkName } from '../d2/data';
import { indis } from '../xds';

/** The `indis` type URLs the observer serves. */
export type ObservedTypeUrl = typeof indis.D2_NODE_TYPE_URL | typeof indis.D2_URI_MAP_TYPE_URL | typeof indis.D2_SYMLINK_NODE_TYPE_URL;

/** The type URLs the observer serves, in a set for lookups. */
export const OBSERVED_TYPE_URLS: ReadonlySet<string> = new Set<string>([indis.D2_NODE_TYPE_URL, indis.D2_URI_MAP_TYPE_URL, indis.D2_SYMLINK_NODE_TYPE_URL]);

/** True when the observer serves resources of `typeUrl`. */
export function isObservedTypeUrl(typeUrl: string): typeUrl is ObservedTypeUrl {
  return OBSERVED_TYPE_URLS.has(typeUrl);
}

/**
 * What one subscribed resource stands for in ZooKeeper:
 * - `service` / `cluster`: a D2 node's data (validated as that document);
 * - `symlink`: a `$` node's data (the target path);
 * - `uriMap`: a cluster's URI directory, its children and each child's data;
 * - `none`: nothing the observer serves (always absent).
 */
export type ResourceTarget = NodeTarget | { readonly kind: 'uriMap'; readonly path: string } | { readonly kind: 'none' };

/** A target read from one node's data. */
export interface NodeTarget {
  readonly kind: 'service' | 'cluster' | 'symlink';
  readonly path: string;
}

/** The cache key of one resource: its type URL and name. */
export function resourceKey(typeUrl: string, name: string): string {
  return `${typeUrl} ${name}`;
}

/** Reads the target of `(typeUrl, name)` under `basePath` (default `/d2`). Pure. */
export function targetOf(typeUrl: string, name: string, basePath: string): ResourceTarget {
  const prefix = `${basePath}/`;
  if (!name.startsWith(prefix)) return { kind: 'none' };
  const parts = name.slice(prefix.length).split('/');
  if (parts.length !== 2 || parts[1] === '' || parts[1] === '.' || parts[1] === '..') return { kind: 'none' };
  const [dir, node] = parts as [string, string];
  const symlink = isSymlinkName(node);
  if (typeUrl === indis.D2_NODE_TYPE_URL && !symlink) {
    if (dir === D2_DIRECTORIES.services) return { kind: 'service', path: name };
    if (dir === D2_DIRECTORIES.clusters) return { kind: 'cluster', path: name };
  }
  if (typeUrl === indis.D2_SYMLINK_NODE_TYPE_URL && symlink && (dir === D2_DIRECTORIES.clusters || dir === D2_DIRECTORIES.uris)) return { kind: 'symlink', path: name };
  if (typeUrl === indis.D2_URI_MAP_TYPE_URL && !symlink && dir === D2_DIRECTORIES.uris) return { kind: 'uriMap', path: name };
  return { kind: 'none' };
}
