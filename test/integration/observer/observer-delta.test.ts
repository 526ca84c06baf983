/**
 * The D2 observer over incremental (delta) ADS, against a real ZooKeeper and real gRPC on loopback: a
 * raw grpc-js `DeltaAggregatedResources` stream, decoded with a schema written independently of the
 * server (test/helpers/delta-ads.ts), as rest.li's `XdsClientImpl` speaks it (issue 25):
 * - subscribing to a service, a cluster and a URI map sends each resource with its version;
 * - a write sends only the changed resource again, with a new version; an unsubscribed one is quiet;
 * - a missing node, a node deleted later and a name the observer refuses are `removed_resources`;
 * - a reconnected stream's `initial_resource_versions` keep what the client has from being resent;
 * - a NACK is counted and never answered by a resend; the next change is still sent;
 * - SotW and delta streams share the cache and the watches (one encode per change).
 */
import { serializeUriProperties } from '../../../lib/d2';
import { D2Observer } from '../../../lib/observer';
import { indis } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { d2NodesOf, RawDeltaStream, uriMapsOf, type DeltaResp } from '../../helpers/delta-ads';
import { clusterDoc, put, putCluster } from '../../helpers/d2';
import { metric, metricsText, nodesOf, RawAdsStream } from '../../helpers/observer';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

/** Time allowed for a response that must not come. */
const QUIET_MS = 500;

describe('the D2 observer over delta ADS, real ZooKeeper and gRPC', () => {
  let base: string;
  let writer: ZkSession;
  let session: ZkSession;
  let observer: D2Observer;
  const streams: Array<{ close(): void }> = [];

  const open = (): RawDeltaStream => {
    const s = new RawDeltaStream(`127.0.0.1:${observer.grpcPort}`);
    streams.push(s);
    return s;
  };
  const service = (cluster: string): string => JSON.stringify({ serviceName: 'greetings', clusterName: cluster, path: '/greetings', loadBalancerStrategyList: ['degraderV3'] });
  const uri = (host: string): string => serializeUriProperties({ clusterName: 'greetings-lor1', partitionDesc: { [`http://${host}:80`]: { 0: 1 } }, uriSpecificProperties: {} });
  const names = (r: DeltaResp | undefined): string[] => (r?.resources ?? []).map((x) => x.name).sort();

  beforeEach(async () => {
    base = uniqueBase('observer-delta');
    writer = await openSession();
    session = await openSession();
    observer = await D2Observer.start({ zk: session, basePath: base, admin: { host: '127.0.0.1', port: 0 }, lingerMs: 100 });
  });

  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await observer.close();
    await closeSessions();
  });

  it('sends a service, a cluster and a URI map with their versions, then only the resource that changed', async () => {
    // Prepare
    const svc = `${base}/services/greetings`;
    const cluster = `${base}/clusters/greetings-lor1`;
    const uris = `${base}/uris/greetings-lor1`;
    await put(writer, svc, service('greetings-lor1'));
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '1' } }));
    await put(writer, `${uris}/h1`, uri('h1'));
    const delta = open();

    // Act: subscribe per type
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [svc, cluster] });
    const nodes = await delta.until([svc, cluster]);
    delta.send({ type_url: indis.D2_URI_MAP_TYPE_URL, subscribe: [uris] });
    const map = await delta.until([uris]);

    // Act: a cluster write, then a URI added
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const changed = await delta.next();
    delta.ack(changed!);
    await put(writer, `${uris}/h2`, uri('h2'));
    const mapChanged = await delta.next();
    delta.ack(mapChanged!);
    const quiet = await delta.next(QUIET_MS);

    // Assess: each resource's version is its znode's mzxid (a map's changes with any child)
    expect(nodes?.type_url).toBe(indis.D2_NODE_TYPE_URL);
    expect(nodes?.removed).toEqual([]);
    const byName = new Map(d2NodesOf(nodes).map((n) => [n.name, n]));
    const [c1, s1] = [byName.get(cluster), byName.get(svc)];
    expect(names(nodes)).toEqual([cluster, svc].sort());
    for (const n of [c1, s1]) expect(n?.version).toBe(n?.mzxid);
    expect(c1?.data).toMatchObject({ clusterName: 'greetings-lor1', properties: { v: '1' } });
    expect(s1?.data).toMatchObject({ clusterName: 'greetings-lor1' });
    expect(uriMapsOf(map)).toEqual([{ name: uris, version: expect.any(String), children: ['h1'] }]);
    const [c2] = d2NodesOf(changed);
    expect(names(changed)).toEqual([cluster]);
    expect(c2?.data).toMatchObject({ properties: { v: '2' } });
    expect(BigInt(c2!.version)).toBeGreaterThan(BigInt(c1!.version));
    const [m2] = uriMapsOf(mapChanged);
    expect(m2?.children).toEqual(['h1', 'h2']);
    expect(BigInt(m2!.version)).toBeGreaterThan(BigInt(uriMapsOf(map)[0]!.version));
    expect(quiet).toBeUndefined();
    expect(metric(await metricsText(observer.adminPort!), 'd2_observer_ads_delta_streams')).toBe(1);
  });

  it('sends nothing more for a name once unsubscribed, while the other names keep coming', async () => {
    // Prepare
    const a = `${base}/clusters/greetings-lor1`;
    const b = `${base}/clusters/greetings-lva1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    await putCluster(writer, base, clusterDoc('greetings-lva1'));
    const delta = open();
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [a, b] });
    await delta.until([a, b]);

    // Act
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, unsubscribe: [a] });
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const afterUnsubscribed = await delta.next(QUIET_MS);
    await putCluster(writer, base, clusterDoc('greetings-lva1', { properties: { v: '2' } }));
    const other = await delta.next();

    // Assess
    expect(afterUnsubscribed).toBeUndefined();
    expect(names(other)).toEqual([b]);
  });

  it('reports a missing node as removed, sends it once created, and removes it again when deleted', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    const delta = open();

    // Act
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [path] });
    const missing = await delta.next();
    delta.ack(missing!);
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const created = await delta.next();
    delta.ack(created!);
    await put(writer, path, '{"clusterName": ');
    const afterMalformed = await delta.next(QUIET_MS);
    await writer.remove(path);
    const deleted = await delta.next();

    // Assess: a malformed write keeps the last good version (nothing sent)
    expect(missing).toMatchObject({ resources: [], removed: [path] });
    expect(names(created)).toEqual([path]);
    expect(created?.removed).toEqual([]);
    expect(afterMalformed).toBeUndefined();
    expect(deleted).toMatchObject({ resources: [], removed: [path] });
  });

  it('reports names the observer refuses as removed and serves the rest of the request', async () => {
    // Prepare
    const good = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const refused = [`${base}/clusters/a\u0000b`, `${base}/clusters/${'x'.repeat(2000)}`, '/elsewhere/clusters/c', `${base}/uris/greetings-lor1`, '*'];
    const delta = open();

    // Act
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [good, ...refused] });
    const all = await delta.until([good, ...refused]);
    const quiet = await delta.next(QUIET_MS);

    // Assess: the refused names (the wildcard among them: not supported) are removed, the good one sent
    expect([...all.removed].sort()).toEqual([...refused].sort());
    expect(names(all)).toEqual([good]);
    expect(quiet).toBeUndefined();
  });

  it('resends after a reconnect only what the initial_resource_versions show the client lacks', async () => {
    // Prepare
    const a = `${base}/clusters/greetings-lor1`;
    const b = `${base}/clusters/greetings-lva1`;
    const gone = `${base}/clusters/greetings-lsg1`;
    for (const c of ['greetings-lor1', 'greetings-lva1', 'greetings-lsg1']) await putCluster(writer, base, clusterDoc(c));
    const before = open();
    before.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [a, b, gone] });
    const held = await before.until([a, b, gone]);
    const versions = Object.fromEntries(held.resources.map((r) => [r.name, r.version]));
    before.close();

    // Act: while disconnected, b changes and gone is deleted; then the client reconnects with what it holds
    await putCluster(writer, base, clusterDoc('greetings-lva1', { properties: { v: '2' } }));
    await writer.remove(gone);
    const after = open();
    after.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [a, b, gone], initial_versions: versions });
    const resent = await after.until([b, gone]);
    const quiet = await after.next(QUIET_MS);

    // Assess
    expect(names(held)).toEqual([a, b, gone].sort());
    expect(names(resent)).toEqual([b]);
    expect(resent?.removed).toEqual([gone]);
    expect(quiet).toBeUndefined();
  });

  it('shows the delta stream in CSDS: the version the client ACKed per name, DOES_NOT_EXIST for a removed one', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    const missing = `${base}/clusters/greetings-lva1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const delta = open();

    // Act
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [path, missing] });
    const got = await delta.until([path, missing]);
    const stream = (): Array<[string, string, string]> =>
      (observer.clientStatus().config.find((c) => c.node?.id === 'raw-delta-test')?.generic_xds_configs ?? []).map((g) => [g.name, g.version_info, g.client_status]);
    await eventually(() => stream().every(([, , status]) => status !== 'REQUESTED') && stream().length === 2, 2000, 'both names settled in CSDS');

    // Assess
    expect(stream().sort()).toEqual(
      [
        [path, got.resources[0]!.version, 'ACKED'],
        [missing, '', 'DOES_NOT_EXIST'],
      ].sort(),
    );
  });

  it('counts a NACK and does not resend the rejected version, then sends the next change', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const delta = open();
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [path] });
    const first = await delta.next();

    // Act
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, response_nonce: first!.nonce, error_detail: { code: 3, message: 'test NACK' } });
    const resent = await delta.next(QUIET_MS);
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const next = await delta.next();

    // Assess
    expect(resent).toBeUndefined();
    expect(d2NodesOf(next)[0]?.data).toMatchObject({ properties: { v: '2' } });
    expect(next?.nonce).not.toBe(first?.nonce);
    expect(metric(await metricsText(observer.adminPort!), 'd2_observer_nacks_total{type="D2Node"}')).toBe(1);
    await eventually(() => {
      const status = JSON.stringify(observer.clientStatus());
      return status.includes('test NACK') && status.includes('raw-delta-test');
    }, 2000, 'the NACK in CSDS');
  });

  it('serves SotW and delta streams of one node from one encode per change', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '1' } }));
    const sotw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);
    streams.push(sotw);
    const delta = open();
    sotw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    sotw.ack((await sotw.next())!, [path]);
    delta.send({ type_url: indis.D2_NODE_TYPE_URL, subscribe: [path] });
    await delta.until([path]);
    const encodesBefore = metric(await metricsText(observer.adminPort!), 'd2_observer_encodes_total{type="D2Node"}');

    // Act
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const [bySotw, byDelta] = await Promise.all([sotw.next(), delta.next()]);

    // Assess
    expect(nodesOf(bySotw)[0]?.data.properties).toEqual({ v: '2' });
    expect(d2NodesOf(byDelta)[0]?.data).toMatchObject({ properties: { v: '2' } });
    expect(metric(await metricsText(observer.adminPort!), 'd2_observer_encodes_total{type="D2Node"}') - encodesBefore).toBe(1);
  });
});
