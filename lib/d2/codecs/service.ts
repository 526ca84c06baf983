/**
 * rest.li-compatible codec for `/d2/services/<service>` (`ServicePropertiesJsonSerializer`,
 * `ServiceProperties`, `ServiceStoreProperties`).
 */

import type { MethodLevelProperties, MethodName, ServiceConfig, ServiceProperties } from '../model';
import { appendCanary, CANARY_KEYS, readCanary } from './canary';
import { decodeDocument, type ObjectReader } from './json';
import { copyLiteralKind, defineEntry } from './json-text';
import { appendExtra, writeJson } from './json-writer';

/**
 * Keys the reader interprets. `banned` is what rest.li writes but never reads (it reads `bannedUris`),
 * and the two top-level metadata flags are folded into `serviceMetadataProperties`; none of them is
 * kept as an unknown key.
 */
const CONFIG_KEYS: ReadonlySet<string> = new Set([
  'path',
  'loadBalancerStrategyList',
  'serviceName',
  'loadBalancerStrategyProperties',
  'degraderProperties',
  'relativeStrategyProperties',
  'transportClientProperties',
  'backupRequests',
  'banned',
  'bannedUris',
  'serviceMetadataProperties',
  'isDefaultService',
  'defaultRoutingToMaster',
  'methodLevelProperties',
  'clusterName',
  'prioritizedSchemes',
  'enableClusterSubsetting',
  'minClusterSubsetSize',
]);
const STORE_KEYS: ReadonlySet<string> = new Set([...CONFIG_KEYS, ...CANARY_KEYS]);
const METHOD_KEYS: ReadonlySet<string> = new Set(['names', 'transportClientProperties', 'serviceMetadataProperties']);
const NAME_KEYS: ReadonlySet<string> = new Set(['service', 'method']);

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

/**
 * Parses a service document.
 * @param input - UTF-8 bytes (a znode's data), JSON text, or an already-parsed object.
 * @throws D2Error `malformed`, naming the field, for bad JSON, a missing `serviceName` / `clusterName` /
 * `path`, a missing or empty `loadBalancerStrategyList`, a non-string `isDefaultService`, a wrong type,
 * and the other rejections of rest.li's reader.
 */
export function parseServiceProperties(input: unknown): ServiceProperties {
  return decodeDocument(input, 'service', (root) => ({
    ...readServiceConfig(root, STORE_KEYS),
    canary: readCanary(root, (configs) => readServiceConfig(configs, CONFIG_KEYS)),
  }));
}

/**
 * Writes a service document as rest.li's `ServiceStoreProperties` does: compact JSON, every key of the
 * "keys as written" list, canary keys only with a canary, unknown keys last. `bannedUris` is written
 * under the key `banned`, which rest.li's reader ignores (so is ours: see {@link ServiceConfig.bannedUris}).
 * @throws D2Error `malformed` when the model holds a value JSON cannot represent.
 */
export function serializeServiceProperties(props: ServiceProperties): string {
  const out = serviceConfigToJson(props);
  appendCanary(out, props.canary, (configs) => appendExtra(serviceConfigToJson(configs), configs.extra, CONFIG_KEYS));
  return writeJson(appendExtra(out, props.extra, STORE_KEYS), 'service');
}

function readServiceConfig(r: ObjectReader, known: ReadonlySet<string>): ServiceConfig {
  const loadBalancerStrategyList = r.stringList('loadBalancerStrategyList');
  if (loadBalancerStrategyList.length === 0) {
    throw r.fail('loadBalancerStrategyList', 'must be a non-empty list of strategy names');
  }
  return {
    serviceName: r.requiredString('serviceName'),
    clusterName: r.requiredString('clusterName'),
    path: r.requiredString('path'),
    loadBalancerStrategyList,
    loadBalancerStrategyProperties: r.map('loadBalancerStrategyProperties'),
    transportClientProperties: r.map('transportClientProperties'),
    degraderProperties: r.map('degraderProperties'),
    relativeStrategyProperties: r.map('relativeStrategyProperties'),
    prioritizedSchemes: r.stringList('prioritizedSchemes'),
    // Not URI-checked: rest.li keeps service bans as plain strings.
    bannedUris: r.stringList('bannedUris'),
    serviceMetadataProperties: readServiceMetadata(r),
    backupRequests: r.list('backupRequests'),
    methodLevelProperties: r.objectList('methodLevelProperties').map(readMethodLevelProperties),
    enableClusterSubsetting: coerceBoolean(r, 'enableClusterSubsetting', false),
    minClusterSubsetSize: coerceInt32(r, 'minClusterSubsetSize', -1),
    extra: r.extra(known),
  };
}

/**
 * `serviceMetadataProperties` with the top-level `isDefaultService` and `defaultRoutingToMaster` folded
 * in when they are the string "true" (any case), as rest.li does; a non-string fails (a JSON `true`
 * included). Keys of the published map win over the folded ones (rest.li's `putAll` comes last).
 */
function readServiceMetadata(r: ObjectReader): Record<string, unknown> {
  const published = r.map('serviceMetadataProperties');
  const folded = ['isDefaultService', 'defaultRoutingToMaster'].flatMap((key) => {
    const value = r.optionalString(key, null);
    return value !== null && value.toLowerCase() === 'true' ? [[key, value] as const] : [];
  });
  if (folded.length === 0) {
    return published;
  }
  const merged: Record<string, unknown> = {};
  for (const [key, value] of folded) {
    defineEntry(merged, key, value);
  }
  for (const key of Object.keys(published)) {
    defineEntry(merged, key, published[key]);
    copyLiteralKind(published, key, merged, key);
  }
  return merged;
}

function readMethodLevelProperties(r: ObjectReader): MethodLevelProperties {
  if (!r.has('names')) {
    throw r.fail('names', 'is missing or null');
  }
  return {
    names: r.objectList('names').map(readMethodName),
    transportClientProperties: r.map('transportClientProperties'),
    serviceMetadataProperties: r.map('serviceMetadataProperties'),
    extra: r.extra(METHOD_KEYS),
  };
}

function readMethodName(r: ObjectReader): MethodName {
  return {
    service: r.requiredString('service'),
    method: r.optionalString('method', null),
    extra: r.extra(NAME_KEYS),
  };
}

/** rest.li's `PropertyUtil.coerce(value, Boolean.class)`: a boolean, or a string that means "true". */
function coerceBoolean(r: ObjectReader, key: string, fallback: boolean): boolean {
  const value = r.raw(key);
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'boolean') {
    return value;
  }
  if (typeof value === 'string') {
    return value.toLowerCase() === 'true';
  }
  throw r.fail(key, 'must be a boolean or a string');
}

/**
 * rest.li's `PropertyUtil.coerce(value, Integer.class)`: an Integer as is, a Double cast to int
 * (truncated, clamped to 32 bits), a string through `Integer.parseInt`. An integer literal beyond 32 bits
 * is a Long to Jackson, which `coerce` rejects.
 */
function coerceInt32(r: ObjectReader, key: string, fallback: number): number {
  const value = r.raw(key);
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'string') {
    const parsed = /^[+-]?[0-9]+$/.test(value) ? Number(value) : NaN;
    if (!(parsed >= INT32_MIN && parsed <= INT32_MAX)) {
      throw r.fail(key, `must be a 32-bit integer, got ${JSON.stringify(value)}`);
    }
    return parsed + 0; // "-0" parses to -0; Java's parseInt gives 0.
  }
  if (typeof value !== 'number') {
    throw r.fail(key, 'must be a number or a string holding an integer');
  }
  if (r.exactNumbers && !r.isDecimal(key) && (value < INT32_MIN || value > INT32_MAX)) {
    throw r.fail(key, 'must fit in a 32-bit integer');
  }
  return Math.min(INT32_MAX, Math.max(INT32_MIN, Math.trunc(value))) + 0;
}

function serviceConfigToJson(c: ServiceConfig): Map<string, unknown> {
  return new Map<string, unknown>([
    ['path', c.path],
    ['loadBalancerStrategyList', c.loadBalancerStrategyList],
    ['serviceName', c.serviceName],
    ['loadBalancerStrategyProperties', c.loadBalancerStrategyProperties],
    ['degraderProperties', c.degraderProperties],
    ['relativeStrategyProperties', c.relativeStrategyProperties],
    ['transportClientProperties', c.transportClientProperties],
    ['backupRequests', c.backupRequests],
    ['banned', c.bannedUris],
    ['serviceMetadataProperties', c.serviceMetadataProperties],
    ['methodLevelProperties', c.methodLevelProperties.map(methodLevelPropertiesToJson)],
    ['clusterName', c.clusterName],
    ['prioritizedSchemes', c.prioritizedSchemes],
    ['enableClusterSubsetting', c.enableClusterSubsetting],
    ['minClusterSubsetSize', c.minClusterSubsetSize],
  ]);
}

function methodLevelPropertiesToJson(m: MethodLevelProperties): Map<string, unknown> {
  const names = m.names.map((n) =>
    appendExtra(
      new Map<string, unknown>([
        ['method', n.method],
        ['service', n.service],
      ]),
      n.extra,
      NAME_KEYS,
    ),
  );
  const out = new Map<string, unknown>([
    ['transportClientProperties', m.transportClientProperties],
    ['serviceMetadataProperties', m.serviceMetadataProperties],
    ['names', names],
  ]);
  return appendExtra(out, m.extra, METHOD_KEYS);
}
