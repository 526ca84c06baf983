import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout';
import { parseChangeRequest, type ChangeRequest } from '../../../lib/requests';
import { applyRequest, type PeerState } from '../../../lib/requests/apply-request';
import { MAX_RAMP_STEPS } from '../../../lib/requests/ramp';
import { failoutInput, HOUR, NOW } from '../../helpers/requests';

const MINUTE = 60_000;
const healthy: PeerState = { exists: true, hostCount: 3, failoutProperties: null };
const RAMP = [
  { percent: 10, duration: 'PT5M' },
  { percent: 50, duration: 'PT10M' },
  { percent: 100 },
];

function accepted(body: object): ChangeRequest {
  const result = parseChangeRequest(JSON.stringify(body), { now: NOW });
  if (!result.ok) throw new Error(`rejected: ${result.rejection.reason}: ${result.rejection.message}`);
  return result.request;
}

function rejected(body: object) {
  const result = parseChangeRequest(JSON.stringify(body), { now: NOW });
  if (result.ok) throw new Error('accepted');
  return result.rejection;
}

/** The failout properties a request writes, read back as every client reads them. */
function written(request: ChangeRequest) {
  const result = applyRequest(parseClusterProperties({ clusterName: 'greetings-lor1' }), request, { now: NOW, peers: () => healthy });
  if (!result.ok) throw new Error(result.rejection.message);
  return parseClusterProperties(serializeClusterProperties(result.props)).failoutProperties;
}

/** Percentage of the 100 buckets a client redirects at `at`. */
function sharedAt(request: ChangeRequest, at: number): number {
  const config = createFailoutConfig('greetings-lor1', written(request));
  if (config === undefined) throw new Error('no failout config');
  let moved = 0;
  for (let bucket = 0; bucket < 100; bucket++) if (config.isBucketFailedOut(bucket, at)) moved++;
  return moved;
}

describe('ramp: parsing', () => {
  it('normalises the steps into disjoint bucket ranges with staggered starts', () => {
    const request = accepted(failoutInput({ ramp: RAMP }));
    expect(request.action === 'failout' && request.ramp).toEqual([
      { percent: 10, offlineAt: NOW, buckets: { from: 0, to: 9 } },
      { percent: 50, offlineAt: NOW + 5 * MINUTE, buckets: { from: 10, to: 49 } },
      { percent: 100, offlineAt: NOW + 15 * MINUTE, buckets: { from: 50, to: 99 } },
    ]);
  });

  it('ramps within the given bucket range, from an explicit start', () => {
    const start = NOW + HOUR;
    const request = accepted(failoutInput({ offlineAt: start, duration: undefined, onlineAt: start + HOUR, buckets: { from: 20, to: 39 }, ramp: [{ percent: 25, duration: 'PT1M' }, { percent: 100 }] }));
    expect(request.action === 'failout' && request.ramp).toEqual([
      { percent: 25, offlineAt: start, buckets: { from: 20, to: 24 } },
      { percent: 100, offlineAt: start + MINUTE, buckets: { from: 25, to: 39 } },
    ]);
  });

  it('leaves a request without a ramp as it was (no ramp key)', () => {
    expect(accepted(failoutInput())).not.toHaveProperty('ramp');
  });

  it.each([
    ['percentages not increasing', [{ percent: 50, duration: 'PT5M' }, { percent: 50, duration: 'PT5M' }, { percent: 100 }], /ramp\[1\]\.percent: 50% does not increase/],
    ['percentages going down', [{ percent: 60, duration: 'PT5M' }, { percent: 30, duration: 'PT5M' }, { percent: 100 }], /ramp\[1\]\.percent: 30% does not increase/],
    ['not ending at 100', [{ percent: 10, duration: 'PT5M' }, { percent: 90 }], /ramp\[1\]\.percent: the last step must be 100%/],
    ['a step without a duration', [{ percent: 10 }, { percent: 100 }], /ramp\[0\]\.duration: missing/],
    ['a step with a zero duration', [{ percent: 10, duration: 'PT0S' }, { percent: 100 }], /ramp\[0\]\.duration: "PT0S" is not/],
    ['a step with a nonsense duration', [{ percent: 10, duration: 'soon' }, { percent: 100 }], /ramp\[0\]\.duration: "soon" is not/],
    ['a duration on the last step', [{ percent: 10, duration: 'PT5M' }, { percent: 100, duration: 'PT5M' }], /ramp\[1\]\.duration: the last step holds until the window ends/],
    ['steps overrunning the window', [{ percent: 10, duration: 'PT1H' }, { percent: 50, duration: 'PT1H' }, { percent: 100 }], /ramp: its steps take until .* not before the window ends/],
    ['steps filling the window exactly', [{ percent: 50, duration: 'PT2H' }, { percent: 100 }], /not before the window ends/],
    [
      'too many steps',
      [...Array.from({ length: MAX_RAMP_STEPS }, (_, i) => ({ percent: i + 1, duration: 'PT1M' })), { percent: 100 }],
      new RegExp(`ramp: ${MAX_RAMP_STEPS + 1} steps given; at most ${MAX_RAMP_STEPS}`),
    ],
  ])('rejects %s as badRamp, naming the step', (_name, ramp, message) => {
    const rejection = rejected(failoutInput({ ramp }));
    expect(rejection.reason).toBe('badRamp');
    expect(rejection.message).toMatch(message);
  });

  it('rejects a step that adds no bucket of a narrow range', () => {
    const rejection = rejected(failoutInput({ buckets: { from: 0, to: 2 }, ramp: [{ percent: 10, duration: 'PT1M' }, { percent: 20, duration: 'PT1M' }, { percent: 100 }] }));
    expect(rejection).toMatchObject({ reason: 'badRamp', message: expect.stringMatching(/ramp\[1\]\.percent: 20% of buckets 0-2 \(3\) adds no bucket to 10%/) });
  });

  it.each([
    ['an empty ramp', []],
    ['a percentage above 100', [{ percent: 101 }]],
    ['a percentage of 0', [{ percent: 0, duration: 'PT1M' }, { percent: 100 }]],
    ['a fractional percentage', [{ percent: 12.5, duration: 'PT1M' }, { percent: 100 }]],
    ['an unknown key in a step', [{ percent: 100, share: 1 }]],
    ['a ramp that is no list', '10%:5m,100%'],
  ])('rejects %s as badSchema', (_name, ramp) => {
    const rejection = rejected(failoutInput({ ramp }));
    expect(rejection.reason).toBe('badSchema');
    expect(rejection.message).toMatch(/^ramp/);
  });
});

describe('ramp: one write that every client evaluates', () => {
  it('writes one bucket config per step, all ending at the window end', () => {
    const request = accepted(failoutInput({ requestId: 'ramp-1', ramp: RAMP }));
    const buckets = written(request)?.buckets;
    expect(buckets?.map((b) => [b.bucketOfflineRange, b.offlineAt, b.onlineAt, b.requestId])).toEqual([
      [{ from: 0, to: 9 }, NOW, NOW + 2 * HOUR, 'ramp-1'],
      [{ from: 10, to: 49 }, NOW + 5 * MINUTE, NOW + 2 * HOUR, 'ramp-1'],
      [{ from: 50, to: 99 }, NOW + 15 * MINUTE, NOW + 2 * HOUR, 'ramp-1'],
    ]);
  });

  it('moves 10 % now, 50 % after 5 minutes, all after 15, none after the end (createFailoutConfig)', () => {
    const request = accepted(failoutInput({ ramp: RAMP }));
    expect(sharedAt(request, NOW - 1)).toBe(0);
    expect(sharedAt(request, NOW)).toBe(10);
    expect(sharedAt(request, NOW + 5 * MINUTE - 1)).toBe(10);
    expect(sharedAt(request, NOW + 5 * MINUTE)).toBe(50);
    expect(sharedAt(request, NOW + 15 * MINUTE - 1)).toBe(50);
    expect(sharedAt(request, NOW + 15 * MINUTE)).toBe(100);
    expect(sharedAt(request, NOW + 2 * HOUR - 1)).toBe(100);
    expect(sharedAt(request, NOW + 2 * HOUR)).toBe(0);
  });

  it('moves the percentages of a --share range, never a bucket outside it', () => {
    const request = accepted(failoutInput({ buckets: { from: 0, to: 49 }, ramp: [{ percent: 20, duration: 'PT5M' }, { percent: 100 }] }));
    expect(sharedAt(request, NOW)).toBe(10);
    expect(sharedAt(request, NOW + 5 * MINUTE)).toBe(50);
    const config = createFailoutConfig('greetings-lor1', written(request));
    expect(config?.isBucketFailedOut(50, NOW + 5 * MINUTE)).toBe(false);
  });
});
