/**
 * buildD2Client({ discovery: { xds } }) against a real ADS server on loopback (grpc-js): the
 * service, its failed-out cluster, the peer and their announcements arrive as rest.li `indis`
 * resources (D2Node, D2URIMap, each in a `Resource` wrapper named by its ZooKeeper path) through
 * lib/xds's XdsClient, and the FailoutClient resolves the failed-out cluster to its peer; a restore
 * pushed over xDS brings the traffic home. A cluster the server sends broken (undecodable: NACKed; or a
 * document lib/d2 rejects) keeps its last good value, failout included, while the resources sent with
 * it and after it are taken.
 */
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { buildD2Client, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory, type BuiltD2Client } from '../../../lib/failout';
import { indis, packAny, parseBootstrap } from '../../../lib/xds';
import { IndisAdsServer } from '../../helpers/indis-ads-server';
import { capturingLogger } from '../../helpers/logging';
import { bootstrapFor } from '../../helpers/xds';

const BASE = '/d2';
const HOME = 'greetings-lor1';
const PEER = 'greetings-lva1';

let zxid = 10n;
function stat(): indis.ZnodeStat {
  zxid++;
  return { czxid: zxid, mzxid: zxid, pzxid: zxid, ephemeralOwner: 0n, mtime: Date.now(), version: 0, cversion: 0, aversion: 0, dataLength: 0, numChildren: 0 };
}

function setNode(server: IndisAdsServer, path: string, doc: object): void {
  server.set(indis.D2_NODE_TYPE_URL, path, indis.buildD2Node(path, JSON.stringify(doc), stat()));
}

function setUris(server: IndisAdsServer, cluster: string, ...hosts: string[]): void {
  const path = urisPath(BASE, cluster);
  const children = hosts.map((host, i) => {
    const data = JSON.stringify({ clusterName: cluster, partitionDesc: { [host]: { '0': { weight: 1.0 } } }, uriSpecificProperties: {} });
    return { name: `host-${i + 1}`, data, stat: stat() };
  });
  server.set(indis.D2_URI_MAP_TYPE_URL, path, indis.buildD2UriMap(path, children));
}

/** A failout-enabled D2 client reading over xDS from `server` alone. */
function clientOf(server: IndisAdsServer): BuiltD2Client {
  return buildD2Client({
    discovery: { xds: { bootstrap: parseBootstrap(bootstrapFor([server.uri])) } },
    enableClusterFailout: true,
    failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
    failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
    warmUp: false,
    logger: capturingLogger().logger,
  });
}

/** Polls `predicate` until true, failing after 5 s. */
async function eventually(predicate: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function failedOut(): object {
  return {
    clusterName: HOME,
    failoutProperties: {
      failoutRedirectConfigs: [{ peer: PEER, weight: 1 }],
      failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + 3_600_000, requestId: 'it' }],
    },
  };
}

describe('buildD2Client over xDS (indis resources from an ADS server on loopback)', () => {
  let server: IndisAdsServer;
  let client: BuiltD2Client | undefined;

  beforeEach(async () => {
    server = await IndisAdsServer.start();
    setNode(server, servicePath(BASE, 'greetings'), { serviceName: 'greetings', clusterName: HOME, path: '/greetings', loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] });
    setNode(server, clusterPath(BASE, HOME), failedOut());
    setNode(server, clusterPath(BASE, PEER), { clusterName: PEER });
    setUris(server, HOME, 'http://127.0.0.1:18001');
    setUris(server, PEER, 'http://127.0.0.1:18002');
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    server.close();
  });

  it.each([
    ['a D2Node it cannot decode (no data: NACKed)', 'undecodable'],
    ['a D2Node whose JSON is no valid cluster document (lib/d2 rejects it)', 'invalid document'],
  ] as const)('keeps the last good cluster when the server sends %s, and takes the other resources sent with and after it', async (_case, bad) => {
    // Prepare: a client routing home's traffic to its peer
    client = clientOf(server);
    const before = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Act: home arrives broken (its failout would be lost if the client took it), then peer and its hosts change
    const homePath = clusterPath(BASE, HOME);
    if (bad === 'undecodable') server.set(indis.D2_NODE_TYPE_URL, homePath, packAny(indis.D2_NODE_TYPE_URL, { stat: {} }));
    else setNode(server, homePath, { clusterName: HOME, failoutProperties: { failoutBucketConfigs: 'all of them' } });
    await eventually(() => client!.state.stats().clusters.malformed > 0, 'the broken cluster to be counted');
    setNode(server, clusterPath(BASE, PEER), { clusterName: PEER, bannedUris: ['http://127.0.0.1:18002'] });
    setUris(server, PEER, 'http://127.0.0.1:18002', 'http://127.0.0.1:18003');
    await eventually(() => client!.state.getUris(PEER)?.hosts.length === 2 && client!.state.getClusterProperties(PEER)?.bannedUris.length === 1, "peer's update");
    const during = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    // Act: a good home again (restored)
    setNode(server, homePath, { clusterName: HOME });
    await eventually(() => client!.state.getClusterProperties(HOME)?.failoutProperties === null, 'the good home');
    const after = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Assess
    expect(before).toMatchObject({ cluster: PEER, host: 'http://127.0.0.1:18002' });
    expect(during).toMatchObject({ cluster: PEER, host: 'http://127.0.0.1:18003' });
    expect(after).toMatchObject({ cluster: HOME, host: 'http://127.0.0.1:18001' });
    // SotW: home is in both D2Node responses while it is broken (with itself, then with peer's update)
    const nackOfHome = { typeUrl: indis.D2_NODE_TYPE_URL, message: expect.stringContaining(`${homePath}: D2Node has no data`) };
    if (bad === 'undecodable') expect(server.nacks).toEqual([nackOfHome, nackOfHome]);
    else expect(server.nacks).toEqual([]);
  });

  it('resolves a failed-out cluster to its peer, and home again after a restore pushed over xDS', async () => {
    // Prepare
    client = clientOf(server);

    // Act
    const during = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    setNode(server, clusterPath(BASE, HOME), { clusterName: HOME });
    const deadline = Date.now() + 5000;
    let after = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    while (after.cluster !== HOME && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    }

    // Assess
    expect(during).toMatchObject({ cluster: PEER, host: 'http://127.0.0.1:18002' });
    expect(after).toMatchObject({ cluster: HOME, host: 'http://127.0.0.1:18001' });
    expect(client.state.getClusterProperties(HOME)?.failoutProperties).toBeNull();
    expect(client.state.stats().clusters.malformed).toBe(0);
  });
});
