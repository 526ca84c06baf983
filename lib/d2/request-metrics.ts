/**
 * The D2 client's per-target request metrics (names and buckets: lib/metrics `request-metrics.ts`):
 * every request a client sends, counted by the cluster it went to and its outcome, and timed to the
 * response headers. Warm-up requests are not traffic and are not counted.
 */
import { Counter, Histogram, type Registry } from 'prom-client';
import { D2_REQUEST_SECONDS_METRIC, D2_REQUESTS_METRIC, REQUEST_SECONDS_BUCKETS, type RequestOutcome } from '../metrics';

/** A registry's request metrics (one set per registry: a second client on the same registry shares them). */
export class D2RequestMetrics {
  private readonly requests: Counter<'cluster' | 'outcome'>;
  private readonly seconds: Histogram<'cluster'>;

  constructor(registry: Registry) {
    // Registered once per registry: clients built on one registry (a service's `/metrics`) add up.
    this.requests =
      (registry.getSingleMetric(D2_REQUESTS_METRIC) as Counter<'cluster' | 'outcome'> | undefined) ??
      new Counter({ name: D2_REQUESTS_METRIC, help: 'Requests a D2 client sent, by the cluster they went to and how they ended (status class, or error: no response)', labelNames: ['cluster', 'outcome'], registers: [registry] });
    this.seconds =
      (registry.getSingleMetric(D2_REQUEST_SECONDS_METRIC) as Histogram<'cluster'> | undefined) ??
      new Histogram({ name: D2_REQUEST_SECONDS_METRIC, help: 'Time from sending a D2 request to its response headers, by target cluster', labelNames: ['cluster'], buckets: [...REQUEST_SECONDS_BUCKETS], registers: [registry] });
  }

  /** One request to `cluster` ended with `outcome` after `seconds`. */
  record(cluster: string, outcome: RequestOutcome, seconds: number): void {
    this.requests.inc({ cluster, outcome });
    this.seconds.observe({ cluster }, seconds);
  }
}
