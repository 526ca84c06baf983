/**
 * `indis.D2URIMap` (rest.li D2 over xDS): every announcement under `/d2/uris/<cluster>` in one
 * resource, keyed by the child's node name. The one codec of this format: the observer builds it
 * from the children it holds (name, data, stat), the client decodes each `D2URI` back into the JSON
 * document ZooKeeper holds, for lib/d2's `parseUriProperties` (as an object: `indis-common.ts`).
 *
 * Public names (stable):
 * - `D2UriNode` — `{ name, stat: D2Stat, data: JsonObject }` (one announcement).
 * - `D2UriMap` — `{ name, nodes: D2UriNode[] }`, nodes sorted by name.
 * - `d2UriMapType: XdsResourceType<'d2UriMap', D2UriMap>` — `allResourcesRequiredInSotW: true`.
 * - `D2UriChild`, `BuildD2UriMapOptions`, `buildD2UriMap(path, children, options?): AnyMessage`.
 *
 * The mapping (rest.li `UriProperties` JSON ↔ `D2URI`):
 * | URI JSON (one child)                        | D2URI                                                   |
 * | `clusterName`                               | `clusterName` (5)                                       |
 * | `partitionDesc {uri: {id: {weight}}}`       | `partitionDesc` (3) `{uri: PartitionData{weights {id: weight}}}` |
 * | `weights {uri: weight}` (legacy)            | `weights` (4)                                           |
 * | `uriSpecificProperties {uri: {...}}`        | `uriSpecificProperties` (2) `{uri: Struct}`             |
 * | the child's stat                            | `stat` (1)                                              |
 * | `urisBySchemeAndPartition`, unknown keys    | not carried (derived, resp. no field for them)          |
 * Decoding writes the keys in rest.li's order (`weights` only when non-empty, then `clusterName`,
 * `partitionDesc`, `uriSpecificProperties`); lib/d2 derives `urisBySchemeAndPartition` again.
 *
 * Validation, both ways: `clusterName` non-empty (rest.li's reader requires it), partition ids
 * int32, weights finite numbers. Range checks of weights and URI syntax stay with lib/d2, which
 * rejects one announcement at a time, as for a child read from ZooKeeper.
 */
import { XdsError } from '../errors';
import type { JsonObject } from '../proto-json';
import { decodeAnyForClient, packAny, type AnyMessage } from '../protos';
import { decodeNamedByWrapper, jsonOfStruct, parseNodeJson, setEntry, statObject, statOf, structObject, type D2NodeData, type D2Stat, type ZnodeStat } from './indis-common';
import { deepEqual, invalid, rec, str, type XdsResourceType } from './resource-type';
import { D2_URI_MAP_TYPE_URL } from './type-urls';

/** One announcement of a decoded URI map. */
export interface D2UriNode {
  /** The child's node name under `/d2/uris/<cluster>/`. */
  readonly name: string;
  /** The child znode's stat (`stat.mzxid` is its version; `ephemeralOwner` tells an announcer's node). */
  readonly stat: D2Stat;
  /** The announcement's URI JSON document: give it to lib/d2's `parseUriProperties` as it is. */
  readonly data: JsonObject;
}

/** A decoded, validated URI map. */
export interface D2UriMap {
  /** The resource name: the cluster's URI path, e.g. `/d2/uris/greetings-lor1`. */
  readonly name: string;
  /** The announcements, sorted by node name. */
  readonly nodes: readonly D2UriNode[];
}

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

const entries = (map: unknown): Array<[string, unknown]> => (map !== null && typeof map === 'object' ? Object.entries(map) : []);

function finite(value: unknown, where: string): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : invalid(`${where} is ${String(value)}, not a finite number`);
}

/** One decoded D2URI as the URI JSON document a child holds. */
function uriDocument(raw: Record<string, unknown>, where: string): JsonObject {
  const clusterName = str(raw, 'clusterName') || invalid(`${where} has no clusterName`);
  const weights: JsonObject = {};
  for (const [uri, w] of entries(raw.weights)) setEntry(weights, uri, finite(w, `${where}.weights["${uri}"]`));
  const partitionDesc: JsonObject = {};
  for (const [uri, data] of entries(raw.partitionDesc)) {
    const partitions: JsonObject = {};
    for (const [id, w] of entries((data as Record<string, unknown> | null)?.weights)) partitions[id] = { weight: finite(w, `${where}.partitionDesc["${uri}"]["${id}"]`) };
    setEntry(partitionDesc, uri, partitions);
  }
  const uriSpecificProperties: JsonObject = {};
  for (const [uri, struct] of entries(raw.uriSpecificProperties)) {
    setEntry(uriSpecificProperties, uri, jsonOfStruct(struct as Record<string, unknown>, `${where}.uriSpecificProperties["${uri}"]`));
  }
  return { ...(Object.keys(weights).length > 0 ? { weights } : {}), clusterName, partitionDesc, uriSpecificProperties };
}

function validateUriMap(raw: Record<string, unknown>, name: string): D2UriMap {
  const nodes = entries(raw.nodes)
    .map(([child, uri]): D2UriNode => {
      if (!child) invalid('a URI node has an empty name');
      const message = (uri ?? {}) as Record<string, unknown>;
      return { name: child, stat: statOf(rec(message, 'stat')), data: uriDocument(message, `nodes["${child}"]`) };
    })
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { name, nodes };
}

/**
 * The URI map type. SotW: absence means the cluster's URI node is gone (a cluster with no
 * announcements left is an empty map, not an absent one, while its `/d2/uris/<c>` node exists).
 */
export const d2UriMapType: XdsResourceType<'d2UriMap', D2UriMap> = {
  kind: 'd2UriMap',
  typeUrl: D2_URI_MAP_TYPE_URL,
  decode: (any, wrapperName) =>
    decodeNamedByWrapper(D2_URI_MAP_TYPE_URL, any, wrapperName, (inner, name) => validateUriMap(decodeAnyForClient(inner), name)),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: true,
};

/** One child of `/d2/uris/<cluster>` as the observer holds it. */
export interface D2UriChild {
  /** The child's node name. */
  readonly name: string;
  /** Its data: the URI JSON, as bytes or text. */
  readonly data: D2NodeData;
  /** Its stat. */
  readonly stat: ZnodeStat;
}

/** Options of {@link buildD2UriMap}. */
export interface BuildD2UriMapOptions {
  /**
   * Called for a child that cannot be carried (not JSON, no clusterName, a bad partition id or
   * weight); the child is left out and the map still built. Without it such a child throws.
   */
  readonly onInvalid?: (child: string, error: XdsError) => void;
}

type Fail = (field: string, problem: string) => never;

const objectOrEmpty = (value: unknown, field: string, fail: Fail): Array<[string, unknown]> => {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) fail(field, 'must be a JSON object');
  return Object.entries(value);
};

// Finite as the decoder requires: JSON text such as `1e999` parses to Infinity, and a map carrying it
// would be NACKed by every client (the observer must never serve what its clients reject).
function weight(value: unknown, field: string, fail: Fail): number {
  if (typeof value !== 'number') return fail(field, 'must be a number');
  return Number.isFinite(value) ? value : fail(field, `is ${value}, not a finite number`);
}

/** One URI JSON document as a D2URI object for `packAny` (the table in the header). */
function d2UriObject(doc: Record<string, unknown>, stat: ZnodeStat, fail: Fail): Record<string, unknown> {
  const clusterName = doc.clusterName;
  if (typeof clusterName !== 'string' || clusterName === '') fail('clusterName', 'must be a non-empty string');
  const partitionDesc: Record<string, unknown> = {};
  for (const [uri, partitions] of objectOrEmpty(doc.partitionDesc, 'partitionDesc', fail)) {
    const weights: Record<string, number> = {};
    for (const [id, data] of objectOrEmpty(partitions, `partitionDesc["${uri}"]`, fail)) {
      const at = `partitionDesc["${uri}"]["${id}"]`;
      const n = /^-?[0-9]+$/.test(id) ? Number(id) : NaN;
      if (!Number.isInteger(n) || n < INT32_MIN || n > INT32_MAX) fail(at, 'is not a 32-bit partition id');
      if (data === null || typeof data !== 'object') fail(at, 'must be a JSON object');
      weights[String(n)] = weight((data as Record<string, unknown>).weight, `${at}.weight`, fail);
    }
    setEntry(partitionDesc, uri, { weights });
  }
  const weights = Object.fromEntries(objectOrEmpty(doc.weights, 'weights', fail).map(([uri, w]) => [uri, weight(w, `weights["${uri}"]`, fail)]));
  const uriSpecificProperties: Record<string, unknown> = {};
  for (const [uri, props] of objectOrEmpty(doc.uriSpecificProperties, 'uriSpecificProperties', fail)) {
    if (props === null) continue; // rest.li reads a null entry as none
    if (typeof props !== 'object' || Array.isArray(props)) fail(`uriSpecificProperties["${uri}"]`, 'must be a JSON object');
    setEntry(uriSpecificProperties, uri, structObject(props as Record<string, unknown>, `uriSpecificProperties["${uri}"]`));
  }
  return { stat: statObject(stat), clusterName, partitionDesc, weights, uriSpecificProperties };
}

/**
 * Builds an Any-packed D2URIMap from the children of `path` (`/d2/uris/<cluster>`). A child that
 * cannot be carried throws `XdsError` 'validation' naming it, or goes to `options.onInvalid`.
 */
export function buildD2UriMap(path: string, children: readonly D2UriChild[], options: BuildD2UriMapOptions = {}): AnyMessage {
  const nodes: Record<string, unknown> = {};
  for (const child of children) {
    const childPath = `${path}/${child.name}`;
    const fail: Fail = (field, problem) => {
      throw new XdsError('validation', `${childPath}: ${field} ${problem}`, { resourceName: path, field });
    };
    try {
      setEntry(nodes, child.name, d2UriObject(parseNodeJson(childPath, child.data), child.stat, fail));
    } catch (e) {
      if (!(e instanceof XdsError) || !options.onInvalid) throw e;
      options.onInvalid(child.name, e);
    }
  }
  return packAny(D2_URI_MAP_TYPE_URL, { nodes });
}
