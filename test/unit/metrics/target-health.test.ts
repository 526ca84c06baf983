import fc from 'fast-check';
import { histogramQuantile, REQUEST_SECONDS_BUCKETS, TargetHealthSeries, outcomeOf, type PromSample } from '../../../lib/metrics';

// Issue 24, health per target: the p99 estimate from histogram buckets, and each target's rate, error
// share and p99 over the interval between two scrapes of a service's D2 request metrics.

/** Cumulative buckets (as Prometheus exposes them) of `values` over `bounds` and +Inf. */
function cumulative(values: readonly number[], bounds: readonly number[]): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const bound of [...bounds, Infinity]) buckets.set(bound, values.filter((v) => v <= bound).length);
  return buckets;
}

/** The samples of one scrape: per cluster, counts by outcome and the latencies' histogram. */
function scrape(targets: Record<string, { outcomes: Record<string, number>; seconds: readonly number[] }>): PromSample[] {
  const samples: PromSample[] = [];
  for (const [cluster, t] of Object.entries(targets)) {
    for (const [outcome, value] of Object.entries(t.outcomes)) samples.push({ name: 'd2_client_requests_total', labels: { cluster, outcome }, value });
    for (const [le, value] of cumulative(t.seconds, REQUEST_SECONDS_BUCKETS)) {
      samples.push({ name: 'd2_client_request_duration_seconds_bucket', labels: { cluster, le: le === Infinity ? '+Inf' : String(le) }, value });
    }
  }
  return samples;
}

describe('histogramQuantile', () => {
  it('lands in the bucket that holds the true quantile (bounded by the last finite bound)', () => {
    fc.assert(
      fc.property(fc.array(fc.double({ min: 0, max: 20, noNaN: true }), { minLength: 1, maxLength: 400 }), fc.constantFrom(0.5, 0.9, 0.99), (values, q) => {
        const sorted = [...values].sort((a, b) => a - b);
        const truth = sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)]!;
        const estimate = histogramQuantile(q, cumulative(values, REQUEST_SECONDS_BUCKETS))!;
        const bounds = [0, ...REQUEST_SECONDS_BUCKETS];
        const upper = REQUEST_SECONDS_BUCKETS.find((b) => truth <= b);
        if (upper === undefined) return estimate === REQUEST_SECONDS_BUCKETS[REQUEST_SECONDS_BUCKETS.length - 1];
        const lower = bounds[bounds.indexOf(upper) - 1]!;
        return estimate >= lower && estimate <= upper;
      }),
    );
  });

  it('is undefined without observations', () => {
    expect(histogramQuantile(0.99, new Map())).toBeUndefined();
    expect(histogramQuantile(0.99, cumulative([], [0.1, 1]))).toBeUndefined();
  });

  it('interpolates inside the bucket, as Prometheus does', () => {
    // 100 observations, all in (0.1, 0.25]: p50 half-way
    expect(histogramQuantile(0.5, new Map([[0.1, 0], [0.25, 100], [Infinity, 100]]))).toBeCloseTo(0.175);
  });
});

describe('outcomeOf', () => {
  it.each([
    [200, '2xx'],
    [204, '2xx'],
    [302, '3xx'],
    [404, '4xx'],
    [500, '5xx'],
    [503, '5xx'],
    [101, '1xx'],
  ])('%i is %s', (status, outcome) => expect(outcomeOf(status)).toBe(outcome));
});

describe('TargetHealthSeries', () => {
  it('gives each target its rate, failed share (5xx and no response) and p99 over the interval', () => {
    // Prepare
    const series = new TargetHealthSeries();
    const before = scrape({ 'greetings-lva1': { outcomes: { '2xx': 100 }, seconds: Array(100).fill(0.004) } });
    const slow = [...Array(90).fill(0.004), ...Array(10).fill(0.4)];
    const after = scrape({
      'greetings-lva1': { outcomes: { '2xx': 190, '5xx': 5, error: 5 }, seconds: [...Array(100).fill(0.004), ...slow] },
      'greetings-ltx1': { outcomes: { '2xx': 50 }, seconds: Array(50).fill(0.02) },
    });

    // Act
    const first = series.add(1_000, before);
    const health = series.add(3_000, after);

    // Assess: the interval's 100 requests to lva1 over 2 s, 10 % failed, p99 among the slow tenth
    expect(first).toBeUndefined();
    expect(health?.get('greetings-lva1')).toEqual({ rps: 50, errorPct: 10, p99Ms: expect.any(Number) as number });
    expect(health?.get('greetings-lva1')?.p99Ms).toBeGreaterThan(250);
    expect(health?.get('greetings-lva1')?.p99Ms).toBeLessThanOrEqual(500);
    expect(health?.get('greetings-ltx1')).toMatchObject({ rps: 25, errorPct: 0 });
    expect(series.latest()).toBe(health);
  });

  it('counts from zero after a restart, says nothing of a target without requests, and starts over after a gap', () => {
    // Prepare
    const series = new TargetHealthSeries();
    series.add(0, scrape({ a: { outcomes: { '2xx': 1000 }, seconds: [] }, idle: { outcomes: { '2xx': 7 }, seconds: [] } }));

    // Act: the service restarted (a counter went down); then a scrape failed (gap)
    const restarted = series.add(1_000, scrape({ a: { outcomes: { '2xx': 10 }, seconds: [] }, idle: { outcomes: { '2xx': 7 }, seconds: [] } }));
    series.gap();
    const afterGap = series.add(2_000, scrape({ a: { outcomes: { '2xx': 20 }, seconds: [] } }));

    // Assess
    expect(restarted?.get('a')).toEqual({ rps: 10, errorPct: 0, p99Ms: undefined });
    expect(restarted?.get('idle')).toEqual({ rps: 0, errorPct: undefined, p99Ms: undefined });
    expect(afterGap).toBeUndefined();
  });

  it('with a window, measures from the oldest scrape inside it, so one quiet second does not swing the numbers', () => {
    // Prepare: 10 requests/s to a for 4 s, one of them failing each second; scrapes every second
    const series = new TargetHealthSeries({ windowMs: 3_000 });
    const at = (second: number): PromSample[] => scrape({ a: { outcomes: { '2xx': 9 * second, '5xx': second }, seconds: Array(10 * second).fill(0.004) } });

    // Act
    const results = [0, 1, 2, 3, 4].map((second) => series.add(second * 1000, at(second)));

    // Assess: the interval grows to the window, then slides (from second 1 at second 4)
    expect(results[0]).toBeUndefined();
    expect(results[1]?.get('a')).toMatchObject({ rps: 10, errorPct: 10 });
    expect(results[4]?.get('a')).toMatchObject({ rps: 10, errorPct: 10 });
    // A restart inside the window counts from zero, as without one
    const restarted = series.add(5_000, scrape({ a: { outcomes: { '2xx': 3 }, seconds: [] } }));
    expect(restarted?.get('a')).toMatchObject({ rps: 1, errorPct: 0 });
  });
});
