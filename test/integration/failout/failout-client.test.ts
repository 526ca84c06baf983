import { D2Client, LoadBalancerState, type FailoutProperties } from '../../../lib/d2';
import { FailoutClusterInfoProvider } from '../../../lib/failout/failout-cluster-info-provider';
import { FailoutClient } from '../../../lib/failout/failout-client';
import { ZooKeeperFailoutConfigProviderFactory } from '../../../lib/failout/failout-config-provider-factory';
import type { FailoutClusterView, FailoutConfigProvider } from '../../../lib/failout/types';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeServers, startServer, type RecordingServer } from '../../helpers/http';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// FailoutClient end to end: real ZooKeeper, real HTTP servers in greetings-lor1/-lva1/-ltx1, the
// ZooKeeper-backed provider and the default strategy. Where only the decision matters, resolve() runs
// the same decision without sending.

const LOR1 = 'greetings-lor1';
const LVA1 = 'greetings-lva1';
const LTX1 = 'greetings-ltx1';
const URL = 'd2://greetings/hello';
const HOUR = 3_600_000;

/** `failoutProperties` sending `peers` ([cluster, weight]) the buckets `from`–`to`, active for the next hour. */
function failout(peers: [string, number][], from = 0, to = 99): FailoutProperties {
  return {
    redirects: peers.map(([peer, weight]) => ({ peer, weight })),
    ignoredRedirectEntries: 0,
    buckets: [{ partition: 'main', bucketOfflineRange: { from, to }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + HOUR, requestId: 'it', reason: 'test' }],
  };
}

/** Sends `count` real requests, `concurrency` in flight, optionally keyed; returns per-cluster counts. */
async function sendMany(client: FailoutClient, count: number, concurrency: number, key?: (i: number) => string): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      const i = next++;
      const response = await client.request(URL, key ? { routingKey: key(i) } : {});
      await response.body.dump();
      if (response.statusCode !== 200) throw new Error(`status ${response.statusCode}`);
      seen[response.target.cluster] = (seen[response.target.cluster] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return seen;
}

describe('FailoutClient over ZooKeeper', () => {
  let session: ZkSession;
  let base: string;
  let state: LoadBalancerState;
  let provider: FailoutConfigProvider;
  let view: FailoutClusterView;
  let client: FailoutClient;
  let servers: Record<string, RecordingServer>;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('failout-client');
    servers = {};
    for (const cluster of [LOR1, LVA1, LTX1]) {
      servers[cluster] = await startServer(cluster);
      await putCluster(session, base, clusterDoc(cluster));
      await putUri(session, base, cluster, 'host-1', servers[cluster]!.uri);
    }
    await putService(session, base, serviceDoc('greetings', LOR1, '/greetings'));
    state = new LoadBalancerState({ session, basePath: base });
    provider = new ZooKeeperFailoutConfigProviderFactory({ peerWatchTeardownDelayMs: 0 }).create(state);
    provider.start();
    view = new FailoutClusterInfoProvider(state, provider);
    const strategy = new WeightedFailoutRedirectStrategy({ view });
    client = new FailoutClient({ d2: new D2Client({ state }), provider, strategy });
    // The first request loads the service and its cluster (and the provider hears the cluster).
    await sendMany(client, 1, 1);
  });

  afterEach(async () => {
    await client.close();
    provider.close();
    state.close();
    await closeServers();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  /** Writes `failoutProperties` of `cluster` (null: none) and waits until the provider has the new value. */
  async function writeFailout(cluster: string, properties: FailoutProperties | null): Promise<void> {
    await putCluster(session, base, clusterDoc(cluster, { failoutProperties: properties }));
    const expected = properties === null ? undefined : JSON.stringify(properties.buckets);
    await eventually(() => {
      const config = provider.getFailoutConfig(cluster);
      if (expected === undefined) return config === undefined;
      return config !== undefined && JSON.stringify(config.windows.map((w) => ({ partition: w.partition, bucketOfflineRange: w.buckets, offlineAt: w.offlineAt, onlineAt: w.onlineAt, requestId: w.requestId, reason: w.reason }))) === expected;
    }, 10_000, `failout of ${cluster} seen`);
  }

  /** Waits until the provider follows the peers (their hosts are known). */
  async function peersReady(...peers: string[]): Promise<void> {
    await eventually(() => peers.every((peer) => view.getHostCount(peer) > 0), 10_000, `hosts of ${peers.join(', ')}`);
  }

  it('moves all of 10,000 requests to the peers, split 2:1 within 5 %, and restore brings them back', async () => {
    // Prepare
    await writeFailout(LOR1, failout([[LVA1, 2], [LTX1, 1]]));
    await peersReady(LVA1, LTX1);
    const lor1Before = servers[LOR1]!.paths.length;

    // Act
    const seen = await sendMany(client, 10_000, 50);
    const lor1During = servers[LOR1]!.paths.length;
    await writeFailout(LOR1, null);
    const restored = await sendMany(client, 300, 10);

    // Assess
    expect(seen[LOR1]).toBeUndefined();
    expect(lor1During).toBe(lor1Before);
    expect((seen[LVA1] ?? 0) + (seen[LTX1] ?? 0)).toBe(10_000);
    expect(Math.abs((seen[LVA1] ?? 0) / 10_000 - 2 / 3)).toBeLessThan(0.05);
    expect(servers[LVA1]!.paths.length).toBe(seen[LVA1]);
    expect(servers[LTX1]!.paths.length).toBe(seen[LTX1]);
    expect(restored).toEqual({ [LOR1]: 300 });
  });

  it('moves about half the keys for buckets 0–49, and the same key always lands on the same side', async () => {
    // Prepare
    await writeFailout(LOR1, failout([[LVA1, 1]], 0, 49));
    await peersReady(LVA1);
    const keys = Array.from({ length: 2_000 }, (_, i) => `member-${i}`);
    const side = async (key: string): Promise<string> => (await client.resolve(URL, { routingKey: key })).cluster;

    // Act
    const first = await Promise.all(keys.map(side));
    const second = await Promise.all(keys.map(side));
    const sent = await sendMany(client, 200, 20, (i) => keys[i]!);

    // Assess
    const moved = first.filter((c) => c === LVA1).length / keys.length;
    expect(Math.abs(moved - 0.5)).toBeLessThan(0.05);
    expect(second).toEqual(first);
    expect(new Set(first)).toEqual(new Set([LOR1, LVA1]));
    expect(sent[LVA1]).toBe(first.slice(0, 200).filter((c) => c === LVA1).length);
  });

  it('never chooses a peer that is failed out itself (chained failout)', async () => {
    // Prepare: the provider hears of ltx1 once lor1's failout makes it a followed peer.
    await writeFailout(LOR1, failout([[LTX1, 5], [LVA1, 1]]));
    await peersReady(LVA1, LTX1);
    await writeFailout(LTX1, failout([[LVA1, 1]]));

    // Act
    const targets = await Promise.all(Array.from({ length: 1_000 }, () => client.resolve(URL)));
    const sent = await sendMany(client, 100, 10);

    // Assess
    expect(new Set(targets.map((t) => t.cluster))).toEqual(new Set([LVA1]));
    expect(sent).toEqual({ [LVA1]: 100 });
  });

  it('fails open to the original cluster when no peer is eligible', async () => {
    // Prepare: the only peer does not exist, so it has no hosts.
    await writeFailout(LOR1, failout([['greetings-lsg1', 1]]));

    // Act
    const sent = await sendMany(client, 100, 10);

    // Assess
    expect(sent).toEqual({ [LOR1]: 100 });
    expect(client.stats().redirected).toEqual([]);
  });
});
