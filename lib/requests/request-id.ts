import { randomBytes } from 'node:crypto';

/**
 * Request ids that carry the time they were made: UUID version 7 (RFC 9562), the first 48 bits the
 * Unix time in milliseconds. The CLI makes its ids this way so that `failout request <id>` can tell a
 * record pruned after the retention from one that was never written (issue 14); any other id still
 * works, it just cannot be told apart.
 */

const UUID_V7 = /^([0-9a-f]{8})-([0-9a-f]{4})-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;

/** A fresh UUIDv7 for `now` (epoch ms): 48 bits of time, version 7, variant 10, 74 random bits. */
export function newRequestId(now: number = Date.now(), random: (size: number) => Uint8Array = randomBytes): string {
  const bytes = Buffer.from(random(16));
  bytes.writeUIntBE(Math.max(0, Math.floor(now)) % 2 ** 48, 0, 6);
  bytes[6] = 0x70 | (bytes[6]! & 0x0f);
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The epoch ms a UUIDv7 id was made at, or undefined for any other id. */
export function requestIdTime(id: string): number | undefined {
  const match = UUID_V7.exec(id);
  return match ? parseInt(`${match[1]}${match[2]}`, 16) : undefined;
}
