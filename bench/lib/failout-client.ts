// One failout client as the benchmarks run it (bench/failout-propagation's client-worker, and
// bench/evacuate's): its own ZooKeeper session, LoadBalancerState and ZooKeeperFailoutConfigProvider,
// i.e. what `FailoutClient` reads on every request, without the HTTP half. Shared so that every
// propagation benchmark measures the same client. The same client over xDS (bench/propagation's
// `--discovery xds`): its own XdsClient instead of the session, the rest unchanged.
import { LoadBalancerState, xdsSources } from '../../lib/d2';
import { ZooKeeperFailoutConfigProvider } from '../../lib/failout';
import type { Logger } from '../../lib/logging';
import { createXdsClient, parseBootstrap, type XdsClient } from '../../lib/xds';
import { connectSession, type ZkSession } from '../../lib/zk';

/** One client: a session of its own, the D2 state over it and the failout provider over the state. */
export interface BenchFailoutClient {
  readonly session: ZkSession;
  readonly state: LoadBalancerState;
  readonly provider: ZooKeeperFailoutConfigProvider;
}

/** What {@link startFailoutClient} needs. */
export interface BenchFailoutClientOptions {
  readonly connectString: string;
  /** D2 base path the client follows. */
  readonly basePath: string;
  readonly sessionTimeoutMs: number;
  /** The provider's peer watch teardown delay. */
  readonly teardownDelayMs: number;
  /** Shared by every client of a process: a pino destination per client would open thousands of handles. */
  readonly logger: Logger;
}

/**
 * Connects a client and starts its provider; follows nothing yet. A cluster listener the caller
 * registers afterwards runs after the provider's, so it sees the provider's view of each update.
 */
export async function startFailoutClient(options: BenchFailoutClientOptions): Promise<BenchFailoutClient> {
  const { connectString, basePath, sessionTimeoutMs, teardownDelayMs, logger } = options;
  const session = await connectSession({ connectString, sessionTimeoutMs, logger });
  const state = new LoadBalancerState({ session, basePath, logger });
  // No warm-up handler: the benchmarks measure routing state, not HTTP.
  const provider = new ZooKeeperFailoutConfigProvider({ state, peerWatchTeardownDelayMs: teardownDelayMs, logger });
  provider.start();
  return { session, state, provider };
}

/** Closes every client: providers and states first, then the sessions, together. */
export async function closeFailoutClients(clients: readonly BenchFailoutClient[]): Promise<void> {
  for (const client of clients) {
    client.provider.close();
    client.state.close();
  }
  await Promise.all(clients.map((c) => c.session.close().catch(() => undefined)));
}

/** One client over xDS: an XdsClient of its own (its own connection to its observers), the D2 state over it and the provider. */
export interface BenchXdsFailoutClient {
  readonly xds: XdsClient;
  readonly state: LoadBalancerState;
  readonly provider: ZooKeeperFailoutConfigProvider;
}

/** What {@link startXdsFailoutClient} needs. */
export interface BenchXdsFailoutClientOptions extends Omit<BenchFailoutClientOptions, 'connectString' | 'sessionTimeoutMs'> {
  /** The client's gRPC xDS bootstrap (its observers in priority order). */
  readonly bootstrap: Record<string, unknown>;
}

/**
 * Creates a client over xDS as `buildD2Client({ discovery: { xds: { bootstrap } } })` builds its state
 * (lib/failout/d2-discovery.ts: an XdsClient, `xdsSources`, a `LoadBalancerState`), and starts its
 * provider; follows nothing yet, connects on the first watch.
 */
export function startXdsFailoutClient(options: BenchXdsFailoutClientOptions): BenchXdsFailoutClient {
  const { bootstrap, basePath, teardownDelayMs, logger } = options;
  const xds = createXdsClient({ bootstrap: parseBootstrap(bootstrap) });
  const state = new LoadBalancerState({ sources: xdsSources(xds), basePath, logger });
  const provider = new ZooKeeperFailoutConfigProvider({ state, peerWatchTeardownDelayMs: teardownDelayMs, logger });
  provider.start();
  return { xds, state, provider };
}

/** Closes every xDS client: providers and states first, then the XdsClients (their streams and connections). */
export function closeXdsFailoutClients(clients: readonly BenchXdsFailoutClient[]): void {
  for (const client of clients) {
    client.provider.close();
    client.state.close();
    client.xds.close();
  }
}
