/**
 * Which partition a request goes to (d2-json-formats.md §5 step 3; rest.li `RangeBasedPartitionAccessor`,
 * `HashBasedPartitionAccessor`, `MD5Hash`, `XXHash`): the last capture group of `partitionKeyRegex` found
 * in the full request URI is the key; partition 0 when it cannot be told.
 */
import { createHash } from 'node:crypto';
import { parseClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { partitionOf } from '../../../lib/d2/partitions';
import { xxHash64 } from '../../../lib/d2/xxhash64';

/** The partition properties of a cluster document read from JSON, as clients read them. */
function partitioning(partitionProperties: Record<string, unknown>): ClusterProperties['partitionProperties'] {
  return parseClusterProperties({ clusterName: 'c', partitionProperties }).partitionProperties;
}

const RANGE = partitioning({ partitionType: 'RANGE', partitionKeyRegex: 'profiles/(\\d+)', keyRangeStart: 0, partitionSize: 1000000, partitionCount: 10 });

describe('partitionOf', () => {
  it.each<[string, string, number]>([
    ['the first range', 'd2://ProfileService/profiles/999999', 0],
    ['a middle range', 'd2://ProfileService/profiles/2500000', 2],
    ['the last range', 'd2://ProfileService/profiles/9999999', 9],
    ['a key past the last range (partition 0)', 'd2://ProfileService/profiles/10000000', 0],
    ['a URI the pattern does not match (partition 0)', 'd2://ProfileService/other/2500000', 0],
    ['a key a Java long cannot hold (partition 0)', 'd2://ProfileService/profiles/99999999999999999999', 0],
  ])('places a RANGE key: %s', (_what, uri, partition) => {
    expect(partitionOf(RANGE, uri)).toBe(partition);
  });

  it('applies keyRangeStart and refuses a key below it (partition 0)', () => {
    // Prepare
    const shifted = partitioning({ partitionType: 'RANGE', partitionKeyRegex: 'id=(\\d+)', keyRangeStart: 1000, partitionSize: 100, partitionCount: 4 });

    // Act, Assess
    expect(partitionOf(shifted, 'd2://s/x?id=1250')).toBe(2);
    expect(partitionOf(shifted, 'd2://s/x?id=999')).toBe(0);
  });

  it('takes the last capture group as the key, and the query too (the full request URI)', () => {
    // Prepare
    const p = partitioning({ partitionType: 'RANGE', partitionKeyRegex: '(a|b)=(\\d+)', keyRangeStart: 0, partitionSize: 10, partitionCount: 10 });

    // Act, Assess
    expect(partitionOf(p, 'd2://s/x?b=73')).toBe(7);
  });

  it.each<[string, number]>([
    ['d2://s/m/17', 2],
    ['d2://s/m/-7', 2],
    ['d2://s/m/not-a-number', 0],
  ])('places a HASH MODULO key %s (Java long remainder, then its absolute value)', (uri, partition) => {
    // Prepare: lower-case names are accepted, as rest.li upper-cases them.
    const modulo = partitioning({ partitionType: 'hash', hashAlgorithm: 'modulo', partitionKeyRegex: 'm/(-?\\w+)', partitionCount: 5 });

    // Act, Assess
    expect(partitionOf(modulo, uri)).toBe(partition);
  });

  it('places a HASH MD5 key by digest bytes 8-15 of the key and one NUL byte, as a signed long', () => {
    // Prepare
    const md5 = partitioning({ partitionType: 'HASH', hashAlgorithm: 'MD5', partitionKeyRegex: 'k/(\\w+)', partitionCount: 7 });
    const expected = (key: string): number => {
      const digest = createHash('md5').update(Buffer.concat([Buffer.from(key, 'utf8'), Buffer.from([0])])).digest();
      return Math.abs(Number(BigInt.asIntN(32, digest.readBigInt64BE(8) % 7n)));
    };

    // Act
    const seen = ['member1', 'member2', 'abc', 'zzz'].map((key) => [partitionOf(md5, `d2://s/k/${key}`), expected(key)]);

    // Assess
    for (const [got, want] of seen) expect(got).toBe(want);
    expect(new Set(seen.map(([got]) => got)).size).toBeGreaterThan(1);
  });

  it('places a HASH XXHASH key by xxHash64 of its UTF-16 chars seeded with the Java int 0xDEADBEEF', () => {
    // Prepare
    const xx = partitioning({ partitionType: 'HASH', hashAlgorithm: 'XXHASH', partitionKeyRegex: 'k/(\\w+)', partitionCount: 11 });
    const seed = BigInt.asIntN(64, 0xffffffffdeadbeefn);
    const expected = (key: string): number => Math.abs(Number(BigInt.asIntN(32, BigInt.asIntN(64, xxHash64(Buffer.from(key, 'utf16le'), seed)) % 11n)));

    // Act, Assess
    for (const key of ['member1', 'member2', 'abc']) expect(partitionOf(xx, `d2://s/k/${key}`)).toBe(expected(key));
  });

  it('puts every request of a cluster without partitioning in partition 0', () => {
    expect(partitionOf(partitioning({ partitionType: 'NONE' }), 'd2://s/profiles/2500000')).toBe(0);
  });

  it('uses partition 0 when the pattern does not compile in JavaScript', () => {
    // Prepare: a possessive quantifier (Java has them, JavaScript does not).
    const p = partitioning({ partitionType: 'RANGE', partitionKeyRegex: 'p/(\\d++)', keyRangeStart: 0, partitionSize: 1, partitionCount: 10 });

    // Act, Assess
    expect(partitionOf(p, 'd2://s/p/5')).toBe(0);
  });
});

describe('xxHash64', () => {
  it.each<[string, bigint]>([
    ['', 0xef46db3751d8e999n],
    ['a', 0xd24ec4f1a98c6e5bn],
    ['abc', 0x44bc2cf5ad770999n],
  ])('gives the reference value of %j with seed 0', (text, hash) => {
    expect(xxHash64(Buffer.from(text, 'utf8'), 0n)).toBe(hash);
  });
});
