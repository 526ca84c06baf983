/**
 * A failout whose peer is a RANGE partitioned cluster (d2-json-formats.md §5 with ARCHITECTURE
 * "Failout properties"): a peer is eligible for a request only with a host in the partition that
 * request would go to there; without one the request stays (fail open) or goes to another peer,
 * instead of failing with noHosts at the peer. Through buildD2Client over the in-memory ZooKeeper.
 */
import { LoadBalancerState } from '../../../lib/d2';
import { clusterPath } from '../../../lib/d2/paths';
import { buildD2Client, type BuiltD2Client } from '../../../lib/failout/d2-client-config';
import { FailoutClusterInfoProvider } from '../../../lib/failout/failout-cluster-info-provider';
import { ZooKeeperFailoutConfigProviderFactory } from '../../../lib/failout/failout-config-provider-factory';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { clusterDoc, put, putCluster, putPartitionedUri, putService, putUri, serviceDoc } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { capturingLogger } from '../../helpers/logging';

const BASE = '/d2';
const RANGE = { partitionType: 'RANGE', partitionKeyRegex: 'profiles/(\\d+)', keyRangeStart: 0, partitionSize: 1000000, partitionCount: 10 } as const;

let writer: InMemoryZkSession;
let state: LoadBalancerState;
let client: BuiltD2Client;

/** `profiles-lor1` (partitioned, one host in partitions 0–3) failed out to `peers` for the next hour. */
async function failOutTo(peers: string[]): Promise<void> {
  const failoutProperties = {
    failoutRedirectConfigs: peers.map((peer) => ({ peer, weight: 1 })),
    failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + 3_600_000 }],
  };
  await put(writer, clusterPath(BASE, 'profiles-lor1'), JSON.stringify({ clusterName: 'profiles-lor1', partitionProperties: RANGE, failoutProperties }));
}

beforeEach(async () => {
  const zk = new InMemoryZk();
  writer = zk.session();
  await putService(writer, BASE, serviceDoc('profiles', 'profiles-lor1', '/profile-war'));
  await putPartitionedUri(writer, BASE, 'profiles-lor1', 'h', 'http://lor1:8080', { 0: 1, 1: 1, 2: 1, 3: 1 });
  // profiles-lva1 serves partitions 0 and 1 only; profiles-ltx1 is not partitioned.
  await putCluster(writer, BASE, clusterDoc('profiles-lva1', { partitionProperties: RANGE }));
  await putPartitionedUri(writer, BASE, 'profiles-lva1', 'h', 'http://lva1:8080', { 0: 1, 1: 1 });
  await putCluster(writer, BASE, clusterDoc('profiles-ltx1'));
  await putUri(writer, BASE, 'profiles-ltx1', 'h', 'http://ltx1:8080');
  state = new LoadBalancerState({ session: zk.session(), basePath: BASE });
  client = buildD2Client({
    state,
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view, { registry }) => new WeightedFailoutRedirectStrategy({ view, registry }),
    warmUp: false,
    logger: capturingLogger().logger,
  });
});

afterEach(async () => {
  await client.close();
  state.close();
});

describe('FailoutClient with a partitioned peer', () => {
  it('redirects a request whose partition the peer serves', async () => {
    // Prepare
    await failOutTo(['profiles-lva1']);

    // Act
    const target = await client.resolve('d2://profiles/profiles/1500000', { routingKey: 'member-1' });

    // Assess
    expect(target).toMatchObject({ cluster: 'profiles-lva1', host: 'http://lva1:8080' });
  });

  it('keeps a request on its cluster (fail open, counted) when the only peer has no host in its partition', async () => {
    // Prepare
    await failOutTo(['profiles-lva1']);

    // Act
    const target = await client.resolve('d2://profiles/profiles/2500000', { routingKey: 'member-1' });

    // Assess
    expect(target).toMatchObject({ cluster: 'profiles-lor1', host: 'http://lor1:8080' });
    const metric = await client.registry.getSingleMetric('failout_client_fail_open_total')!.get();
    expect(metric.values.map((v) => [v.labels.cluster, v.labels.reason, v.value])).toEqual([['profiles-lor1', 'noEligiblePeer', 1]]);
  });

  it('sends a request to the peer that serves its partition, skipping the one that does not', async () => {
    // Prepare
    await failOutTo(['profiles-lva1', 'profiles-ltx1']);

    // Act
    const clusters = new Set<string>();
    for (let i = 0; i < 6; i++) clusters.add((await client.resolve('d2://profiles/profiles/2500000', { routingKey: `member-${i}` })).cluster);

    // Assess
    expect([...clusters]).toEqual(['profiles-ltx1']);
  });

  it("counts a partitioned peer's hosts by the request's partition also without the client's host counter", async () => {
    // Prepare: the view counts from the state itself (no D2Client behind it).
    await failOutTo(['profiles-lva1']);
    await client.resolve('d2://profiles/profiles/1', { routingKey: 'member-1' });
    const view = new FailoutClusterInfoProvider(state, client.provider);

    // Act
    const counts = ['d2://profiles/profiles/1500000', 'd2://profiles/profiles/2500000', 'd2://profiles/other'].map((url) => view.getHostCount('profiles-lva1', ['http'], url));

    // Assess
    expect(counts).toEqual([1, 0, 1]);
    expect([view.isPartitioned('profiles-lva1'), view.isPartitioned('profiles-ltx1')]).toEqual([true, false]);
  });
});
