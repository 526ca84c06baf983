/**
 * A node the observer may not read (an ACL without read for the observer's session), real ZooKeeper
 * and gRPC on loopback: the observer says so and serves the node as absent, and a stream subscribed to
 * it and to good nodes of the same type still gets every good node and every later change of them.
 * Before, the unreadable name stayed "pending" and held back every SotW response of its type.
 */
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { indis } from '../../../lib/xds';
import { digestAcl, type ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putHomeAndPeer, putUri } from '../../helpers/d2';
import { metric, metricsText, nodesOf, RawAdsStream, uriMapsOf } from '../../helpers/observer';
import { KillableObserver } from '../../helpers/observer-faults';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

/** Only this user may read the locked nodes; the observer's session is not it. */
const STRANGER = [digestAcl('someone-else', 'not-the-observer')];

describe('an observer that may not read a node', () => {
  let base: string;
  let writer: ZkSession;
  let observer: KillableObserver;
  const raws: RawAdsStream[] = [];

  beforeEach(async () => {
    base = uniqueBase('observer-unreadable');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
    await put(writer, clusterPath(base, 'locked'), JSON.stringify({ clusterName: 'locked' }), STRANGER);
    observer = await KillableObserver.start(base);
  });

  afterEach(async () => {
    for (const raw of raws.splice(0)) raw.close();
    await observer.close();
    await closeSessions();
  });

  function stream(): RawAdsStream {
    const raw = new RawAdsStream(observer.address);
    raws.push(raw);
    return raw;
  }

  it('serves the readable nodes of the type at once and every later change of them, and counts the unreadable one', async () => {
    // Prepare
    const home = clusterPath(base, 'home');
    const locked = clusterPath(base, 'locked');
    const raw = stream();

    // Act
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [home, locked] });
    const first = await raw.next(5000);
    raw.ack(first!, [home, locked]);
    await putCluster(writer, base, clusterDoc('home', { properties: { changed: 'yes' } }));
    const second = await raw.next(5000);

    // Assess
    expect(nodesOf(first).map((n) => n.name)).toEqual([home]);
    expect(nodesOf(second).map((n) => [n.name, n.data])).toEqual([[home, expect.objectContaining({ properties: { changed: 'yes' } })]]);
    await eventually(async () => metric(await metricsText(observer.observer.adminPort!), 'd2_observer_malformed_nodes_total') >= 1, 5000, 'the unreadable node counted');
    expect(observer.logs.some((l) => l.record.path === locked && JSON.stringify(l.record).includes('may not read it'))).toBe(true);
  });

  it('serves a URI map without a host it may not read, and a URI directory it may not read as absent', async () => {
    // Prepare: home gets a second host only a stranger may read; a cluster whose URI directory is locked.
    const homeUris = urisPath(base, 'home');
    const lockedUris = urisPath(base, 'locked');
    await put(writer, `${homeUris}/h2`, JSON.stringify({ clusterName: 'home', partitionDesc: { 'http://home-2:8080': { 0: { weight: 1 } } } }), STRANGER);
    await writer.ensurePath(lockedUris, STRANGER);
    const raw = stream();

    // Act
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: [homeUris, lockedUris] });
    const first = await raw.next(5000);
    raw.ack(first!, [homeUris, lockedUris]);
    await putUri(writer, base, 'home', 'h3', 'http://home-3:8080');
    const second = await raw.next(5000);

    // Assess
    expect(uriMapsOf(first).map((m) => [m.name, m.nodes.map((n) => n.name)])).toEqual([[homeUris, ['h1']]]);
    expect(uriMapsOf(second).map((m) => [m.name, m.nodes.map((n) => n.name).sort()])).toEqual([[homeUris, ['h1', 'h3']]]);
  });
});
