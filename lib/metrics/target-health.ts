/**
 * The health of each target cluster of a service, from successive scrapes of its D2 clients'
 * request metrics (`request-metrics.ts`): requests per second, the share that failed (5xx or no
 * response) and the p99 time to headers, each over the time between two scrapes, or with a window
 * from the oldest scrape inside it (steadier numbers for a display that must not change every second).
 * Several instances of one service are summed before the scrape is given here. A counter that went
 * down (a restart) counts from zero, as {@link RateSeries} does.
 */
import type { PromSample } from './prometheus';
import { D2_REQUEST_SECONDS_METRIC, D2_REQUESTS_METRIC, FAILED_OUTCOMES } from './request-metrics';

/** One target cluster's health over the last interval. */
export interface TargetHealth {
  /** Requests per second. */
  readonly rps: number;
  /** Percentage of the interval's requests that failed; undefined with no request. */
  readonly errorPct: number | undefined;
  /** p99 time to headers in ms (histogram estimate); undefined with no timed request. */
  readonly p99Ms: number | undefined;
}

/** One scrape's cumulative counts of one target. */
interface TargetTotals {
  requests: number;
  failed: number;
  /** Cumulative histogram buckets by upper bound (`+Inf` as Infinity). */
  readonly buckets: Map<number, number>;
}

/** The request metrics' totals by target cluster in one scrape (instances already summed or not: both add up). */
export function requestTotals(samples: readonly PromSample[]): Map<string, TargetTotals> {
  const byTarget = new Map<string, TargetTotals>();
  const of = (cluster: string): TargetTotals => {
    let totals = byTarget.get(cluster);
    if (totals === undefined) byTarget.set(cluster, (totals = { requests: 0, failed: 0, buckets: new Map() }));
    return totals;
  };
  for (const s of samples) {
    const cluster = s.labels.cluster;
    if (cluster === undefined) continue;
    if (s.name === D2_REQUESTS_METRIC) {
      const totals = of(cluster);
      totals.requests += s.value;
      if (FAILED_OUTCOMES.has(s.labels.outcome ?? '')) totals.failed += s.value;
    } else if (s.name === `${D2_REQUEST_SECONDS_METRIC}_bucket` && s.labels.le !== undefined) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      if (Number.isNaN(le)) continue;
      const buckets = of(cluster).buckets;
      buckets.set(le, (buckets.get(le) ?? 0) + s.value);
    }
  }
  return byTarget;
}

/**
 * The q-quantile of the observations counted in cumulative `buckets` (by upper bound), interpolated
 * linearly inside the bucket it falls in, as Prometheus's `histogram_quantile`; the last finite bound
 * when it falls in `+Inf`. Undefined with no observation.
 */
export function histogramQuantile(q: number, buckets: ReadonlyMap<number, number>): number | undefined {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = bounds.length === 0 ? 0 : buckets.get(bounds[bounds.length - 1]!)!;
  if (!(total > 0)) return undefined;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const bound of bounds) {
    const count = buckets.get(bound)!;
    if (count >= rank) {
      if (bound === Infinity) return lower;
      const inBucket = count - below;
      return inBucket <= 0 ? bound : lower + ((bound - lower) * (rank - below)) / inBucket;
    }
    lower = bound;
    below = count;
  }
  return lower;
}

/** A counter's increase from `before` to `after`; a decrease is a restart (counts from zero). */
function increase(before: number | undefined, after: number): number {
  return before === undefined || after < before ? after : after - before;
}

/** Options of {@link TargetHealthSeries}. */
export interface TargetHealthOptions {
  /**
   * Measure from the oldest scrape at most this long before the new one (its previous one at least);
   * default 0: from the previous scrape.
   */
  readonly windowMs?: number;
}

/** Successive scrapes of one service → each target's health over the last interval (or window). */
export class TargetHealthSeries {
  /** The scrapes kept, oldest first: the previous one, and those inside the window. */
  private kept: { at: number; totals: Map<string, TargetTotals> }[] = [];
  private latestValue: ReadonlyMap<string, TargetHealth> = new Map();

  constructor(private readonly options: TargetHealthOptions = {}) {}

  /** Adds a scrape taken at `at` (epoch ms); returns the health over the interval, if there was one. */
  add(at: number, samples: readonly PromSample[]): ReadonlyMap<string, TargetHealth> | undefined {
    const totals = requestTotals(samples);
    const last = this.kept[this.kept.length - 1];
    if (last === undefined || at <= last.at) {
      // The first scrape, or the clock went back: start over from this one.
      this.kept = [{ at, totals }];
      return undefined;
    }
    // Measure from the oldest scrape inside the window; with none inside it, from the previous one.
    const since = at - (this.options.windowMs ?? 0);
    while (this.kept.length > 1 && this.kept[0]!.at < since) this.kept.shift();
    const previous = this.kept[0]!;
    this.kept.push({ at, totals });
    const seconds = (at - previous.at) / 1000;
    const health = new Map<string, TargetHealth>();
    for (const [cluster, now] of totals) {
      const before = previous.totals.get(cluster);
      const requests = increase(before?.requests, now.requests);
      const failed = increase(before?.failed, now.failed);
      const buckets = new Map<number, number>();
      for (const [le, count] of now.buckets) buckets.set(le, increase(before?.buckets.get(le), count));
      const p99 = histogramQuantile(0.99, buckets);
      health.set(cluster, {
        rps: Math.round((requests / seconds) * 10) / 10,
        errorPct: requests > 0 ? Math.round((failed / requests) * 1000) / 10 : undefined,
        p99Ms: p99 === undefined ? undefined : Math.round(p99 * 10_000) / 10,
      });
    }
    this.latestValue = health;
    return health;
  }

  /** The health over the last interval (empty before two scrapes). */
  latest(): ReadonlyMap<string, TargetHealth> {
    return this.latestValue;
  }

  /** Forgets the last scrape (the source was unreachable): the next one starts a new interval. */
  gap(): void {
    this.kept = [];
  }
}
