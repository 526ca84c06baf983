// One failout client as the benchmarks run it (bench/failout-propagation's client-worker, and
// bench/evacuate's): its own ZooKeeper session, LoadBalancerState and ZooKeeperFailoutConfigProvider,
// i.e. what `FailoutClient` reads on every request, without the HTTP half. Shared so that every
// propagation benchmark measures the same client.
import { LoadBalancerState } from '../../lib/d2';
import { ZooKeeperFailoutConfigProvider } from '../../lib/failout';
import type { Logger } from '../../lib/logging';
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

/** Runs `start(0 … count-1)` with at most `concurrency` at once (sessions connected while setting up). */
export async function inLanes(count: number, concurrency: number, start: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < count) await start(next++);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, lane));
}
