/**
 * Requests per second by target cluster from services' Prometheus text endpoints, measured once: two
 * scrapes of every endpoint a short interval apart (the CLI's dry run; the console keeps a running
 * rate with {@link RateSeries} instead). Only a counter of every request by target cluster (the
 * traffic metric) gives a cluster's load: FailoutClient's redirect counter counts the moved requests
 * only, so it cannot say how busy a peer already is.
 *
 * All or nothing: when an endpoint does not answer, has credentials in its URL or lacks the counter,
 * the rates would undercount some cluster, so there are none, and the warnings say why (the caller
 * falls back to host counts). Warnings and errors never carry a URL's credentials.
 */
import { parsePrometheusText, totalsByTarget } from './prometheus';

/** Timeout of one scrape. */
const SCRAPE_TIMEOUT_MS = 1500;

/** True when a URL carries a user name or password (never shown, never fetched). */
export function hasCredentials(url: URL): boolean {
  return url.username !== '' || url.password !== '';
}

/** A URL as it may be shown: credentials replaced by `***`; text that is not a URL is not shown. */
export function redactUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return '(not a URL)';
  }
  if (hasCredentials(url)) {
    url.username = '***';
    url.password = '';
  }
  return url.toString();
}

/** GET as text with a timeout; a non-2xx answer is an error naming the status. */
export async function readText(url: string, options: { readonly token?: string | undefined; readonly timeoutMs?: number } = {}): Promise<string> {
  const response = await fetch(url, { signal: AbortSignal.timeout(options.timeoutMs ?? SCRAPE_TIMEOUT_MS), headers: options.token === undefined ? {} : { authorization: `Bearer ${options.token}` } });
  if (!response.ok) throw new Error(`HTTP ${response.status}`);
  return response.text();
}

/** What {@link measureRates} measured. */
export interface MeasuredRates {
  /** Requests/s by target cluster, summed over every endpoint; undefined when they could not be measured. */
  readonly byCluster: ReadonlyMap<string, number> | undefined;
  /** For people: `2 scrapes of 3 endpoints, 1.0 s apart`. */
  readonly source: string;
  /** Why there are no rates (or what is odd), one line each, without credentials. */
  readonly warnings: readonly string[];
}

/** Options of {@link measureRates}. */
export interface MeasureRatesOptions {
  /** Prometheus text URLs by service name. */
  readonly urls: ReadonlyMap<string, readonly string[]>;
  /** The counter of every request by target cluster (label `cluster`); undefined: none is known. */
  readonly trafficMetric: string | undefined;
  /** Time between the two scrapes. Default 1 s. */
  readonly intervalMs?: number;
  /** Timeout of one scrape. Default 1.5 s. */
  readonly timeoutMs?: number;
}

/** One endpoint's counter totals by target, and when they were read. */
interface Reading {
  readonly at: number;
  readonly totals: ReadonlyMap<string, number>;
}

/**
 * Scrapes every URL twice, `intervalMs` apart, and returns each target cluster's requests/s: the
 * counter's increase over the time between an endpoint's two readings, summed over endpoints (several
 * instances and several calling services add up to the load a cluster serves). A counter that went
 * down (a restart) counts from zero, as the console does.
 */
export async function measureRates(options: MeasureRatesOptions): Promise<MeasuredRates> {
  const entries = [...options.urls].flatMap(([service, urls]) => urls.map((url) => ({ service, url })));
  const count = `${entries.length} endpoint${entries.length === 1 ? '' : 's'}`;
  const intervalMs = options.intervalMs ?? 1000;
  const source = `2 scrapes of ${count}, ${(intervalMs / 1000).toFixed(1)} s apart`;
  const none = (warnings: string[]): MeasuredRates => ({ byCluster: undefined, source, warnings });
  if (entries.length === 0) return none(['no metrics endpoints given']);
  if (options.trafficMetric === undefined) {
    return none(['no traffic metric: give --traffic-metric (or FAILOUT_TRAFFIC_METRIC), a counter of every request by target cluster (label cluster); the redirect counter alone cannot say how busy a peer is']);
  }
  const metric = options.trafficMetric;
  const shown = entries.map((e) => `${e.service}=${redactUrl(e.url)}`);
  const refused = entries.flatMap((e, i) => (credentialsIn(e.url) ? [`${shown[i]}: put no credentials in a metrics URL; it was not read`] : []));
  if (refused.length > 0) return none(refused);

  const readAll = (): Promise<(Reading | string)[]> =>
    Promise.all(
      entries.map(async (e, i): Promise<Reading | string> => {
        try {
          const text = await readText(e.url, { timeoutMs: options.timeoutMs ?? SCRAPE_TIMEOUT_MS });
          // Stamped on arrival: the first scrape also loads fetch and opens the connection, and on a
          // busy machine that wait, counted in, made the rate read low.
          const at = Date.now();
          const found = totalsByTarget(parsePrometheusText(text), metric);
          if (found.source !== 'traffic') return `${shown[i]}: no ${metric} samples with a cluster label`;
          return { at, totals: found.totals };
        } catch (err) {
          return `${shown[i]}: ${errorText(err)}`;
        }
      }),
    );
  const first = await readAll();
  const failedFirst = first.filter((r): r is string => typeof r === 'string');
  if (failedFirst.length > 0) return none(failedFirst);
  // The interval runs from the last first answer, so every endpoint's two readings are at least
  // `intervalMs` apart: a counter that restarted in between is never read as faster than it was.
  await new Promise((resolve) => setTimeout(resolve, intervalMs));
  const second = await readAll();
  const failedSecond = second.filter((r): r is string => typeof r === 'string');
  if (failedSecond.length > 0) return none(failedSecond);

  const byCluster = new Map<string, number>();
  second.forEach((reading, i) => {
    const after = reading as Reading;
    const before = first[i] as Reading;
    const seconds = (after.at - before.at) / 1000;
    if (seconds <= 0) return;
    for (const [cluster, total] of after.totals) {
      const previous = before.totals.get(cluster) ?? 0;
      const delta = total >= previous ? total - previous : total;
      byCluster.set(cluster, (byCluster.get(cluster) ?? 0) + delta / seconds);
    }
  });
  return { byCluster, source, warnings: [] };
}

function credentialsIn(text: string): boolean {
  try {
    return hasCredentials(new URL(text));
  } catch {
    return false;
  }
}

/** An error's message, with any URL credentials redacted (fetch's errors may quote the URL). */
function errorText(err: unknown): string {
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  const text = err instanceof Error ? `${err.name === 'TimeoutError' ? 'timed out' : err.message}${cause}` : String(err);
  return text.replace(/\/\/[^/@\s]*@/g, '//***@');
}
