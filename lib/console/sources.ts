/**
 * The console's HTTP sources, each read by the server on a timer (once per server, whatever the number
 * of browsers): the services' Prometheus text (requests per second by target cluster) and the
 * bridges' admin `/status` and `/config_dump` (replicas, leader, active control plane per authority,
 * each resource's status and version). A source that does not answer is shown as such, with its last
 * known data kept and marked stale.
 */
import type { Lifecycle } from '../lifecycle';
import { z } from 'zod';
import type { Logger } from '../logging';
import type { RequestRates } from '../requests';
import { D2_REQUESTS_METRIC, parsePrometheusText, RateSeries, readText, TargetHealthSeries, totalsByTarget, type PromSample, type RatePoint, type TargetHealth } from '../metrics';

/**
 * The window of the health numbers (requests/s, failed share, p99 per target): long enough that steady
 * traffic gives steady numbers (the cards change only when a shown value does), short enough that a
 * peer starting to answer 500s shows within a scrape or two.
 */
export const HEALTH_WINDOW_MS = 10_000;

/** A bridge replica as its `/status` says (lib/bridge `BridgeStatus`, the fields the console shows). */
const bridgeStatusSchema = z.object({
  replicaId: z.string(),
  role: z.string(),
  healthy: z.boolean().optional(),
  ready: z.boolean().optional(),
  authorities: z
    .array(
      z.object({
        authority: z.string(),
        activeServer: z.string().nullish(),
        fallbackActive: z.boolean().optional(),
        servers: z.array(z.object({ serverUri: z.string(), state: z.string(), lastError: z.string().nullish() })).default([]),
      }),
    )
    .default([]),
  sync: z.object({ lagMs: z.number().nullish() }).partial().optional(),
  zookeeper: z.object({ state: z.string().optional() }).optional(),
});

/**
 * `/config_dump` (CSDS `ClientStatusResponse` as proto JSON, with the proto's field names:
 * `generic_xds_configs`, `type_url`, …; the camelCase spelling of other JSON printers is read too):
 * per resource, its type, name, version and status.
 */
const resourceSchema = z.object({
  type_url: z.string().optional(),
  typeUrl: z.string().optional(),
  name: z.string().optional(),
  version_info: z.string().optional(),
  versionInfo: z.string().optional(),
  client_status: z.string().optional(),
  clientStatus: z.string().optional(),
});
const configDumpSchema = z.object({
  config: z.array(z.object({ generic_xds_configs: z.array(resourceSchema).optional(), genericXdsConfigs: z.array(resourceSchema).optional() })).default([]),
});

/** One bridge replica's status as the page shows it. */
export type BridgeStatusView = z.infer<typeof bridgeStatusSchema>;

/** One xDS resource a bridge watches. */
export interface ResourceView {
  readonly type: string;
  readonly name: string;
  readonly version: string;
  readonly status: string;
}

/** One configured bridge admin URL and what it answered last. */
export interface BridgeSource {
  readonly url: string;
  readonly status: BridgeStatusView | undefined;
  readonly resources: readonly ResourceView[];
  /** Why the last read failed (the data above is then the last good one). */
  readonly error: string | undefined;
  /** When the data above was read (epoch ms), 0 never. */
  readonly readAt: number;
}

/** One service's metrics endpoints and its rates. */
export interface ServiceTraffic {
  readonly service: string;
  readonly urls: readonly string[];
  /** Which counter the rates come from (see prometheus.ts). */
  readonly source: 'traffic' | 'redirected' | 'none';
  readonly error: string | undefined;
  readonly points: readonly RatePoint[];
  /**
   * Per target cluster over the last scrape interval: requests/s, the failed share and p99, from the
   * service's D2 request metrics (lib/metrics `request-metrics.ts`), over {@link HEALTH_WINDOW_MS};
   * empty when it exports none.
   */
  readonly health: ReadonlyMap<string, TargetHealth>;
  /**
   * Why {@link health} says nothing now, for people: an endpoint not answering (the health is unknown
   * rather than undercounted), no D2 request metrics in what they answered, or no second scrape yet.
   * Undefined when the last scrape of every endpoint gave them.
   */
  readonly healthProblem: string | undefined;
}

/** Options of {@link HttpSources}. */
export interface HttpSourcesOptions {
  /** Bridge admin base URLs (`http://127.0.0.1:9901`), or a function read before every round (replicas that come and go). */
  readonly bridgeUrls: readonly string[] | (() => readonly string[]);
  /** Bearer token of the bridges' admin servers, when they require one (never shown). */
  readonly bridgeToken?: string | undefined;
  /** Prometheus text URLs by service name. */
  readonly metricsUrls: ReadonlyMap<string, readonly string[]>;
  /** The counter of every request by target cluster (label `cluster`), when services export one. */
  readonly trafficMetric?: string | undefined;
  /** Scrape period of the metrics. Default 1 s (the chart should show a move within a second or two). */
  readonly metricsPeriodMs?: number;
  /** Period of the bridges' status. Default 2 s. */
  readonly bridgePeriodMs?: number;
  readonly logger: Logger;
  /** Called after the bridges' data changed. */
  readonly onBridges: () => void;
  /** Called with each service's new rate point. */
  readonly onTraffic: (service: string, point: RatePoint | undefined) => void;
}

/** One service's series and the state of its last scrape. */
interface ServiceEntry {
  readonly series: RateSeries;
  readonly health: TargetHealthSeries;
  source: ServiceTraffic['source'];
  error: string | undefined;
  healthProblem: string | undefined;
  /** A scrape of this service is under way: a slow endpoint delays only its own service's next one. */
  busy: boolean;
}

/** The timers that read the HTTP sources. Lifecycle: latent → started → closed. */
export class HttpSources {
  private lifecycle: Lifecycle = 'idle';
  private readonly timers: NodeJS.Timeout[] = [];
  private bridgesValue: BridgeSource[];
  private readonly traffic = new Map<string, ServiceEntry>();
  private busy = { bridges: false };

  constructor(private readonly options: HttpSourcesOptions) {
    this.bridgesValue = this.bridgeUrls().map((url) => ({ url, status: undefined, resources: [], error: undefined, readAt: 0 }));
    for (const service of options.metricsUrls.keys()) {
      this.traffic.set(service, { series: new RateSeries(), health: new TargetHealthSeries({ windowMs: HEALTH_WINDOW_MS }), source: 'none', error: undefined, healthProblem: 'not scraped yet', busy: false });
    }
  }

  /** Starts both timers (the first reads at once). */
  start(): void {
    if (this.lifecycle !== 'idle') return;
    this.lifecycle = 'running';
    const every = (ms: number, task: () => Promise<void>): void => {
      void task();
      const timer = setInterval(() => void task(), ms);
      timer.unref();
      this.timers.push(timer);
    };
    if (this.options.metricsUrls.size > 0) every(this.options.metricsPeriodMs ?? 1000, () => this.scrapeMetrics());
    if (typeof this.options.bridgeUrls === 'function' || this.bridgesValue.length > 0) every(this.options.bridgePeriodMs ?? 2000, () => this.readBridges());
  }

  /** The bridges, in configured order. */
  bridges(): readonly BridgeSource[] {
    return this.bridgesValue;
  }

  /** Every configured service's traffic. */
  services(): ServiceTraffic[] {
    return [...this.traffic].map(([service, t]) => ({ service, urls: this.options.metricsUrls.get(service) ?? [], source: t.source, error: t.error, points: t.series.points(), health: t.health.latest(), healthProblem: t.healthProblem }));
  }

  /**
   * Requests/s by target cluster now, for the capacity projection: each service's latest rate, summed
   * (instances and callers add up to a cluster's load). Undefined unless every service's last scrape
   * answered with the traffic counter within the last `maxAgeMs`: a service missing would undercount
   * its clusters, and the redirect counter alone cannot say how busy a peer is.
   */
  currentRates(now = Date.now(), maxAgeMs = 5000): RequestRates | undefined {
    if (this.traffic.size === 0) return undefined;
    const byCluster = new Map<string, number>();
    let endpoints = 0;
    for (const [service, t] of this.traffic) {
      const last = t.series.points().at(-1);
      if (t.source !== 'traffic' || t.error !== undefined || last === undefined || now - last.t * 1000 > maxAgeMs) return undefined;
      endpoints += this.options.metricsUrls.get(service)?.length ?? 0;
      for (const [cluster, rate] of Object.entries(last.rates)) byCluster.set(cluster, (byCluster.get(cluster) ?? 0) + rate);
    }
    return { byCluster, source: `the console's last scrape of ${endpoints} endpoint${endpoints === 1 ? '' : 's'}` };
  }

  /** Stops the timers. */
  close(): void {
    this.lifecycle = 'closed';
    for (const timer of this.timers.splice(0)) clearInterval(timer);
  }

  private async scrapeMetrics(): Promise<void> {
    if (this.lifecycle !== 'running') return;
    await Promise.all(
      [...this.options.metricsUrls].map(async ([service, urls]) => {
        const entry = this.traffic.get(service)!;
        if (entry.busy) return;
        entry.busy = true;
        try {
          await this.scrapeService(entry, service, urls);
        } finally {
          entry.busy = false;
        }
      }),
    );
  }

  private async scrapeService(entry: ServiceEntry, service: string, urls: readonly string[]): Promise<void> {
    const at = Date.now();
    const totals = new Map<string, number>();
    const errors: string[] = [];
    // Every instance's samples: the request metrics add up by target across them.
    const samples: PromSample[] = [];
    let source: ServiceTraffic['source'] = 'none';
    await Promise.all(
      urls.map(async (url) => {
        try {
          const text = await readText(url);
          const scraped = parsePrometheusText(text);
          // Text in which no line is a sample is not the exposition format (an error page, garbage).
          if (scraped.length === 0 && text.trim() !== '') throw new Error('answered no Prometheus sample (not the text format?)');
          for (const sample of scraped) samples.push(sample);
          const found = totalsByTarget(scraped, this.options.trafficMetric);
          if (found.source !== 'none') source = source === 'traffic' || found.source === 'traffic' ? 'traffic' : 'redirected';
          for (const [target, value] of found.totals) totals.set(target, (totals.get(target) ?? 0) + value);
        } catch (err) {
          errors.push(`${url}: ${scrapeError(err)}`);
        }
      }),
    );
    entry.error = errors.length > 0 ? errors.join('; ') : undefined;
    entry.source = source;
    if (errors.length === urls.length) {
      entry.series.gap();
      entry.health.gap();
      entry.healthProblem = `metrics not answering: ${entry.error}`;
      this.options.onTraffic(service, undefined);
      return;
    }
    entry.healthProblem = this.addHealth(entry, at, samples, errors.length, urls.length);
    this.options.onTraffic(service, entry.series.add(at, totals));
  }

  /**
   * Adds a scrape to the service's health; returns why it says nothing now. An instance that did not
   * answer leaves the health unknown (its requests would be missing from the sums) until all answer.
   */
  private addHealth(entry: ServiceEntry, at: number, samples: readonly PromSample[], failed: number, endpoints: number): string | undefined {
    if (failed > 0) {
      entry.health.gap();
      return `${failed} of ${endpoints} metrics endpoints not answering: ${entry.error}`;
    }
    if (!samples.some((s) => s.name === D2_REQUESTS_METRIC)) {
      entry.health.gap();
      return `no ${D2_REQUESTS_METRIC} in its metrics (a D2 client built with a registry exports it)`;
    }
    return entry.health.add(at, samples) === undefined ? 'waiting for a second scrape' : undefined;
  }

  private bridgeUrls(): readonly string[] {
    const urls = this.options.bridgeUrls;
    return typeof urls === 'function' ? urls() : urls;
  }

  private async readBridges(): Promise<void> {
    if (this.busy.bridges || this.lifecycle !== 'running') return;
    this.busy.bridges = true;
    try {
      // Keep what is known of the replicas still listed; add the new ones.
      const known = new Map(this.bridgesValue.map((b) => [b.url, b]));
      this.bridgesValue = this.bridgeUrls().map((url) => known.get(url) ?? { url, status: undefined, resources: [], error: undefined, readAt: 0 });
      await Promise.all(this.bridgesValue.map((_b, i) => this.readBridge(i)));
      this.options.onBridges();
    } finally {
      this.busy.bridges = false;
    }
  }

  private async readBridge(index: number): Promise<void> {
    const current = this.bridgesValue[index]!;
    const base = current.url.replace(/\/+$/, '');
    try {
      const status = bridgeStatusSchema.parse(JSON.parse(await readText(`${base}/status`, { token: this.options.bridgeToken })));
      const dump = configDumpSchema.safeParse(JSON.parse(await readText(`${base}/config_dump`, { token: this.options.bridgeToken })));
      const resources = dump.success
        ? dump.data.config.flatMap((c) =>
            (c.generic_xds_configs ?? c.genericXdsConfigs ?? []).map((r) => ({
              type: shortType(r.type_url ?? r.typeUrl ?? ''),
              name: r.name ?? '',
              version: r.version_info ?? r.versionInfo ?? '',
              status: r.client_status ?? r.clientStatus ?? 'UNKNOWN',
            })),
          )
        : [];
      this.bridgesValue[index] = { url: current.url, status, resources, error: undefined, readAt: Date.now() };
    } catch (err) {
      this.bridgesValue[index] = { ...current, error: err instanceof Error ? err.message : String(err) };
    }
  }
}

/**
 * A failed scrape for people: `timed out` for fetch's timeout, else the message and its cause's
 * (`fetch failed: connect ECONNREFUSED …`). Read by shape: fetch's errors (a DOMException, undici's
 * TypeError) are not `instanceof Error` in every realm.
 */
function scrapeError(err: unknown): string {
  const { name, message, cause } = (typeof err === 'object' && err !== null ? err : {}) as { name?: unknown; message?: unknown; cause?: { message?: unknown } };
  if (name === 'TimeoutError') return 'timed out';
  if (typeof message !== 'string') return String(err);
  return typeof cause?.message === 'string' ? `${message}: ${cause.message}` : message;
}

/** `type.googleapis.com/envoy.config.cluster.v3.Cluster` → `Cluster`. */
function shortType(typeUrl: string): string {
  return typeUrl.slice(typeUrl.lastIndexOf('.') + 1) || typeUrl;
}
