/**
 * grpc-go's TestAuthority_Fallback and the reference's extra cases (§6) that concern what watchers
 * hear: no error during a successful fallback, ambient errors when everything is cached, exactly
 * one error naming the last server when every server is down.
 */
import { parseBootstrap } from '../../../lib/xds/bootstrap';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { buildCluster } from '../../../lib/xds/resource-types';
import { XdsManagementServer } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { eventually, fallbackBootstrap, sleep, startXdsServer } from '../../helpers/xds-chain';

const adsStreams = (s: XdsManagementServer): number => s.recorder.streams.filter((r) => r.service === 'ads').length;

describe('fallback: what watchers hear', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;

  async function twoServers(): Promise<[XdsManagementServer, XdsManagementServer]> {
    const primary = await startXdsServer();
    const secondary = await startXdsServer();
    servers.push(primary, secondary);
    primary.setSnapshot('*', { version: 'p1', clusters: [buildCluster('c1', { edsServiceName: 'from-primary' })] });
    secondary.setSnapshot('*', { version: 's1', clusters: [buildCluster('c1', { edsServiceName: 'from-secondary' })] });
    return [primary, secondary];
  }

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('TestAuthority_Fallback: no error while falling back, the secondary data, then an ambient error when it closes', async () => {
    const [primary, secondary] = await twoServers();
    await primary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    await sleep(10);
    expect(w.events).toEqual([]);
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'from-secondary' }) });
    await secondary.stopServing();
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: true });
  });

  it('does not fall back when every watched resource is cached; watchers get one ambient error and keep the data', async () => {
    const [primary, secondary] = await twoServers();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    await w.next();
    await primary.stopServing();
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: true });
    await sleep(2000); // two more primary retries
    expect(adsStreams(secondary)).toBe(0);
    expect(w.events).toHaveLength(2);
    expect(client.dump().authorities[0]?.resources[0]).toMatchObject({ status: 'acked', source: primary.uri });
  });

  it('a new uncached watch while the primary is down and everything else cached falls back at once (C-core/Java)', async () => {
    const [primary, secondary] = await twoServers();
    secondary.setSnapshot('*', { version: 's2', clusters: [buildCluster('c1'), buildCluster('c2', { edsServiceName: 'c2-from-secondary' })] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const w1 = recordingWatcher();
    client.watch('cluster', 'c1', w1);
    await w1.next();
    await primary.stopServing();
    await w1.next(); // ambient
    const started = Date.now();
    const w2 = recordingWatcher();
    client.watch('cluster', 'c2', w2);
    expect(await w2.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'c2-from-secondary' }) });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('with both servers down, each watcher gets exactly one error, naming the last server', async () => {
    const [primary, secondary] = await twoServers();
    await primary.stopServing();
    await secondary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    const event = await w.next();
    if (event.type !== 'error') throw new Error('expected an error');
    expect(event.ambient).toBe(false);
    expect(event.error.kind).toBe('connection');
    expect(event.error.serverUri).toBe(secondary.uri);
    expect(event.error.message).toContain(secondary.uri);
    await sleep(3000); // several retries of both
    expect(w.events).toHaveLength(1);
  });

  it('a stream closed after a response followed by a good reconnect triggers no fallback', async () => {
    const [primary, secondary] = await twoServers();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    client.watch('cluster', 'never-sent', recordingWatcher()); // keeps something uncached
    await w.next();
    const before = adsStreams(primary);
    primary.failStreams();
    await eventually('the primary reconnected', () => adsStreams(primary) > before);
    await sleep(200);
    expect(adsStreams(secondary)).toBe(0);
    expect(w.events).toHaveLength(1);
  });

  it('skips a server another authority already found failing and falls back to the next one at once', async () => {
    const [primary, shared] = await twoServers();
    const tertiary = await startXdsServer();
    servers.push(tertiary);
    tertiary.setSnapshot('*', { version: 't1', clusters: [buildCluster('c1', { edsServiceName: 'from-tertiary' })] });
    const insecure = [{ type: 'insecure' }];
    client = createXdsClient({
      bootstrap: parseBootstrap({
        xds_servers: [primary.uri, shared.uri, tertiary.uri].map((server_uri) => ({ server_uri, channel_creds: insecure })),
        authorities: { a: { xds_servers: [{ server_uri: shared.uri, channel_creds: insecure }] } },
        node: { id: 'test-node' },
      }),
    });
    await shared.stopServing();
    const a = recordingWatcher();
    client.watch('cluster', 'xdstp://a/envoy.config.cluster.v3.Cluster/c9', a);
    expect(await a.next()).toMatchObject({ type: 'error', ambient: false }); // "a" has found the shared server failing
    await sleep(3000); // after three failures its next retry is seconds away (1 s, 1.6 s, 2.6 s …)
    await primary.stopServing();
    const started = Date.now();
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'from-tertiary' }) });
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('uses only the first server when fallback is disabled by configuration', async () => {
    const [primary, secondary] = await twoServers();
    await primary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri], { fallback: false }) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    const event = await w.next();
    expect(event).toMatchObject({ type: 'error', ambient: false });
    if (event.type === 'error') expect(event.error.serverUri).toBe(primary.uri);
    await sleep(300);
    expect(adsStreams(secondary)).toBe(0);
  });

  it('falling back onto a stream another authority has open keeps the cached value through a response computed before the subscription', async () => {
    const [primary, shared] = await twoServers();
    const other = 'xdstp://b/envoy.config.cluster.v3.Cluster/cb';
    shared.setSnapshot('*', { version: 's1', clusters: [buildCluster('c1', { edsServiceName: 'from-secondary' }), buildCluster(other)] });
    const insecure = [{ type: 'insecure' }];
    client = createXdsClient({
      bootstrap: parseBootstrap({
        xds_servers: [primary.uri, shared.uri].map((server_uri) => ({ server_uri, channel_creds: insecure })),
        authorities: { b: { xds_servers: [{ server_uri: shared.uri, channel_creds: insecure }] } },
        node: { id: 'test-node' },
        failout: { fallbackWhenCached: true },
      }),
    });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    const b = recordingWatcher();
    client.watch('cluster', other, b);
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'from-primary' }) });
    await b.next();
    // A push to "b" leaves the shared server before it sees the top-level authority subscribe c1 there.
    shared.faults.delayResponses(800);
    shared.setSnapshot('*', { version: 's2', clusters: [buildCluster('c1', { edsServiceName: 'from-secondary' }), buildCluster(other, { edsServiceName: 'b2' })] });
    await sleep(50);
    await primary.stopServing();
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'from-secondary' }) });
    await sleep(200);
    expect(w.events.map((e) => e.type)).toEqual(['update', 'update']);
  });

  it('a cached value the fallback server does not have goes does-not-exist when its timer fires, not at once', async () => {
    const [primary, secondary] = await twoServers();
    primary.setSnapshot('*', { version: 'p2', clusters: [buildCluster('c1', { edsServiceName: 'from-primary' }), buildCluster('c9')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri], { fallbackWhenCached: true }), watchExpiryMs: 1000 });
    const w = recordingWatcher();
    client.watch('cluster', 'c9', w);
    client.watch('cluster', 'c1', recordingWatcher());
    expect(await w.next()).toMatchObject({ type: 'update' });
    await primary.stopServing();
    await eventually('the fallback answered', () => client?.dump().authorities[0]?.resources.find((r) => r.name === 'c1')?.source === secondary.uri);
    const answered = Date.now();
    expect(await w.next()).toEqual({ type: 'doesNotExist' });
    expect(Date.now() - answered).toBeGreaterThan(500);
    expect(client.dump().authorities[0]?.resources.find((r) => r.name === 'c9')).toMatchObject({ status: 'doesNotExist', source: secondary.uri });
  });
});
