/**
 * The D2 observer against a real ZooKeeper and real gRPC on loopback: a raw ADS stream subscribes to
 * a cluster node and gets the D2Node, a ZooKeeper write pushes the new version, a malformed write
 * keeps the last good one (counted), a deleted node disappears from the SotW response, a NACK is
 * counted while the observer keeps serving; lib/xds's own XdsClient, bootstrapped at the observer,
 * receives the same data; after a session expiry the re-armed watches keep pushing.
 */
import { serializeUriProperties } from '../../../lib/d2';
import { D2Observer } from '../../../lib/observer';
import { createXdsClient, indis, parseBootstrap, type XdsClient } from '../../../lib/xds';
import type { DiscoveryResponse } from '../../../lib/xds/envoy-protos';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster } from '../../helpers/d2';
import { metric, metricsText, nodesOf, RawAdsStream, uriMapsOf } from '../../helpers/observer';
import { bootstrapFor } from '../../helpers/xds';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

describe('the D2 observer over ADS, real ZooKeeper and gRPC', () => {
  let base: string;
  let writer: ZkSession;
  let session: ZkSession;
  let observer: D2Observer;
  let raw: RawAdsStream | undefined;
  let xds: XdsClient | undefined;

  beforeEach(async () => {
    base = uniqueBase('observer');
    writer = await openSession();
    session = await openSession();
    observer = await D2Observer.start({ zk: session, basePath: base, admin: { host: '127.0.0.1', port: 0 }, lingerMs: 100 });
  });

  afterEach(async () => {
    raw?.close();
    raw = undefined;
    xds?.close();
    xds = undefined;
    await observer.close();
    await closeSessions();
  });

  it('serves a cluster node, pushes its new version, keeps the last good over a malformed write, and drops it when deleted', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '1' } }));
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);

    // Act: subscribe
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    const first = await raw.next();
    raw.ack(first!, [path]);

    // Act: a write
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const second = await raw.next();
    raw.ack(second!, [path]);

    // Act: a malformed write, then a deletion
    await put(writer, path, '{"clusterName": ');
    const afterMalformed = await raw.next(500);
    await eventually(async () => metric(await metricsText(observer.adminPort!), 'd2_observer_malformed_nodes_total') === 1, 5000, 'malformed counted');
    await writer.remove(path);
    const third = await raw.next();

    // Assess
    expect(nodesOf(first).map((n) => [n.name, n.data.properties])).toEqual([[path, { v: '1' }]]);
    expect(nodesOf(second).map((n) => n.data.properties)).toEqual([{ v: '2' }]);
    expect(nodesOf(second)[0]!.stat.mzxid).toBeGreaterThan(nodesOf(first)[0]!.stat.mzxid);
    expect(afterMalformed).toBeUndefined();
    expect(third?.resources).toEqual([]);
    expect(third?.type_url).toBe(indis.D2_NODE_TYPE_URL);
  });

  it('serves a URI map of a cluster and a NACK is counted while the stream keeps serving', async () => {
    // Prepare
    const uris = `${base}/uris/greetings-lor1`;
    const uri = (host: string): string => serializeUriProperties({ clusterName: 'greetings-lor1', partitionDesc: { [`http://${host}:80`]: { 0: 1 } }, uriSpecificProperties: {} });
    await put(writer, `${uris}/h1`, uri('h1'));
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: [uris] });
    const first = await raw.next();

    // Act
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: [uris], response_nonce: first!.nonce, error_detail: { code: 3, message: 'test NACK' } });
    await put(writer, `${uris}/h2`, uri('h2'));
    const second = await raw.next();

    // Assess
    const decode = (r: DiscoveryResponse | undefined): string[] =>
      (r?.resources ?? []).flatMap((any) => {
        const d = indis.d2UriMapType.decode(any, undefined);
        return d.ok ? d.value.nodes.map((n) => n.name) : ['undecodable'];
      });
    expect(decode(first)).toEqual(['h1']);
    expect(decode(second)).toEqual(['h1', 'h2']);
    expect(metric(await metricsText(observer.adminPort!), 'd2_observer_nacks_total{type="D2URIMap"}')).toBe(1);
  });

  it("carries the znode's whole stat, its creation time included, in a D2Node and in each URI of a map", async () => {
    // Prepare: nodes created once, so each one's ctime is its mtime
    const path = `${base}/clusters/greetings-lor1`;
    const uris = `${base}/uris/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    await put(writer, `${uris}/h1`, serializeUriProperties({ clusterName: 'greetings-lor1', partitionDesc: { 'http://h1:80': { 0: 1 } }, uriSpecificProperties: {} }));
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);

    // Act
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    const node = nodesOf(await raw.next())[0];
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: [uris] });
    const uri = uriMapsOf(await raw.next())[0]?.nodes[0];

    // Assess: Stat field 3 (Ctime) is the znode's, as rest.li's XdsD2.proto defines it, not 0
    for (const stat of [node?.stat, uri?.stat]) {
      expect(stat?.ctime).toBeGreaterThan(0);
      expect(stat?.ctime).toBe(stat?.mtime);
    }
  });

  it("delivers the same node to lib/xds's XdsClient watching d2Node by path", async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lva1`;
    await putCluster(writer, base, clusterDoc('greetings-lva1', { properties: { v: 'a' } }));
    xds = createXdsClient({ bootstrap: parseBootstrap(bootstrapFor([`127.0.0.1:${observer.grpcPort}`])) });
    const watcher = recordingWatcher();

    // Act
    xds.watch('d2Node', path, watcher);
    const first = await watcher.next();
    await putCluster(writer, base, clusterDoc('greetings-lva1', { properties: { v: 'b' } }));
    const second = await watcher.next();
    await writer.remove(path);
    const third = await watcher.next();

    // Assess
    expect(first).toMatchObject({ type: 'update', value: { name: path, data: { clusterName: 'greetings-lva1', properties: { v: 'a' } } } });
    expect(second).toMatchObject({ type: 'update', value: { data: { properties: { v: 'b' } } } });
    expect(third).toEqual({ type: 'doesNotExist' });
  });

  it('keeps pushing after its ZooKeeper session expired and a new one re-armed the watches', async () => {
    // Prepare
    const path = `${base}/services/greetings`;
    await put(writer, path, JSON.stringify({ serviceName: 'greetings', clusterName: 'greetings-lor1', path: '/greetings', loadBalancerStrategyList: ['degraderV3'] }));
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    const first = await raw.next();
    raw.ack(first!, [path]);

    // Act
    await expireSession(session);
    await eventually(() => session.state === 'connected' && observer.ready, 15000, 'a new session');
    await put(writer, path, JSON.stringify({ serviceName: 'greetings', clusterName: 'greetings-lva1', path: '/greetings', loadBalancerStrategyList: ['degraderV3'] }));
    const second = await raw.next(10000);

    // Assess
    expect(nodesOf(first)[0]?.data.clusterName).toBe('greetings-lor1');
    expect(nodesOf(second)[0]?.data.clusterName).toBe('greetings-lva1');
  });


  it('answers names ZooKeeper cannot hold as absent, serves the rest of the subscription, and keeps its session', async () => {
    // Prepare
    const good = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const hostile = [`${base}/clusters/a\u0000b`, `${base}/clusters/${'x'.repeat(1_200_000)}`];
    const events: string[] = [];
    session.on((event) => void events.push(event));
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);

    // Act
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [good, ...hostile] });
    const response = await raw.next();
    await new Promise((r) => setTimeout(r, 500));

    // Assess: the good node only (SotW: the others do not exist), and ZooKeeper never dropped the session
    expect(nodesOf(response).map((n) => n.name)).toEqual([good]);
    expect(events).toEqual([]);
    expect(session.state).toBe('connected');
  });

  it('encodes a write once and pushes it on every stream subscribed to the node', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lsg1`;
    await putCluster(writer, base, clusterDoc('greetings-lsg1', { properties: { v: '1' } }));
    const streams = Array.from({ length: 20 }, () => new RawAdsStream(`127.0.0.1:${observer.grpcPort}`));
    try {
      for (const s of streams) s.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
      const firsts = await Promise.all(streams.map((s) => s.next()));
      firsts.forEach((r, i) => streams[i]!.ack(r!, [path]));
      const encodesBefore = metric(await metricsText(observer.adminPort!), 'd2_observer_encodes_total{type="D2Node"}');

      // Act
      await putCluster(writer, base, clusterDoc('greetings-lsg1', { properties: { v: '2' } }));
      const seconds = await Promise.all(streams.map((s) => s.next()));

      // Assess
      expect(seconds.map((r) => nodesOf(r)[0]?.data.properties)).toEqual(streams.map(() => ({ v: '2' })));
      expect(metric(await metricsText(observer.adminPort!), 'd2_observer_encodes_total{type="D2Node"}') - encodesBefore).toBe(1);
    } finally {
      for (const s of streams) s.close();
    }
  });
});
