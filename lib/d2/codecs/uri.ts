/**
 * rest.li-compatible codec for the announcement children `/d2/uris/<cluster>/<child>`
 * (`UriPropertiesJsonSerializer`, `UriProperties`, `PartitionData`).
 */

import { malformed } from '../errors';
import { MAX_HOST_WEIGHT, type PartitionWeights, type UriProperties } from '../model';
import { javaUriScheme, isJavaUri } from './java-uri';
import { decodeDocument, type ObjectReader } from './json';
import { appendExtra, JavaDouble, writeJson } from './json-writer';

/** `urisBySchemeAndPartition` is written (derived) but ignored on read, and `weights` is folded in. */
const KNOWN_KEYS: ReadonlySet<string> = new Set([
  'weights',
  'clusterName',
  'partitionDesc',
  'uriSpecificProperties',
  'urisBySchemeAndPartition',
]);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Parses one announcement. `partitionDesc` wins over the legacy `weights` map, which is used only when
 * `partitionDesc` is absent or empty (a mismatch is not an error); both are always type-checked, as in
 * rest.li. Partition keys go through `Integer.parseInt`; weights must be numbers from 0 to
 * {@link MAX_HOST_WEIGHT} (rest.li takes any double; an unbounded one let two hosts skew a cluster's
 * split, issue 14).
 * @param input - UTF-8 bytes (a znode's data), JSON text, or an already-parsed object.
 * @throws D2Error `malformed`, naming the field (e.g. `partitionDesc["http://h:1"]["a"]`), for bad JSON,
 * a missing `clusterName`, an invalid URI key, a non-integer partition key, a missing, non-number or
 * out-of-range weight, or a `uriSpecificProperties` that is present but not an object.
 */
export function parseUriProperties(input: unknown): UriProperties {
  return decodeDocument(input, 'uri', (root) => {
    const clusterName = root.requiredString('clusterName');
    const uriSpecificProperties = readUriSpecificProperties(root);
    const partitionDesc = readPartitionDesc(root.optionalObject('partitionDesc'));
    const fromWeights = readLegacyWeights(root.optionalObject('weights'));
    return {
      clusterName,
      partitionDesc: partitionDesc.size > 0 ? Object.fromEntries(partitionDesc) : Object.fromEntries(fromWeights),
      uriSpecificProperties,
      extra: root.extra(KNOWN_KEYS),
    };
  });
}

/**
 * Writes one announcement as rest.li does: `weights` only when every URI has exactly partition 0 (so also
 * for no URIs at all), then `clusterName`, `partitionDesc`, `uriSpecificProperties` and the derived
 * `urisBySchemeAndPartition`; weights always with a decimal point (`1.0`); unknown keys last.
 * @throws D2Error `malformed` when a weight is outside [0, {@link MAX_HOST_WEIGHT}] (what the reader
 * refuses) or the model holds a non-JSON value.
 */
export function serializeUriProperties(props: UriProperties): string {
  const out = new Map<string, unknown>();
  const weights = legacyWeights(props.partitionDesc);
  checkWeights(props.partitionDesc, weights !== null);
  if (weights !== null) {
    out.set('weights', weights);
  }
  out.set('clusterName', props.clusterName);
  out.set('partitionDesc', partitionDescToJson(props.partitionDesc));
  out.set('uriSpecificProperties', props.uriSpecificProperties);
  out.set('urisBySchemeAndPartition', urisBySchemeAndPartition(props.partitionDesc));
  return writeJson(appendExtra(out, props.extra, KNOWN_KEYS), 'uri');
}

/**
 * Scheme → partition id → URIs, as rest.li derives it (`UriProperties._urisBySchemeAndPartition`).
 * The scheme keeps its case. A URI without a scheme is left out: rest.li would put it under a null
 * key, which Jackson cannot write, so such a node is never written by rest.li in the first place.
 */
export function urisBySchemeAndPartition(
  partitionDesc: Record<string, PartitionWeights>,
): Record<string, Record<string, string[]>> {
  const byScheme = new Map<string, Map<string, string[]>>();
  for (const [uri, partitions] of Object.entries(partitionDesc)) {
    const scheme = javaUriScheme(uri);
    if (scheme === null) {
      continue;
    }
    let byPartition = byScheme.get(scheme);
    if (byPartition === undefined) {
      byPartition = new Map();
      byScheme.set(scheme, byPartition);
    }
    for (const id of Object.keys(partitions)) {
      byPartition.set(id, [...(byPartition.get(id) ?? []), uri]);
    }
  }
  return Object.fromEntries([...byScheme].map(([scheme, m]) => [scheme, Object.fromEntries(m)]));
}

/** Present means it must be an object (null fails); each value must be an object too, or null (none). */
function readUriSpecificProperties(root: ObjectReader): Record<string, Record<string, unknown>> {
  if (root.raw('uriSpecificProperties') === undefined) {
    return {};
  }
  const r = root.requiredObject('uriSpecificProperties');
  const result = new Map<string, Record<string, unknown>>();
  for (const uri of r.keys()) {
    checkUri(r, uri);
    if (r.raw(uri) !== null) {
      result.set(uri, r.entryObject(uri).object);
    }
  }
  return Object.fromEntries(result);
}

function readPartitionDesc(r: ObjectReader | null): Map<string, PartitionWeights> {
  const result = new Map<string, PartitionWeights>();
  if (r === null) {
    return result;
  }
  for (const uri of r.keys()) {
    checkUri(r, uri);
    const partitions = r.entryObject(uri);
    const weights = new Map<number, number>();
    for (const id of partitions.keys()) {
      const partition = partitions.entryObject(id);
      const weight = partition.requiredNumber('weight');
      const problem = weightProblem(weight);
      if (problem !== undefined) {
        throw partition.fail('weight', problem);
      }
      weights.set(parsePartitionId(partitions, id), weight);
    }
    result.set(uri, Object.fromEntries(weights));
  }
  return result;
}

/** The legacy `{uri: weight}` map, as partition 0 of each URI. */
function readLegacyWeights(r: ObjectReader | null): Map<string, PartitionWeights> {
  const result = new Map<string, PartitionWeights>();
  if (r === null) {
    return result;
  }
  for (const uri of r.keys()) {
    checkUri(r, uri);
    const weight = r.raw(uri);
    if (typeof weight !== 'number') {
      throw r.fail(uri, weight === null ? 'is null' : 'must be a number', 'entry');
    }
    const problem = weightProblem(weight);
    if (problem !== undefined) {
      throw r.fail(uri, problem, 'entry');
    }
    result.set(uri, { 0: weight });
  }
  return result;
}

/** Why a host weight is unusable, or undefined: the reader's and the writer's one rule. */
function weightProblem(weight: number): string | undefined {
  return Number.isFinite(weight) && weight >= 0 && weight <= MAX_HOST_WEIGHT ? undefined : `must be a number from 0 to ${MAX_HOST_WEIGHT}`;
}

/**
 * The writer's side of {@link weightProblem}, naming the field as the output will hold it: the
 * legacy `weights` entry when that map is written (it comes first), else the partition's weight.
 */
function checkWeights(partitionDesc: Record<string, PartitionWeights>, legacy: boolean): void {
  for (const [uri, partitions] of Object.entries(partitionDesc)) {
    for (const [id, weight] of Object.entries(partitions)) {
      const problem = weightProblem(weight);
      if (problem !== undefined) {
        const field = legacy ? `weights[${JSON.stringify(uri)}]` : `partitionDesc[${JSON.stringify(uri)}][${JSON.stringify(id)}].weight`;
        throw malformed('uri', field, problem);
      }
    }
  }
}

/** `Integer.parseInt`: optional sign, ASCII digits, 32-bit range. */
function parsePartitionId(r: ObjectReader, key: string): number {
  const id = /^[+-]?[0-9]+$/.test(key) ? Number(key) : NaN;
  if (!(id >= INT32_MIN && id <= INT32_MAX)) {
    throw r.fail(key, 'is not a partition id (a 32-bit integer)', 'entry');
  }
  return id + 0; // "-0" parses to -0; Java's parseInt gives 0.
}

function checkUri(r: ObjectReader, uri: string): void {
  if (!isJavaUri(uri)) {
    throw r.fail(uri, 'is not a valid URI', 'entry');
  }
}

/** `{uri: weight}` when every URI has exactly partition 0, else null (rest.li's "partitioned" test). */
function legacyWeights(partitionDesc: Record<string, PartitionWeights>): Record<string, JavaDouble> | null {
  const result = new Map<string, JavaDouble>();
  for (const [uri, partitions] of Object.entries(partitionDesc)) {
    const ids = Object.keys(partitions);
    if (ids.length !== 1 || ids[0] !== '0') {
      return null;
    }
    result.set(uri, new JavaDouble(partitions[0]));
  }
  return Object.fromEntries(result);
}

function partitionDescToJson(partitionDesc: Record<string, PartitionWeights>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(partitionDesc).map(([uri, partitions]) => [
      uri,
      Object.fromEntries(
        Object.entries(partitions).map(([id, weight]) => [id, new Map([['weight', new JavaDouble(weight)]])]),
      ),
    ]),
  );
}
