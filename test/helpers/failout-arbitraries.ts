import fc from 'fast-check';
import type { FailoutBucketConfig, FailoutBucketRange, FailoutProperties, FailoutRedirectConfig, UnknownKeys } from '../../lib/d2';
import { znodeNameProblem } from '../../lib/d2/names';

// fast-check arbitraries of the typed failoutProperties model (lib/d2/codecs/failout.ts): every value
// they produce is valid, so the codec must write it and read it back equal.

/** A JSON value as JSON keeps it (through JSON once, so -0 becomes 0). */
const jsonValue = fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);

/**
 * Unknown keys of one object, never `{}` (the reader leaves `extra` out when there are none), never a
 * key the codec interprets at that level. Includes keys that collide with Object.prototype members.
 */
function extraOf(known: readonly string[]): fc.Arbitrary<UnknownKeys> {
  const key = fc.oneof(fc.stringMatching(/^x[A-Za-z0-9]{0,8}$/), fc.constantFrom('constructor', 'toString', 'hasOwnProperty')).filter((k) => !known.includes(k));
  return fc.uniqueArray(fc.tuple(key, jsonValue), { minLength: 1, maxLength: 3, selector: ([k]) => k }).map((entries) => Object.fromEntries(entries));
}

/** Text as operators write it, any Unicode included. */
const text = fc.string({ unit: 'grapheme', maxLength: 20 });
const name = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 20 });
/** A peer: any Unicode ZooKeeper can hold as a znode name (the codec refuses a peer it cannot, issue 14). */
const peerName = name.filter((n) => znodeNameProblem(n) === undefined);
const epochMs = fc.integer({ min: 0, max: 4_102_444_800_000 });

/** A redirect entry without its peer (peers are drawn unique per list). */
const redirectRest = fc.record(
  {
    peerKey: fc.constantFrom('fabric' as const, 'both' as const),
    weight: fc.integer({ min: 1, max: 1_000_000 }),
    extra: extraOf(['peer', 'fabric', 'weight']),
  },
  { requiredKeys: [] },
);

const range: fc.Arbitrary<FailoutBucketRange> = fc
  .record(
    { a: fc.integer({ min: 0, max: 99 }), b: fc.integer({ min: 0, max: 99 }), extra: fc.option(extraOf(['from', 'to']), { nil: undefined }) },
    { requiredKeys: ['a', 'b'] },
  )
  .map(({ a, b, extra }) => (extra === undefined ? { from: Math.min(a, b), to: Math.max(a, b) } : { from: Math.min(a, b), to: Math.max(a, b), extra }));

/** A bucket entry: every key optional, `onlineAt` later than the effective `offlineAt`. */
export const failoutBucketArbitrary: fc.Arbitrary<FailoutBucketConfig> = fc
  .record(
    {
      partition: name,
      bucketOfflineRange: range,
      offlineAt: epochMs,
      length: fc.integer({ min: 1, max: 7 * 24 * 3_600_000 }),
      hasEnd: fc.boolean(),
      requestId: text,
      requestedBy: text,
      reason: text,
      stopAlarms: fc.array(name, { maxLength: 3 }),
      drill: text,
      extra: extraOf(['partition', 'bucketOfflineRange', 'offlineAt', 'onlineAt', 'requestId', 'requestedBy', 'reason', 'stopAlarms', 'drill']),
    },
    { requiredKeys: ['length', 'hasEnd'] },
  )
  .map(({ length, hasEnd, ...bucket }) => (hasEnd ? { ...bucket, onlineAt: (bucket.offlineAt ?? 0) + length } : bucket));

/** A valid typed `failoutProperties`: unique peers, valid windows, unknown keys at every level. */
export const failoutPropertiesArbitrary: fc.Arbitrary<FailoutProperties> = fc
  .record(
    {
      redirects: fc.uniqueArray(fc.tuple(peerName, redirectRest), { maxLength: 4, selector: ([peer]) => peer }),
      ignoredRedirectEntries: fc.nat({ max: 2 }),
      buckets: fc.array(failoutBucketArbitrary, { maxLength: 3 }),
      extra: extraOf(['failoutRedirectConfigs', 'failoutBucketConfigs']),
    },
    { requiredKeys: ['redirects', 'ignoredRedirectEntries', 'buckets'] },
  )
  .map(({ redirects, ...rest }) => ({ ...rest, redirects: redirects.map(([peer, r]): FailoutRedirectConfig => ({ peer, ...r })) }));
