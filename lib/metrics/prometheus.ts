/**
 * Requests per second by target cluster, from the Prometheus text the services expose. Two counters
 * count requests by where they went:
 * - `failout_client_redirected_total{cluster, peer}` (FailoutClient, every service that uses it): the
 *   requests of a failed-out `cluster` sent to `peer`;
 * - a counter of every request by the cluster it went to, label `cluster` (the `trafficMetric`
 *   option; the local stack's traffic generator exports `failout_local_requests_total`). When a
 *   service exports it, it alone is charted (it already counts the redirected requests by target);
 *   without it the chart shows the moved traffic only.
 * Several URLs of one service (instances) are summed. A counter that goes down (a restart) restarts
 * its rate from the new value instead of showing a negative one.
 */

/** One sample line of the text format: name, labels, value. */
export interface PromSample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+\S+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*=\s*"((?:[^"\\]|\\.)*)"\s*,?/gy;

/**
 * Parses the Prometheus text exposition format (version 0.0.4): sample lines only; comments, blank
 * lines and lines that do not parse are skipped (a scrape is best effort: one odd line must not hide
 * the rest).
 */
export function parsePrometheusText(text: string): PromSample[] {
  const samples: PromSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (!match) continue;
    const value = Number(match[4]);
    if (Number.isNaN(value)) continue;
    const labels: Record<string, string> = {};
    const body = match[3] ?? '';
    LABEL.lastIndex = 0;
    let ok = true;
    while (LABEL.lastIndex < body.length) {
      const label = LABEL.exec(body);
      if (!label) {
        ok = !/\S/.test(body.slice(LABEL.lastIndex));
        break;
      }
      labels[label[1]!] = label[2]!.replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
    }
    if (ok) samples.push({ name: match[1]!, labels, value });
  }
  return samples;
}

/** The redirect counter of FailoutClient (lib/failout/failout-client.ts). */
export const REDIRECTED_METRIC = 'failout_client_redirected_total';

/** Totals by target cluster in one scrape: the traffic counter when present, else the redirected requests by peer. */
export function totalsByTarget(samples: readonly PromSample[], trafficMetric: string | undefined): { readonly totals: Map<string, number>; readonly source: 'traffic' | 'redirected' | 'none' } {
  const traffic = trafficMetric === undefined ? [] : samples.filter((s) => s.name === trafficMetric && s.labels.cluster !== undefined);
  const [picked, label, source] = traffic.length > 0 ? ([traffic, 'cluster', 'traffic'] as const) : ([samples.filter((s) => s.name === REDIRECTED_METRIC), 'peer', 'redirected'] as const);
  const totals = new Map<string, number>();
  for (const s of picked) {
    const target = s.labels[label];
    if (target !== undefined) totals.set(target, (totals.get(target) ?? 0) + s.value);
  }
  return { totals, source: picked.length > 0 ? source : 'none' };
}

/** One point of a service's chart: time and requests/s per target cluster. */
export interface RatePoint {
  /** Epoch seconds (uPlot's x unit). */
  readonly t: number;
  readonly rates: Readonly<Record<string, number>>;
}

/**
 * Rates of one service from successive scrapes: each scrape's totals minus the previous one's, over
 * the time between them. Keeps the last `keep` points.
 */
export class RateSeries {
  private previous: { at: number; totals: Map<string, number> } | undefined;
  private readonly pointsValue: RatePoint[] = [];

  constructor(private readonly keep = 120) {}

  /** Adds a scrape's totals taken at `at` (epoch ms); returns the new point, if one could be made. */
  add(at: number, totals: ReadonlyMap<string, number>): RatePoint | undefined {
    const previous = this.previous;
    this.previous = { at, totals: new Map(totals) };
    if (!previous || at <= previous.at) return undefined;
    const seconds = (at - previous.at) / 1000;
    const rates: Record<string, number> = {};
    for (const [target, total] of totals) {
      const before = previous.totals.get(target) ?? 0;
      // A counter that went down was reset (a restart): count from zero.
      const delta = total >= before ? total - before : total;
      rates[target] = Math.round((delta / seconds) * 10) / 10;
    }
    const point = { t: Math.round(at / 100) / 10, rates };
    this.pointsValue.push(point);
    if (this.pointsValue.length > this.keep) this.pointsValue.shift();
    return point;
  }

  /** Forgets the last totals (the source was unreachable): the next scrape starts a new rate. */
  gap(): void {
    this.previous = undefined;
  }

  /** The points kept, oldest first. */
  points(): readonly RatePoint[] {
    return this.pointsValue;
  }
}
