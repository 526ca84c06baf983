/**
 * Which partition of a cluster a request goes to (rest.li `balancer/util/partitions`:
 * `AbstractPartitionAccessor`, `RangeBasedPartitionAccessor`, `HashBasedPartitionAccessor`, and the
 * `MD5Hash` / `XXHash` hash functions; d2-json-formats.md §5 step 3).
 *
 * - `partitionKeyRegex` is applied with `find()` to the full request URI string (`d2://service/…`);
 *   the key is the last capture group (the whole match when the pattern has none).
 * - RANGE: the key is a Java long, at least 0; partition `(key - keyRangeStart) / partitionSize`
 *   (long division, then an int), which must lie in `[0, partitionCount)`.
 * - HASH: `MODULO` takes the key as a Java long; `MD5` the digest of the key's UTF-8 bytes and one
 *   0x00 byte, bytes 8–15 as a big-endian long; `XXHASH` xxHash64 (`xx_r39`) seeded with the Java int
 *   `0xDEADBEEF` widened to a long (`0xFFFFFFFFDEADBEEF`) over the key's chars (UTF-16, little-endian,
 *   as OpenHFT hashes chars on every platform). Then `Math.abs((int) (hash % partitionCount))`.
 * - NONE and CUSTOM (no custom accessor is registered here): partition 0.
 *
 * No match, a key that does not parse, a partition out of range, a pattern JavaScript cannot compile,
 * or any other error: partition 0 (the reference's rule; rest.li's own `SimpleLoadBalancer` refuses
 * such a request instead). Pure; the compiled pattern is kept per properties object.
 */
import { createHash } from 'node:crypto';
import type { PartitionProperties } from './model';
import { xxHash64 } from './xxhash64';
import { integerLiteralText } from './codecs/json-text';

/** The partition of a request whose cluster is not partitioned, or whose key cannot be placed. */
export const DEFAULT_PARTITION_ID = 0;

/** rest.li `XXHash`'s seed: the int literal `0xDEADBEEF`, widened to a long. */
const XXHASH_SEED = BigInt.asIntN(32, 0xdeadbeefn);

const LONG_MIN = -(1n << 63n);
const LONG_MAX = (1n << 63n) - 1n;

/** Compiled `partitionKeyRegex` by properties object (null: JavaScript cannot compile it). */
const patterns = new WeakMap<PartitionProperties, RegExp | null>();

/** Whether a cluster with these properties routes by partition (RANGE or HASH). */
export function isPartitioned(properties: PartitionProperties): boolean {
  return properties.partitionType === 'RANGE' || properties.partitionType === 'HASH';
}

/**
 * The partition id of the request `requestUri` (the `d2://` URL as given) in a cluster with these
 * partition properties; {@link DEFAULT_PARTITION_ID} whenever it cannot be told (see the module doc).
 */
export function partitionOf(properties: PartitionProperties, requestUri: string): number {
  if (properties.partitionType !== 'RANGE' && properties.partitionType !== 'HASH') return DEFAULT_PARTITION_ID;
  const key = partitionKey(properties, properties.partitionKeyRegex, requestUri);
  if (key === undefined) return DEFAULT_PARTITION_ID;
  const id = properties.partitionType === 'RANGE' ? rangePartition(properties, key) : hashPartition(properties.hashAlgorithm, properties.partitionCount, key);
  return id ?? DEFAULT_PARTITION_ID;
}

/** The last capture group of the first match of the pattern in `uri`, or undefined. */
function partitionKey(properties: PartitionProperties, source: string, uri: string): string | undefined {
  let pattern = patterns.get(properties);
  if (pattern === undefined) {
    try {
      pattern = new RegExp(source);
    } catch {
      pattern = null;
    }
    patterns.set(properties, pattern);
  }
  if (pattern === null) return undefined;
  const match = pattern.exec(uri);
  if (match === null) return undefined;
  return match[match.length - 1];
}

/** `Long.parseLong`: an optional sign and ASCII digits, within a Java long; undefined otherwise. */
function parseLong(text: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text);
  return value < LONG_MIN || value > LONG_MAX ? undefined : value;
}

/** A RANGE field as the Java long rest.li holds: the digits it was read with, else the number. */
function longField(properties: PartitionProperties, key: 'keyRangeStart' | 'partitionSize'): bigint {
  const text = integerLiteralText(properties, key);
  return BigInt.asIntN(64, text === undefined ? BigInt((properties as unknown as Record<string, number>)[key]!) : BigInt(text));
}

function rangePartition(properties: Extract<PartitionProperties, { partitionType: 'RANGE' }>, key: string): number | undefined {
  const value = parseLong(key);
  if (value === undefined || value < 0n) return undefined;
  const size = longField(properties, 'partitionSize');
  if (size === 0n) return undefined;
  // Java: `(int) ((longKey - keyRangeStart) / partitionSize)`, long arithmetic wrapping, division truncating.
  const id = Number(BigInt.asIntN(32, BigInt.asIntN(64, value - longField(properties, 'keyRangeStart')) / size));
  return id >= 0 && id < properties.partitionCount ? id : undefined;
}

function hashPartition(algorithm: 'MODULO' | 'MD5' | 'XXHASH', partitionCount: number, key: string): number | undefined {
  let hash: bigint | undefined;
  if (algorithm === 'MODULO') {
    hash = parseLong(key);
  } else if (algorithm === 'MD5') {
    const digest = createHash('md5').update(key, 'utf8').update(Buffer.from([0])).digest();
    hash = digest.readBigInt64BE(8);
  } else {
    hash = BigInt.asIntN(64, xxHash64(Buffer.from(key, 'utf16le'), XXHASH_SEED));
  }
  if (hash === undefined || partitionCount === 0) return undefined;
  // Java: `Math.abs((int) (hash % partitionCount))`; `%` keeps the dividend's sign, as BigInt's does.
  return Math.abs(Number(BigInt.asIntN(32, hash % BigInt(partitionCount))));
}
