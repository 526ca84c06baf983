/**
 * A malformed node in ZooKeeper under an observer (issue 25, item 5), real ZooKeeper and gRPC on
 * loopback: the observer keeps serving the last good version (or, for a node that never held a good
 * one, serves it as absent), counts every bad write and logs the node once while it stays broken;
 * its clients never NACK what it sends (the observer counts every NACK on its ADS streams), and a
 * later fix propagates.
 */
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import type { BuiltD2Client } from '../../../lib/failout';
import { createXdsClient, indis, parseBootstrap, type XdsClient } from '../../../lib/xds';
import type { DiscoveryResponse } from '../../../lib/xds/envoy-protos';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder } from '../../helpers/cluster-changes';
import { put, putHomeAndPeer, putUri } from '../../helpers/d2';
import { metric, metricsText, nodesOf, RawAdsStream, uriMapsOf } from '../../helpers/observer';
import { d2ClientOver, KillableObserver, observerBootstrap, removals, resolvesTo, writeFailout } from '../../helpers/observer-faults';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

/** Bad writes of a cluster node: not JSON, JSON that is no cluster document, a document lib/d2 rejects. */
const BAD_WRITES: readonly (readonly [string, string])[] = [
  ['broken JSON', '{"clusterName": '],
  ['a JSON array', '[1, 2, 3]'],
  ['a cluster name that is not a string', '{"clusterName": 42}'],
];

describe('an observer reading a malformed node', () => {
  let base: string;
  let writer: ZkSession;
  let observer: KillableObserver;
  let client: BuiltD2Client | undefined;
  let xds: XdsClient | undefined;
  const raws: RawAdsStream[] = [];

  beforeEach(async () => {
    base = uniqueBase('observer-malformed');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
    observer = await KillableObserver.start(base);
  });

  afterEach(async () => {
    for (const raw of raws.splice(0)) raw.close();
    xds?.close();
    xds = undefined;
    await client?.close();
    client = undefined;
    await observer.close();
    await closeSessions();
  });

  /** The observer's counter `name` now. */
  async function counter(name: string): Promise<number> {
    return metric(await metricsText(observer.observer.adminPort!), name);
  }

  /** Warnings the observer logged about `path`. */
  function warningsAbout(path: string): number {
    return observer.logs.filter((l) => l.level === 'warn' && l.record.path === path).length;
  }

  it.each(BAD_WRITES)('keeps serving the last good version over %s, counts each bad write, logs once, is never NACKed, and serves the fix', async (_what, bad) => {
    // Prepare: a D2 client and three raw streams on the cluster node
    const path = clusterPath(base, 'home');
    ({ client } = d2ClientOver([observer.address], base));
    const recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
    await resolvesTo(client, 'home');
    for (let i = 0; i < 3; i++) {
      const raw = new RawAdsStream(observer.address);
      raws.push(raw);
      raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
      raw.ack((await raw.next())!, [path]);
    }
    const malformedBefore = await counter('d2_observer_malformed_nodes_total');

    // Act: two bad writes, then a fix (a failout)
    await put(writer, path, bad);
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === malformedBefore + 1, 10_000, 'the first bad write counted');
    await put(writer, path, `${bad} `);
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === malformedBefore + 2, 10_000, 'the second bad write counted');
    const duringBad = await Promise.all(raws.map((r) => r.next(300)));
    const resolvedDuringBad = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    await writeFailout(writer, base, 'home', 'peer');
    const fixed = await resolvesTo(client, 'peer');
    const afterFix = await Promise.all(raws.map((r) => r.next()));

    // Assess
    expect(duringBad).toEqual([undefined, undefined, undefined]);
    expect(resolvedDuringBad).toMatchObject({ cluster: 'home' });
    expect(fixed).toMatchObject({ cluster: 'peer' });
    expect(afterFix.map((r) => nodesOf(r)[0]?.data.failoutProperties !== undefined)).toEqual([true, true, true]);
    expect(warningsAbout(path)).toBe(1);
    expect(await counter('d2_observer_nacks_total{type="D2Node"}')).toBe(0);
    expect(client.state.stats().clusters.malformed).toBe(0);
    expect(removals(recorder)).toEqual([]);
    expect(recorder.events.filter((e) => e.startsWith('malformed:'))).toEqual([]);
  });

  it('serves a node that was never good as absent (no NACK), logs it once, and serves it once it is fixed', async () => {
    // Prepare
    const path = clusterPath(base, 'fresh');
    await put(writer, path, '{"clusterName": ');
    const raw = new RawAdsStream(observer.address);
    raws.push(raw);
    xds = createXdsClient({ bootstrap: parseBootstrap(observerBootstrap([observer.address])) });
    const watcher = recordingWatcher();

    // Act
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    xds.watch('d2Node', path, watcher);
    const first = await raw.next();
    raw.ack(first!, [path]);
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === 1, 10_000, 'the first bad write counted');
    await put(writer, path, '{"clusterName": "still broken"');
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === 2, 10_000, 'the second bad write counted');
    await put(writer, path, JSON.stringify({ clusterName: 'fresh' }));
    const fixed = await raw.next();
    const update = await watcher.next();
    await put(writer, path, 'broken again');
    await eventually(() => warningsAbout(path) === 2, 10_000, 'a node broken again after its fix logged again');

    // Assess
    expect(first?.resources).toEqual([]);
    expect(nodesOf(fixed).map((n) => n.data.clusterName)).toEqual(['fresh']);
    expect(update).toMatchObject({ type: 'update', value: { name: path, data: { clusterName: 'fresh' } } });
    expect(watcher.events.filter((e) => e.type === 'error')).toEqual([]);
    expect(await counter('d2_observer_malformed_nodes_total')).toBe(3);
    expect(await counter('d2_observer_nacks_total{type="D2Node"}')).toBe(0);
  });

  it("keeps a URI child's last good announcement over bad writes, logs it once, and serves its fix", async () => {
    // Prepare
    const map = urisPath(base, 'home');
    const child = `${map}/h1`;
    const raw = new RawAdsStream(observer.address);
    raws.push(raw);
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: [map] });
    const first = await raw.next();
    raw.ack(first!, [map]);

    // Act
    await put(writer, child, '{"clusterName": ');
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === 1, 10_000, 'the first bad write counted');
    await put(writer, child, '{"clusterName": "home", "partitionDesc": 7}');
    await eventually(async () => (await counter('d2_observer_malformed_nodes_total')) === 2, 10_000, 'the second bad write counted');
    const duringBad = await raw.next(300);
    await putUri(writer, base, 'home', 'h1', 'http://home-9:8080');
    const fixed = await raw.next();

    // Assess
    expect(uriHosts(first)).toEqual(['http://home-1:8080']);
    expect(duringBad).toBeUndefined();
    expect(uriHosts(fixed)).toEqual(['http://home-9:8080']);
    expect(warningsAbout(child)).toBe(1);
    expect(await counter('d2_observer_nacks_total{type="D2URIMap"}')).toBe(0);
  });

  it('leaves out at the client an announcement the observer carries but lib/d2 rejects, keeping the cluster\'s other hosts and later changes', async () => {
    // Prepare: a D2 client on peer's hosts
    ({ client } = d2ClientOver([observer.address], base));
    await client.state.listenToCluster('peer');
    await eventually(() => client!.state.getUris('peer')?.hosts.length === 1, 10_000, "peer's host at the client");

    // Act: a second host announced with a negative weight, then a third good one and a failout
    const negative = { clusterName: 'peer', partitionDesc: { 'http://peer-2:8080': { '0': { weight: -1 } } }, uriSpecificProperties: {} };
    await put(writer, `${urisPath(base, 'peer')}/h2`, JSON.stringify(negative));
    await eventually(() => client!.state.stats().uris.malformed === 1, 10_000, 'the bad announcement counted at the client');
    await putUri(writer, base, 'peer', 'h3', 'http://peer-3:8080');
    await eventually(() => client!.state.getUris('peer')?.hosts.length === 2, 10_000, 'the third host at the client');
    await writeFailout(writer, base, 'home', 'peer');
    const routed = await resolvesTo(client, 'peer');

    // Assess: the observer served it (not its own malformed), the client left it out alone
    expect(client.state.getUris('peer')?.hosts.map((h) => h.uri).sort()).toEqual(['http://peer-1:8080', 'http://peer-3:8080']);
    expect(['http://peer-1:8080', 'http://peer-3:8080']).toContain(routed.host);
    expect(await counter('d2_observer_malformed_nodes_total')).toBe(0);
    expect(await counter('d2_observer_nacks_total{type="D2URIMap"}')).toBe(0);
  });
});

/** The announced URIs of a URI map response, as a client decodes them. */
function uriHosts(response: DiscoveryResponse | undefined): string[] {
  return uriMapsOf(response).flatMap((map) => map.nodes.flatMap((n) => Object.keys(n.data.partitionDesc ?? {})));
}
