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
import { failoutPropertiesToJson, readFailoutProperties } from './failout';
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
  return decodeDocument(input, 'cluster', (root) => {
    // Completed in place rather than spread into a new object: every client parses every write.
    const props = readClusterConfig(root, STORE_KEYS) as ClusterProperties;
    props.canary = readCanary(root, (configs) => readClusterConfig(configs, CONFIG_KEYS));
    props.failoutProperties = readFailoutProperties(root);
    return props;
  });
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
