/**
 * `indis.D2SymlinkNode` (rest.li D2 over xDS): a node whose name holds `$` (e.g.
 * `/d2/clusters/$FooClusterMaster`) and whose data is the path of the node it stands for
 * (rest.li `SymlinkAwareZooKeeper`). A client resolves it by watching `masterClusterNodePath`.
 *
 * Public names (stable):
 * - `D2SymlinkNode` — `{ name, stat: D2Stat, masterClusterNodePath }`.
 * - `d2SymlinkNodeType: XdsResourceType<'d2SymlinkNode', D2SymlinkNode>` — `allResourcesRequiredInSotW: true`.
 * - `buildD2SymlinkNode(path, data, stat): AnyMessage`.
 *
 * Validation: `masterClusterNodePath` must be an absolute path (a symlink to nowhere would leave the
 * client watching '').
 */
import { XdsError } from '../errors';
import { decodeAnyForClient, packAny, type AnyMessage } from '../protos';
import { decodeNamedByWrapper, statObject, statOf, type D2NodeData, type D2Stat, type ZnodeStat } from './indis-common';
import { deepEqual, invalid, rec, str, type XdsResourceType } from './resource-type';
import { D2_SYMLINK_NODE_TYPE_URL } from './type-urls';

/** A decoded, validated D2 symlink. */
export interface D2SymlinkNode {
  /** The resource name: the symlink's ZooKeeper path. */
  readonly name: string;
  /** The symlink znode's stat. */
  readonly stat: D2Stat;
  /** The path of the node the symlink stands for, e.g. `/d2/clusters/greetings-lor1`. */
  readonly masterClusterNodePath: string;
}

/** The D2 symlink type; SotW absence means deleted, as for {@link d2NodeType}. */
export const d2SymlinkNodeType: XdsResourceType<'d2SymlinkNode', D2SymlinkNode> = {
  kind: 'd2SymlinkNode',
  typeUrl: D2_SYMLINK_NODE_TYPE_URL,
  decode: (any, wrapperName) =>
    decodeNamedByWrapper(D2_SYMLINK_NODE_TYPE_URL, any, wrapperName, (inner, name) => {
      const raw = decodeAnyForClient(inner);
      const target = str(raw, 'masterClusterNodePath');
      if (!target.startsWith('/')) invalid(`masterClusterNodePath "${target}" is not an absolute path`);
      return { name, stat: statOf(rec(raw, 'stat')), masterClusterNodePath: target };
    }),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: true,
};

/**
 * Builds an Any-packed D2SymlinkNode from a symlink znode (its data is the target path, UTF-8).
 * Throws `XdsError` 'validation' naming `path` when the data is not an absolute path.
 */
export function buildD2SymlinkNode(path: string, data: D2NodeData, stat: ZnodeStat): AnyMessage {
  const target = typeof data === 'string' ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('utf8');
  if (!target.startsWith('/')) throw new XdsError('validation', `${path}: a symlink's data must be an absolute path, got "${target}"`, { resourceName: path });
  return packAny(D2_SYMLINK_NODE_TYPE_URL, { stat: statObject(stat), masterClusterNodePath: target });
}
