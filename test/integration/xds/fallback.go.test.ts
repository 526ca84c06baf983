/**
 * grpc-go's five end-to-end fallback tests (internal/xds/xdsclient/tests/fallback/fallback_test.go),
 * ported to XdsClient with real management servers on loopback. "RPCs reach backend N" becomes "the
 * resolved chain LDS → RDS → CDS → EDS ends at backend N".
 */
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import { XdsManagementServer } from '../../../lib/xds/server';
import { ChainResolver, chainSnapshot, eventually, fallbackBootstrap, sleep, startXdsServer } from '../../helpers/xds-chain';

const LISTENER = 'fallback-service';
const B1 = '127.0.0.1:1001';
const B2 = '127.0.0.1:1002';
const B3 = '127.0.0.1:1003';

const adsStreams = (s: XdsManagementServer): number => s.recorder.streams.filter((r) => r.service === 'ads').length;

describe('fallback (grpc-go fallback_test.go)', () => {
  const servers: XdsManagementServer[] = [];
  let client: XdsClient | undefined;

  async function startServers(n: number): Promise<XdsManagementServer[]> {
    for (let i = 0; i < n; i++) servers.push(await startXdsServer());
    return servers;
  }

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });

  it('OnStartup: both down → error, fallback up → its data, primary up → back and fallback closed, primary down → no fallback', async () => {
    const [primary, secondary] = (await startServers(2)) as [XdsManagementServer, XdsManagementServer];
    primary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-p', 1001));
    secondary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-s', 1002, 'fallback'));
    await primary.stopServing();
    await secondary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await eventually('an error after both servers failed', () => chain.errors.length > 0);
    expect(chain.errors[0]?.kind).toBe('connection');
    expect(chain.backend).toBeUndefined();

    await secondary.start();
    await chain.waitForBackend(B2);

    await primary.start();
    await chain.waitForBackend(B1, 10_000);
    await eventually('the fallback stream closed', () => secondary.activeAdsStreams === 0);

    const fallbackStreams = adsStreams(secondary);
    await primary.stopServing();
    await sleep(1500);
    expect(adsStreams(secondary)).toBe(fallbackStreams);
    expect(chain.backend).toBe(B1);
  });

  it('MidUpdate: the primary dies while a new cluster is uncached → fallback; primary back → its new chain', async () => {
    const [primary, secondary] = (await startServers(2)) as [XdsManagementServer, XdsManagementServer];
    primary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-p', 1001));
    secondary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-s', 1002, 'fallback'));
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(B1);
    expect(adsStreams(secondary)).toBe(0);

    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'mid-update-cluster', stopListener: true, once: true });
    primary.setSnapshot('*', chainSnapshot('2', LISTENER, 'mid-update-cluster', 1003, 'mid'));
    await chain.waitForBackend(B2);
    expect(adsStreams(secondary)).toBeGreaterThan(0);

    await primary.start();
    await chain.waitForBackend(B3, 10_000);
    await eventually('the fallback stream closed', () => secondary.activeAdsStreams === 0);
  });

  it('MidStartup: the primary fails on the first CDS request → fallback; primary back → its data', async () => {
    const [primary, secondary] = (await startServers(2)) as [XdsManagementServer, XdsManagementServer];
    primary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-p', 1001));
    secondary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-s', 1002, 'fallback'));
    const disarm = primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, stopListener: true });
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(B2);
    expect(adsStreams(primary)).toBeGreaterThan(0);

    disarm();
    await primary.start();
    await chain.waitForBackend(B1, 10_000);
    await eventually('the fallback stream closed', () => secondary.activeAdsStreams === 0);
  });

  it('OnStartup_RPCSuccess: primary down at start → fallback data with no error to watchers', async () => {
    const [primary, secondary] = (await startServers(2)) as [XdsManagementServer, XdsManagementServer];
    primary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-p', 1001));
    secondary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-s', 1002, 'fallback'));
    await primary.stopServing();
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await chain.waitForBackend(B2, 5000);
    expect(chain.errors).toEqual([]);

    await primary.start();
    await chain.waitForBackend(B1, 10_000);
    expect(chain.errors).toEqual([]);
  });

  it('ThreeServerPromotion: primary → secondary → tertiary, then back to secondary, then to the primary', async () => {
    const [primary, secondary, tertiary] = (await startServers(3)) as [XdsManagementServer, XdsManagementServer, XdsManagementServer];
    const ldsOnly = (s: XdsManagementServer): void => {
      s.setSnapshot('*', { ...chainSnapshot('1', LISTENER, 'cluster-x', 1009, 'missing'), routes: [], clusters: [], endpoints: [] });
    };
    ldsOnly(primary);
    ldsOnly(secondary);
    tertiary.setSnapshot('*', chainSnapshot('1', LISTENER, 'cluster-t', 1003, 'tertiary'));
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, secondary.uri, tertiary.uri]) });
    const chain = new ChainResolver(client, LISTENER);
    await eventually('LDS from the primary', () => client?.dump().authorities[0]?.resources.some((r) => r.status === 'acked') ?? false);

    await primary.stopServing();
    await eventually('a connection to the secondary', () => adsStreams(secondary) > 0);
    await secondary.stopServing();
    await chain.waitForBackend(B3);

    secondary.setSnapshot('*', chainSnapshot('2', LISTENER, 'cluster-s', 1002, 'secondary'));
    await secondary.start();
    await chain.waitForBackend(B2, 10_000);
    await eventually('the tertiary stream closed', () => tertiary.activeAdsStreams === 0);

    primary.setSnapshot('*', chainSnapshot('2', LISTENER, 'cluster-p', 1001, 'primary'));
    await primary.start();
    await chain.waitForBackend(B1, 10_000);
    await eventually('the secondary stream closed', () => secondary.activeAdsStreams === 0);
  });
});
