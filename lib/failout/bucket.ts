import { BUCKETS as BUCKET_COUNT } from './failout-config';

// Read once: a re-exported binding is a getter call per use once compiled to CommonJS, and this runs
// on every redirected request.
const BUCKETS: number = BUCKET_COUNT;

/**
 * The request bucket (0–99) of a routing key: a stable hash of the key, so the same member or session
 * always lands on the same side of a partial failout (buckets 0–49 move half the keys). Without a key
 * the bucket is random (`random` in [0, 1), default `Math.random`).
 *
 * The hash is FNV-1a 32-bit over the key's UTF-8 bytes followed by murmur3's `fmix32` finalizer: FNV-1a
 * alone leaves keys that differ only in their last character ("member-1", "member-2") in neighbouring
 * low bits, and the bucket is the hash modulo 100. UTF-8 (not UTF-16 code units) keeps the value
 * reproducible from any language. Pure; no allocation.
 */
export function bucketOf(key: string | undefined, random: () => number = Math.random): number {
  if (key === undefined) return Math.min(BUCKETS - 1, Math.floor(random() * BUCKETS));
  return hashKey(key) % BUCKETS;
}

/** FNV-1a 32-bit over the UTF-8 bytes of `key`, then `fmix32`; an unsigned 32-bit integer. */
export function hashKey(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    let c = key.charCodeAt(i);
    if (c < 0x80) {
      h = Math.imul(h ^ c, 0x01000193);
      continue;
    }
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < key.length) {
      const low = key.charCodeAt(i + 1);
      if (low >= 0xdc00 && low < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (low - 0xdc00);
        i++;
      }
    }
    // A lone surrogate is encoded as U+FFFD, as TextEncoder does.
    if (c >= 0xd800 && c < 0xe000) c = 0xfffd;
    if (c < 0x800) {
      h = Math.imul(h ^ (0xc0 | (c >> 6)), 0x01000193);
    } else if (c < 0x10000) {
      h = Math.imul(h ^ (0xe0 | (c >> 12)), 0x01000193);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), 0x01000193);
    } else {
      h = Math.imul(h ^ (0xf0 | (c >> 18)), 0x01000193);
      h = Math.imul(h ^ (0x80 | ((c >> 12) & 0x3f)), 0x01000193);
      h = Math.imul(h ^ (0x80 | ((c >> 6) & 0x3f)), 0x01000193);
    }
    h = Math.imul(h ^ (0x80 | (c & 0x3f)), 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
