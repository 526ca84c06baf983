import { parseRamp } from '../../../lib/operator/inputs';
import { describeCluster, OperatorError, formatClusterStatus, validateLocally, buildFailoutBody } from '../../../lib/operator';
/**
 * Issue 16, ramps in the CLI: `--ramp 10%:5m,50%:10m,100%` becomes the body's `ramp`, the worker's
 * rules refuse a bad one before anything is sent, and `failout status` shows the current step and
 * when the next starts.
 */

const NOW = Date.parse('2026-11-30T16:00:00Z');
const MINUTE = 60_000;
const CONTEXT = { requestId: '0195d5a8-7c00-7000-8000-000000000000', now: NOW, requestedBy: 'oncall@host' };

function usage(act: () => unknown): OperatorError {
  try {
    act();
  } catch (err) {
    if (err instanceof OperatorError) return err;
    throw err;
  }
  throw new Error('no usage error');
}

describe('--ramp', () => {
  it('reads cumulative percentages with the time each step holds, as ISO-8601', () => {
    expect(parseRamp('10%:5m,50%:10m,100%')).toEqual([
      { percent: 10, duration: 'PT5M' },
      { percent: 50, duration: 'PT10M' },
      { percent: 100 },
    ]);
    expect(parseRamp(' 25:1h30m , 100 ')).toEqual([{ percent: 25, duration: 'PT1H30M' }, { percent: 100 }]);
  });

  it.each([
    ['a step that is no percentage', 'ten%:5m,100%', /"ten%:5m" is not <pct>%\[:<duration>\]/],
    ['an empty step', '10%:5m,,100%', /"" is not <pct>%/],
    ['a bad duration', '10%:soon,100%', /--ramp "soon" is not a duration/],
    ['a zero duration', '10%:0m,100%', /--ramp must be longer than zero/],
  ])('refuses %s as a usage error naming the flag', (_name, text, message) => {
    expect(usage(() => parseRamp(text)).message).toMatch(message);
  });

  it('sends the ramp with the window and the range it ramps within', () => {
    const body = buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], for: '2h', share: '50', ramp: '20%:5m,100%' }, CONTEXT);
    expect(body).toMatchObject({ duration: 'PT2H', buckets: { from: 0, to: 49 }, ramp: [{ percent: 20, duration: 'PT5M' }, { percent: 100 }] });
    const request = validateLocally(body, NOW, {});
    expect(request.action === 'failout' && request.ramp?.map((s) => s.buckets)).toEqual([
      { from: 0, to: 9 },
      { from: 10, to: 49 },
    ]);
  });

  it.each([
    ['not ending at 100', '10%:5m,50%', /badRamp.*the last step must be 100%/],
    ['not increasing', '50%:5m,10%:5m,100%', /badRamp.*10% does not increase/],
    ['longer than the window', '10%:1h,50%:1h,100%', /badRamp.*not before the window ends/],
  ])('refuses a ramp %s before sending, with the worker reason', (_name, ramp, message) => {
    const body = buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], for: '2h', ramp }, CONTEXT);
    expect(usage(() => validateLocally(body, NOW, {})).message).toMatch(message);
  });
});

describe('failout status of a ramp', () => {
  const end = NOW + 120 * MINUTE;
  const window = (from: number, to: number, offlineAt: number) => ({ partition: 'main', bucketOfflineRange: { from, to }, offlineAt, onlineAt: end, requestId: 'r-ramp' });
  const text = JSON.stringify({
    clusterName: 'greetings-lor1',
    failoutProperties: {
      failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 1 }],
      failoutBucketConfigs: [window(0, 9, NOW), window(10, 49, NOW + 5 * MINUTE), window(50, 99, NOW + 15 * MINUTE)],
    },
  });

  // The steps as the operator typed them (10 → 50 → 100 %), whatever the moment (issue 24: not the increments).
  const scheduled = [
    { at: new Date(NOW).toISOString(), sharePct: 10 },
    { at: new Date(NOW + 5 * MINUTE).toISOString(), sharePct: 50 },
    { at: new Date(NOW + 15 * MINUTE).toISOString(), sharePct: 100 },
  ];

  it.each([
    [NOW - MINUTE, { step: 0, steps: 3, sharePct: 0, nextAt: new Date(NOW).toISOString(), nextSharePct: 10, scheduled }],
    [NOW + MINUTE, { step: 1, steps: 3, sharePct: 10, nextAt: new Date(NOW + 5 * MINUTE).toISOString(), nextSharePct: 50, scheduled }],
    [NOW + 6 * MINUTE, { step: 2, steps: 3, sharePct: 50, nextAt: new Date(NOW + 15 * MINUTE).toISOString(), nextSharePct: 100, scheduled }],
    [NOW + 20 * MINUTE, { step: 3, steps: 3, sharePct: 100, nextAt: null, nextSharePct: null, scheduled }],
  ])('at %d shows the current step and the next', (at, ramp) => {
    expect(describeCluster('greetings-lor1', text, at).ramp).toEqual(ramp);
  });

  it('says the step and when the next starts in text', () => {
    const status = describeCluster('greetings-lor1', text, NOW + MINUTE);
    expect(formatClusterStatus(status, NOW + MINUTE)).toContain(
      `  ramp     step 1 of 3: 10% of traffic moved; next 50% at ${new Date(NOW + 5 * MINUTE).toISOString()} (in 4m)`,
    );
    const last = describeCluster('greetings-lor1', text, NOW + 20 * MINUTE);
    expect(formatClusterStatus(last, NOW + 20 * MINUTE)).toContain('  ramp     step 3 of 3: 100% of traffic moved (last step)');
  });

  it('shows no ramp once the window ended, nor for a failout whose windows start together', () => {
    expect(describeCluster('greetings-lor1', text, end)).not.toHaveProperty('ramp');
    const plain = JSON.stringify({ clusterName: 'c', failoutProperties: { failoutRedirectConfigs: [{ peer: 'p' }], failoutBucketConfigs: [window(0, 99, NOW)] } });
    expect(describeCluster('c', plain, NOW + MINUTE)).not.toHaveProperty('ramp');
  });
});
