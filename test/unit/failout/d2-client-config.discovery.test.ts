/**
 * buildD2Client's `discovery` option: the client builds (and owns) its LoadBalancerState over
 * ZooKeeper, xDS (rest.li's `indis` types) or both in dual read; FailoutClient and the strategy work
 * unchanged above it; dual read counts disagreements in `d2_dual_read_mismatch_total{kind}`.
 */
import { Registry } from 'prom-client';
import { LoadBalancerState } from '../../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { buildD2Client, type D2ClientConfig } from '../../../lib/failout/d2-client-config';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { ZooKeeperFailoutConfigProviderFactory } from '../../../lib/failout/failout-config-provider-factory';
import type { ZkSession } from '../../../lib/zk';
import { put } from '../../helpers/d2';
import { FakeD2Xds } from '../../helpers/d2-xds-fake';
import { InMemoryZk } from '../../helpers/in-memory-zk';
import { capturingLogger } from '../../helpers/logging';

const BASE = '/d2';
const HOME = 'greetings-lor1';
const PEER = 'greetings-lva1';

/** The documents: service greetings on HOME, HOME failed out to PEER for the next hour, one host each. */
function documents(): [string, Record<string, unknown>][] {
  const failoutProperties = {
    failoutRedirectConfigs: [{ peer: PEER, weight: 1 }],
    failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 1000, onlineAt: Date.now() + 3_600_000 }],
  };
  return [
    [servicePath(BASE, 'greetings'), { serviceName: 'greetings', clusterName: HOME, path: '/greetings', loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] }],
    [clusterPath(BASE, HOME), { clusterName: HOME, failoutProperties }],
    [clusterPath(BASE, PEER), { clusterName: PEER }],
    ...[HOME, PEER].map((c): [string, Record<string, unknown>] => [`${urisPath(BASE, c)}/h1`, { clusterName: c, partitionDesc: { [`http://${c}:8080`]: { '0': { weight: 1 } } }, uriSpecificProperties: {} }]),
  ];
}

function serve(xds: FakeD2Xds, docs = documents()): void {
  for (const [path, doc] of docs) {
    if (path.startsWith(urisPath(BASE))) xds.putUri(path.slice(0, path.lastIndexOf('/')), path.slice(path.lastIndexOf('/') + 1), doc);
    else xds.putNode(path, doc);
  }
}

const failout: Partial<D2ClientConfig> = {
  enableClusterFailout: true,
  failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
  failoutRedirectStrategy: (view) => new WeightedFailoutRedirectStrategy({ view }),
  warmUp: false,
  logger: capturingLogger().logger,
};

async function counter(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const metric = registry.getSingleMetric(name);
  if (!metric) return 0;
  const { values } = await metric.get();
  return values.filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((sum, v) => sum + v.value, 0);
}

describe('buildD2Client with discovery', () => {
  it('over xDS, resolves a failed-out cluster to its peer from data that came as indis resources', async () => {
    // Prepare
    const xds = new FakeD2Xds();
    serve(xds);
    const client = buildD2Client({ discovery: { xds: { client: xds } }, ...failout });

    // Act
    const target = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    await client.close();

    // Assess
    expect(target).toMatchObject({ service: 'greetings', cluster: PEER, host: `http://${PEER}:8080` });
    expect(client.state.knownClusters()).toEqual([]);
    expect(xds.watched('d2Node')).toEqual([]);
    expect(xds.watched('d2UriMap')).toEqual([]);
  });

  it('over xDS, counts a malformed write of the node a $ cluster links to under the $ name, and keeps redirecting on the last good failout', async () => {
    // Prepare: greetings on $homeMaster, whose links point at HOME (failed out to PEER)
    const link = '$homeMaster';
    const xds = new FakeD2Xds();
    serve(xds, documents().map(([path, doc]) => (path === servicePath(BASE, 'greetings') ? [path, { ...doc, clusterName: link }] : [path, doc])));
    xds.putLink(clusterPath(BASE, link), clusterPath(BASE, HOME));
    xds.putLink(urisPath(BASE, link), urisPath(BASE, HOME));
    const registry = new Registry();
    const client = buildD2Client({ discovery: { xds: { client: xds } }, registry, ...failout });
    const before = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Act: HOME's node gets a document no reader can parse
    xds.putNode(clusterPath(BASE, HOME), { clusterName: 7 });
    await xds.idle();
    const after = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    const malformed = await counter(registry, 'failout_config_malformed_total', { cluster: link });
    await client.close();

    // Assess
    expect(before).toMatchObject({ cluster: PEER });
    expect(after).toMatchObject({ cluster: PEER });
    expect(malformed).toBe(1);
  });

  it('over ZooKeeper, does the same from znodes', async () => {
    const zk = new InMemoryZk();
    const writer = zk.session();
    for (const [path, doc] of documents()) await put(writer, path, JSON.stringify(doc));
    const client = buildD2Client({ discovery: { zookeeper: { session: zk.session() } }, ...failout });

    const target = await client.resolve('d2://greetings/hello');
    await client.close();

    expect(target.cluster).toBe(PEER);
  });

  it('in dual read, serves from the primary and counts the resources the secondary disagrees on', async () => {
    // Prepare: the secondary still has HOME without its failout
    const primary = new FakeD2Xds();
    const secondary = new FakeD2Xds();
    serve(primary);
    serve(secondary, documents().map(([path, doc]) => (path === clusterPath(BASE, HOME) ? [path, { clusterName: HOME }] : [path, doc])));
    const registry = new Registry();
    const client = buildD2Client({
      discovery: { dualRead: { primary: { xds: { client: primary } }, secondary: { xds: { client: secondary } }, settleMs: 10 } },
      registry,
      ...failout,
    });

    // Act
    const target = await client.resolve('d2://greetings/hello');
    await secondary.idle();
    await new Promise((resolve) => setTimeout(resolve, 30));
    const counts = { cluster: await counter(registry, 'd2_dual_read_mismatch_total', { kind: 'cluster' }), uris: await counter(registry, 'd2_dual_read_mismatch_total', { kind: 'uris' }) };
    await client.close();

    // Assess
    expect(target.cluster).toBe(PEER);
    expect(counts).toEqual({ cluster: 1, uris: 0 });
    expect(secondary.watched('d2Node')).toEqual([]);
  });

  it.each<[string, Partial<D2ClientConfig>]>([
    ['neither state nor discovery', {}],
    ['both state and discovery', { state: new LoadBalancerState({ session: {} as ZkSession }), discovery: { xds: { client: new FakeD2Xds() } } }],
  ])('refuses %s', (_name, config) => {
    expect(() => buildD2Client(config)).toThrow(TypeError);
    config.state?.close();
  });

  it('leaves a given state open on close, as before', async () => {
    const state = new LoadBalancerState({ session: new InMemoryZk().session() });
    const client = buildD2Client({ state });

    await client.close();

    expect(client.state).toBe(state);
    await expect(state.listenToCluster('still-open')).resolves.toBeUndefined();
    state.close();
  });
});
