/**
 * The local stack's traffic generator: a service that calls `d2://greetings/hello` at a steady rate
 * through the production client stack (LoadBalancerState over its own ZooKeeper session, D2Client,
 * FailoutClient built by `buildD2Client` with the ZooKeeper failout provider and the weighted redirect
 * strategy), with a routing key per simulated member, and remembers where each request went.
 */
import { LoadBalancerState } from '../d2';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client } from '../failout';
import { createLogger, type Logger } from '../logging';
import { ZkSession } from '../zk';
import { SERVICE } from './topology';

/** One request's outcome. */
export interface Sample {
  /** When the request was sent (epoch ms). */
  readonly at: number;
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

/** Options of {@link TrafficGenerator.start}. */
export interface TrafficOptions {
  readonly connectString: string;
  /** Requests per second. Default 50. */
  readonly rate?: number;
  /** Simulated members (routing keys `member-<n>`, picked at random). Default 1000. */
  readonly members?: number;
  /** How long samples are kept. Default 120 s. */
  readonly keepMs?: number;
  readonly logger?: Logger;
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
 * Sends requests at a steady rate until stopped. Lifecycle: `start` → running → `stop` (once).
 * Concurrency: event loop only; `samples` is appended by request completions and pruned by the tick.
 */
export class TrafficGenerator {
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly inFlight = new Set<Promise<void>>();
  private sent = 0;
  private startedAt = 0;
  private totals = { ok: 0, errors: 0 };

  private constructor(
    private readonly options: Required<Omit<TrafficOptions, 'logger'>>,
    private readonly session: ZkSession,
    readonly state: LoadBalancerState,
    readonly client: BuiltD2Client,
  ) {}

  /** Connects, loads the service and starts sending. */
  static async start(options: TrafficOptions): Promise<TrafficGenerator> {
    const log = options.logger ?? createLogger('traffic');
    const session = new ZkSession({ connectString: options.connectString, sessionTimeoutMs: 10_000, logger: log });
    await session.start();
    const state = new LoadBalancerState({ session, logger: log });
    const client = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory({ logger: log }),
      failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
      logger: log,
    });
    const generator = new TrafficGenerator({ rate: options.rate ?? 50, members: options.members ?? 1000, keepMs: options.keepMs ?? 120_000, connectString: options.connectString }, session, state, client);
    try {
      await state.listenToService(SERVICE);
    } catch (err) {
      await generator.stop();
      throw err;
    }
    generator.run();
    return generator;
  }

  get rate(): number {
    return this.options.rate;
  }

  /** Requests answered since start: successes and failures. */
  get counts(): { ok: number; errors: number } {
    return { ...this.totals };
  }

  /** Samples of requests sent at or after `since` (epoch ms), optionally before `until`. */
  samplesSince(since: number, until = Infinity): Sample[] {
    return this.samples.filter((s) => s.at >= since && s.at < until);
  }

  /** Stops sending, waits for the requests in flight, closes the client and the session. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await Promise.all([...this.inFlight]);
    await this.client.close().catch(() => undefined);
    this.state.shutdown();
    await this.session.close().catch(() => undefined);
  }

  /** A steady rate: each 10 ms tick sends what the rate owes since the start (no bursts after a stall). */
  private run(): void {
    this.startedAt = Date.now();
    this.timer = setInterval(() => {
      const now = Date.now();
      const owed = Math.floor(((now - this.startedAt) * this.options.rate) / 1000) - this.sent;
      // After a long stall (a paused laptop) skip ahead rather than burst.
      if (owed > this.options.rate) this.sent += owed - 1;
      for (let i = 0; i < Math.min(owed, this.options.rate); i++) this.sendOne();
      const cutoff = now - this.options.keepMs;
      while (this.samples.length > 0 && this.samples[0]!.at < cutoff) this.samples.shift();
    }, 10);
  }

  private sendOne(): void {
    this.sent++;
    const at = Date.now();
    const routingKey = `member-${Math.floor(Math.random() * this.options.members)}`;
    const done = this.client
      .request(`d2://${SERVICE}/hello`, { routingKey, headersTimeout: 2000, bodyTimeout: 2000 })
      .then(async (response) => {
        await response.body.dump();
        const ok = response.statusCode < 500;
        this.record({ at, cluster: response.target.cluster, host: response.target.host, ok, latencyMs: Date.now() - at, error: ok ? undefined : `HTTP ${response.statusCode}` });
      })
      .catch((err: unknown) => {
        this.record({ at, cluster: undefined, host: undefined, ok: false, latencyMs: Date.now() - at, error: err instanceof Error ? err.message : String(err) });
      })
      .finally(() => this.inFlight.delete(done));
    this.inFlight.add(done);
  }

  private record(sample: Sample): void {
    if (sample.ok) this.totals.ok++;
    else this.totals.errors++;
    this.samples.push(sample);
  }
}
