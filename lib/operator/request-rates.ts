/**
 * Request rates for the capacity projection (issue 16): `--metrics service=url` (repeatable, or
 * `FAILOUT_METRICS_URLS`, comma-separated) and `--traffic-metric` (or `FAILOUT_TRAFFIC_METRIC`, as the
 * console) on `failout out`. The CLI scrapes the endpoints twice a second apart (lib/metrics
 * `measureRates`); the worker cannot, so it keeps judging by host counts, and the CLI shows both.
 */
import { measureRates, type MeasuredRates } from '../metrics';
import { hideUrlCredentials } from '../text';
import type { RequestRates } from '../requests';
import { inputError, type OperatorEnv } from './errors';

/** The flags, as commander hands them over. */
export interface RateFlags {
  metrics?: string[];
  trafficMetric?: string;
}

/** What was measured, as the projection takes it and as `--json` shows it. */
export interface RateMeasurement {
  /** For {@link dryRun} (undefined when the rates could not be measured). */
  readonly rates: RequestRates | undefined;
  /** For `--json`: the rates by cluster, where they came from, and the warnings. */
  readonly json: { readonly source: string; readonly byCluster: Readonly<Record<string, number>> | null; readonly warnings: readonly string[] };
}

const split = (text: string | undefined): string[] => (text ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');

/**
 * `service=url` pairs from the flags (or the environment), grouped by service. A pair that is not
 * `service=http(s)://…` is a usage error (the command line is wrong); a URL with credentials is kept
 * for {@link measureRates} to refuse with a warning (the brief: fall back, never print it).
 * @throws OperatorError `usage`.
 */
export function metricsTargets(flags: RateFlags, env: OperatorEnv): Map<string, string[]> {
  const from = flags.metrics ? '--metrics' : 'FAILOUT_METRICS_URLS';
  const byService = new Map<string, string[]>();
  for (const value of (flags.metrics ?? split(env.FAILOUT_METRICS_URLS)).flatMap(split)) {
    const eq = value.indexOf('=');
    const service = value.slice(0, eq).trim();
    const text = value.slice(eq + 1).trim();
    const shown = JSON.stringify(hideUrlCredentials(value));
    if (eq <= 0 || service === '') throw inputError(`${from}: ${shown} is not service=url (example: greetings=http://127.0.0.1:9464/metrics)`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw inputError(`${from}: ${shown} is not service=url: the URL does not parse (example: greetings=http://127.0.0.1:9464/metrics)`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw inputError(`${from}: ${shown} is not service=url: not an http(s) URL`);
    byService.set(service, [...(byService.get(service) ?? []), text]);
  }
  return byService;
}

/**
 * Measures the rates when metrics endpoints are configured (undefined otherwise: nothing asked).
 * What could not be measured is in `json.warnings` (the CLI prints them to stderr, so stdout stays
 * the command's answer, `--json` included).
 * @throws OperatorError `input` for a malformed `--metrics` value.
 */
export async function measureRequestRates(flags: RateFlags, env: OperatorEnv, intervalMs = 1000): Promise<RateMeasurement | undefined> {
  const urls = metricsTargets(flags, env);
  if (urls.size === 0) return undefined;
  const trafficMetric = flags.trafficMetric ?? (env.FAILOUT_TRAFFIC_METRIC?.trim() || undefined);
  const measured: MeasuredRates = await measureRates({ urls, trafficMetric, intervalMs });
  const byCluster = measured.byCluster;
  return {
    rates: byCluster === undefined ? undefined : { byCluster, source: measured.source },
    json: { source: measured.source, byCluster: byCluster === undefined ? null : Object.fromEntries([...byCluster].map(([c, r]) => [c, Math.round(r * 100) / 100])), warnings: measured.warnings },
  };
}
