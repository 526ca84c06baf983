import type { ZooKeeperServer } from '../../lib/local/zookeeper';

export default async function globalTeardown(): Promise<void> {
  await (globalThis as { failoutZooKeeper?: ZooKeeperServer }).failoutZooKeeper?.close();
}
