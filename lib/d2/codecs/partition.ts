/**
 * `partitionProperties` of a cluster (`ClusterPropertiesJsonSerializer.buildClusterPropertiesFromMap`).
 */

import type { HashAlgorithm, PartitionProperties, PartitionType } from '../model';
import type { ObjectReader } from './json';
import { copyLiteralKind, integerLiteralText } from './json-text';
import { appendExtra, IntegerLiteral } from './json-writer';

const PARTITION_TYPES: readonly PartitionType[] = ['NONE', 'RANGE', 'HASH', 'CUSTOM'];
/** The RANGE fields rest.li reads as Java longs (partitionCount an int), in the order they are written. */
const RANGE_LONGS = ['keyRangeStart', 'partitionSize', 'partitionCount'] as const;
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
    case 'RANGE': {
      const range: PartitionProperties = {
        partitionType,
        partitionKeyRegex: r.requiredString('partitionKeyRegex'),
        keyRangeStart: Math.trunc(r.requiredNumber('keyRangeStart')),
        partitionSize: Math.trunc(r.requiredNumber('partitionSize')),
        partitionCount: Math.trunc(r.requiredNumber('partitionCount')),
        extra,
      };
      // Java longs: the digits of one a double cannot hold are kept for the writer (json-text.ts).
      for (const key of RANGE_LONGS) if (integerLiteralText(r.object, key) !== undefined) copyLiteralKind(r.object, key, range, key);
      return range;
    }
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
      for (const key of RANGE_LONGS) out.set(key, longValue(p, key));
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

/** The value of a typed long for the writer: with the digits it was read from, while it still holds that number. */
function longValue(p: PartitionProperties, key: (typeof RANGE_LONGS)[number]): number | IntegerLiteral {
  const value = (p as unknown as Record<string, number>)[key]!;
  const text = integerLiteralText(p, key);
  return text === undefined ? value : new IntegerLiteral(value, text);
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
