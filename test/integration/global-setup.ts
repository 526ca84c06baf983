import { startZooKeeper, type ZooKeeperServer } from '../../lib/local/zookeeper';

/**
 * One ZooKeeper for the whole integration project (tests isolate themselves under unique base
 * paths). Tests that restart or expire things start their own server. Short session bounds let
 * expiry tests run in seconds.
 */
export default async function globalSetup(): Promise<void> {
  const server = await startZooKeeper({ sessionTimeouts: { minMs: 1000, maxMs: 20000 } });
  process.env.FAILOUT_TEST_ZK = server.connectString;
  (globalThis as { failoutZooKeeper?: ZooKeeperServer }).failoutZooKeeper = server;
}
