/**
 * D2 clients speaking incremental ADS to real observers (bootstrap server feature
 * `failout_delta_ads`), real ZooKeeper and real gRPC on loopback, through
 * `buildD2Client({ discovery: { xds: { bootstrap } } })`:
 * - a service that does not exist is known at once: the observer's `removed_resources` ends the
 *   wait (over SotW a name never received waits for the 15 s does-not-exist timer, so the resolve
 *   fails only at the discovery timeout);
 * - an update and a deletion of a service and of a cluster in ZooKeeper reach the client;
 * - A71 fallback: with two observers, killing the first keeps the client served by the second, where
 *   a missing name is still known at once;
 * - CSDS shows each resource ACKED with its own version (moving with its node), a missing one
 *   DOES_NOT_EXIST.
 */
import type { BuiltD2Client } from '../../../lib/failout';
import { clusterPath, servicePath, urisPath } from '../../../lib/d2/paths';
import { buildClientStatusResponse, createXdsClient, parseBootstrap, type XdsClient } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { putClustersWithHost, putHomeAndPeer, putService, serviceDoc } from '../../helpers/d2';
import { d2ClientOver, KillableObserver, observerBootstrap, resolvesTo, writeFailout } from '../../helpers/observer-faults';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { closeSessions, eventually, openSession, proxyOf, uniqueBase } from '../../helpers/zk';

/** How fast a missing name must be known over delta ADS (the discovery timeout is 10 s, the SotW timer 15 s). */
const FAST_MS = 2000;

/** How long `resolve(uri)` takes to reject, and with what. */
async function rejection(client: BuiltD2Client, uri: string): Promise<{ ms: number; error: unknown }> {
  const started = Date.now();
  try {
    await client.resolve(uri, { routingKey: 'member-1' });
  } catch (error) {
    return { ms: Date.now() - started, error };
  }
  throw new Error(`${uri} resolved`);
}

describe('D2 clients over observers with failout_delta_ads (incremental ADS), real ZooKeeper and gRPC', () => {
  let base: string;
  let writer: ZkSession;
  const observers: KillableObserver[] = [];
  let client: BuiltD2Client | undefined;
  let recorder: ChangeRecorder;

  const start = async (count: number): Promise<KillableObserver[]> => {
    for (let i = 0; i < count; i++) observers.push(await KillableObserver.start(base));
    ({ client } = d2ClientOver(observers.map((o) => o.address), base, { fallbackWhenCached: true, deltaAds: true }));
    recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
    return observers;
  };

  beforeEach(async () => {
    base = uniqueBase('observer-delta-client');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
  });

  let xds: XdsClient | undefined;

  afterEach(async () => {
    xds?.close();
    xds = undefined;
    await client?.close();
    client = undefined;
    for (const o of observers.splice(0)) await o.close();
    await closeSessions();
  });

  it('rejects a service that does not exist with unknownService within 2 s (over SotW: only at the discovery timeout)', async () => {
    // Prepare
    await start(1);
    await resolvesTo(client!, 'home');

    // Act
    const { ms, error } = await rejection(client!, 'd2://nosuch/hello');

    // Assess
    expect(error).toMatchObject({ kind: 'unknownService' });
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('rejects an unknown service within 2 s on a client that has resolved nothing yet', async () => {
    // Prepare
    await start(1);

    // Act
    const { ms, error } = await rejection(client!, 'd2://nosuch/hello');

    // Assess
    expect(error).toMatchObject({ kind: 'unknownService' });
    expect(ms).toBeLessThan(FAST_MS);
  });

  it('gets an update and a deletion of a service and of a cluster from ZooKeeper', async () => {
    // Prepare
    await start(1);
    const before = await resolvesTo(client!, 'home');

    // Act: the service moves to cluster peer (an update of the service node)
    await putService(writer, base, serviceDoc('greetings', 'peer', '/greetings'));
    const moved = await resolvesTo(client!, 'peer');
    // Act: cluster home is failed out to peer and back (updates of the cluster node)
    await putService(writer, base, serviceDoc('greetings', 'home', '/greetings'));
    await resolvesTo(client!, 'home');
    await writeFailout(writer, base, 'home', 'peer');
    const failedOut = await resolvesTo(client!, 'peer');
    // Act: cluster peer (its hosts, then its node) and the service are deleted
    await writer.remove(`${urisPath(base, 'peer')}/h1`);
    await writer.remove(urisPath(base, 'peer'));
    await writer.remove(clusterPath(base, 'peer'));
    await eventually(() => recorder.events.includes('removed:peer'), 10_000, 'the deletion of cluster peer to reach the client');
    await writer.remove(servicePath(base, 'greetings'));
    let gone: unknown;
    await eventually(
      async () => {
        gone = await client!.resolve('d2://greetings/hello', { routingKey: 'member-1' }).then(
          () => undefined,
          (error: unknown) => error,
        );
        return gone !== undefined;
      },
      10_000,
      'the deletion of service greetings to reach the client',
    );

    // Assess
    expect(before).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(moved).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(failedOut).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(client!.state.getClusterProperties('peer')).toBeUndefined();
    expect(gone).toMatchObject({ kind: 'unknownService' });
  });

  it('falls back to the second observer when the first is killed, keeps routing there, and still knows a missing name at once', async () => {
    // Prepare
    const [first, second] = await start(2);
    const before = await resolvesTo(client!, 'home');
    await eventually(() => first!.streams === 1 && second!.streams === 0, 10_000, 'the client on the first observer');

    // Act: the first observer dies; a failout is written while it is dead
    await first!.kill();
    await writeFailout(writer, base, 'home', 'peer');
    const during = await resolvesTo(client!, 'peer');
    const { ms, error } = await rejection(client!, 'd2://nosuch-either/hello');

    // Assess
    expect(before).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(during).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(second!.streams).toBe(1);
    expect(error).toMatchObject({ kind: 'unknownService' });
    expect(ms).toBeLessThan(FAST_MS);
  }, 30_000);

  it('hears on the fallback observer of a cluster deleted while the first was dying, and returns to the first once it is back', async () => {
    // Prepare: a third cluster the client follows, and a client on the first observer
    const [first, second] = await start(2);
    await putClustersWithHost(writer, base, ['spare']);
    await resolvesTo(client!, 'home');
    await client!.state.listenToCluster('spare');
    await eventually(() => first!.streams === 1 && second!.streams === 0, 10_000, 'the client on the first observer');

    // Act: the first observer dies; spare is deleted meanwhile; the first comes back; home fails out
    await first!.kill();
    await writer.remove(`${urisPath(base, 'spare')}/host-1`);
    await writer.remove(urisPath(base, 'spare'));
    await writer.remove(clusterPath(base, 'spare'));
    await eventually(() => recorder.events.includes('removed:spare'), 10_000, 'the deletion of spare at the client');
    const onSecond = second!.streams;
    await first!.restart();
    await eventually(() => first!.streams === 1 && second!.streams === 0, 20_000, 'the client back on the first observer');
    await writeFailout(writer, base, 'home', 'peer');
    const after = await resolvesTo(client!, 'peer');

    // Assess
    expect(onSecond).toBe(1);
    expect(after).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(client!.state.getClusterProperties('spare')).toBeUndefined();
    expect(recorder.events.filter((e) => e.startsWith('removed:'))).toEqual(['removed:spare']);
  }, 40_000);

  it('returns to the first observer once it is back even when nothing changed meanwhile (every held version still current)', async () => {
    // Prepare: a client on the first observer
    const [first, second] = await start(2);
    await resolvesTo(client!, 'home');
    await eventually(() => first!.streams === 1 && second!.streams === 0, 10_000, 'the client on the first observer');

    // Act: the first observer dies and comes back; ZooKeeper does not change in between
    await first!.kill();
    await eventually(() => second!.streams === 1, 10_000, 'the client on the second observer');
    await first!.restart();
    await eventually(() => first!.streams === 1 && second!.streams === 0, 10_000, 'the client back on the first observer');
    await writeFailout(writer, base, 'home', 'peer');
    const after = await resolvesTo(client!, 'peer');

    // Assess
    expect(after).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect([first!.streams, second!.streams]).toEqual([1, 0]);
  }, 40_000);

  it('gets the first observer\'s data again on its return after the fallback observer served an older version (it cannot see ZooKeeper)', async () => {
    // Prepare: the second observer caches home and peer (another client reads them there), then loses ZooKeeper
    const [first, second] = await start(2);
    const warm = d2ClientOver([second!.address], base, { fallbackWhenCached: true, deltaAds: true }).client;
    try {
      await resolvesTo(warm, 'home');
      await warm.state.listenToCluster('peer');
      await resolvesTo(client!, 'home');
      await client!.state.listenToCluster('peer');
      await eventually(() => first!.streams === 1 && second!.streams === 1, 10_000, 'each client on its observer');
      proxyOf(second!.session).refuse();
      await eventually(() => second!.session.state === 'suspended', 10_000, 'the second observer cut off from ZooKeeper');

      // Act: a failout reaches the client from the first observer; the first dies (the client now reads
      // the second's older home), and comes back with the failout unchanged
      await writeFailout(writer, base, 'home', 'peer');
      await resolvesTo(client!, 'peer');
      await first!.kill();
      const stale = await resolvesTo(client!, 'home');
      await first!.restart();
      await eventually(() => first!.streams === 1 && second!.streams === 1, 10_000, 'the client back on the first observer');
      const back = await resolvesTo(client!, 'peer', 5_000);

      // Assess
      expect(stale).toMatchObject({ cluster: 'home' });
      expect(back).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    } finally {
      proxyOf(second!.session).accept();
      await warm.close();
    }
  }, 60_000);

  it('shows in CSDS each resource ACKED with its own version, which moves with its node, and a missing one DOES_NOT_EXIST', async () => {
    // Prepare
    const [observer] = await start(1);
    xds = createXdsClient({ bootstrap: parseBootstrap(observerBootstrap([observer!.address], { fallbackWhenCached: true, deltaAds: true })) });
    const home = recordingWatcher();
    const missing = recordingWatcher();
    xds.watch('d2Node', clusterPath(base, 'home'), home);
    xds.watch('d2Node', clusterPath(base, 'nosuch'), missing);
    const status = (name: string) => buildClientStatusResponse([xds!.dump()]).config[0]?.generic_xds_configs.find((c) => c.name === name);

    // Act
    await home.next();
    const missingEvent = await missing.next();
    const before = status(clusterPath(base, 'home'));
    await writeFailout(writer, base, 'home', 'peer');
    await home.next();
    const after = status(clusterPath(base, 'home'));

    // Assess
    expect(missingEvent).toEqual({ type: 'doesNotExist' });
    expect(status(clusterPath(base, 'nosuch'))?.client_status).toBe('DOES_NOT_EXIST');
    expect(before).toMatchObject({ client_status: 'ACKED', version_info: expect.stringMatching(/^\d+$/) });
    expect(after).toMatchObject({ client_status: 'ACKED', version_info: expect.stringMatching(/^\d+$/) });
    expect(after?.version_info).not.toBe(before?.version_info);
  });
});
