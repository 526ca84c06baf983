/**
 * Many clusters changing at once under observers, real ZooKeeper and gRPC on loopback, through
 * `buildD2Client({ discovery: { xds } })` over SotW and incremental ADS:
 * - an evacuation writes failouts of 50 clusters in ONE ZooKeeper multi: every client over the
 *   observer routes all 50 services away, and no cluster is ever taken from it meanwhile;
 * - a failout whose peer is deleted: the client hears the peer removed and sends the failed-out
 *   cluster's traffic to its other peer; with no peer left it stays home (fail open, counted).
 */
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import type { BuiltD2Client } from '../../../lib/failout';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { putClustersWithHost, putService, serviceDoc } from '../../helpers/d2';
import type { LogLine } from '../../helpers/logging';
import { d2ClientOver, KillableObserver, removals } from '../../helpers/observer-faults';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

const CLUSTERS = Array.from({ length: 50 }, (_, i) => `c${String(i).padStart(2, '0')}`);

/** A cluster document failed out (every bucket, for an hour) to `peers`, one weight each. */
function failedOutDoc(cluster: string, peers: readonly string[]): Buffer {
  const now = Date.now();
  return Buffer.from(
    JSON.stringify({
      clusterName: cluster,
      failoutProperties: {
        failoutRedirectConfigs: peers.map((peer) => ({ peer, weight: 1 })),
        failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: now - 1000, onlineAt: now + 3_600_000, requestId: 'many' }],
      },
    }),
  );
}

/** The cluster `d2://<service>/hello` resolves to for `key`. */
async function clusterOf(client: BuiltD2Client, service: string, key = 'member-1'): Promise<string> {
  return (await client.resolve(`d2://${service}/hello`, { routingKey: key })).cluster;
}

/** The clusters 40 routing keys of `service` resolve to, sorted and deduplicated. */
async function clustersOf(client: BuiltD2Client, service: string): Promise<string[]> {
  const keys = Array.from({ length: 40 }, (_, i) => `member-${i}`);
  return [...new Set(await Promise.all(keys.map((key) => clusterOf(client, service, key))))].sort();
}

/** The client's `failout_client_fail_open_total` for `cluster`, all reasons. */
async function failOpens(client: BuiltD2Client, cluster: string): Promise<number> {
  const metric = await client.registry.getSingleMetric('failout_client_fail_open_total')?.get();
  return (metric?.values ?? []).filter((v) => v.labels.cluster === cluster).reduce((sum, v) => sum + v.value, 0);
}

describe.each([
  ['SotW', false],
  ['incremental ADS', true],
] as const)('D2 clients over an observer (%s) when many clusters change at once', (_mode, deltaAds) => {
  let base: string;
  let writer: ZkSession;
  let observer: KillableObserver;
  let client: BuiltD2Client | undefined;
  let clientLogs: LogLine[];
  let recorder: ChangeRecorder;

  beforeEach(async () => {
    base = uniqueBase('observer-many');
    writer = await openSession();
    await putClustersWithHost(writer, base, [...CLUSTERS, 'refuge', 'shelter']);
    for (const cluster of CLUSTERS) await putService(writer, base, serviceDoc(`s-${cluster}`, cluster, `/s-${cluster}`));
    observer = await KillableObserver.start(base);
    ({ client, logs: clientLogs } = d2ClientOver([observer.address], base, { fallbackWhenCached: true, deltaAds }));
    recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    await observer.close();
    await closeSessions();
  });

  it('routes every one of 50 services away after an evacuation written in one multi', async () => {
    // Prepare: the client follows all 50 services, each routed home
    const before = await Promise.all(CLUSTERS.map((cluster) => clusterOf(client!, `s-${cluster}`)));
    await client!.state.listenToCluster('refuge');

    // Act: one multi fails the 50 clusters out to refuge
    await writer.multi(CLUSTERS.map((cluster) => ({ op: 'set', path: clusterPath(base, cluster), data: failedOutDoc(cluster, ['refuge']), version: -1 })));
    let after: string[] = [];
    await eventually(
      async () => {
        after = await Promise.all(CLUSTERS.map((cluster) => clusterOf(client!, `s-${cluster}`)));
        return after.every((cluster) => cluster === 'refuge');
      },
      20_000,
      'every service routed to refuge',
    );

    // Assess
    expect(before).toEqual(CLUSTERS);
    expect(after).toEqual(CLUSTERS.map(() => 'refuge'));
    expect(CLUSTERS.filter((cluster) => client!.state.getFailoutProperties(cluster)?.redirects[0]?.peer !== 'refuge')).toEqual([]);
    expect(removals(recorder)).toEqual([]);
    expect(client!.state.stats().clusters.malformed).toBe(0);
    expect(clientLogs.filter((l) => l.level === 'error')).toEqual([]);
  }, 40_000);

  it("sends a failed-out cluster's traffic to its other peer when one peer is deleted, and home (fail open) when both are", async () => {
    // Prepare: c00 failed out to refuge and shelter, its traffic split between them
    await writer.set(clusterPath(base, 'c00'), failedOutDoc('c00', ['refuge', 'shelter']));
    const service = 's-c00';
    await eventually(async () => (await clustersOf(client!, service)).join() === 'refuge,shelter', 10_000, 'traffic split over both peers');

    // Act: shelter is deleted (its host, URI directory and node)
    await writer.remove(`${urisPath(base, 'shelter')}/host-1`);
    await writer.remove(urisPath(base, 'shelter'));
    await writer.remove(clusterPath(base, 'shelter'));
    await eventually(() => recorder.events.includes('removed:shelter'), 10_000, 'the deletion of shelter at the client');
    const oneLeft = await clustersOf(client!, service);
    // Act: refuge is deleted too
    await writer.remove(`${urisPath(base, 'refuge')}/host-1`);
    await writer.remove(urisPath(base, 'refuge'));
    await writer.remove(clusterPath(base, 'refuge'));
    await eventually(() => recorder.events.includes('removed:refuge'), 10_000, 'the deletion of refuge at the client');
    const opensBefore = await failOpens(client!, 'c00');
    const noneLeft = await clustersOf(client!, service);

    // Assess
    expect(oneLeft).toEqual(['refuge']);
    expect(noneLeft).toEqual(['c00']);
    expect((await failOpens(client!, 'c00')) - opensBefore).toBe(40);
    expect(clientLogs.filter((l) => l.level === 'error')).toEqual([]);
  }, 40_000);
});
