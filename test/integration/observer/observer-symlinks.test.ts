/**
 * D2 symlinks (`$` clusters, issue 25) on a real ZooKeeper and real gRPC on loopback:
 * - the observer serves a `$` node as `indis.D2SymlinkNode`, read here with the independently written
 *   `XdsD2.proto` (test/helpers/indis-reference.ts), and pushes a re-pointed link;
 * - in each discovery mode (ZooKeeper, xDS through an observer, dual read of both), a service whose
 *   cluster is `$homeMaster` routes to the hosts the links point at, FailoutClient redirects it to its
 *   peer and counts the redirect under the `$` name as for any cluster, a re-pointed link moves it,
 *   and a link to a missing node reads as does-not-exist.
 */
import { Registry } from 'prom-client';
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client, type D2DiscoverySource } from '../../../lib/failout';
import { D2Observer } from '../../../lib/observer';
import { indis, parseBootstrap } from '../../../lib/xds';
import { unwrapResource } from '../../../lib/xds/envoy-protos';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { referenceRoot } from '../../helpers/indis-reference';
import { capturingLogger } from '../../helpers/logging';
import { RawAdsStream } from '../../helpers/observer';
import { observerBootstrap, resolvesTo, writeFailout } from '../../helpers/observer-faults';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

const LINK = '$homeMaster';

describe('D2 symlinks over ZooKeeper and over the observer', () => {
  let base: string;
  let writer: ZkSession;
  let session: ZkSession;
  let observer: D2Observer;
  let raw: RawAdsStream | undefined;
  let client: BuiltD2Client | undefined;

  beforeEach(async () => {
    base = uniqueBase('observer-symlinks');
    writer = await openSession();
    session = await openSession();
    observer = await D2Observer.start({ zk: session, basePath: base, lingerMs: 100 });
  });

  afterEach(async () => {
    raw?.close();
    raw = undefined;
    await client?.close();
    client = undefined;
    await observer.close();
    await closeSessions();
  });

  /** Points both links of `$homeMaster` (cluster and URIs) at `cluster`. */
  async function link(cluster: string): Promise<void> {
    await put(writer, clusterPath(base, LINK), clusterPath(base, cluster));
    await put(writer, urisPath(base, LINK), urisPath(base, cluster));
  }

  it('serves a $ node as a D2SymlinkNode the reference schema reads, and pushes it re-pointed', async () => {
    // Prepare
    const path = clusterPath(base, LINK);
    await put(writer, path, clusterPath(base, 'home'));
    const symlinkType = referenceRoot().lookupType('indis.D2SymlinkNode');
    const decode = (response: Awaited<ReturnType<RawAdsStream['next']>>): unknown[] =>
      (response?.resources ?? []).map((any) => {
        const inner = unwrapResource(any);
        return [inner.name, inner.any.type_url, symlinkType.toObject(symlinkType.decode(inner.any.value), { longs: String }).master_cluster_node_path];
      });
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);

    // Act
    raw.send({ type_url: indis.D2_SYMLINK_NODE_TYPE_URL, resource_names: [path] });
    const first = await raw.next();
    raw.ack(first!, [path]);
    await put(writer, path, clusterPath(base, 'peer'));
    const second = await raw.next();

    // Assess
    expect(decode(first)).toEqual([[path, indis.D2_SYMLINK_NODE_TYPE_URL, clusterPath(base, 'home')]]);
    expect(decode(second)).toEqual([[path, indis.D2_SYMLINK_NODE_TYPE_URL, clusterPath(base, 'peer')]]);
  });

  const modes: Array<[string, (zk: ZkSession, grpcPort: number) => D2DiscoverySource | { dualRead: { primary: D2DiscoverySource; secondary: D2DiscoverySource; settleMs: number } }]> = [
    ['ZooKeeper', (zk) => ({ zookeeper: { session: zk } })],
    ['xDS through the observer', (_zk, port) => ({ xds: { bootstrap: parseBootstrap(observerBootstrap([`127.0.0.1:${port}`])), watchExpiryMs: 3000 } })],
    [
      'dual read (ZooKeeper primary, xDS secondary)',
      (zk, port) => ({ dualRead: { primary: { zookeeper: { session: zk } }, secondary: { xds: { bootstrap: parseBootstrap(observerBootstrap([`127.0.0.1:${port}`])), watchExpiryMs: 3000 } }, settleMs: 500 } }),
    ],
  ];

  it.each(modes)('routes a service on a $ cluster by its links, fails it out to its peer with the counters, follows a re-point and reads a missing target as absent, over %s', async (_mode, discoveryOf) => {
    // Prepare
    await putService(writer, base, serviceDoc('greetings', LINK, '/greetings'));
    for (const cluster of ['home', 'peer', 'other']) {
      await putCluster(writer, base, clusterDoc(cluster));
      await putUri(writer, base, cluster, 'h1', `http://${cluster}-1:8080`);
    }
    await link('home');
    const registry = new Registry();
    const { logger, lines } = capturingLogger();
    client = buildD2Client({
      discovery: { ...discoveryOf(writer, observer.grpcPort), basePath: base },
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
      warmUp: false,
      registry,
      logger,
    });

    // Act: home through the link, then failed out to peer
    const before = await resolvesTo(client, LINK);
    await writeFailout(writer, base, 'home', 'peer');
    const during = await resolvesTo(client, 'peer');
    const redirected = (await registry.getSingleMetric('failout_client_redirected_total')?.get())?.values ?? [];

    // Act: the link re-pointed at other, then at a node that does not exist
    await link('other');
    let moved = await resolvesTo(client, LINK);
    await eventually(
      async () => {
        moved = await client!.resolve('d2://greetings/hello', { routingKey: 'member-1' });
        return moved.host === 'http://other-1:8080';
      },
      20_000,
      'the re-pointed link',
    );
    await put(writer, clusterPath(base, LINK), clusterPath(base, 'nowhere'));
    await eventually(() => client!.state.getClusterProperties(LINK) === undefined, 20_000, 'the missing target read as absent');

    // Assess
    expect(before).toMatchObject({ cluster: LINK, host: 'http://home-1:8080' });
    expect(during).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(redirected).toEqual([expect.objectContaining({ labels: { cluster: LINK, peer: 'peer' } })]);
    expect(moved).toMatchObject({ cluster: LINK, host: 'http://other-1:8080' });
    expect(client.state.stats().clusters.malformed).toBe(0);
    expect(lines.filter((l) => l.level === 'error')).toEqual([]);
    const mismatches = (await registry.getSingleMetric('d2_dual_read_mismatch_total')?.get())?.values ?? [];
    expect(mismatches.filter((v) => v.value > 0)).toEqual([]);
  });
});
