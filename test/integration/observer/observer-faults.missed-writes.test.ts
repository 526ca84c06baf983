/**
 * Writes an observer misses while it cannot see ZooKeeper, real ZooKeeper and gRPC on loopback,
 * through `buildD2Client({ discovery: { xds } })`: while the observer's session is expired (or its
 * connection is cut and comes back on the same session), a cluster the client follows is deleted, a
 * failout is written and a host is removed. Once the observer reads again, its clients see all three:
 * the cluster removed (SotW: left out of the response; delta: `removed_resources`), the failout
 * routing them to the peer, and the host gone; and nothing is logged as an error.
 */
import { urisPath } from '../../../lib/d2/paths';
import type { BuiltD2Client } from '../../../lib/failout';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { putClustersWithHost, putHomeAndPeer, putUri } from '../../helpers/d2';
import type { LogLine } from '../../helpers/logging';
import { d2ClientOver, KillableObserver, resolvesTo, writeFailout } from '../../helpers/observer-faults';
import { closeSessions, eventually, expireSession, openSession, proxyOf, uniqueBase } from '../../helpers/zk';

/** Hosts the client holds for `cluster`, sorted. */
function hostsOf(client: BuiltD2Client, cluster: string): string[] {
  return (client.state.getUris(cluster)?.hosts ?? []).map((h) => h.uri).sort();
}

describe('D2 clients over an observer that missed a deletion, a failout and a host removal', () => {
  let base: string;
  let writer: ZkSession;
  let observer: KillableObserver;
  let client: BuiltD2Client | undefined;
  let clientLogs: LogLine[];
  let recorder: ChangeRecorder;

  beforeEach(async () => {
    base = uniqueBase('observer-missed');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
    await putUri(writer, base, 'peer', 'h2', 'http://peer-2:8080');
    await putClustersWithHost(writer, base, ['spare']);
    observer = await KillableObserver.start(base);
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    await observer.close();
    await closeSessions();
  });

  /** Deletes cluster `spare` (its host, URI directory and node), fails `home` out to `peer` and removes host h2 of `peer`. */
  async function missedWrites(): Promise<void> {
    await writer.remove(`${urisPath(base, 'spare')}/host-1`);
    await writer.remove(urisPath(base, 'spare'));
    await writer.remove(`${base}/clusters/spare`);
    await writeFailout(writer, base, 'home', 'peer');
    await writer.remove(`${urisPath(base, 'peer')}/h2`);
  }

  it.each([
    ['expires (SotW)', 'expiry', false],
    ['expires (incremental ADS)', 'expiry', true],
    ['is cut off and reconnects on the same session (SotW)', 'disconnect', false],
    ['is cut off and reconnects on the same session (incremental ADS)', 'disconnect', true],
  ] as const)('sees all three once the observer whose session %s reads again', async (_case, fault, deltaAds) => {
    // Prepare: a client routing home→spare (so it follows spare), holding peer's two hosts
    await writeFailout(writer, base, 'home', 'spare');
    ({ client, logs: clientLogs } = d2ClientOver([observer.address], base, { fallbackWhenCached: true, deltaAds }));
    recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
    await resolvesTo(client, 'spare');
    await client.state.listenToCluster('peer');
    await eventually(() => hostsOf(client!, 'peer').length === 2, 10_000, "peer's two hosts at the client");
    const sessionsBefore = observer.session.stats().sessions;

    // Act: the writes happen while the observer cannot see ZooKeeper
    if (fault === 'expiry') {
      await expireSession(observer.session, missedWrites);
      await eventually(() => observer.session.stats().sessions > sessionsBefore, 20_000, 'the observer on a new session');
    } else {
      proxyOf(observer.session).refuse();
      await eventually(() => observer.session.state === 'suspended', 5_000, 'the observer cut off');
      await missedWrites();
      proxyOf(observer.session).accept();
      await eventually(() => observer.session.state === 'connected', 10_000, 'the observer back on its session');
    }
    await resolvesTo(client, 'peer');
    await eventually(() => recorder.events.includes('removed:spare'), 10_000, 'the deletion of spare at the client');
    await eventually(() => hostsOf(client!, 'peer').length === 1, 10_000, 'the host removal at the client');
    const after = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Assess
    expect(after).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(client.state.getClusterProperties('spare')).toBeUndefined();
    expect(hostsOf(client, 'peer')).toEqual(['http://peer-1:8080']);
    expect(client.state.getClusterProperties('home')?.failoutProperties?.redirects).toEqual([expect.objectContaining({ peer: 'peer' })]);
    expect(fault === 'expiry' ? observer.session.stats().expired : observer.session.stats().reconnects).toBe(1);
    expect(clientLogs.filter((l) => l.level === 'error')).toEqual([]);
    expect(observer.logs.filter((l) => l.level === 'error')).toEqual([]);
  }, 40_000);
});
