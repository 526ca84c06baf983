/**
 * Observers killed under their clients (issue 25, item 5), real ZooKeeper and gRPC on loopback:
 * D2 clients list two observers (A71 order). When the first dies — its connections cut with no
 * status, while idle or while a push is in flight — they fall back to the second and keep routing,
 * a failout written meanwhile reaches them, and once the first is back they return to it (A71: the
 * higher-priority server is preferred once reachable). With every observer down a client keeps its
 * last good data, hears no removal, and recovers when one observer returns.
 */
import type { BuiltD2Client } from '../../../lib/failout';
import { indis } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { changeRecorder, type ChangeRecorder } from '../../helpers/cluster-changes';
import { putHomeAndPeer } from '../../helpers/d2';
import type { LogLine } from '../../helpers/logging';
import { d2ClientOver, KillableObserver, removals, resolvesTo, writeFailout, writeRestore } from '../../helpers/observer-faults';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

describe('D2 clients over two observers when one is killed', () => {
  let base: string;
  let writer: ZkSession;
  let first: KillableObserver;
  let second: KillableObserver;
  let client: BuiltD2Client | undefined;
  let clientLogs: LogLine[];
  let recorder: ChangeRecorder;

  beforeEach(async () => {
    base = uniqueBase('observer-kill');
    writer = await openSession();
    await putHomeAndPeer(writer, base);
    first = await KillableObserver.start(base);
    second = await KillableObserver.start(base);
    ({ client, logs: clientLogs } = d2ClientOver([first.address, second.address], base));
    recorder = changeRecorder();
    client.state.registerClusterListener(recorder);
  });

  afterEach(async () => {
    await client?.close();
    client = undefined;
    await first.close();
    await second.close();
    await closeSessions();
  });

  it.each([
    ['closed abruptly while the clients are subscribed', 'idle'],
    ['stopped while a push is in flight', 'in flight'],
  ] as const)('falls back to the second observer when the first is %s, gets the failout written meanwhile, and returns to the first', async (_case, when) => {
    // Prepare
    const before = await resolvesTo(client!, 'home');
    await eventually(() => first.streams === 1 && second.streams === 0, 10_000, 'the client on the first observer');

    // Act: the first observer dies; a failout is written while it is dead (or while it pushes it)
    if (when === 'idle') {
      await first.kill();
      await writeFailout(writer, base, 'home', 'peer');
    } else {
      const killed = first.killOnNextPush(indis.D2_NODE_TYPE_URL);
      await writeFailout(writer, base, 'home', 'peer');
      await killed;
    }
    const during = await resolvesTo(client!, 'peer');
    const onSecond = second.streams;

    // Act: the first observer returns; a restore goes through it
    await first.restart();
    await eventually(() => first.streams === 1 && second.streams === 0, 20_000, 'the client back on the first observer');
    await writeRestore(writer, base, 'home');
    const after = await resolvesTo(client!, 'home');

    // Assess
    expect(before).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(during).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(onSecond).toBe(1);
    expect(after).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(removals(recorder)).toEqual([]);
    expect(client!.state.stats().clusters.malformed).toBe(0);
    expect(clientLogs.filter((l) => l.level === 'error')).toEqual([]);
  });

  it.each([
    ['does not say', {}, 'peer'],
    ['says false (plain gRFC A71: wait on the cache while nothing is uncached)', { fallbackWhenCached: false }, 'home'],
  ] as const)('falls back with everything cached when the bootstrap %s only if D2 discovery may (its default)', async (_case, bootstrap, expected) => {
    // Prepare: a client whose bootstrap says what the case says, on the first observer, all cached
    await client?.close();
    ({ client } = d2ClientOver([first.address, second.address], base, bootstrap));
    await resolvesTo(client, 'home');
    await eventually(() => first.streams === 1 && second.streams === 0, 10_000, 'the client on the first observer');

    // Act: the first observer dies; a failout is written while it is dead
    await first.kill();
    await writeFailout(writer, base, 'home', 'peer');
    await new Promise((r) => setTimeout(r, 3000));
    const during = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Assess: D2 discovery falls back by default (failouts keep arriving); an explicit false keeps A71
    expect(during.cluster).toBe(expected);
    expect(second.streams).toBe(expected === 'peer' ? 1 : 0);
  }, 30_000);

  it('fails a request with discoveryTimeout at 10 s when no observer answers at its start, and serves once one comes up', async () => {
    // Prepare: both observers are down before the client starts
    await client?.close();
    await Promise.all([first.kill(), second.kill()]);
    ({ client, logs: clientLogs } = d2ClientOver([first.address, second.address], base));

    // Act
    const started = Date.now();
    const failure = await client.resolve('d2://greetings/hello', { routingKey: 'member-1' }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const failedAfterMs = Date.now() - started;
    await second.restart();
    const recovered = await resolvesTo(client, 'home');
    await first.restart();
    await eventually(() => first.streams === 1 && second.streams === 0, 20_000, 'the client on the first observer once it is up');

    // Assess: a clear error at the documented discovery timeout, not a hang (naming no ZooKeeper the client does not read); then served
    expect(failure).toMatchObject({ kind: 'discoveryTimeout' });
    expect((failure as Error).message).toBe('service greetings not loaded by D2 discovery within 10000 ms');
    expect(failedAfterMs).toBeGreaterThanOrEqual(9_000);
    expect(failedAfterMs).toBeLessThan(12_000);
    expect(recovered).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(clientLogs.filter((l) => l.level === 'error')).toEqual([]);
  }, 45_000);

  it('keeps routing on its last good data while every observer is down, hears no removal, and recovers when one returns', async () => {
    // Prepare
    const before = await resolvesTo(client!, 'home');

    // Act: both observers die; the client hears of it (an ambient error: it keeps its cache)
    await Promise.all([first.kill(), second.kill()]);
    await eventually(() => clientLogs.some((l) => l.level === 'warn' && l.msg.includes('keeping what is cached')), 20_000, 'the client to hear of the outage');
    const whileDown = await client!.resolve('d2://greetings/hello', { routingKey: 'member-1' });
    await writeFailout(writer, base, 'home', 'peer');
    const stillDown = await client!.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Act: the second (fallback) observer returns
    await second.restart();
    const recovered = await resolvesTo(client!, 'peer');

    // Assess
    expect(before).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(whileDown).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(stillDown).toMatchObject({ cluster: 'home', host: 'http://home-1:8080' });
    expect(recovered).toMatchObject({ cluster: 'peer', host: 'http://peer-1:8080' });
    expect(removals(recorder)).toEqual([]);
    expect(client!.state.knownClusters()).toEqual(['home', 'peer']);
  });
});
