/**
 * The local stack's traffic generator: a service that calls `d2://greetings/hello` and
 * `d2://hello/hello` (the sample topology's two services), each at a steady rate, through the
 * production client stack (`buildD2Client`: D2Client and FailoutClient with the failout provider and
 * the weighted redirect strategy, over a LoadBalancerState fed by its own ZooKeeper session or, with
 * an xDS bootstrap, by the D2 observers over ADS), with a routing key per simulated member, and
 * remembers where each request went.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Counter, Histogram, Registry } from 'prom-client';
import { LoadBalancerState } from '../d2';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client, type D2ClientConfig } from '../failout';
import { createLogger, type Logger } from '../logging';
import { D2_REQUEST_SECONDS_METRIC, D2_REQUESTS_METRIC, outcomeOf, REQUEST_SECONDS_BUCKETS } from '../metrics';
import { createXdsClient, parseBootstrap, type XdsClient } from '../xds';
import { ZkSession } from '../zk';
import { SERVICE, SERVICES } from './topology';

/**
 * The counter of every request the generator sent, by the cluster it went to: what the console charts
 * (`--traffic-metric`), next to FailoutClient's own `failout_client_redirected_total` and the D2
 * client's request metrics in the same registry (`/metrics`, every service); `/metrics/<service>` has
 * it and the D2 request metrics for one service's requests only (the console's health per target).
 */
export const LOCAL_TRAFFIC_METRIC = 'failout_local_requests_total';

/** One service's own metrics (`/metrics/<service>`). */
interface ServiceMetrics {
  readonly registry: Registry;
  readonly byTarget: Counter<'cluster'>;
  readonly requests: Counter<'cluster' | 'outcome'>;
  readonly seconds: Histogram<'cluster'>;
}

/** One request's outcome. */
export interface Sample {
  /** When the request was sent (epoch ms). */
  readonly at: number;
  /** The D2 service it was sent to (`greetings`, `hello`). */
  readonly service: string;
  /** The cluster it went to (undefined when it failed before a target was chosen). */
  readonly cluster: string | undefined;
  /** The host URI it went to. */
  readonly host: string | undefined;
  readonly ok: boolean;
  readonly latencyMs: number;
  /** The error message of a failed request. */
  readonly error?: string;
}

/** Counts over a set of samples. */
export interface TrafficSummary {
  readonly total: number;
  readonly ok: number;
  readonly errors: number;
  /** Requests per cluster. */
  readonly byCluster: ReadonlyMap<string, number>;
  /** Requests per host URI. */
  readonly byHost: ReadonlyMap<string, number>;
  /** The latest error message, if any. */
  readonly lastError: string | undefined;
}

/** The client's warm-up counters (`failout_warmups_*_total`, summed over peers). */
export interface WarmUpCounts {
  readonly started: number;
  readonly succeeded: number;
  readonly failed: number;
  /** Warm-up requests that got a response: connections opened ahead of the traffic. */
  readonly connections: number;
}

/** Options of {@link TrafficGenerator.start}. */
export interface TrafficOptions {
  /** ZooKeeper: where the client reads D2 data unless `xdsBootstrap` is given. */
  readonly connectString: string;
  /**
   * A gRPC xDS bootstrap (as JSON would parse): read D2 data over ADS from the servers it lists
   * (the local observers, A71 fallback in their order) instead of from ZooKeeper.
   */
  readonly xdsBootstrap?: object;
  /** Requests per second to each service. Default 50. */
  readonly rate?: number;
  /** The D2 services called, `d2://<service>/hello` each. Default both of the sample topology's. */
  readonly services?: readonly string[];
  /** Simulated members (routing keys `member-<n>`, picked at random). Default 1000. */
  readonly members?: number;
  /** How long samples are kept. Default 120 s. */
  readonly keepMs?: number;
  readonly logger?: Logger;
}

/**
 * The client a service builds (README): failout on, and the peers warmed up through this client's own
 * pools before the traffic moves; every counter in the client's registry. Add `state` or `discovery`.
 */
export function serviceClientConfig(logger: Logger): Omit<D2ClientConfig, 'state' | 'discovery'> {
  return {
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view, context) => new WeightedFailoutRedirectStrategy({ view, registry: context.registry }),
    warmUp: true,
    warmUpTimeoutMs: 2_000,
    warmUpConcurrency: 16,
    peerWatchTeardownDelayMs: 60_000,
    logger,
  };
}

/** Summarizes samples. */
export function summarize(samples: readonly Sample[]): TrafficSummary {
  const byCluster = new Map<string, number>();
  const byHost = new Map<string, number>();
  let ok = 0;
  let lastError: string | undefined;
  for (const s of samples) {
    if (s.ok) ok++;
    else lastError = s.error;
    if (s.cluster) byCluster.set(s.cluster, (byCluster.get(s.cluster) ?? 0) + 1);
    if (s.host) byHost.set(s.host, (byHost.get(s.host) ?? 0) + 1);
  }
  return { total: samples.length, ok, errors: samples.length - ok, byCluster, byHost, lastError };
}

/**
 * Sends requests at a steady rate until stopped. Lifecycle: `start` → running → `close` (once).
 * Concurrency: event loop only; `samples` is appended by request completions and pruned by the tick.
 */
export class TrafficGenerator {
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private sent = 0;
  private startedAt = 0;
  private totals = { ok: 0, errors: 0 };
  private warm: WarmUpCounts = { started: 0, succeeded: 0, failed: 0, connections: 0 };
  private ticks = 0;
  private metricsServer: Server | undefined;
  private readonly byTarget: Counter<'cluster'>;
  /** Per service: a registry of its own holding the same counters for its requests only (`/metrics/<service>`). */
  private readonly perService = new Map<string, ServiceMetrics>();

  private constructor(
    private readonly options: Required<Omit<TrafficOptions, 'logger' | 'xdsBootstrap'>>,
    private readonly session: ZkSession | undefined,
    readonly state: LoadBalancerState,
    readonly client: BuiltD2Client,
    /** The xDS client D2 data comes through, in xDS mode (its `dump()` names the active observer). */
    readonly xds: XdsClient | undefined,
  ) {
    const help = 'Requests the local traffic generator sent, by the cluster they went to';
    this.byTarget = new Counter({ name: LOCAL_TRAFFIC_METRIC, help, labelNames: ['cluster'], registers: [client.registry] });
    for (const service of options.services) {
      const registry = new Registry();
      this.perService.set(service, {
        registry,
        byTarget: new Counter({ name: LOCAL_TRAFFIC_METRIC, help: `${help} (service ${service})`, labelNames: ['cluster'], registers: [registry] }),
        // The D2 client's request metrics (lib/metrics request-metrics.ts) for this service alone: one
        // client calls both services here, where each service's own process would export its own. A
        // request with no response is counted in `/metrics` only (the client's own: the caller is not
        // told which cluster it was for).
        requests: new Counter({ name: D2_REQUESTS_METRIC, help: `D2 requests of service ${service} by target cluster and outcome`, labelNames: ['cluster', 'outcome'], registers: [registry] }),
        seconds: new Histogram({ name: D2_REQUEST_SECONDS_METRIC, help: `Time to response headers of service ${service}'s D2 requests, by target cluster`, labelNames: ['cluster'], buckets: [...REQUEST_SECONDS_BUCKETS], registers: [registry] }),
      });
    }
  }

  /** Connects, loads the service and starts sending. */
  static async start(options: TrafficOptions): Promise<TrafficGenerator> {
    const log = options.logger ?? createLogger('traffic');
    const config = serviceClientConfig(log);
    let session: ZkSession | undefined;
    let xds: XdsClient | undefined;
    let client: BuiltD2Client;
    let state: LoadBalancerState;
    if (options.xdsBootstrap !== undefined) {
      // The client's own XdsClient (shared with buildD2Client, closed here) so that the view and the
      // scenario can read which observer serves it (`dump()`), as CSDS would show.
      xds = createXdsClient({ bootstrap: parseBootstrap(options.xdsBootstrap) });
      client = buildD2Client({ ...config, discovery: { xds: { client: xds } } });
      state = client.state;
    } else {
      session = new ZkSession({ connectString: options.connectString, sessionTimeoutMs: 10_000, logger: log });
      await session.start();
      state = new LoadBalancerState({ session, logger: log });
      client = buildD2Client({ ...config, state });
    }
    const services = [...new Set(options.services ?? SERVICES)];
    const generator = new TrafficGenerator({ rate: options.rate ?? 50, services, members: options.members ?? 1000, keepMs: options.keepMs ?? 120_000, connectString: options.connectString }, session, state, client, xds);
    try {
      await Promise.all(services.map((service) => state.listenToService(service)));
    } catch (err) {
      await generator.close();
      throw err;
    }
    generator.run();
    try {
      await generator.serveMetrics();
    } catch (err) {
      await generator.close();
      throw err;
    }
    return generator;
  }

  /** Requests per second to each service. */
  get rate(): number {
    return this.options.rate;
  }

  /** `server_uri` of the server the xDS client reads D2 data from now (undefined in ZooKeeper mode). */
  activeXdsServer(): string | undefined {
    return this.xds?.dump().authorities.find((a) => a.topLevel)?.activeServer;
  }

  /** The services called. */
  get services(): readonly string[] {
    return this.options.services;
  }

  /** Requests answered since start: successes and failures. */
  get counts(): { ok: number; errors: number } {
    return { ...this.totals };
  }

  /** The warm-up counters as of the last second (read from the client's registry). */
  warmUps(): WarmUpCounts {
    return this.warm;
  }

  /**
   * Samples of requests to `service` (default `greetings`, the service every measurement before the
   * second one came was of) sent at or after `since` (epoch ms), optionally before `until`.
   */
  samplesSince(since: number, until = Infinity, service: string = SERVICE): Sample[] {
    return this.samples.filter((s) => s.at >= since && s.at < until && s.service === service);
  }

  /** Samples of requests to every service sent at or after `since` (epoch ms), optionally before `until`. */
  allSamplesSince(since: number, until = Infinity): Sample[] {
    return this.samples.filter((s) => s.at >= since && s.at < until);
  }

  /**
   * `http://127.0.0.1:<port>/metrics`: the client's registry as Prometheus text (FailoutClient's
   * counters and {@link LOCAL_TRAFFIC_METRIC} over every service), as a service would expose it;
   * loopback only.
   */
  get metricsUrl(): string {
    const address = this.metricsServer?.address() as AddressInfo | null | undefined;
    if (!address) throw new Error('the metrics endpoint is not listening');
    return `http://127.0.0.1:${address.port}/metrics`;
  }

  /**
   * `http://127.0.0.1:<port>/metrics/<service>`: {@link LOCAL_TRAFFIC_METRIC} of one service's requests
   * only, as that service's own process would expose it (the console charts one service per endpoint).
   */
  metricsUrlOf(service: string): string {
    if (!this.perService.has(service)) throw new Error(`the traffic generator does not call ${service}`);
    return `${this.metricsUrl}/${encodeURIComponent(service)}`;
  }

  private async serveMetrics(): Promise<void> {
    const server = createServer((req, res) => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      const service = path.startsWith('/metrics/') ? this.perService.get(decodeURIComponent(path.slice('/metrics/'.length))) : undefined;
      const registry = path === '/metrics' ? this.client.registry : service?.registry;
      if (req.method !== 'GET' || registry === undefined) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
        return;
      }
      registry.metrics().then(
        (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
        (err: unknown) => res.writeHead(500, { 'content-type': 'text/plain' }).end(`${err instanceof Error ? err.message : String(err)}\n`),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    this.metricsServer = server;
  }

  /** Stops sending, waits for the requests in flight, closes the client and the session. */
  async close(): Promise<void> {
    const server = this.metricsServer;
    this.metricsServer = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.inFlight]);
    await this.client.close().catch(() => undefined);
    // A state built from `discovery` was closed with the client; a given one is closed here.
    if (this.session) this.state.close();
    this.xds?.close();
    await this.session?.close().catch(() => undefined);
  }

  /**
   * A steady rate: each 10 ms tick sends what the rate owes since the start (no bursts after a stall),
   * one request to each service per round.
   */
  private run(): void {
    this.startedAt = Date.now();
    this.timer = setInterval(() => {
      const now = Date.now();
      const owed = Math.floor(((now - this.startedAt) * this.options.rate) / 1000) - this.sent;
      // After a long stall (a paused laptop) skip ahead rather than burst.
      if (owed > this.options.rate) this.sent += owed - 1;
      for (let i = 0; i < Math.min(owed, this.options.rate); i++) {
        this.sent++;
        for (const service of this.options.services) this.sendOne(service);
      }
      const cutoff = now - this.options.keepMs;
      while (this.samples.length > 0 && this.samples[0]!.at < cutoff) this.samples.shift();
      if (++this.ticks % 100 === 0) void this.readWarmUps();
    }, 10);
  }

  private async readWarmUps(): Promise<void> {
    const sum = async (name: string): Promise<number> => {
      const metric = this.client.registry.getSingleMetric(name);
      if (!metric) return 0;
      return (await metric.get()).values.reduce((total, v) => total + v.value, 0);
    };
    try {
      const [started, succeeded, failed, connections] = await Promise.all(
        ['failout_warmups_started_total', 'failout_warmups_succeeded_total', 'failout_warmups_failed_total', 'failout_warmup_connections_opened_total'].map(sum),
      );
      this.warm = { started: started!, succeeded: succeeded!, failed: failed!, connections: connections! };
    } catch {
      // A counter read cannot fail in practice; the view keeps the last numbers if it does.
    }
  }

  private sendOne(service: string): void {
    const at = Date.now();
    const routingKey = `member-${Math.floor(Math.random() * this.options.members)}`;
    const done = this.client
      .request(`d2://${service}/hello`, { routingKey, headersTimeout: 2000, bodyTimeout: 2000 })
      .then(async (response) => {
        const metrics = this.perService.get(service);
        metrics?.requests.inc({ cluster: response.target.cluster, outcome: outcomeOf(response.statusCode) });
        metrics?.seconds.observe({ cluster: response.target.cluster }, (Date.now() - at) / 1000);
        await response.body.dump();
        const ok = response.statusCode < 500;
        this.record({ at, service, cluster: response.target.cluster, host: response.target.host, ok, latencyMs: Date.now() - at, error: ok ? undefined : `HTTP ${response.statusCode}` });
      })
      .catch((err: unknown) => {
        this.record({ at, service, cluster: undefined, host: undefined, ok: false, latencyMs: Date.now() - at, error: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  private record(sample: Sample): void {
    if (sample.cluster !== undefined) {
      this.byTarget.inc({ cluster: sample.cluster });
      this.perService.get(sample.service)?.byTarget.inc({ cluster: sample.cluster });
    }
    if (sample.ok) this.totals.ok++;
    else this.totals.errors++;
    this.samples.push(sample);
  }
}
