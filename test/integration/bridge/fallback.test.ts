import { CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import type { ZkSession } from '../../../lib/zk';
import { bridgeConfig, readUris, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// gRFC A71 through the bridge: the primary control plane dies, discovery data keeps flowing from the
// secondary, and the bridge returns to the primary when it is back. Seen through /status and /metrics.

function world(port: number, cluster = 'greetings-lor1'): World {
  return {
    services: [{ name: 'greetings', clusters: [{ name: cluster, weight: 1 }] }],
    clusters: [{ name: cluster, endpoints: [{ address: '10.0.0.1', port }] }],
  };
}

async function get(port: number, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`);
  return { status: response.status, text: await response.text() };
}

interface StatusJson {
  role: string;
  ready: boolean;
  authorities: { authority: string; activeServer: string; fallbackActive: boolean; servers: { serverUri: string; state: string }[] }[];
}

describe('bridge fallback between control planes', () => {
  let primary: XdsManagementServer;
  let secondary: XdsManagementServer;
  let reader: ZkSession;
  let base: string;

  beforeEach(async () => {
    primary = await startXdsServer();
    secondary = await startXdsServer();
    reader = await openSession();
    base = uniqueBase('bridge');
  });

  afterEach(async () => {
    await stopBridges();
    await primary.close();
    await secondary.close();
    await reader.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  const childNames = async (cluster: string): Promise<string> => [...(await readUris(reader, base, cluster)).keys()].join();

  it('falls back when the primary dies, shows it, follows the secondary, and returns to the primary', async () => {
    // Prepare
    primary.setSnapshot('*', worldSnapshot('p1', world(1001)));
    secondary.setSnapshot('*', worldSnapshot('s1', world(2001, 'greetings-lva1')));
    const { bridge } = await startBridge(bridgeConfig([primary.uri, secondary.uri], ['greetings'], base));
    const admin = bridge.adminPort!;
    await eventually(async () => (await childNames('greetings-lor1')) === 'xds-bridge-10.0.0.1-1001', 15_000, 'primary data');
    const before = JSON.parse((await get(admin, '/status')).text) as StatusJson;
    expect(before.authorities[0]).toMatchObject({ activeServer: primary.uri, fallbackActive: false });

    // Act 1: the primary moves the service to a new cluster and dies when its CDS is requested, so a
    // watched resource is uncached (gRFC A71 falls back only then; cached data alone is kept)
    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'greetings-lva1', stopListener: true, once: true });
    primary.setSnapshot('*', worldSnapshot('p2', world(1501, 'greetings-lva1')));
    await eventually(async () => (await childNames('greetings-lva1')) === 'xds-bridge-10.0.0.1-2001', 15_000, 'secondary data');

    // Assess 1: /status and /metrics show the fallback
    const during = JSON.parse((await get(admin, '/status')).text) as StatusJson;
    expect(during.authorities[0]).toMatchObject({ activeServer: secondary.uri, fallbackActive: true });
    const metrics = (await get(admin, '/metrics')).text;
    expect(metrics).toContain('xds_bridge_fallback_active{authority="default"} 1');
    expect(metrics).toContain('xds_bridge_server_switches_total{authority="default",reason="fallback"} 1');

    // Act 2: a change made on the secondary reaches ZooKeeper
    secondary.setSnapshot('*', worldSnapshot('s2', world(2002, 'greetings-lva1')));
    await eventually(async () => (await childNames('greetings-lva1')) === 'xds-bridge-10.0.0.1-2002', 15_000, 'secondary change');

    // Act 3: the primary comes back (on the same port)
    primary.setSnapshot('*', worldSnapshot('p3', world(1002, 'greetings-lva1')));
    await primary.start();
    await eventually(async () => (await childNames('greetings-lva1')) === 'xds-bridge-10.0.0.1-1002', 15_000, 'back on primary');

    // Assess 3
    const after = JSON.parse((await get(admin, '/status')).text) as StatusJson;
    expect(after.authorities[0]).toMatchObject({ activeServer: primary.uri, fallbackActive: false });
    const back = (await get(admin, '/metrics')).text;
    expect(back).toContain('xds_bridge_fallback_active{authority="default"} 0');
    expect(back).toContain('xds_bridge_server_switches_total{authority="default",reason="return"} 1');
  });
});

describe('bridge admin endpoints', () => {
  let xds: XdsManagementServer;
  let base: string;

  beforeEach(async () => {
    xds = await startXdsServer();
    base = uniqueBase('bridge');
  });

  afterEach(async () => {
    await stopBridges();
    await xds.close();
    await closeSessions();
  });

  it('is healthy at once and ready only after the first full sync', async () => {
    // Prepare: no snapshot yet, so nothing resolves
    const { bridge } = await startBridge(bridgeConfig([xds.uri], ['greetings'], base));
    const admin = bridge.adminPort!;

    // Act + Assess
    expect((await get(admin, '/healthz')).status).toBe(200);
    expect((await get(admin, '/readyz')).status).toBe(503);
    xds.setSnapshot('*', worldSnapshot('1', world(1001)));
    await eventually(async () => (await get(admin, '/readyz')).status === 200, 15_000, 'ready');
    const status = JSON.parse((await get(admin, '/status')).text) as { role: string; services: unknown[]; sync: { writes: number; lastFullSyncAt: number } };
    expect(status).toMatchObject({ role: 'leader', services: [{ name: 'greetings', state: 'resolved', clusters: ['greetings-lor1'] }] });
    expect(status.sync.writes).toBeGreaterThan(0);
    const dump = JSON.parse((await get(admin, '/config_dump')).text) as { config: { generic_xds_configs: { name: string; client_status: string }[] }[] };
    expect(dump.config[0]!.generic_xds_configs.map((r) => r.name).sort()).toEqual(['greetings', 'greetings-lor1', 'greetings-lor1-eds', 'greetings-route']);
    expect(dump.config[0]!.generic_xds_configs.map((r) => r.client_status)).toEqual(['ACKED', 'ACKED', 'ACKED', 'ACKED']);
    const metrics = await get(admin, '/metrics');
    expect(metrics.text).toMatch(/xds_bridge_zk_writes_total\{op="create"\} \d+/);
    expect(metrics.text).toContain('xds_bridge_leader 1');
    expect((await get(admin, '/nope')).status).toBe(404);
  });
});
