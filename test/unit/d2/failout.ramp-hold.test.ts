/**
 * Issue 24: `failoutProperties.rampHold`, the steps of a held ramp. The codec reads and writes it with
 * the bucket rules (what the worker writes every reader accepts), keeps its unknown keys, and routes
 * on none of its entries.
 */
import { parseFailoutProperties, serializeFailoutProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const HELD = {
  failoutRedirectConfigs: [{ peer: 'greetings-lva1' }],
  failoutBucketConfigs: [{ bucketOfflineRange: { from: 0, to: 9 }, offlineAt: NOW, onlineAt: NOW + 7_200_000 }],
  rampHold: {
    heldAt: NOW + 60_000,
    failoutBucketConfigs: [{ bucketOfflineRange: { from: 10, to: 99 }, offlineAt: NOW + 300_000, onlineAt: NOW + 7_200_000, stopAlarms: ['a'] }],
    requestId: 'hold-1',
    requestedBy: 'oncall@example.com',
    note: { kept: true },
  },
};

describe('failout codec: rampHold', () => {
  it('reads a held ramp and writes it back as it was, unknown keys kept', () => {
    const props = parseFailoutProperties(HELD)!;
    expect(props.rampHold).toEqual({
      heldAt: NOW + 60_000,
      buckets: [{ bucketOfflineRange: { from: 10, to: 99 }, offlineAt: NOW + 300_000, onlineAt: NOW + 7_200_000, stopAlarms: ['a'] }],
      requestId: 'hold-1',
      requestedBy: 'oncall@example.com',
      extra: { note: { kept: true } },
    });
    expect(JSON.parse(serializeFailoutProperties(props))).toEqual(HELD);
  });

  it('routes on no held entry', () => {
    const config = createFailoutConfig('greetings-lor1', parseFailoutProperties(HELD));
    expect(config?.isBucketFailedOut(50, NOW + 3_600_000)).toBe(false);
    expect(config?.isBucketFailedOut(5, NOW + 3_600_000)).toBe(true);
  });

  it.each([
    ['no heldAt', { ...HELD.rampHold, heldAt: undefined }, /rampHold\.heldAt/],
    ['a held entry ending before it starts', { ...HELD.rampHold, failoutBucketConfigs: [{ offlineAt: NOW, onlineAt: NOW - 1 }] }, /rampHold\.failoutBucketConfigs\[0\]\.onlineAt/],
    ['a requestId that is no string', { ...HELD.rampHold, requestId: 7 }, /rampHold\.requestId/],
    ['a hold that is no object', 'held', /rampHold/],
  ])('refuses %s (malformed, naming the field)', (_name, rampHold, field) => {
    expect(() => parseFailoutProperties({ ...HELD, rampHold })).toThrow(field);
  });

  it('refuses to write a held entry a reader would refuse', () => {
    const props = parseFailoutProperties(HELD)!;
    props.rampHold!.buckets[0]!.onlineAt = 0;
    expect(() => serializeFailoutProperties(props)).toThrow(/rampHold\.failoutBucketConfigs\[0\]\.onlineAt/);
  });
});
