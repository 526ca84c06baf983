import {
  ALL_BUCKETS,
  effectiveBucket,
  isBucketConfigActiveAt,
  isBucketFailedOutAt,
  isFailedOutAt,
  redirectWeight,
} from '../../../lib/d2/codecs/failout';
import type { FailoutBucketConfig, FailoutProperties } from '../../../lib/d2/model';

// The rules over the typed model that the runtime, the worker's peer check and the CLI share.

function propsWith(...buckets: FailoutBucketConfig[]): FailoutProperties {
  return { redirects: [{ peer: 'p1' }], ignoredRedirectEntries: 0, buckets };
}

describe('failout rules over the typed model', () => {
  const start = 1_000_000;
  const end = 2_000_000;

  it.each<[string, FailoutBucketConfig, number, boolean]>([
    ['before a scheduled start', { offlineAt: start, onlineAt: end }, start - 1, false],
    ['at the scheduled start', { offlineAt: start, onlineAt: end }, start, true],
    ['one millisecond before the scheduled end', { offlineAt: start, onlineAt: end }, end - 1, true],
    ['at the scheduled end', { offlineAt: start, onlineAt: end }, end, false],
    ['long after a start with no end', { offlineAt: start }, start + 1e12, true],
    ['at epoch 0 for an entry without offlineAt (offline since always)', {}, 0, true],
    ['before the end of an entry without offlineAt', { onlineAt: end }, end - 1, true],
  ])('an entry is active %s', (_name, bucket, now, expected) => {
    // Act
    const active = isBucketConfigActiveAt(bucket, now);

    // Assess
    expect(active).toBe(expected);
  });

  it.each<[string, FailoutProperties | null | undefined, boolean]>([
    ['no failout (null)', null, false],
    ['an unknown cluster (undefined)', undefined, false],
    ['two empty lists (present, never failed out)', propsWith(), false],
    ['one active entry among ended ones', propsWith({ offlineAt: 1, onlineAt: 2 }, { offlineAt: 5 }), true],
    ['only ended entries', propsWith({ offlineAt: 1, onlineAt: 2 }, { offlineAt: 3, onlineAt: 4 }), false],
  ])('isFailedOutAt is %s → %p', (_name, props, expected) => {
    // Act
    const failedOut = isFailedOutAt(props, 10);

    // Assess
    expect(failedOut).toBe(expected);
  });

  it('isBucketFailedOutAt covers exactly the active entries\' ranges, all buckets by default', () => {
    // Prepare
    const props = propsWith({ bucketOfflineRange: { from: 0, to: 9 } }, { bucketOfflineRange: { from: 50, to: 59 }, offlineAt: 100 });

    // Act
    const early = [0, 9, 10, 50].map((b) => isBucketFailedOutAt(props, b, 50));
    const late = [0, 9, 10, 50, 59, 60].map((b) => isBucketFailedOutAt(props, b, 100));
    const everything = [0, 42, 99].map((b) => isBucketFailedOutAt(propsWith({}), b, 0));

    // Assess
    expect(early).toEqual([true, true, false, false]);
    expect(late).toEqual([true, true, false, true, true, false]);
    expect(everything).toEqual([true, true, true]);
    expect(isBucketFailedOutAt(null, 0, 0)).toBe(false);
  });

  it('applies the documented defaults: partition main, all buckets, offline since 0, no end, weight 1', () => {
    // Act
    const bucket = effectiveBucket({});
    const weight = redirectWeight({ peer: 'p1' });

    // Assess
    expect(bucket).toEqual({ partition: 'main', range: ALL_BUCKETS, offlineAt: 0, onlineAt: undefined });
    expect(weight).toBe(1);
  });

  it('keeps the values an entry gives, without the range\'s unknown keys', () => {
    // Act
    const bucket = effectiveBucket({ partition: 'p', bucketOfflineRange: { from: 3, to: 4, extra: { note: 'x' } }, offlineAt: 7, onlineAt: 9 });

    // Assess
    expect(bucket).toEqual({ partition: 'p', range: { from: 3, to: 4 }, offlineAt: 7, onlineAt: 9 });
    expect(redirectWeight({ peer: 'p1', weight: 3 })).toBe(3);
  });
});
