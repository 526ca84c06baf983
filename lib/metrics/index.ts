/**
 * lib/metrics: requests per second by target cluster from the Prometheus text that services expose
 * (FailoutClient's redirect counter, a service's own counter of every request by cluster), and the
 * names of the per-target request metrics every D2 client exports (`request-metrics.ts`). Shared by
 * the console (a running rate per service, charted) and the CLI's dry run (one measurement, for the
 * capacity projection from request rates). Loads no npm package: Node's fetch only.
 */
export { parsePrometheusText, RateSeries, REDIRECTED_METRIC, totalsByTarget } from './prometheus';
export type { PromSample, RatePoint } from './prometheus';
export { hasCredentials, measureRates, readText, redactUrl } from './scrape';
export { D2_REQUEST_SECONDS_METRIC, D2_REQUESTS_METRIC, FAILED_OUTCOMES, outcomeOf, REQUEST_SECONDS_BUCKETS } from './request-metrics';
export type { RequestOutcome } from './request-metrics';
export { histogramQuantile, TargetHealthSeries } from './target-health';
export type { TargetHealth, TargetHealthOptions } from './target-health';
export type { MeasuredRates, MeasureRatesOptions } from './scrape';
