/**
 * `partitionProperties` of a cluster (`ClusterPropertiesJsonSerializer.buildClusterPropertiesFromMap`).
 */

import type { HashAlgorithm, PartitionProperties, PartitionType } from '../model';
import type { ObjectReader } from './json';
import { appendExtra } from './json-writer';

const PARTITION_TYPES: readonly PartitionType[] = ['NONE', 'RANGE', 'HASH', 'CUSTOM'];
const HASH_ALGORITHMS: readonly HashAlgorithm[] = ['MODULO', 'MD5', 'XXHASH'];

/** The keys each partition type reads; anything else is kept in `extra`. */
const KNOWN_KEYS: Readonly<Record<PartitionType, ReadonlySet<string>>> = {
  NONE: new Set(['partitionType']),
  RANGE: new Set(['partitionType', 'partitionKeyRegex', 'keyRangeStart', 'partitionSize', 'partitionCount']),
  HASH: new Set(['partitionType', 'partitionKeyRegex', 'partitionCount', 'hashAlgorithm']),
  CUSTOM: new Set(['partitionType', 'partitionCount', 'partitionAccessorList']),
};

/**
 * Reads `partitionProperties`; `null` (absent or null) means NONE.
 * Numbers may be any JSON number, as rest.li casts to `Number` and then takes `longValue()` /
 * `intValue()`, which truncate a fraction; strings fail.
 */
export function readPartitionProperties(r: ObjectReader | null): PartitionProperties {
  if (r === null) {
    return { partitionType: 'NONE', extra: {} };
  }
  const partitionType = readEnum(r, 'partitionType', PARTITION_TYPES);
  const extra = r.extra(KNOWN_KEYS[partitionType]);
  switch (partitionType) {
    case 'RANGE':
      return {
        partitionType,
        partitionKeyRegex: r.requiredString('partitionKeyRegex'),
        keyRangeStart: Math.trunc(r.requiredNumber('keyRangeStart')),
        partitionSize: Math.trunc(r.requiredNumber('partitionSize')),
        partitionCount: Math.trunc(r.requiredNumber('partitionCount')),
        extra,
      };
    case 'HASH':
      return {
        partitionType,
        partitionKeyRegex: r.requiredString('partitionKeyRegex'),
        partitionCount: Math.trunc(r.requiredNumber('partitionCount')),
        hashAlgorithm: readEnum(r, 'hashAlgorithm', HASH_ALGORITHMS),
        extra,
      };
    case 'CUSTOM':
      return {
        partitionType,
        partitionCount: r.has('partitionCount') ? Math.trunc(r.requiredNumber('partitionCount')) : 0,
        partitionAccessorList: r.stringList('partitionAccessorList'),
        extra,
      };
    case 'NONE':
      return { partitionType, extra };
  }
}

/** The JSON tree for `partitionProperties`, keys in rest.li's order (`{"partitionType":"NONE"}` for NONE). */
export function partitionPropertiesToJson(p: PartitionProperties): Map<string, unknown> {
  const out = new Map<string, unknown>([['partitionType', p.partitionType]]);
  switch (p.partitionType) {
    case 'RANGE':
      out.set('partitionKeyRegex', p.partitionKeyRegex);
      out.set('keyRangeStart', p.keyRangeStart);
      out.set('partitionSize', p.partitionSize);
      out.set('partitionCount', p.partitionCount);
      break;
    case 'HASH':
      out.set('hashAlgorithm', p.hashAlgorithm);
      out.set('partitionKeyRegex', p.partitionKeyRegex);
      out.set('partitionCount', p.partitionCount);
      break;
    case 'CUSTOM':
      out.set('partitionCount', p.partitionCount);
      out.set('partitionAccessorList', p.partitionAccessorList);
      break;
    case 'NONE':
      break;
  }
  return appendExtra(out, p.extra, KNOWN_KEYS[p.partitionType]);
}

/** A required enum name, upper-cased first as rest.li's `PropertyUtil.checkAndGetValue` does. */
function readEnum<T extends string>(r: ObjectReader, key: string, values: readonly T[]): T {
  const name = r.requiredString(key).toUpperCase();
  const value = values.find((v) => v === name);
  if (value === undefined) {
    throw r.fail(key, `must be one of ${values.join(', ')} (case-insensitive)`);
  }
  return value;
}
