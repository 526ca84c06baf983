/**
 * rest.li's D2 over xDS (package `indis`, `XdsD2.proto`) in one namespace, `indis` on the lib/xds
 * face: the decoded values a client adaptor turns into lib/d2's properties, the builders an observer
 * serves from its ZooKeeper view, and the version helpers.
 *
 * The formats in short (details in each file's header):
 * | ZooKeeper                             | resource name            | type URL                                | decoded value     |
 * | `/d2/services/<s>`, `/d2/clusters/<c>` | the path                 | `type.googleapis.com/indis.D2Node`        | {@link D2Node}        |
 * | children of `/d2/uris/<c>`            | `/d2/uris/<c>`           | `type.googleapis.com/indis.D2URIMap`      | {@link D2UriMap}      |
 * | a `$` symlink node                    | the path                 | `type.googleapis.com/indis.D2SymlinkNode` | {@link D2SymlinkNode} |
 * Resources travel in `Resource` wrappers named by the path (the messages have no name field).
 */
export {
  d2NodeVersion,
  d2UriMapVersion,
  zxidVersion,
  type D2NodeData,
  type D2Stat,
  type ZnodeStat,
} from './indis-common';
export { buildD2Node, d2NodeType, type D2Node } from './d2-node';
export { buildD2SymlinkNode, d2SymlinkNodeType, type D2SymlinkNode } from './d2-symlink-node';
export { buildD2UriMap, d2UriMapType, type BuildD2UriMapOptions, type D2UriChild, type D2UriMap, type D2UriNode } from './d2-uri-map';
export { D2_NODE_TYPE_URL, D2_SYMLINK_NODE_TYPE_URL, D2_URI_MAP_TYPE_URL } from './type-urls';
