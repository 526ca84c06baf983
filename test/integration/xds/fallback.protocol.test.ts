/**
 * Protocol behaviour against the real management server: NACK of a bad resource while the good ones
 * of the same response are used, garbage never crashes the client, a watch started during fallback
 * gets the primary's data after return even when the parent resource is byte-identical (2.11a).
 */
import { parseBootstrap } from '../../../lib/xds/bootstrap';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { CDS_TYPE_URL, buildCluster, buildListener, buildRouteConfiguration } from '../../../lib/xds/resource-types';
import { XdsManagementServer, garbageResource, invalidResource } from '../../../lib/xds/server';
import { recordingWatcher } from '../../helpers/xds-fakes';
import { eventually, fallbackBootstrap, startXdsServer } from '../../helpers/xds-chain';

describe('ADS protocol against the management server', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('NACKs an invalid cluster with error_detail and the last accepted version, and uses the valid ones', async () => {
    const server = await startXdsServer();
    servers.push(server);
    server.setSnapshot('*', { version: 'v1', clusters: [buildCluster('good'), buildCluster('bad')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([server.uri]) });
    const good = recordingWatcher();
    const bad = recordingWatcher();
    client.watch('cluster', 'good', good);
    client.watch('cluster', 'bad', bad);
    await good.next();
    await bad.next();
    server.setSnapshot('*', { version: 'v2', clusters: { good: buildCluster('good', { edsServiceName: 'new' }), bad: invalidResource('cluster', 'bad') } });
    expect(await good.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'new' }) });
    expect(await bad.next()).toMatchObject({ type: 'error', ambient: true });
    const nack = await server.recorder.waitFor(() => server.recorder.nacks.find((r) => r.typeUrl === CDS_TYPE_URL));
    expect(nack.versionInfo).toBe('v1');
    expect(nack.errorDetail?.message).toContain('bad');
    expect(client.dump().authorities[0]?.resources.find((r) => r.name === 'bad')?.status).toBe('nacked');
  });

  it('asks for an xdstp name with its context parameters sorted (gRFC A47 normalization) and gets the resource the server holds under it', async () => {
    const server = await startXdsServer();
    servers.push(server);
    const normalized = 'xdstp://ctl/envoy.config.cluster.v3.Cluster/c1?a=1&b=2';
    server.setSnapshot('*', { version: 'v1', clusters: [buildCluster(normalized, { edsServiceName: 'c1-eds' })] });
    client = createXdsClient({
      bootstrap: parseBootstrap({ xds_servers: [{ server_uri: server.uri, channel_creds: [{ type: 'insecure' }] }], authorities: { ctl: {} } }),
    });
    const w = recordingWatcher();
    client.watch('cluster', 'xdstp://ctl/envoy.config.cluster.v3.Cluster/c1?b=2&a=1', w);
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'c1-eds' }) });
    expect(client.dump().authorities[0]?.resources.map((r) => [r.name, r.status])).toEqual([[normalized, 'acked']]);
  });

  it('survives garbage bytes from the server and NACKs them', async () => {
    const server = await startXdsServer();
    servers.push(server);
    server.setSnapshot('*', { version: 'v1', clusters: [buildCluster('c1')] });
    client = createXdsClient({ bootstrap: fallbackBootstrap([server.uri]) });
    const w = recordingWatcher();
    client.watch('cluster', 'c1', w);
    await w.next();
    server.pushRaw(CDS_TYPE_URL, [garbageResource(CDS_TYPE_URL)], 'garbage');
    await server.recorder.waitFor(() => server.recorder.nacks.length > 0);
    server.setSnapshot('*', { version: 'v2', clusters: [buildCluster('c1', { edsServiceName: 'after' })] });
    expect(await w.next()).toEqual({ type: 'update', value: expect.objectContaining({ edsServiceName: 'after' }) });
  });

  it('gives a watch started during fallback the primary data after return, with a byte-identical LDS (2.11a)', async () => {
    const primary = await startXdsServer();
    const secondary = await startXdsServer();
    servers.push(primary, secondary);
    const listener = buildListener('svc', { routeConfigName: 'route-x' });
    primary.setSnapshot('*', { version: 'p', listeners: [listener], routes: [buildRouteConfiguration('route-x', { cluster: 'from-primary' })] });
    secondary.setSnapshot('*', { version: 's', listeners: [listener], routes: [buildRouteConfiguration('route-x', { cluster: 'from-secondary' })] });
    await primary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const lds = recordingWatcher();
    client.watch('listener', 'svc', lds);
    await lds.next();
    const rds = recordingWatcher();
    client.watch('routeConfiguration', 'route-x', rds);
    const first = await rds.next();
    expect(first).toMatchObject({ type: 'update', value: { virtualHosts: [{ routes: [{ action: { cluster: 'from-secondary' } }] }] } });
    await primary.start();
    await eventually('the route from the primary', () =>
      rds.events.some((e) => e.type === 'update' && JSON.stringify(e.value).includes('from-primary')),
    10_000);
    await eventually('the fallback stream closed', () => secondary.activeAdsStreams === 0);
  });
});
