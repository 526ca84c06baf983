/**
 * Which znodes a subscribed resource name stands for. Names are the ZooKeeper paths themselves
 * (rest.li `XdsToD2PropertiesAdaptor`): `<base>/services/<s>` and `<base>/clusters/<c>` as
 * `indis.D2Node`, `<base>/clusters/$<name>` and `<base>/uris/$<name>` (a name starting with `$`, rest.li
 * `SymlinkUtil`) as `indis.D2SymlinkNode`, `<base>/uris/<c>` as
 * `indis.D2URIMap`. Anything else (another type, a path outside the base, a deeper path, a node name
 * ZooKeeper cannot hold or longer than {@link MAX_NODE_NAME_LENGTH}) is no resource the observer
 * serves: it is never watched and reads as absent, so a client sees does-not-exist instead of the
 * observer following arbitrary paths for it.
 *
 * Why names are checked before ZooKeeper sees them: ADS is open to every client, and one name is
 * enough to hurt every other one. ZooKeeper fails the read of a path with a NUL for good, and a
 * pending resource holds back the stream's whole response of its type; a path past ZooKeeper's packet
 * limit (1 MiB, `jute.maxbuffer`) makes the server drop the observer's connection, again on every
 * reconnect, so the whole view would stall.
 */
import { D2_DIRECTORIES, isSymlinkName, znodeNameProblem } from '../d2/data';
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

/**
 * The longest node name (the part after `<base>/<directory>/`) the observer reads, in characters: eight
 * times the longest cluster name a change request may carry, far below ZooKeeper's packet limit.
 */
export const MAX_NODE_NAME_LENGTH = 1024;

/** The cache key of one resource: its type URL and name. */
export function resourceKey(typeUrl: string, name: string): string {
  return `${typeUrl} ${name}`;
}

/** Reads the target of `(typeUrl, name)` under `basePath` (default `/d2`). Pure. */
export function targetOf(typeUrl: string, name: string, basePath: string): ResourceTarget {
  const prefix = `${basePath}/`;
  if (!name.startsWith(prefix)) return { kind: 'none' };
  const parts = name.slice(prefix.length).split('/');
  if (parts.length !== 2) return { kind: 'none' };
  const [dir, node] = parts as [string, string];
  if (node.length > MAX_NODE_NAME_LENGTH || znodeNameProblem(node) !== undefined) return { kind: 'none' };
  const symlink = isSymlinkName(node);
  if (typeUrl === indis.D2_NODE_TYPE_URL && !symlink) {
    if (dir === D2_DIRECTORIES.services) return { kind: 'service', path: name };
    if (dir === D2_DIRECTORIES.clusters) return { kind: 'cluster', path: name };
  }
  if (typeUrl === indis.D2_SYMLINK_NODE_TYPE_URL && symlink && (dir === D2_DIRECTORIES.clusters || dir === D2_DIRECTORIES.uris)) return { kind: 'symlink', path: name };
  if (typeUrl === indis.D2_URI_MAP_TYPE_URL && !symlink && dir === D2_DIRECTORIES.uris) return { kind: 'uriMap', path: name };
  return { kind: 'none' };
}
