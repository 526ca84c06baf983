/**
 * What the unit tests of the observer's ADS streams (SotW and delta) share: a cache and a
 * subscription table with no ZooKeeper behind them (resources are put into the cache by hand), hooks
 * that record NACKs and closes, and waiting out the streams' coalescing turns.
 */
import type { StreamHooks } from '../../lib/observer/ads-stream';
import { ResourceCache } from '../../lib/observer/resource-cache';
import { resourceKey, type NodeTarget } from '../../lib/observer/resource-names';
import { Subscriptions } from '../../lib/observer/subscriptions';
import { indis } from '../../lib/xds';
import type { Stat } from '../../lib/zk';

/** One stream's world: its cache and subscriptions, and what its hooks heard. */
export interface StreamFixture {
  readonly cache: ResourceCache;
  readonly subscriptions: Subscriptions;
  readonly nacks: string[];
  /** How many times `closed` was called. */
  readonly closed: () => number;
  readonly hooks: StreamHooks;
  /** Puts cluster node `path` in the cache at `mzxid`, its data `{clusterName, properties}`. */
  write(path: string, mzxid: bigint, properties?: Record<string, string>): void;
  /** Puts `path` in the cache as a node that does not exist. */
  remove(path: string): void;
}

/** A znode stat with `mzxid` (everything else fixed). */
export const nodeStat = (mzxid: bigint): Stat => ({ czxid: 1n, mzxid, pzxid: 1n, ephemeralOwner: 0n, ctime: 0, mtime: 0, version: 0, cversion: 0, aversion: 0, dataLength: 0, numChildren: 0 });

const clusterTarget = (path: string): NodeTarget => ({ kind: 'cluster', path });

/** A fresh fixture; close `subscriptions` after the test. */
export function streamFixture(): StreamFixture {
  const cache = new ResourceCache({ encoded: () => undefined, malformed: () => undefined });
  const subscriptions = new Subscriptions({ cache, basePath: '/d2', lingerMs: 0, watch: () => ({ close: () => undefined }) });
  const nacks: string[] = [];
  let closed = 0;
  const NODE = indis.D2_NODE_TYPE_URL;
  return {
    cache,
    subscriptions,
    nacks,
    closed: () => closed,
    hooks: { pushed: () => undefined, nacked: (info) => nacks.push(info.message), closed: () => void closed++ },
    write(path, mzxid, properties) {
      const data = Buffer.from(JSON.stringify({ clusterName: path.split('/').pop(), ...(properties ? { properties } : {}) }));
      cache.putNode(resourceKey(NODE, path), NODE, clusterTarget(path), { exists: true, data, stat: nodeStat(mzxid) });
    },
    remove(path) {
      cache.putNode(resourceKey(NODE, path), NODE, clusterTarget(path), { exists: false });
    },
  };
}

/** Lets the streams' coalesced flushes (`setImmediate`) run. */
export async function turns(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
}
