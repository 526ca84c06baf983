/**
 * `indis.D2Node` (rest.li D2 over xDS): one D2 node's JSON, a service's `/d2/services/<s>` or a
 * cluster's `/d2/clusters/<c>`, as a `google.protobuf.Struct`, with the znode's stat. The one codec
 * of this format: the observer builds it from what ZooKeeper holds, the client decodes it into what
 * lib/d2's codecs read (the JSON object, `indis-common.ts` says how numbers come back).
 *
 * Public names (stable):
 * - `D2Node` — `{ name, stat: D2Stat, data: JsonObject }`.
 * - `d2NodeType: XdsResourceType<'d2Node', D2Node>` — `allResourcesRequiredInSotW: true`.
 * - `buildD2Node(path, data, stat): AnyMessage`.
 *
 * Names are the ZooKeeper paths (rest.li `XdsToD2PropertiesAdaptor`); the message has no name field,
 * so a server sends each resource in a `Resource` wrapper named by its path.
 *
 * Validation: `data` must be present (rest.li's `NodeUpdate.isValid` refuses a node without data);
 * every number in it finite. Whether the JSON is a valid cluster or service is lib/d2's call, per
 * node, as it is for a node read from ZooKeeper.
 */
import type { JsonObject } from '../proto-json';
import { decodeAnyForClient, packAny, type AnyMessage } from '../protos';
import { decodeNamedByWrapper, jsonOfStruct, parseNodeJson, statObject, statOf, structObject, type D2NodeData, type D2Stat, type ZnodeStat } from './indis-common';
import { deepEqual, invalid, rec, type XdsResourceType } from './resource-type';
import { D2_NODE_TYPE_URL } from './type-urls';

/** A decoded, validated D2 node. */
export interface D2Node {
  /** The resource name: the node's ZooKeeper path, e.g. `/d2/clusters/greetings-lor1`. */
  readonly name: string;
  /** The znode's stat (`stat.mzxid` is the D2 property version). */
  readonly stat: D2Stat;
  /** The node's JSON document: give it to lib/d2's `parse*Properties` as it is (an object). */
  readonly data: JsonObject;
}

/**
 * The D2 node type. SotW: there is no parent resource whose update says a node is gone (unlike RDS
 * and EDS), so a server sends every subscribed node in each response and absence means deleted.
 */
export const d2NodeType: XdsResourceType<'d2Node', D2Node> = {
  kind: 'd2Node',
  typeUrl: D2_NODE_TYPE_URL,
  decode: (any, wrapperName) =>
    decodeNamedByWrapper(D2_NODE_TYPE_URL, any, wrapperName, (inner, name) => {
      const raw = decodeAnyForClient(inner);
      const data = rec(raw, 'data') ?? invalid('D2Node has no data');
      return { name, stat: statOf(rec(raw, 'stat')), data: jsonOfStruct(data, 'data') };
    }),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: true,
};

/**
 * Builds an Any-packed D2Node from a znode: its path (for errors), its data (the D2 JSON, as bytes or
 * text) and its stat. Throws `XdsError` 'validation' when the data is not a JSON object or holds a
 * number JSON cannot (the observer then leaves the node out and reports it).
 */
export function buildD2Node(path: string, data: D2NodeData, stat: ZnodeStat): AnyMessage {
  return packAny(D2_NODE_TYPE_URL, { stat: statObject(stat), data: structObject(parseNodeJson(path, data), path) });
}
