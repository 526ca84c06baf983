/**
 * D2 symlinks (rest.li `SymlinkAwareZooKeeper`, `D2Utils.getSymlinkNameForMaster`): a node whose name
 * starts with `$` (e.g. `/d2/clusters/$FooClusterMaster`) holds, as UTF-8 data, the path of the node
 * it stands for (`/d2/clusters/FooCluster-prod-ltx1`). The cluster and URI directories each hold their
 * own link (`/d2/uris/$FooClusterMaster` → `/d2/uris/FooCluster-prod-ltx1`). Over xDS the same node
 * is an `indis.D2SymlinkNode` whose `masterClusterNodePath` is that path.
 *
 * The resolution rule, pure (the watching is `symlink-source.ts`): follow links from a `$` name until
 * a plain name, each link read from its own node, at most {@link MAX_SYMLINK_HOPS} links; a link met
 * twice is a cycle. A link must point at a node of its own directory (a link from the cluster
 * directory into the URI one, or deeper, would hand one kind of document to the reader of another).
 */

/** Most links one name may go through (rest.li sets none; a chain longer than this is a mistake, like a cycle). */
export const MAX_SYMLINK_HOPS = 8;

/** True when `name` (one path component) is a symlink: it starts with `$` (rest.li `SymlinkUtil`). */
export function isSymlinkName(name: string): boolean {
  return name.startsWith('$');
}

/** What one link's node says, as its watch last read it. */
export type LinkState =
  /** Not read yet. */
  | { readonly kind: 'loading' }
  /** The link node does not exist. */
  | { readonly kind: 'absent' }
  /** It points at `path` (its data, or `masterClusterNodePath`); `version` is its mzxid. */
  | { readonly kind: 'target'; readonly path: string; readonly version: bigint }
  /** Its data could not be read as a path (an xDS NACK of the link, for one). */
  | { readonly kind: 'invalid'; readonly error: Error };

/** Where following a name's links ends. */
export type Resolution =
  /** At the plain name `name` of the same directory. */
  | { readonly kind: 'resolved'; readonly name: string; readonly links: readonly string[] }
  /** A link is not read yet. */
  | { readonly kind: 'loading'; readonly links: readonly string[] }
  /** A link node does not exist: the name does not exist. */
  | { readonly kind: 'absent'; readonly links: readonly string[] }
  /** A cycle, a chain over {@link MAX_SYMLINK_HOPS}, or a link that does not point into its directory. */
  | { readonly kind: 'broken'; readonly reason: string; readonly version: bigint; readonly links: readonly string[] };

/** The name a link's target path stands for in `directory`, or undefined when it points anywhere else. */
export function linkTargetName(directory: string, path: string): string | undefined {
  const prefix = `${directory}/`;
  if (!path.startsWith(prefix)) return undefined;
  const name = path.slice(prefix.length);
  return name === '' || name === '.' || name === '..' || name.includes('/') ? undefined : name;
}

/**
 * Follows `name`'s links in `directory`, reading each link through `linkOf` (which starts its watch
 * when it is new). `links` lists every link read on the way, in order: the ones to keep watching.
 */
export function resolveLinks(directory: string, name: string, linkOf: (link: string) => LinkState): Resolution {
  const links: string[] = [];
  let current = name;
  let version = 0n;
  while (isSymlinkName(current)) {
    if (links.includes(current)) return { kind: 'broken', reason: `symlink cycle ${[...links, current].join(' -> ')}`, version, links };
    if (links.length >= MAX_SYMLINK_HOPS) return { kind: 'broken', reason: `symlink chain from ${name} longer than ${MAX_SYMLINK_HOPS} links`, version, links };
    links.push(current);
    const state = linkOf(current);
    if (state.kind === 'loading' || state.kind === 'absent') return { kind: state.kind, links };
    if (state.kind === 'invalid') return { kind: 'broken', reason: `symlink ${directory}/${current} is unreadable: ${state.error.message}`, version, links };
    version = state.version;
    const next = linkTargetName(directory, state.path);
    if (next === undefined) return { kind: 'broken', reason: `symlink ${directory}/${current} points at ${JSON.stringify(state.path)}, not at a node of ${directory}`, version, links };
    current = next;
  }
  return { kind: 'resolved', name: current, links };
}

/** What {@link followLinks} reads a link node with: its data and mzxid, or its absence (a ZooKeeper session's `read`). */
export type LinkNodeReader = (path: string) => Promise<{ readonly exists: false } | { readonly exists: true; readonly data: Buffer; readonly stat: { readonly mzxid: bigint } }>;

/**
 * {@link resolveLinks} over nodes read once each, on demand (the request worker's judge, `failout
 * status`): where `name`'s links in `directory` lead; a plain name leads to itself without a read.
 */
export async function followLinks(read: LinkNodeReader, directory: string, name: string): Promise<Resolution> {
  const known = new Map<string, LinkState>();
  for (;;) {
    const resolution = resolveLinks(directory, name, (link) => known.get(link) ?? { kind: 'loading' });
    if (resolution.kind !== 'loading') return resolution;
    const link = resolution.links[resolution.links.length - 1]!;
    const node = await read(`${directory}/${link}`);
    known.set(link, node.exists ? { kind: 'target', path: node.data.toString('utf8'), version: node.stat.mzxid } : { kind: 'absent' });
  }
}
