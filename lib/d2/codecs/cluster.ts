/**
 * rest.li-compatible codec for `/d2/clusters/<cluster>` (`ClusterPropertiesJsonSerializer`,
 * `ClusterProperties`, `ClusterStoreProperties`).
 */

import type {
  ClusterConfig,
  ClusterProperties,
  ConnectionOptions,
  SlowStartProperties,
} from '../model';
import { appendCanary, CANARY_KEYS, readCanary } from './canary';
import { failoutPropertiesToJson, parseFailoutProperties, readFailoutProperties } from './failout';
import { isJavaUri } from './java-uri';
import { decodeDocument, type ObjectReader } from './json';
import { appendExtra, JavaDouble, writeJson } from './json-writer';
import { partitionPropertiesToJson, readPartitionProperties } from './partition';

/** Keys of one cluster configuration, in the order rest.li's getters write them. */
const CONFIG_KEYS: ReadonlySet<string> = new Set([
  'properties',
  'bannedUris',
  'clusterName',
  'prioritizedSchemes',
  'partitionProperties',
  'sslSessionValidationStrings',
  'darkClusters',
  'delegated',
  'slowStartProperties',
  'connectionOptions',
  'outlierDetectionConfig',
  'loadBalancingPolicies',
  'enableClusterSubsetting',
  'minClusterSubsetSize',
]);
/** Keys of the whole document: a configuration plus canary and failout. */
const STORE_KEYS: ReadonlySet<string> = new Set([...CONFIG_KEYS, ...CANARY_KEYS, 'failoutProperties']);
const SLOW_START_KEYS: ReadonlySet<string> = new Set([
  'disabled',
  'windowDurationSeconds',
  'aggression',
  'minWeightPercent',
]);
const CONNECTION_OPTIONS_KEYS: ReadonlySet<string> = new Set(['connectionJitterSeconds', 'maxDelayedConnectionRatio']);

/**
 * Parses a cluster document.
 * @param input - UTF-8 bytes (a znode's data), JSON text, or an already-parsed object. For an object,
 * number literal kinds are unknown, so an integral number passes where a double is required.
 * @throws D2Error `malformed`, naming the field, for bad JSON, a missing `clusterName`, a wrong type, an
 * invalid banned URI, an unknown partition type, and the other rejections of rest.li's reader; and for
 * `failoutProperties` that break the rules of `codecs/failout.ts` (rest.li: a ClassCastException wrapped in
 * a `PropertySerializationException`), so the whole document is refused and the store keeps the last good one.
 */
export function parseClusterProperties(input: unknown): ClusterProperties {
  return decodeDocument(input, 'cluster', (root) => readClusterStore(root, readFailoutProperties));
}

/**
 * {@link parseClusterProperties} with the `failoutProperties` member left unread: every other member is
 * read, checked and kept exactly as that function reads it (unknown keys, big integers' digits), and
 * `failoutProperties` is null, so {@link serializeClusterProperties} writes the document back without it.
 * For a restore of a cluster whose failout another tool wrote unreadable (the request writer): the one
 * request that must still work then, and what it writes is what a restore writes.
 * @param input - as for {@link parseClusterProperties}.
 * @throws D2Error `malformed`, as {@link parseClusterProperties} does, for a document that is no JSON
 * object or whose other members break a rule.
 */
export function parseClusterPropertiesWithoutFailout(input: unknown): ClusterProperties {
  return decodeDocument(input, 'cluster', (root) => readClusterStore(root, () => null));
}

/** The whole document: a configuration, its canary, and `failoutProperties` as `readFailout` reads them. */
function readClusterStore(root: ObjectReader, readFailout: (root: ObjectReader) => ClusterProperties['failoutProperties']): ClusterProperties {
  // Completed in place rather than spread into a new object: every client parses every write.
  const props = readClusterConfig(root, STORE_KEYS) as ClusterProperties;
  props.canary = readCanary(root, (configs) => readClusterConfig(configs, CONFIG_KEYS));
  props.failoutProperties = readFailout(root);
  return props;
}

/** The member the writer puts last (`serializeClusterProperties`), as it writes it (ASCII: a byte is a character). */
const FAILOUT_MEMBER = Buffer.from(',"failoutProperties":');

/**
 * What {@link parseClusterUpdate} notes about the version it read: the value, and where its bytes hold
 * `failoutProperties` as the root's last member.
 */
interface FailoutSplit {
  /** The value read last: from `bytes` up to `at`, and the failout member of the latest version. */
  props: ClusterProperties;
  /**
   * The bytes of the version parsed whole. Kept while later versions differ only in the member: their
   * heads are these bytes', and a client then holds no new buffer per write (every client reads every
   * write of every cluster it follows, and each buffer is memory the collector tracks apart).
   */
  readonly bytes: Buffer;
  /** Offset of {@link FAILOUT_MEMBER} in them. */
  readonly at: number;
}

/** Of one cluster, what {@link parseClusterUpdate} is given: the last good value and its own note on it (a store keeps both). */
export interface ClusterParseMemory {
  /** The last good value. */
  readonly value: ClusterProperties | undefined;
  /** {@link parseClusterUpdate}'s note; nobody else reads or writes it. */
  memo: unknown;
}

/**
 * {@link parseClusterProperties} for a new version of a cluster document, given what was read before
 * (`last`, which the caller keeps per cluster). A failout write changes only `failoutProperties`, the
 * document's last member, yet every client reads every such write: when the new bytes are those of the
 * last good version up to that member, only the member is parsed and the rest is that version's.
 * Anything else (another change, a different layout, a member that does not read) parses the whole
 * document, so the value and every error are exactly {@link parseClusterProperties}'s.
 * @param input - UTF-8 bytes (a znode's data) or JSON text.
 * @param last - the cluster's last good value and this function's note on it; the note is updated.
 */
export function parseClusterUpdate(input: Uint8Array | string, last: ClusterParseMemory): ClusterProperties {
  const bytes = typeof input === 'string' ? Buffer.from(input, 'utf8') : Buffer.isBuffer(input) ? input : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  const split = last.memo as FailoutSplit | undefined;
  if (split !== undefined && split.props === last.value && isSplitAt(bytes, split.at) && bytes.compare(split.bytes, 0, split.at, 0, split.at) === 0) {
    const failout = failoutMember(bytes, split.at);
    if (failout !== undefined) {
      const props = withFailout(split.props, failout.value);
      split.props = props;
      return props;
    }
  }
  const props = parseClusterProperties(bytes);
  // Noted only when the member reads as one value on its own: then it is the root's last member (a
  // nested one would leave unbalanced braces), and bytes with the same head differ only there.
  const at = bytes.lastIndexOf(FAILOUT_MEMBER);
  last.memo = at > 0 && isSplitAt(bytes, at) && failoutMember(bytes, at) !== undefined ? ({ props, bytes, at } satisfies FailoutSplit) : undefined;
  return props;
}

/**
 * `props` with other failout properties: every member listed, so that each value has the same shape
 * (a spread of objects of varying shapes is slow) and a member added to the model fails to compile here.
 */
function withFailout(props: ClusterProperties, failoutProperties: ClusterProperties['failoutProperties']): ClusterProperties {
  const copy: { [K in keyof Required<ClusterProperties>]: ClusterProperties[K] } = {
    clusterName: props.clusterName,
    prioritizedSchemes: props.prioritizedSchemes,
    properties: props.properties,
    bannedUris: props.bannedUris,
    partitionProperties: props.partitionProperties,
    sslSessionValidationStrings: props.sslSessionValidationStrings,
    darkClusters: props.darkClusters,
    delegated: props.delegated,
    slowStartProperties: props.slowStartProperties,
    connectionOptions: props.connectionOptions,
    outlierDetectionConfig: props.outlierDetectionConfig,
    loadBalancingPolicies: props.loadBalancingPolicies,
    enableClusterSubsetting: props.enableClusterSubsetting,
    minClusterSubsetSize: props.minClusterSubsetSize,
    extra: props.extra,
    canary: props.canary,
    failoutProperties,
  };
  return copy;
}

/** Whether `bytes` hold the failout member at `at` and end with the root's closing brace. */
function isSplitAt(bytes: Buffer, at: number): boolean {
  const end = at + FAILOUT_MEMBER.length;
  return bytes.length > end + 1 && bytes[bytes.length - 1] === 0x7d && bytes.compare(FAILOUT_MEMBER, 0, FAILOUT_MEMBER.length, at, end) === 0;
}

/**
 * The failout member's value read on its own, or undefined when it does not read (the whole document is
 * parsed then). Decoding from `at` gives the characters the whole text has there: the member starts with ASCII.
 */
function failoutMember(bytes: Buffer, at: number): { value: ClusterProperties['failoutProperties'] } | undefined {
  try {
    return { value: parseFailoutProperties(bytes.toString('utf8', at + FAILOUT_MEMBER.length, bytes.length - 1)) };
  } catch {
    return undefined;
  }
}

/**
 * Writes a cluster document as rest.li's `ClusterStoreProperties` does: compact JSON, every key of the
 * "keys as written" list, null optional objects left out, doubles with a decimal point, unknown keys last.
 * The canary configuration is written like a bare `ClusterProperties`, with explicit nulls.
 * @throws D2Error `malformed` when the model holds a value JSON cannot represent (NaN, a function), or
 * `failoutProperties` the reader would refuse.
 */
export function serializeClusterProperties(props: ClusterProperties): string {
  const out = clusterConfigToJson(props, false);
  appendCanary(out, props.canary, (configs) => appendExtra(clusterConfigToJson(configs, true), configs.extra, CONFIG_KEYS));
  if (props.failoutProperties !== null) {
    out.set('failoutProperties', failoutPropertiesToJson(props.failoutProperties));
  }
  return writeJson(appendExtra(out, props.extra, STORE_KEYS), 'cluster');
}

function readClusterConfig(r: ObjectReader, known: ReadonlySet<string>): ClusterConfig {
  const bannedUris = r.stringList('bannedUris');
  bannedUris.forEach((uri, i) => {
    if (!isJavaUri(uri)) {
      throw r.fail(`bannedUris[${i}]`, `is not a valid URI: ${JSON.stringify(uri)}`);
    }
  });
  return {
    clusterName: r.requiredString('clusterName'),
    prioritizedSchemes: r.stringList('prioritizedSchemes'),
    properties: r.map('properties'),
    bannedUris,
    partitionProperties: readPartitionProperties(r.optionalObject('partitionProperties')),
    sslSessionValidationStrings: r.stringList('sslSessionValidationStrings'),
    darkClusters: r.map('darkClusters'),
    delegated: r.optionalBoolean('delegated', false),
    slowStartProperties: readSlowStart(r.optionalObject('slowStartProperties')),
    connectionOptions: readConnectionOptions(r.optionalObject('connectionOptions')),
    outlierDetectionConfig: r.nullableMap('outlierDetectionConfig'),
    loadBalancingPolicies: r.nullableList('loadBalancingPolicies'),
    enableClusterSubsetting: r.optionalBoolean('enableClusterSubsetting', false),
    minClusterSubsetSize: r.optionalInt32('minClusterSubsetSize', -1),
    extra: r.extra(known),
  };
}

/** All four keys are required; the doubles need a decimal point because rest.li casts them to Double. */
function readSlowStart(r: ObjectReader | null): SlowStartProperties | null {
  if (r === null) {
    return null;
  }
  return {
    disabled: r.requiredBoolean('disabled'),
    windowDurationSeconds: r.requiredInt32('windowDurationSeconds'),
    aggression: r.requiredDouble('aggression'),
    minWeightPercent: r.requiredDouble('minWeightPercent'),
    extra: r.extra(SLOW_START_KEYS),
  };
}

/** Both keys are required and may be any number; the jitter is an int (`intValue()` truncates). */
function readConnectionOptions(r: ObjectReader | null): ConnectionOptions | null {
  if (r === null) {
    return null;
  }
  return {
    connectionJitterSeconds: Math.trunc(r.requiredNumber('connectionJitterSeconds')),
    maxDelayedConnectionRatio: r.requiredNumber('maxDelayedConnectionRatio'),
    extra: r.extra(CONNECTION_OPTIONS_KEYS),
  };
}

/**
 * The configuration's keys without its `extra`.
 * @param writeNulls - true for a bare `ClusterProperties` (the canary configuration), which writes
 * `"slowStartProperties":null` and the like; false for `ClusterStoreProperties` (`NON_NULL`).
 */
function clusterConfigToJson(c: ClusterConfig, writeNulls: boolean): Map<string, unknown> {
  const out = new Map<string, unknown>([
    ['properties', c.properties],
    ['bannedUris', c.bannedUris],
    ['clusterName', c.clusterName],
    ['prioritizedSchemes', c.prioritizedSchemes],
    ['partitionProperties', partitionPropertiesToJson(c.partitionProperties)],
    ['sslSessionValidationStrings', c.sslSessionValidationStrings],
    ['darkClusters', c.darkClusters],
    ['delegated', c.delegated],
  ]);
  const optional: Array<[string, unknown]> = [
    ['slowStartProperties', c.slowStartProperties && slowStartToJson(c.slowStartProperties)],
    ['connectionOptions', c.connectionOptions && connectionOptionsToJson(c.connectionOptions)],
    ['outlierDetectionConfig', c.outlierDetectionConfig],
    ['loadBalancingPolicies', c.loadBalancingPolicies],
  ];
  for (const [key, value] of optional) {
    if (value !== null || writeNulls) {
      out.set(key, value);
    }
  }
  out.set('enableClusterSubsetting', c.enableClusterSubsetting);
  out.set('minClusterSubsetSize', c.minClusterSubsetSize);
  return out;
}

function slowStartToJson(s: SlowStartProperties): Map<string, unknown> {
  const out = new Map<string, unknown>([
    ['disabled', s.disabled],
    ['windowDurationSeconds', s.windowDurationSeconds],
    ['aggression', new JavaDouble(s.aggression)],
    ['minWeightPercent', new JavaDouble(s.minWeightPercent)],
  ]);
  return appendExtra(out, s.extra, SLOW_START_KEYS);
}

function connectionOptionsToJson(o: ConnectionOptions): Map<string, unknown> {
  const out = new Map<string, unknown>([
    ['connectionJitterSeconds', o.connectionJitterSeconds],
    // A Java float, which Jackson prints with a decimal point too.
    ['maxDelayedConnectionRatio', new JavaDouble(o.maxDelayedConnectionRatio)],
  ]);
  return appendExtra(out, o.extra, CONNECTION_OPTIONS_KEYS);
}
