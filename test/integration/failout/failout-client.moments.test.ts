import { Registry } from 'prom-client';
import { LoadBalancerState } from '../../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import {
  WeightedFailoutRedirectStrategy,
  ZooKeeperFailoutConfigProvider,
  ZooKeeperFailoutConfigProviderFactory,
  buildD2Client,
  type BuiltD2Client,
  type D2ClientConfig,
} from '../../../lib/failout';
import type { ZkSession } from '../../../lib/zk';
import { put } from '../../helpers/d2';
import { closeServers, startServer, type RecordingServer } from '../../helpers/http';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

// The client side of failout at the moments that matter (issue 13), through the path a service takes:
// `buildD2Client(config)` over a real ZooKeeper and real HTTP backends. Cluster documents are written
// as the JSON the worker writes (the contract), not through our codecs.

const LOR1 = 'greetings-lor1';
const LVA1 = 'greetings-lva1';
const LTX1 = 'greetings-ltx1';
const URL = 'd2://greetings/hello';
const HOUR = 3_600_000;

/** A bucket entry covering every bucket, active for the next hour. */
function activeBucket(): Record<string, unknown> {
  return { partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + HOUR };
}

/** A cluster document, failed out to `peers` (`[cluster, weight]`) for the next hour when given. */
function clusterJson(name: string, peers?: [string, number][]): string {
  const doc: Record<string, unknown> = { clusterName: name };
  if (peers) {
    doc.failoutProperties = {
      failoutRedirectConfigs: peers.map(([peer, weight]) => ({ peer, weight })),
      failoutBucketConfigs: [
        { partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + HOUR, requestId: 'it', reason: 'test' },
      ],
    };
  }
  return JSON.stringify(doc);
}

function uriJson(cluster: string, uri: string): string {
  return JSON.stringify({ weights: { [uri]: 1.0 }, clusterName: cluster, partitionDesc: { [uri]: { '0': { weight: 1.0 } } }, uriSpecificProperties: {} });
}

function serviceJson(name: string, cluster: string, schemes = ['http']): string {
  return JSON.stringify({ serviceName: name, clusterName: cluster, path: `/${name}`, loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: schemes });
}

/** Sends `count` requests, `concurrency` in flight; returns how many each cluster served. */
async function sendMany(client: BuiltD2Client, count: number, concurrency: number): Promise<Record<string, number>> {
  const seen: Record<string, number> = {};
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next++;
      const response = await client.request(URL);
      await response.body.dump();
      seen[response.target.cluster] = (seen[response.target.cluster] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return seen;
}

/** The peer watches of `cluster`'s manager in the provider `buildD2Client` built. */
function peerStates(client: BuiltD2Client, cluster: string): Map<string, string> {
  const provider = client.provider;
  if (!(provider instanceof ZooKeeperFailoutConfigProvider)) throw new Error('buildD2Client built no ZooKeeperFailoutConfigProvider');
  return provider.peerStates(cluster);
}

async function counterValue(registry: Registry, name: string): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.reduce((sum, v) => sum + v.value, 0);
}

describe('FailoutClient through buildD2Client, at the moments that matter', () => {
  let writer: ZkSession;
  let base: string;
  let servers: Record<string, RecordingServer>;
  const opened: { state: LoadBalancerState; client: BuiltD2Client }[] = [];

  beforeEach(async () => {
    writer = await openSession();
    base = uniqueBase('failout-moments');
    servers = {};
    for (const cluster of [LOR1, LVA1, LTX1]) servers[cluster] = await startServer(cluster);
  });

  afterEach(async () => {
    for (const { state, client } of opened.splice(0)) {
      await client.close();
      state.close();
    }
    await closeServers();
    await closeSessions();
  });

  async function writeTopology(failedOutTo?: [string, number][]): Promise<void> {
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, failedOutTo));
    for (const cluster of [LVA1, LTX1]) await put(writer, clusterPath(base, cluster), clusterJson(cluster));
    for (const cluster of [LOR1, LVA1, LTX1]) await put(writer, `${urisPath(base, cluster)}/host-1`, uriJson(cluster, servers[cluster]!.uri));
    await put(writer, servicePath(base, 'greetings'), serviceJson('greetings', LOR1));
  }

  async function build(session: ZkSession, overrides: Partial<D2ClientConfig> = {}): Promise<{ state: LoadBalancerState; client: BuiltD2Client }> {
    const state = new LoadBalancerState({ session, basePath: base });
    const client = buildD2Client({
      state,
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
      warmUpMaxJitterMs: 0,
      ...overrides,
    });
    opened.push({ state, client });
    return { state, client };
  }

  describe('a service started during an active failout', () => {
    it('sends none of 200 concurrent first requests to the failed-out cluster', async () => {
      await writeTopology([[LVA1, 2], [LTX1, 1]]);
      const { client } = await build(await openSession());

      const seen = await sendMany(client, 200, 200);

      expect(servers[LOR1]!.paths).toHaveLength(0);
      expect(seen[LOR1]).toBeUndefined();
      expect((seen[LVA1] ?? 0) + (seen[LTX1] ?? 0)).toBe(200);
    });

    it('sends none of 5 sequential first requests to the failed-out cluster', async () => {
      await writeTopology([[LVA1, 1]]);
      const { client } = await build(await openSession());

      const seen = await sendMany(client, 5, 1);

      expect(servers[LOR1]!.paths).toHaveLength(0);
      expect(seen).toEqual({ [LVA1]: 5 });
    });

    it('sends none of 200 concurrent first requests to the failed-out cluster after a session expiry', async () => {
      await writeTopology([[LVA1, 1]]);
      const session = await openSession();
      const { state, client } = await build(session);
      await state.listenToService('greetings');
      await expireSession(session);

      const seen = await sendMany(client, 200, 200);

      expect(servers[LOR1]!.paths).toHaveLength(0);
      expect(seen).toEqual({ [LVA1]: 200 });
    });

    it('keeps sending to the peers when a session expires mid-failout', async () => {
      await writeTopology([[LVA1, 1]]);
      const session = await openSession();
      const { client } = await build(session);
      await sendMany(client, 5, 1);
      await expireSession(session);

      const seen = await sendMany(client, 200, 50);

      expect(servers[LOR1]!.paths).toHaveLength(0);
      expect(seen).toEqual({ [LVA1]: 200 });
    });
  });

  describe('a change written while the session was expired (rest.li rebuilds its state on expiry)', () => {
    /** Expires the session with `change` written meanwhile; resolves the cluster of a request sent the moment the new session is up. */
    async function firstRequestAfterExpiry(session: ZkSession, client: BuiltD2Client, change: () => Promise<void>): Promise<string> {
      let first: Promise<string> | undefined;
      const unsubscribe = session.on((event) => {
        if (event !== 'reset' || first) return;
        first = client.request(URL).then(async (response) => {
          await response.body.dump();
          return response.target.cluster;
        });
      });
      try {
        await expireSession(session, change);
        await eventually(() => first !== undefined, 10_000, 'new session');
        return await first!;
      } finally {
        unsubscribe();
      }
    }

    it('sends the first request after the new session to the peer of a failout written meanwhile', async () => {
      // Prepare: traffic on the cluster, its peer not followed
      await writeTopology();
      const session = await openSession();
      const { client } = await build(session);
      expect(await sendMany(client, 5, 1)).toEqual({ [LOR1]: 5 });

      // Act
      const cluster = await firstRequestAfterExpiry(session, client, () => put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]])));

      // Assess
      expect(cluster).toBe(LVA1);
      expect(await sendMany(client, 50, 10)).toEqual({ [LVA1]: 50 });
    });

    it('sends the first request after the new session home when the failout was restored meanwhile', async () => {
      // Prepare: failed out, traffic on the peer
      await writeTopology([[LVA1, 1]]);
      const session = await openSession();
      const { client } = await build(session);
      expect(await sendMany(client, 5, 1)).toEqual({ [LVA1]: 5 });

      // Act
      const cluster = await firstRequestAfterExpiry(session, client, () => put(writer, clusterPath(base, LOR1), clusterJson(LOR1)));

      // Assess
      expect(cluster).toBe(LOR1);
      expect(await sendMany(client, 50, 10)).toEqual({ [LOR1]: 50 });
    });
  });

  it('warms up a peer whose hosts are announced after the failout started', async () => {
    await writeTopology();
    await writer.remove(`${urisPath(base, LVA1)}/host-1`);
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);

    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() === true, 10_000, 'failout seen');
    await new Promise((r) => setTimeout(r, 200));
    expect(servers[LVA1]!.connections()).toBe(0);
    await put(writer, `${urisPath(base, LVA1)}/host-1`, uriJson(LVA1, servers[LVA1]!.uri));

    await eventually(() => servers[LVA1]!.connections() > 0, 10_000, 'peer warmed');
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 1, 10_000, 'warm-up counted');
    expect(servers[LVA1]!.paths.length).toBeGreaterThan(0);
  });

  it('warms the new hosts of a warm peer whose hosts are all replaced, and not on a weight change', async () => {
    await writeTopology();
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 1, 10_000, 'peer warmed');
    const old = servers[LVA1]!;
    const oldRequests = old.paths.length;
    const replacement = await startServer(`${LVA1}-redeployed`);

    // A redeploy: the old host leaves, a new one is announced.
    await writer.remove(`${urisPath(base, LVA1)}/host-1`);
    await put(writer, `${urisPath(base, LVA1)}/host-2`, uriJson(LVA1, replacement.uri));
    await eventually(() => replacement.connections() > 0, 10_000, 'new host warmed');
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 2, 10_000, 'warm-up counted');
    const heavier = JSON.parse(uriJson(LVA1, replacement.uri)) as { weights: Record<string, number> };
    heavier.weights[replacement.uri] = 2.0;
    await put(writer, `${urisPath(base, LVA1)}/host-2`, JSON.stringify(heavier));
    await new Promise((r) => setTimeout(r, 300));

    expect(replacement.paths).toEqual(['/']);
    expect(old.paths).toHaveLength(oldRequests);
    expect(await counterValue(registry, 'failout_warmups_started_total')).toBe(2);
    expect(await sendMany(client, 1, 1)).toEqual({ [LVA1]: 1 });
    expect(replacement.connections()).toBe(1);
  });

  it('tears down every peer watch the failout created once it ends, also after traffic went there', async () => {
    await writeTopology();
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: 300 });
    await sendMany(client, 1, 1);
    expect(state.isListeningToCluster(LVA1)).toBe(false);

    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(() => state.isListeningToCluster(LVA1), 10_000, 'peer watched');
    await eventually(async () => (await sendMany(client, 1, 1))[LVA1] === 1, 10_000, 'redirected');
    await sendMany(client, 20, 5);
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1));
    await eventually(async () => (await sendMany(client, 1, 1))[LOR1] === 1, 10_000, 'restored');

    await eventually(() => !state.isListeningToCluster(LVA1), 5_000, 'peer watch torn down');
    expect(state.isListeningToCluster(LOR1)).toBe(true);
  });

  it("keeps the peer watched for the teardown delay when the failed-out cluster's node is deleted, then releases it", async () => {
    await writeTopology([[LVA1, 1]]);
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: 2_000 });
    expect(await sendMany(client, 1, 1)).toEqual({ [LVA1]: 1 });

    await writer.remove(clusterPath(base, LOR1));
    await eventually(() => client.provider?.getFailoutConfig(LOR1) === undefined, 10_000, 'config dropped');
    // Requests already redirected to the peer may still be in flight: its watch (and pool) stays.
    expect(state.isListeningToCluster(LVA1)).toBe(true);
    expect(client.provider?.getClusters()).toEqual([LOR1]);

    await eventually(() => !state.isListeningToCluster(LVA1), 5_000, 'peer watch torn down');
    expect(client.provider?.getClusters()).toEqual([]);
  });

  it('releases every peer watch at once when its state closes', async () => {
    await writeTopology([[LVA1, 1]]);
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: 60_000 });
    expect(await sendMany(client, 1, 1)).toEqual({ [LVA1]: 1 });

    state.close();

    expect(client.provider?.getClusters()).toEqual([]);
    expect(client.provider?.getFailoutConfig(LOR1)).toBeUndefined();
  });

  it("closes its connections to a peer once the failout's peer watch is torn down, keeping its own cluster's", async () => {
    await writeTopology();
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: 300 });
    await sendMany(client, 1, 1);
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await sendMany(client, 1, 1))[LVA1] === 1, 10_000, 'redirected');
    await sendMany(client, 5, 1);
    const openToPeer = servers[LVA1]!.openConnections();

    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1));
    await eventually(async () => (await sendMany(client, 1, 1))[LOR1] === 1, 10_000, 'restored');
    await eventually(() => !state.isListeningToCluster(LVA1), 5_000, 'peer watch torn down');

    // Well within the pools' keep-alive (4 s): only a closed pool closes the connection this soon.
    await eventually(() => servers[LVA1]!.openConnections() === 0, 1_500, 'peer connections closed');
    expect(openToPeer).toBeGreaterThan(0);
    expect(servers[LOR1]!.openConnections()).toBeGreaterThan(0);
    expect(await sendMany(client, 3, 1)).toEqual({ [LOR1]: 3 });
  });

  it('keeps its connections to a peer after the teardown while somebody else still follows the peer', async () => {
    await writeTopology();
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: 300 });
    await sendMany(client, 1, 1);
    await state.listenToCluster(LVA1);
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await sendMany(client, 1, 1))[LVA1] === 1, 10_000, 'redirected');
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1));
    await eventually(async () => (await sendMany(client, 1, 1))[LOR1] === 1, 10_000, 'restored');

    // Past the teardown (300 ms), well within the pools' keep-alive (4 s).
    await new Promise((r) => setTimeout(r, 700));

    expect(client.provider?.getFailoutConfig(LOR1)).toBeUndefined();
    expect(state.isListeningToCluster(LVA1)).toBe(true);
    expect(servers[LVA1]!.openConnections()).toBeGreaterThan(0);
    state.stopListenToCluster(LVA1);
    await eventually(() => servers[LVA1]!.openConnections() === 0, 1_500, 'closed once nobody follows it');
  });

  it('warms the very pools it then sends on: the first redirected request opens no new connection', async () => {
    await writeTopology();
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);
    expect(servers[LVA1]!.connections()).toBe(0);

    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 1, 10_000, 'warm-up done');
    const warmed = servers[LVA1]!.connections();
    expect(warmed).toBeGreaterThan(0);
    expect(await counterValue(registry, 'failout_warmup_connections_opened_total')).toBeGreaterThan(0);

    const seen = await sendMany(client, 1, 1);

    expect(seen).toEqual({ [LVA1]: 1 });
    expect(servers[LVA1]!.connections()).toBe(warmed);
    // The manager's peer watch shows in the same registry.
    expect(await client.registry.metrics()).toContain(`failout_peer_watches{cluster="${LOR1}",peer="${LVA1}",status="warm"} 1`);
    expect(client.registry).toBe(registry);
  });

  it('has the warmed connection still open when a window scheduled past the keep-alive starts', async () => {
    // The peers of a scheduled window are watched peerWarmUpLeadMs (30 s) ahead, but an idle
    // keep-alive connection lives a few seconds (Node's server: 5 s, and undici closes it earlier):
    // connections opened 30 s ahead are gone when the traffic arrives.
    await writeTopology();
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);
    const start = Date.now() + 6_000;
    const doc = JSON.parse(clusterJson(LOR1, [[LVA1, 1]])) as { failoutProperties: { failoutBucketConfigs: { offlineAt: number }[] } };
    doc.failoutProperties.failoutBucketConfigs[0]!.offlineAt = start;

    await put(writer, clusterPath(base, LOR1), JSON.stringify(doc));
    await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() === true, 10_000, 'window started');
    const warmed = servers[LVA1]!.connections();
    const seen = await sendMany(client, 1, 1);

    expect(seen).toEqual({ [LVA1]: 1 });
    expect(warmed).toBeGreaterThan(0);
    expect(await counterValue(registry, 'failout_warmups_failed_total')).toBe(0);
    expect(servers[LVA1]!.connections()).toBe(warmed);
  });

  it('warms a peer again when it is failed out to anew after its idle connections closed, within the teardown delay', async () => {
    // rest.li warms a peer up on every peer-watch addition. Here a peer re-added before its teardown
    // keeps its watch; its connections, idle since the restore, are gone after a few seconds.
    // Prepare: failed out, warmed, traffic on the peer; restored, and the peer's connections idled out
    await writeTopology();
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 1, 10_000, 'first warm-up');
    expect(await sendMany(client, 5, 1)).toEqual({ [LVA1]: 5 });
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1));
    await eventually(async () => (await sendMany(client, 1, 1))[LOR1] === 1, 10_000, 'restored');
    await eventually(() => servers[LVA1]!.openConnections() === 0, 10_000, 'idle peer connections closed');

    // Act: failed out again, well within the 60 s teardown delay.
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() === true, 10_000, 'failout seen');
    await eventually(() => servers[LVA1]!.openConnections() > 0, 5_000, 'peer warmed again');
    await eventually(async () => (await counterValue(registry, 'failout_warmups_succeeded_total')) === 2, 5_000, 'second warm-up done');
    const warmed = servers[LVA1]!.connections();
    const seen = await sendMany(client, 1, 1);

    // Assess
    expect(seen).toEqual({ [LVA1]: 1 });
    expect(servers[LVA1]!.connections()).toBe(warmed);
  });

  it('tears down the peers a restore dropped at their own time, while a failout of the peer keeps the peer it shares', async () => {
    // Prepare: lor1 failed out to lva1 and ltx1; lva1 (followed as lor1's peer) failed out to ltx1 too.
    const TEARDOWN_MS = 1_500;
    await writeTopology([[LVA1, 1], [LTX1, 1]]);
    const { state, client } = await build(await openSession(), { peerWatchTeardownDelayMs: TEARDOWN_MS });
    expect(Object.keys(await sendMany(client, 4, 1)).sort()).toEqual([LTX1, LVA1]);
    await put(writer, clusterPath(base, LVA1), clusterJson(LVA1, [[LTX1, 1]]));
    await eventually(() => client.provider?.getFailoutConfig(LVA1)?.isFailedOut() === true, 10_000, "lva1's failout seen");

    // Act: lor1 restored (both peers dropped), then failed out again to lva1 alone before the teardown.
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1));
    await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() !== true, 10_000, 'restore seen');
    const droppedAt = Date.now();
    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(() => peerStates(client, LOR1).get(LVA1) === 'warm', 10_000, 'lva1 taken back');
    const beforeTeardown = { ltx1: peerStates(client, LOR1).get(LTX1), elapsed: Date.now() - droppedAt };
    await eventually(() => !peerStates(client, LOR1).has(LTX1), 10_000, "lor1's drop of ltx1 torn down");
    const tornDownAfter = Date.now() - droppedAt;
    const afterTeardown = { lor1Peers: peerStates(client, LOR1), ltx1Followed: state.isListeningToCluster(LTX1), lva1Followed: state.isListeningToCluster(LVA1) };
    // Then lva1 restored: its own drop of ltx1 is the last hold, released after its own delay.
    await put(writer, clusterPath(base, LVA1), clusterJson(LVA1));
    await eventually(() => !state.isListeningToCluster(LTX1), 10_000, 'ltx1 released');

    // Assess
    expect(beforeTeardown.ltx1).toBe('tearingDown');
    expect(beforeTeardown.elapsed).toBeLessThan(TEARDOWN_MS);
    expect(tornDownAfter).toBeGreaterThanOrEqual(TEARDOWN_MS - 250);
    expect(afterTeardown).toEqual({ lor1Peers: new Map([[LVA1, 'warm']]), ltx1Followed: true, lva1Followed: true });
    expect(await sendMany(client, 3, 1)).toEqual({ [LVA1]: 3 });
  });

  it('does not warm up when the config turns warm-up off', async () => {
    await writeTopology();
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry, warmUp: false });
    await sendMany(client, 1, 1);

    await put(writer, clusterPath(base, LOR1), clusterJson(LOR1, [[LVA1, 1]]));
    await eventually(async () => (await sendMany(client, 1, 1))[LVA1] === 1, 10_000, 'redirected');

    expect(await counterValue(registry, 'failout_warmups_started_total')).toBe(0);
  });

  it('keeps a request on its cluster when the only peer has no host in a scheme the service speaks', async () => {
    await writeTopology([[LVA1, 1]]);
    await put(writer, `${urisPath(base, LVA1)}/host-1`, uriJson(LVA1, `https://127.0.0.1:${servers[LVA1]!.port}`));
    const { client } = await build(await openSession());

    const seen = await sendMany(client, 10, 2);

    expect(seen).toEqual({ [LOR1]: 10 });
  });

  it("counts a request kept on its cluster for want of an eligible peer as a fail-open on the client's registry", async () => {
    // Prepare: the README's wiring; the only peer has no host the service would send to.
    await writeTopology([[LVA1, 1]]);
    await put(writer, `${urisPath(base, LVA1)}/host-1`, uriJson(LVA1, `https://127.0.0.1:${servers[LVA1]!.port}`));
    const { client } = await build(await openSession(), { failoutRedirectStrategy: (view, { registry }) => new WeightedFailoutRedirectStrategy({ view, registry }) });

    // Act
    const seen = await sendMany(client, 10, 2);
    const text = await client.registry.metrics();

    // Assess: in the client's fail-open counter, once per request, and in the strategy's own counter.
    expect(seen).toEqual({ [LOR1]: 10 });
    expect(text).toContain(`failout_client_fail_open_total{cluster="${LOR1}",reason="noEligiblePeer"} 10`);
    expect(await counterValue(client.registry, 'failout_client_fail_open_total')).toBe(10);
    expect(text).toContain(`failout_strategy_no_eligible_peer_total{cluster="${LOR1}",outcome="failOpen"} 10`);
  });

  it('counts a fail-open for want of an eligible peer on the client also when the strategy keeps its counters elsewhere', async () => {
    // Prepare: a strategy built without the context's registry; the only peer has no host at all.
    await writeTopology([[LVA1, 1]]);
    await writer.remove(`${urisPath(base, LVA1)}/host-1`);
    const { client } = await build(await openSession());

    // Act
    await sendMany(client, 3, 1);

    // Assess
    expect(await client.registry.metrics()).toContain(`failout_client_fail_open_total{cluster="${LOR1}",reason="noEligiblePeer"} 3`);
  });

  it('counts a cluster document the codec rejects in the registry the user gave', async () => {
    await writeTopology([[LVA1, 1]]);
    const registry = new Registry();
    const { client } = await build(await openSession(), { registry });
    await sendMany(client, 1, 1);

    await put(writer, clusterPath(base, LOR1), '{"clusterName": "greetings-lor1", "failoutProperties": {"failoutRedirectConfigs": "nope"}}');

    await eventually(async () => (await counterValue(registry, 'failout_config_malformed_total')) === 1, 10_000, 'malformed counted');
    expect(await sendMany(client, 5, 1)).toEqual({ [LVA1]: 5 });
  });

  // rest.li D2 failout parity (FailoutClient, ZKFailoutConfigProvider, ClusterPropertiesSerializerTest's
  // data): the redirected request's URI, peer naming (the `fabric` alias, D2 symlinks), no eligible
  // peer, and the provider's life cycle (properties null, node deleted and re-created, malformed update).
  describe('rest.li D2 failout parity', () => {
    beforeEach(() => writeTopology());

    async function buildClient(registry = new Registry()): Promise<BuiltD2Client> {
      return (await build(await openSession(), { registry })).client;
    }

    /** Writes `cluster`'s document with these `failoutProperties` as raw JSON. */
    async function failOut(cluster: string, failoutProperties: unknown): Promise<void> {
      await put(writer, clusterPath(base, cluster), JSON.stringify({ clusterName: cluster, failoutProperties }));
    }

    /** Sends `n` requests one by one; returns how many each cluster served. */
    async function send(client: BuiltD2Client, url: string, n = 1): Promise<Record<string, number>> {
      const seen: Record<string, number> = {};
      for (let i = 0; i < n; i++) {
        const r = await client.request(url);
        await r.body.dump();
        seen[r.target.cluster] = (seen[r.target.cluster] ?? 0) + 1;
      }
      return seen;
    }

    it('keeps path, encoded characters and query on the redirected request', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1, weight: 1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      const r = await client.request('d2://greetings/a%2Fb/c?q=1%202&r=%3F#frag');
      await r.body.dump();
      expect(r.target.cluster).toBe(LVA1);
      expect(servers[LVA1]!.paths.at(-1)).toBe('/greetings/a%2Fb/c?q=1%202&r=%3F');
    });

    it('redirects to a peer named by the fabric alias (rest.li test data)', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ fabric: LVA1, weight: 1 }], failoutBucketConfigs: [{ partition: 'main' }] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      expect(await send(client, 'd2://greetings/x', 10)).toEqual({ [LVA1]: 10 });
    });

    it('keeps requests home when the only peer is the cluster itself, and with no peers at all', async () => {
      const registry = new Registry();
      const client = await buildClient(registry);
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LOR1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() === true, 10_000, 'failout seen');
      expect(await send(client, 'd2://greetings/x', 5)).toEqual({ [LOR1]: 5 });
      await failOut(LOR1, { failoutRedirectConfigs: [], failoutBucketConfigs: [activeBucket()] });
      await eventually(() => client.provider?.getFailoutConfig(LOR1)?.getPeerClusters().size === 0, 10_000, 'no peers');
      expect(await send(client, 'd2://greetings/x', 5)).toEqual({ [LOR1]: 5 });
    });

    it('redirects to a peer named by a D2 symlink', async () => {
      await put(writer, clusterPath(base, '$lva1Master'), clusterPath(base, LVA1));
      await put(writer, urisPath(base, '$lva1Master'), urisPath(base, LVA1));
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: '$lva1Master' }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster !== LOR1, 10_000, 'redirect');
      const r = await client.request('d2://greetings/x');
      await r.body.dump();
      expect(r.headers['x-served-by']).toBe(LVA1);
    });

    it('redirects a service whose cluster is a symlink to a failed-out cluster', async () => {
      await put(writer, clusterPath(base, '$lor1Master'), clusterPath(base, LOR1));
      await put(writer, urisPath(base, '$lor1Master'), urisPath(base, LOR1));
      await put(writer, servicePath(base, 'greetings'), serviceJson('greetings', '$lor1Master'));
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
    });

    it('splits 1:1:1 among three peers and skips a peer whose node is deleted', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await put(writer, clusterPath(base, 'greetings-lsg1'), JSON.stringify({ clusterName: 'greetings-lsg1' }));
      const lsg1 = await startServer('greetings-lsg1');
      await put(writer, `${urisPath(base, 'greetings-lsg1')}/host-1`, uriJson('greetings-lsg1', lsg1.uri));
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }, { peer: LTX1 }, { peer: 'greetings-lsg1' }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster !== LOR1, 10_000, 'redirect');
      await new Promise((r) => setTimeout(r, 300));
      const seen = await send(client, 'd2://greetings/x', 30);
      expect(seen).toEqual({ [LVA1]: 10, [LTX1]: 10, 'greetings-lsg1': 10 });
      await writer.remove(`${urisPath(base, 'greetings-lsg1')}/host-1`);
      await writer.remove(clusterPath(base, 'greetings-lsg1'));
      await new Promise((r) => setTimeout(r, 500));
      const after = await send(client, 'd2://greetings/x', 20);
      expect(after).toEqual({ [LVA1]: 10, [LTX1]: 10 });
    });

    it('stops redirecting at once when failoutProperties becomes null, and drops the config', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      await put(writer, clusterPath(base, LOR1), JSON.stringify({ clusterName: LOR1, failoutProperties: null }));
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LOR1, 10_000, 'restored');
      expect(client.provider?.getFailoutConfig(LOR1)).toBeUndefined();
    });

    it('keeps a config with no bucket entries present but not failed out (rest.li testClusterStoreProperties)', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [] });
      await eventually(() => client.provider?.getFailoutConfig(LOR1) !== undefined, 10_000, 'config');
      expect(client.provider?.getFailoutConfig(LOR1)?.isFailedOut()).toBe(false);
      expect(await send(client, 'd2://greetings/x', 3)).toEqual({ [LOR1]: 3 });
    });
    it('fails open, counted per request, when every peer is missing (no node, no hosts)', async () => {
      const registry = new Registry();
      const client = await buildClient(registry);
      await send(client, 'd2://greetings/x');
      await writer.remove(`${urisPath(base, LTX1)}/host-1`);
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: 'greetings-lsg1', weight: 3 }, { peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(() => client.provider?.getFailoutConfig(LOR1)?.isFailedOut() === true, 10_000, 'failout seen');
      expect(await send(client, 'd2://greetings/x', 7)).toEqual({ [LOR1]: 7 });
      const metric = registry.getSingleMetric('failout_client_fail_open_total');
      const values = (await metric!.get()).values;
      expect(values).toEqual([expect.objectContaining({ labels: { cluster: LOR1, reason: 'noEligiblePeer' }, value: 7 })]);
    });

    it('redirects again when a failed-out cluster node is deleted and re-created with a failout', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      await writer.remove(clusterPath(base, LOR1));
      await eventually(() => client.provider?.getFailoutConfig(LOR1) === undefined, 10_000, 'config gone');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x').catch(() => ({ cluster: 'err' }))).cluster === LTX1, 10_000, 'redirect again');
      expect(await send(client, 'd2://greetings/x', 4)).toEqual({ [LTX1]: 4 });
    });

    it('keeps the last good failout when an update is malformed, and takes the next good one', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      await put(writer, clusterPath(base, LOR1), '{"clusterName":"greetings-lor1","failoutProperties":{"failoutRedirectConfigs":"nope"}}');
      await new Promise((r) => setTimeout(r, 300));
      expect(await send(client, 'd2://greetings/x', 3)).toEqual({ [LVA1]: 3 });
      await put(writer, clusterPath(base, LOR1), '{"clusterName":"greetings-lor1"');
      await new Promise((r) => setTimeout(r, 300));
      expect(await send(client, 'd2://greetings/x', 3)).toEqual({ [LVA1]: 3 });
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LTX1, 10_000, 'next good');
    });

    it('sends to a peer whose own failout is only scheduled for later', async () => {
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LVA1, { failoutRedirectConfigs: [{ peer: LTX1 }], failoutBucketConfigs: [{ offlineAt: Date.now() + HOUR, onlineAt: Date.now() + 2 * HOUR }] });
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: LVA1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster === LVA1, 10_000, 'redirect');
      await eventually(() => client.provider?.getFailoutConfig(LVA1) !== undefined, 10_000, 'peer config');
      expect(await send(client, 'd2://greetings/x', 4)).toEqual({ [LVA1]: 4 });
    });
    it('never sends to a peer symlink that points at a peer failed out itself', async () => {
      await put(writer, clusterPath(base, '$lva1Master'), clusterPath(base, LVA1));
      await put(writer, urisPath(base, '$lva1Master'), urisPath(base, LVA1));
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LVA1, { failoutRedirectConfigs: [{ peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: '$lva1Master', weight: 5 }, { peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster !== LOR1, 10_000, 'redirect');
      await new Promise((r) => setTimeout(r, 300));
      const served: Record<string, number> = {};
      for (let i = 0; i < 12; i++) {
        const r = await client.request('d2://greetings/x');
        await r.body.dump();
        const by = String(r.headers['x-served-by']);
        served[by] = (served[by] ?? 0) + 1;
      }
      expect(served).toEqual({ [LTX1]: 12 });
    });

    it('never sends to a peer symlink that points back at the failed-out cluster', async () => {
      await put(writer, clusterPath(base, '$lor1Master'), clusterPath(base, LOR1));
      await put(writer, urisPath(base, '$lor1Master'), urisPath(base, LOR1));
      const client = await buildClient();
      await send(client, 'd2://greetings/x');
      await failOut(LOR1, { failoutRedirectConfigs: [{ peer: '$lor1Master', weight: 5 }, { peer: LTX1 }], failoutBucketConfigs: [activeBucket()] });
      await eventually(async () => (await client.resolve('d2://greetings/x')).cluster !== LOR1, 10_000, 'redirect');
      await new Promise((r) => setTimeout(r, 300));
      const before = servers[LOR1]!.paths.length;
      for (let i = 0; i < 12; i++) {
        const r = await client.request('d2://greetings/x');
        await r.body.dump();
      }
      expect(servers[LOR1]!.paths.length).toBe(before);
    });
  });
});
