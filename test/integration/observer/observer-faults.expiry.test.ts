/**
 * ZooKeeper session expiry under an observer (issue 25, item 5), real ZooKeeper and gRPC on
 * loopback: the observer's session is expired for real (a second client with its id and password
 * closes it), the observer re-reads on its new session, and neither a D2 client nor a raw ADS
 * stream ever sees a resource that still exists go missing; changes written while the session was
 * expired arrive after.
 */
import { urisPath } from '../../../lib/d2/paths';
import type { BuiltD2Client } from '../../../lib/failout';
import { indis } from '../../../lib/xds';
import type { DiscoveryResponse } from '../../../lib/xds/envoy-protos';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { putHomeAndPeer, putUri } from '../../helpers/d2';
import { nodesOf, RawAdsStream, uriMapsOf } from '../../helpers/observer';
import { d2ClientOver, KillableObserver, removals, resolvesTo, writeFailout } from '../../helpers/observer-faults';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

/** Host names per URI map in a response, by cluster. */
function uriMapHosts(response: DiscoveryResponse): Record<string, string[]> {
  return Object.fromEntries(uriMapsOf(response).map((map) => [map.name.slice(map.name.lastIndexOf('/') + 1), map.nodes.map((n) => n.name).sort()]));
}

describe('an observer whose ZooKeeper session expires', () => {
  let base: string;
  let writer: ZkSession;
  let observer: KillableObserver;
  let client: BuiltD2Client | undefined;
  let raw: RawAdsStream | undefined;
  let recorder: ChangeRecorder;

  beforeEach(async () => {
    base = uniqueBase('observer-expiry');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
    observer = await KillableObserver.start(base);
    ({ client } = d2ClientOver([observer.address], base));
    recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
  });

  afterEach(async () => {
    raw?.close();
    raw = undefined;
    await client?.close();
    client = undefined;
    await observer.close();
    await closeSessions();
  });

  it('re-reads on its new session with no spurious removal, and serves what changed while it was expired', async () => {
    // Prepare: a D2 client routing, and a raw stream holding the service, both clusters and their URI maps
    await resolvesTo(client!, 'home');
    const nodes = [`${base}/services/greetings`, `${base}/clusters/home`, `${base}/clusters/peer`];
    const maps = [urisPath(base, 'home'), urisPath(base, 'peer')];
    raw = new RawAdsStream(observer.address);
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: nodes });
    raw.send({ type_url: indis.D2_URI_MAP_TYPE_URL, resource_names: maps });
    await eventually(() => raw!.responses.length >= 2, 10_000, 'the first responses');
    const sessionsBefore = observer.session.stats().sessions;

    // Act: expire the observer's session; a failout and a new host are written while it is expired
    await expireSession(observer.session, async () => {
      await writeFailout(writer, base, 'home', 'peer');
      await putUri(writer, base, 'peer', 'h2', 'http://peer-2:8080');
    });
    await eventually(() => observer.session.stats().sessions > sessionsBefore && observer.observer.ready, 20_000, 'the observer on a new session');
    const after = await resolvesTo(client!, 'peer');
    await eventually(() => (client!.state.getUris('peer')?.hosts.length ?? 0) === 2, 10_000, 'the new host at the client');
    await eventually(() => raw!.responses.some((r) => r.type_url === indis.D2_URI_MAP_TYPE_URL && uriMapHosts(r).peer?.length === 2), 10_000, 'the new host on the raw stream');

    // Assess: routed by what changed while expired, and no response ever left out an existing resource
    expect(after).toMatchObject({ cluster: 'peer' });
    expect(removals(recorder)).toEqual([]);
    for (const response of raw!.responses) {
      if (response.type_url === indis.D2_NODE_TYPE_URL) expect(nodesOf(response).map((n) => n.name).sort()).toEqual([...nodes].sort());
      else expect(Object.keys(uriMapHosts(response)).sort()).toEqual(['home', 'peer']);
    }
    const lastNode = [...raw!.responses].reverse().find((r) => r.type_url === indis.D2_NODE_TYPE_URL);
    expect(nodesOf(lastNode).find((n) => n.name === `${base}/clusters/home`)?.data.failoutProperties).toBeDefined();
    expect(client!.state.knownClusters()).toEqual(['home', 'peer']);
  });
});
