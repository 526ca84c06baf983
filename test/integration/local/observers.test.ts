/**
 * The local stack's two D2 observers (lib/local `observers.ts`) over the shared test ZooKeeper and
 * real gRPC on loopback: the bootstrap lists observer-1 before observer-2; a killed observer-1 refuses
 * connections and comes back on the same address; an xDS client over that bootstrap falls back to
 * observer-2 once it needs a resource it has not cached, and returns to observer-1 when it is back
 * (gRFC A71, lib/xds), speaking incremental ADS to both (`failout_delta_ads`). Also
 * `npm start -- --discovery` parsing.
 */
import { createConnection } from 'node:net';
import { LocalObservers } from '../../../lib/local/observers';
import { parseStartOptions } from '../../../lib/local/start-options';
import { createLogger } from '../../../lib/logging';
import { createXdsClient, parseBootstrap, type XdsClient } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster } from '../../helpers/d2';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

/** Whether a TCP connection to `address` is accepted. */
function accepts(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = createConnection({ host, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('the local stack D2 observers', () => {
  let base: string;
  let writer: ZkSession;
  let observers: LocalObservers | undefined;
  let xds: XdsClient | undefined;

  beforeEach(async () => {
    base = uniqueBase('local-observers');
    writer = await openSession();
    observers = await LocalObservers.start({ connectString: sharedConnectString(), basePath: base, logger: createLogger('local-observers-test') });
  });

  afterEach(async () => {
    xds?.close();
    xds = undefined;
    await observers?.close();
    await closeSessions();
  });

  it('lists observer-1 before observer-2 in the bootstrap, and restarts a killed observer-1 on the same address', async () => {
    // Prepare
    const o = observers!;
    const address = o.address(1);

    // Act
    await o.stopObserver(1);
    const whileStopped = { accepts: await accepts(address), states: o.views().map((v) => v.state) };
    await o.startObserver(1);

    // Assess
    const servers = (parseBootstrap(o.bootstrap('test')).xdsServers ?? []).map((s) => s.serverUri);
    expect(servers).toEqual([o.address(1), o.address(2)]);
    expect(whileStopped).toEqual({ accepts: false, states: ['stopped', 'serving'] });
    expect({ address: o.address(1), accepts: await accepts(address), states: o.views().map((v) => v.state) }).toEqual({ address, accepts: true, states: ['serving', 'serving'] });
  });

  it('moves a client to observer-2 as soon as observer-1 dies, even with everything cached, and back when observer-1 returns', async () => {
    // Prepare
    const o = observers!;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    await putCluster(writer, base, clusterDoc('greetings-lva1'));
    xds = createXdsClient({ bootstrap: parseBootstrap(o.bootstrap('test')) });
    const client = xds;
    const active = (): string | undefined => client.dump().authorities.find((a) => a.topLevel)?.activeServer;
    const home = recordingWatcher();
    xds.watch('d2Node', `${base}/clusters/greetings-lor1`, home);
    expect((await home.next()).type).toBe('update');

    // Act: observer-1 dies with everything cached; the stack's bootstrap says fallbackWhenCached
    // (observers are replicas of one view), so the client moves at once; a new watch is served there
    await o.stopObserver(1);
    await eventually(() => active() === o.address(2), 10_000, 'the fallback to observer-2');
    const fellBackTo = active();
    const peer = recordingWatcher();
    xds.watch('d2Node', `${base}/clusters/greetings-lva1`, peer);
    const peerEvent = await peer.next();
    await o.startObserver(1);
    await eventually(() => active() === o.address(1), 10_000, 'the return to observer-1');

    // Assess
    expect({ peer: peerEvent.type, fellBackTo }).toEqual({ peer: 'update', fellBackTo: o.address(2) });
    expect(parseBootstrap(o.bootstrap('test')).failout.fallbackWhenCached).toBe(true);
    expect((parseBootstrap(o.bootstrap('test')).xdsServers ?? []).map((s) => s.serverFeatures)).toEqual([['failout_delta_ads'], ['failout_delta_ads']]);
    expect(o.views().map((v) => v.streams)).toEqual([1, expect.any(Number)]);
  });
});

describe('npm start -- --discovery', () => {
  it.each([
    [[], undefined],
    [['--discovery', 'zookeeper'], 'zookeeper'],
    [['--discovery', 'xds'], 'xds'],
  ])('reads %j as discovery %s', (argv, discovery) => {
    // Act
    const options = parseStartOptions(argv);

    // Assess
    expect(options).toEqual(expect.objectContaining({ discovery }));
  });

  it('refuses another mode, naming the option', () => {
    expect(() => parseStartOptions(['--discovery', 'consul'])).toThrow('--discovery must be zookeeper or xds, got consul');
  });
});
