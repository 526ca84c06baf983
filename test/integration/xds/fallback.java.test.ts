/**
 * grpc-java's XdsClientFallbackTest cases (xds/src/test/java/io/grpc/xds/XdsClientFallbackTest.java),
 * ported to XdsClient with real management servers on loopback.
 */
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { LDS_TYPE_URL, buildCluster } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { ChainResolver, chainSnapshot, eventually, fallbackBootstrap, sleep, startXdsServer } from '../../helpers/xds-chain';

const LISTENER = 'java-service';
const MAIN = '127.0.0.1:2001';
const FALLBACK = '127.0.0.1:2002';
const adsStreams = (s: XdsManagementServer): number => s.recorder.streams.filter((r) => r.service === 'ads').length;
/** A port with nothing listening (below the ephemeral range, rarely used). */
const BAD_URI = '127.0.0.1:9';

describe('fallback (grpc-java XdsClientFallbackTest)', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;
  let main: XdsManagementServer;
  let fallback: XdsManagementServer;

  beforeEach(async () => {
    main = await startXdsServer();
    fallback = await startXdsServer();
    servers.push(main, fallback);
    main.setSnapshot('*', chainSnapshot('m1', LISTENER, 'main-cluster', 2001, 'main'));
    fallback.setSnapshot('*', chainSnapshot('f1', LISTENER, 'fallback-cluster', 2002, 'fallback'));
  });

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('everything_okay: uses the main server only', async () => {
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(MAIN);
    expect(adsStreams(fallback)).toBe(0);
  });

  it('mainServerDown_fallbackServerUp: uses the fallback data', async () => {
    await main.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(FALLBACK, 5000);
  });

  it('useBadAuthority: a name of an unknown authority gets an error and opens nothing', async () => {
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const w = recordingWatcher();
    client.watch(LDS_TYPE_URL, 'xdstp://bad-authority/envoy.config.listener.v3.Listener/x', w);
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: false });
    expect(adsStreams(main) + adsStreams(fallback)).toBe(0);
  });

  it('both_down_restart_main: errors only, then the main data once it restarts', async () => {
    await main.stopServing();
    await fallback.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await eventually('an error', () => chain.errors.length > 0);
    expect(chain.backend).toBeUndefined();
    await main.start();
    await chain.waitForBackend(MAIN, 16_000);
  });

  it('mainDown_fallbackUp_restart_main: the subscriptions move from the fallback to the main', async () => {
    await main.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(FALLBACK, 5000);
    expect(fallback.activeAdsStreams).toBe(1);
    await main.start();
    await chain.waitForBackend(MAIN, 10_000);
    await eventually('no fallback stream', () => fallback.activeAdsStreams === 0);
    expect(main.activeAdsStreams).toBe(1);
  });

  it('connect_then_mainServerDown_fallbackServerUp: cached data kept, a new uncached watch forces fallback, a main-only resource times out', async () => {
    fallback.setSnapshot('*', { ...chainSnapshot('f2', LISTENER, 'fallback-cluster', 2002, 'fallback'), clusters: [buildCluster('fallback-cluster'), buildCluster('new-cluster')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri], { resourceDoesNotExistTimeoutMs: 1500 }) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(MAIN);
    await main.stopServing();
    await eventually('an ambient error', () => chain.errors.length > 0);
    await sleep(300);
    expect(adsStreams(fallback)).toBe(0);

    const cached = recordingWatcher();
    client.watch('cluster', 'main-cluster', cached);
    expect(await cached.next()).toMatchObject({ type: 'update' });

    const fresh = recordingWatcher();
    client.watch('cluster', 'new-cluster', fresh);
    expect(await fresh.next()).toMatchObject({ type: 'update', value: { name: 'new-cluster' } });
    expect(adsStreams(fallback)).toBe(1);

    const mainOnly = recordingWatcher();
    client.watch('cluster', 'exists-only-on-main', mainOnly);
    expect(await mainOnly.next()).toEqual({ type: 'doesNotExist' });
  });

  it('connect_then_mainServerRestart_fallbackServerdown: keeps the data and reconnects to the main', async () => {
    await fallback.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(MAIN);
    await main.stopServing();
    await main.start();
    main.setSnapshot('*', chainSnapshot('m2', LISTENER, 'main-cluster', 2011, 'main'));
    await chain.waitForBackend('127.0.0.1:2011', 10_000);
  });

  it('used_then_mainServerRestart_fallbackServerUp: a restart of the main while cached opens nothing on the fallback; a new CDS watch and its LRS stay on the main', async () => {
    main.setSnapshot('*', { ...chainSnapshot('m3', LISTENER, 'main-cluster', 2001, 'main'), clusters: [buildCluster('main-cluster', { lrs: true })] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, fallback.uri]), fallbackProbeCapMs: 200 });
    const lds = recordingWatcher();
    client.watch(LDS_TYPE_URL, LISTENER, lds);
    expect(await lds.next()).toMatchObject({ type: 'update' });

    await main.stopServing();
    await main.start();
    await eventually('the main stream back', () => main.activeAdsStreams === 1 && client?.dump().authorities[0]?.servers[0]?.state === 'ready');
    expect(adsStreams(fallback)).toBe(0);

    const reporter = client.reportLoad('main-cluster');
    await eventually('LRS to the main', () => reporter.serverUri === main.uri);
    expect(client.dump().authorities[0]?.activeServer).toBe(main.uri);
    expect(adsStreams(fallback)).toBe(0);
    expect(fallback.recorder.streams.filter((r) => r.service === 'lrs')).toHaveLength(0);
    reporter.close();
  });

  it('fallbackFromBadUrlToGoodOne: an unreachable first server falls back to the good one', async () => {
    client = createXdsClient({ bootstrap: fallbackBootstrap([BAD_URI, fallback.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(FALLBACK, 5000);
    expect(chain.errors).toEqual([]);
  });

  it('testGoodUrlFollowedByBadUrl: a good first server is used and the bad one never matters', async () => {
    client = createXdsClient({ bootstrap: fallbackBootstrap([main.uri, BAD_URI]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(MAIN);
    expect(chain.errors).toEqual([]);
  });

  it('testTwoBadUrl: the error names the last server', async () => {
    client = createXdsClient({ bootstrap: fallbackBootstrap(['127.0.0.1:7', BAD_URI]) });
    const w = recordingWatcher();
    client.watch(LDS_TYPE_URL, LISTENER, w);
    const event = await w.next();
    if (event.type !== 'error') throw new Error('expected an error');
    expect(event.error.message).toContain(BAD_URI);
  });
});
