/**
 * xxHash64 (Yann Collet's XXH64, the `xx_r39` of OpenHFT's zero-allocation-hashing that rest.li's
 * `XXHash` partition hash uses), over bytes, as an unsigned 64-bit BigInt. Only a HASH-partitioned
 * cluster with `hashAlgorithm: XXHASH` calls it, once per request: BigInt arithmetic is fast enough and
 * keeps every step exact.
 */

const MASK = (1n << 64n) - 1n;
const P1 = 0x9e3779b185ebca87n;
const P2 = 0xc2b2ae3d27d4eb4fn;
const P3 = 0x165667b19e3779f9n;
const P4 = 0x85ebca77c2b2ae63n;
const P5 = 0x27d4eb2f165667c5n;

function rotl(v: bigint, r: bigint): bigint {
  return ((v << r) | (v >> (64n - r))) & MASK;
}

function round(acc: bigint, input: bigint): bigint {
  return (rotl((acc + input * P2) & MASK, 31n) * P1) & MASK;
}

function mergeRound(acc: bigint, value: bigint): bigint {
  return (((acc ^ round(0n, value)) * P1) + P4) & MASK;
}

/**
 * XXH64 of `bytes` with `seed` (taken modulo 2^64, so a negative Java long seed works as Java passes it).
 * @returns the hash as an unsigned 64-bit integer; `BigInt.asIntN(64, h)` is Java's `long`.
 */
export function xxHash64(bytes: Uint8Array, seed: bigint): bigint {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const s = BigInt.asUintN(64, seed);
  const length = bytes.byteLength;
  let offset = 0;
  let h: bigint;
  if (length >= 32) {
    let v1 = (s + P1 + P2) & MASK;
    let v2 = (s + P2) & MASK;
    let v3 = s;
    let v4 = (s - P1) & MASK;
    for (; offset + 32 <= length; offset += 32) {
      v1 = round(v1, view.getBigUint64(offset, true));
      v2 = round(v2, view.getBigUint64(offset + 8, true));
      v3 = round(v3, view.getBigUint64(offset + 16, true));
      v4 = round(v4, view.getBigUint64(offset + 24, true));
    }
    h = (rotl(v1, 1n) + rotl(v2, 7n) + rotl(v3, 12n) + rotl(v4, 18n)) & MASK;
    h = mergeRound(h, v1);
    h = mergeRound(h, v2);
    h = mergeRound(h, v3);
    h = mergeRound(h, v4);
  } else {
    h = (s + P5) & MASK;
  }
  h = (h + BigInt(length)) & MASK;
  for (; offset + 8 <= length; offset += 8) {
    h ^= round(0n, view.getBigUint64(offset, true));
    h = ((rotl(h, 27n) * P1) + P4) & MASK;
  }
  if (offset + 4 <= length) {
    h ^= (BigInt(view.getUint32(offset, true)) * P1) & MASK;
    h = ((rotl(h, 23n) * P2) + P3) & MASK;
    offset += 4;
  }
  for (; offset < length; offset++) {
    h ^= (BigInt(bytes[offset]!) * P5) & MASK;
    h = (rotl(h, 11n) * P1) & MASK;
  }
  h ^= h >> 33n;
  h = (h * P2) & MASK;
  h ^= h >> 29n;
  h = (h * P3) & MASK;
  h ^= h >> 32n;
  return h;
}
