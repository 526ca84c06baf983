/**
 * The names and shape of the per-target request metrics every D2 client exports (lib/d2 registers
 * them, the console reads them back from the services' Prometheus text): what an operator needs to
 * see a target cluster's health beside its traffic (issue 24, "health per target").
 * - `d2_client_requests_total{cluster, outcome}`: requests by the cluster they went to and how they
 *   ended: the status class (`2xx` … `5xx`) or `error` (no response: refused, reset, timed out);
 * - `d2_client_request_duration_seconds{cluster}`: a histogram of the time to the response's headers.
 */

/** Requests by target cluster and outcome. */
export const D2_REQUESTS_METRIC = 'd2_client_requests_total';
/** Time to the response headers by target cluster (a histogram: `_bucket`, `_sum`, `_count`). */
export const D2_REQUEST_SECONDS_METRIC = 'd2_client_request_duration_seconds';

/** How a request ended: its status class, or `error` when no response came. */
export type RequestOutcome = '1xx' | '2xx' | '3xx' | '4xx' | '5xx' | 'error';

/** Outcomes that count as failures for the error rate: the server failed, or nothing answered. */
export const FAILED_OUTCOMES: ReadonlySet<string> = new Set<RequestOutcome>(['5xx', 'error']);

/**
 * Histogram bounds (seconds), from a fast in-zone call to a slow cross-fabric one: fine enough below
 * a second for a p99 a latency SLO can be read from, coarse above.
 */
export const REQUEST_SECONDS_BUCKETS: readonly number[] = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** The outcome of an HTTP status code. */
export function outcomeOf(status: number): RequestOutcome {
  if (status >= 500) return '5xx';
  if (status >= 400) return '4xx';
  if (status >= 300) return '3xx';
  if (status >= 200) return '2xx';
  return '1xx';
}
