import { bucketOf, hashKey } from '../../../lib/failout/bucket';

// bucketOf: a stable key → bucket hash (the same member always lands on the same side) that spreads keys evenly.

describe('bucketOf', () => {
  it.each([
    // Pinned: a change of hash would move members between the sides of a partial failout.
    ['', 2872998923, 23],
    ['a', 444641715, 15],
    ['member-1', 1653221641, 41],
    ['zoë', 3896719138, 38],
    ['😀', 855877642, 42],
  ])('hashes %p to %p, bucket %p, on every call', (key, hash, bucket) => {
    // Act
    const buckets = Array.from({ length: 3 }, () => bucketOf(key));

    // Assess
    expect(hashKey(key)).toBe(hash);
    expect(buckets).toEqual([bucket, bucket, bucket]);
  });

  it('hashes the UTF-8 bytes, so a string and its surrogate pair agree with TextEncoder', () => {
    // Prepare
    const viaBytes = (text: string): number => {
      let h = 0x811c9dc5;
      for (const byte of new TextEncoder().encode(text)) h = Math.imul(h ^ byte, 0x01000193);
      h ^= h >>> 16;
      h = Math.imul(h, 0x85ebca6b);
      h ^= h >>> 13;
      h = Math.imul(h, 0xc2b2ae35);
      h ^= h >>> 16;
      return h >>> 0;
    };

    // Act / Assess
    for (const key of ['plain', 'zoë', 'ключ', '鍵', '😀 emoji', 'lone \ud800 surrogate']) expect(hashKey(key)).toBe(viaBytes(key));
  });

  it('spreads sequential keys evenly over the 100 buckets', () => {
    // Prepare
    const keys = 100_000;
    const counts = new Array<number>(100).fill(0);

    // Act
    for (let i = 0; i < keys; i++) counts[bucketOf(`member-${i}`)]!++;

    // Assess: chi-square with 99 degrees of freedom; 150 is far beyond p = 0.001 (≈ 148).
    const expected = keys / 100;
    const chiSquare = counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
    expect(chiSquare).toBeLessThan(150);
    const lowHalf = counts.slice(0, 50).reduce((a, b) => a + b, 0);
    expect(Math.abs(lowHalf / keys - 0.5)).toBeLessThan(0.01);
  });

  it.each([
    [0, 0],
    [0.499, 49],
    [0.999999, 99],
  ])('uses the random source without a key: %p → bucket %p', (random, expected) => {
    // Act
    const bucket = bucketOf(undefined, () => random);

    // Assess
    expect(bucket).toBe(expected);
  });

  it('never leaves 0–99 without a key, even for a random source that returns 1', () => {
    // Act
    const bucket = bucketOf(undefined, () => 1);

    // Assess
    expect(bucket).toBe(99);
  });
});
