/**
 * Helpers of the observer's fault tests (issue 25, item 5): an observer that can be killed abruptly
 * and brought back at the same address, D2 clients reading through observers, and the failout
 * documents the tests write.
 */
import type { D2Target } from '../../lib/d2';
import { clusterPath } from '../../lib/d2/paths';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client } from '../../lib/failout';
import { startTcpProxy, type TcpProxy } from '../../lib/local/tcp-proxy';
import type { Logger } from '../../lib/logging';
import { D2Observer } from '../../lib/observer';
import { parseBootstrap } from '../../lib/xds';
import type { ZkReader, ZkSession, ZkWriter } from '../../lib/zk';
import type { ChangeRecorder } from './cluster-changes';
import { put } from './d2';
import { capturingLogger, type LogLine } from './logging';
import { bootstrapFor } from './xds';
import { eventually, openSession } from './zk';

/** How long a test waits for the address of a killed observer to be free again. */
const REBIND_TIMEOUT_MS = 10_000;

/**
 * An observer on a session of its own (expirable: {@link openSession}), reached through a TCP proxy.
 * {@link kill} cuts every connection with no gRPC status and no goodbye, as the sockets of a killed
 * process end, and stops the observer; {@link restart} starts a fresh one (empty cache, as a new
 * process) on the same port, so clients find it at the address their bootstrap names.
 */
export class KillableObserver {
  private current: D2Observer | undefined;

  private constructor(
    /** The observer's ZooKeeper session (closed by `closeSessions`). */
    readonly session: ZkSession,
    private readonly proxy: TcpProxy,
    private readonly basePath: string,
    private readonly grpcPort: number,
    observer: D2Observer,
    /** What the observer logged, across restarts. */
    readonly logs: LogLine[],
    private readonly logger: Logger,
  ) {
    this.current = observer;
  }

  /** Starts an observer of `basePath` on its own session (to `connectString`, default the shared test server), behind its own proxy. */
  static async start(basePath: string, connectString?: string): Promise<KillableObserver> {
    const session = await openSession(connectString === undefined ? {} : { connectString });
    const { logger, lines } = capturingLogger();
    const observer = await D2Observer.start({ zk: session, basePath, admin: { host: '127.0.0.1', port: 0 }, lingerMs: 100, logger });
    const proxy = await startTcpProxy(observer.grpcPort);
    return new KillableObserver(session, proxy, basePath, observer.grpcPort, observer, lines, logger);
  }

  /** `127.0.0.1:<port>` of the proxy: what bootstraps name. */
  get address(): string {
    return this.proxy.address;
  }

  /** The running observer. */
  get observer(): D2Observer {
    if (!this.current) throw new Error('observer is killed');
    return this.current;
  }

  /** ADS streams open on the running observer (0 while killed). */
  get streams(): number {
    return this.current?.status().streams ?? 0;
  }

  /** Cuts every connection at once (synchronously, before anything else runs) and stops the observer; new connections fail until {@link restart}. */
  kill(): Promise<void> {
    this.proxy.refuse();
    const observer = this.current;
    this.current = undefined;
    return observer?.close() ?? Promise.resolve();
  }

  /**
   * Kills the observer right after it wrote its next response of `typeUrl` to grpc-js: the bytes
   * are still in the observer's buffers when the connections are cut, so the push is lost in flight.
   * Resolves once killed.
   */
  killOnNextPush(typeUrl: string): Promise<void> {
    const metrics = this.observer.metrics;
    const pushed = metrics.pushed.bind(metrics);
    return new Promise((resolve, reject) => {
      metrics.pushed = (type: string, resources: number): void => {
        pushed(type, resources);
        if (type !== typeUrl) return;
        metrics.pushed = pushed;
        this.kill().then(resolve, reject);
      };
    });
  }

  /** Starts a fresh observer at the same address and lets connections through again. */
  async restart(): Promise<void> {
    if (this.current) throw new Error('observer is running');
    const deadline = Date.now() + REBIND_TIMEOUT_MS;
    for (;;) {
      try {
        this.current = await D2Observer.start({ zk: this.session, basePath: this.basePath, grpc: { port: this.grpcPort }, lingerMs: 100, logger: this.logger });
        break;
      } catch (err) {
        // The port of the killed server may take a moment to be released.
        if (Date.now() > deadline) throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    this.proxy.accept();
  }

  /** Stops the observer and the proxy (the session is closed by `closeSessions`). */
  async close(): Promise<void> {
    await this.current?.close();
    this.current = undefined;
    await this.proxy.close();
  }
}

/**
 * A bootstrap listing `addresses` in priority order for a D2 client: observers are replicas of one
 * ZooKeeper view, so the client falls back even with everything cached (`fallbackWhenCached`), and
 * probes a higher-priority observer every 500 ms at most while a lower one serves, to return promptly.
 */
export function observerBootstrap(addresses: readonly string[], options: ObserverBootstrapOptions = { fallbackWhenCached: true }): Record<string, unknown> {
  const failout = options.fallbackWhenCached === undefined ? { fallbackProbeCapMs: 500 } : { fallbackProbeCapMs: 500, fallbackWhenCached: options.fallbackWhenCached };
  const bootstrap = bootstrapFor(addresses, 'observer-fault-test');
  if (options.deltaAds) {
    bootstrap.xds_servers = addresses.map((uri) => ({ server_uri: uri, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3', 'failout_delta_ads'] }));
  }
  return { ...bootstrap, failout };
}

/** What {@link observerBootstrap} says beyond the addresses. */
export interface ObserverBootstrapOptions {
  /** `failout.fallbackWhenCached`; left out when undefined. */
  readonly fallbackWhenCached?: boolean;
  /** Lists `failout_delta_ads` for every observer: the client speaks incremental ADS to them. */
  readonly deltaAds?: boolean;
}

/**
 * A D2 client with failout reading `basePath` over xDS from `addresses` (A71 fallback, in order);
 * `logs` keeps what it logged. `bootstrap` picks what the bootstrap says of `fallbackWhenCached`.
 */
export function d2ClientOver(addresses: readonly string[], basePath: string, bootstrap?: ObserverBootstrapOptions): { client: BuiltD2Client; logs: LogLine[] } {
  const { logger, lines } = capturingLogger();
  const client = buildD2Client({
    discovery: { xds: { bootstrap: parseBootstrap(observerBootstrap(addresses, bootstrap)) }, basePath },
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
    warmUp: false,
    logger,
  });
  return { client, logs: lines };
}

/** Writes `<base>/clusters/<cluster>` failed out to `peer` for every bucket, for an hour. */
export async function writeFailout(session: ZkReader & ZkWriter, base: string, cluster: string, peer: string): Promise<void> {
  const now = Date.now();
  const doc = {
    clusterName: cluster,
    failoutProperties: {
      failoutRedirectConfigs: [{ peer, weight: 1 }],
      failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: now - 1000, onlineAt: now + 3_600_000, requestId: 'fault-test' }],
    },
  };
  await put(session, clusterPath(base, cluster), JSON.stringify(doc));
}

/** Writes `<base>/clusters/<cluster>` with no failout. */
export async function writeRestore(session: ZkReader & ZkWriter, base: string, cluster: string): Promise<void> {
  await put(session, clusterPath(base, cluster), JSON.stringify({ clusterName: cluster }));
}

/** Changes that take a cluster away from a client (`removed`, or its hosts gone): none may come while its data still exists. */
export function removals(recorder: ChangeRecorder): string[] {
  return recorder.events.filter((e) => e.startsWith('removed:') || e.endsWith(':none'));
}

/** Resolves `d2://greetings/hello` until it lands on `cluster`; returns the target. */
export async function resolvesTo(client: BuiltD2Client, cluster: string, timeoutMs = 20_000): Promise<D2Target> {
  let last: D2Target | undefined;
  await eventually(
    async () => {
      last = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
      return last.cluster === cluster;
    },
    timeoutMs,
    `d2://greetings to resolve to ${cluster}`,
  );
  return last!;
}
