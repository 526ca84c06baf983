/**
 * psm-interop's three fallback tests (grpc/psm-interop tests/fallback_test.py), ported to XdsClient
 * with real management servers on loopback. "Control plane started on its port" becomes `start()` of
 * a server created (and stopped) up front; "RPCs reach serverN" becomes "the resolved chain
 * LDS → RDS → CDS → EDS ends at backend N"; the ADS channel states psm-interop reads over channelz
 * (TRANSIENT_FAILURE / READY / none) are `dump()`'s 'failing' / 'ready' / 'unused'. The probe cap is
 * short so that the return to the primary takes well under a second.
 */
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { ChainResolver, chainSnapshot, eventually, fallbackBootstrap, sleep, startXdsServer } from '../../helpers/xds-chain';

const LISTENER = 'listener_0';
const SERVER1 = '127.0.0.1:3001';
const SERVER2 = '127.0.0.1:3002';
const SERVER3 = '127.0.0.1:3003';

/** psm-interop's control-plane config: the listener → `initial_cluster_for_<name>` (or `cluster`) → `port`. */
const controlPlaneConfig = (name: string, port: number, cluster = `initial_cluster_for_${name}`): ReturnType<typeof chainSnapshot> =>
  chainSnapshot(name, LISTENER, cluster, port, name);

type ChannelStatus = 'failing' | 'ready' | 'unused';

describe('fallback (psm-interop fallback_test.py)', () => {
  let primary: XdsManagementServer;
  let fallback: XdsManagementServer;
  let client: XdsClient | undefined;

  beforeEach(async () => {
    primary = await startXdsServer();
    fallback = await startXdsServer();
  });

  afterEach(async () => {
    client?.close();
    client = undefined;
    await Promise.all([primary.close(), fallback.close()]);
  });

  function startClient(): ChainResolver {
    client = createXdsClient({ bootstrap: fallbackBootstrap([primary.uri, fallback.uri]), fallbackProbeCapMs: 200 });
    return new ChainResolver(client, LISTENER);
  }

  /** psm-interop's assert_ads_connections: waits until both ADS channels are in the given states. */
  async function adsConnections(primaryStatus: ChannelStatus, fallbackStatus: ChannelStatus): Promise<void> {
    const states = (): string[] => client?.dump().authorities[0]?.servers.map((s) => s.state) ?? [];
    await eventually(`ADS channels ${primaryStatus}/${fallbackStatus} (are ${states().join('/')})`, () => {
      const [p, f] = states();
      return p === primaryStatus && f === fallbackStatus;
    }, 10_000);
  }

  it('test_fallback_on_startup: errors while both are down, the fallback data once it starts, the primary data once it starts, kept after both go down', async () => {
    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config', 3001));
    fallback.setSnapshot('*', controlPlaneConfig('fallback_xds_config', 3002));
    await primary.stopServing();
    await fallback.stopServing();
    const chain = startClient();
    await adsConnections('failing', 'failing');
    await eventually('RPCs fail', () => chain.errors.length > 0);
    expect(chain.backend).toBeUndefined();

    await fallback.start();
    await adsConnections('failing', 'ready');
    await chain.waitForBackend(SERVER2);

    await primary.start();
    await adsConnections('ready', 'unused');
    await chain.waitForBackend(SERVER1);
    const errorsWithPrimary = chain.errors.length;

    await primary.stopServing();
    await adsConnections('failing', 'unused');
    await sleep(300);
    expect(chain.backend).toBe(SERVER1); // cached value is used, no fallback
    expect(fallback.activeAdsStreams).toBe(0);

    await fallback.stopServing();
    await sleep(300);
    await adsConnections('failing', 'unused');
    expect(chain.backend).toBe(SERVER1);
    expect(chain.errors.slice(errorsWithPrimary).every((e) => e.kind === 'connection')).toBe(true);
  });

  it('test_fallback_mid_startup: the primary dying on the first CDS request → the fallback data without errors; the restarted primary takes over', async () => {
    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config_run_1', 3001, 'cluster_name'));
    fallback.setSnapshot('*', controlPlaneConfig('fallback_xds_config', 3002));
    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'cluster_name', stopListener: true, once: true });
    const chain = startClient();
    await adsConnections('failing', 'ready');
    await chain.waitForBackend(SERVER2);
    expect(chain.errors).toEqual([]);

    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config_run_2', 3001));
    await primary.start();
    await adsConnections('ready', 'unused');
    await chain.waitForBackend(SERVER1);
    expect(chain.errors).toEqual([]);
  });

  it('test_fallback_mid_update: the primary dying on an updated cluster → the fallback data; the restarted primary\'s new config replaces it', async () => {
    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config_run_1', 3001));
    fallback.setSnapshot('*', controlPlaneConfig('fallback_xds_config', 3002));
    const chain = startClient();
    await adsConnections('ready', 'unused');
    await chain.waitForBackend(SERVER1);

    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'test_cluster_2', stopListener: true, once: true });
    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config_run_1_update', 3003, 'test_cluster_2'));
    await adsConnections('failing', 'ready');
    await chain.waitForBackend(SERVER2);
    expect(chain.errors).toEqual([]);

    primary.setSnapshot('*', controlPlaneConfig('primary_xds_config_run_2', 3003));
    await primary.start();
    await adsConnections('ready', 'unused');
    await chain.waitForBackend(SERVER3);
    expect(chain.errors).toEqual([]);
  });
});
