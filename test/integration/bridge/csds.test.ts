import { CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { CsdsTestClient, type DecodedClientStatusResponse } from '../../helpers/csds-client';
import { bridgeConfig, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, uniqueBase } from '../../helpers/zk';

// Issue 15: the bridge answers CSDS (gRFC A40) on its gRPC admin port, as grpcdebug or grpcurl ask it,
// and /config_dump is the same ClientStatusResponse as JSON. Read here by a plain grpc-js client that
// decodes with envoy's csds.proto, through a fallback between control planes and the return.

const TOKEN = 'k3Qv9TzP0aLr8WmX2cYb7NsD4eFh6GjU1iKo5pRq';

function world(port: number, cluster = 'greetings-lor1'): World {
  return {
    services: [{ name: 'greetings', clusters: [{ name: cluster, weight: 1 }] }],
    clusters: [{ name: cluster, endpoints: [{ address: '10.0.0.1', port }] }],
  };
}

/** `[name, client_status, version_info]` of every resource, sorted by name. */
function rows(response: DecodedClientStatusResponse): string[][] {
  return response.config[0]!.generic_xds_configs.map((g) => [g.name, g.client_status, g.version_info]).sort((a, b) => a[0]!.localeCompare(b[0]!));
}

async function configDump(adminPort: number, headers: Record<string, string> = {}): Promise<DecodedClientStatusResponse> {
  const response = await fetch(`http://127.0.0.1:${adminPort}/config_dump`, { headers });
  return (await response.json()) as DecodedClientStatusResponse;
}

describe('bridge CSDS on the gRPC admin port', () => {
  let primary: XdsManagementServer;
  let secondary: XdsManagementServer;
  let base: string;
  const clients: CsdsTestClient[] = [];

  beforeEach(async () => {
    primary = await startXdsServer();
    secondary = await startXdsServer();
    base = uniqueBase('bridge-csds');
  });

  afterEach(async () => {
    clients.splice(0).forEach((c) => c.close());
    await stopBridges();
    await primary.close();
    await secondary.close();
    await closeSessions();
  });

  const connect = (port: number, authorization?: string): CsdsTestClient => {
    const client = new CsdsTestClient(port, authorization);
    clients.push(client);
    return client;
  };

  it('reports what the bridge follows, and /config_dump says the same as JSON, across a fallback and the return', async () => {
    // Prepare
    primary.setSnapshot('*', worldSnapshot('p1', world(1001)));
    secondary.setSnapshot('*', worldSnapshot('s1', world(2001, 'greetings-lva1')));
    const { bridge } = await startBridge(bridgeConfig([primary.uri, secondary.uri], ['greetings'], base));
    const csds = connect(bridge.adminGrpcPort!);
    const versions = async (): Promise<string[]> => rows(await csds.fetch()).map((r) => r[2]!);
    await eventually(async () => (await versions()).join() === 'p1,p1,p1,p1', 15_000, 'primary data');
    const onPrimary = await csds.fetch();
    const jsonOnPrimary = await configDump(bridge.adminPort!);

    // Act 1: the primary moves the service to a new cluster and dies when its CDS is requested (A71 falls back)
    primary.faults.failStreamWhenRequested({ typeUrl: CDS_TYPE_URL, resourceName: 'greetings-lva1', stopListener: true, once: true });
    primary.setSnapshot('*', worldSnapshot('p2', world(1501, 'greetings-lva1')));
    await eventually(async () => (await versions()).join() === 's1,s1,s1,s1', 15_000, 'secondary data');
    const onSecondary = await csds.fetch();

    // Act 2: the primary comes back
    primary.setSnapshot('*', worldSnapshot('p3', world(1002, 'greetings-lva1')));
    await primary.start();
    await eventually(async () => (await versions()).join() === 'p3,p3,p3,p3', 15_000, 'back on primary');
    const back = await csds.fetch();
    const jsonBack = await configDump(bridge.adminPort!);

    // Assess
    const names = (cluster: string): string[] => ['greetings', cluster, `${cluster}-eds`, 'greetings-route'];
    expect(rows(onPrimary)).toEqual(names('greetings-lor1').map((n) => [n, 'ACKED', 'p1']));
    expect(rows(onSecondary)).toEqual(names('greetings-lva1').map((n) => [n, 'ACKED', 's1']));
    expect(rows(back)).toEqual(names('greetings-lva1').map((n) => [n, 'ACKED', 'p3']));
    expect(rows(jsonOnPrimary)).toEqual(rows(onPrimary));
    expect(rows(jsonBack)).toEqual(rows(back));
    expect(onPrimary.config[0]).toMatchObject({ node: { id: 'bridge-test', user_agent_name: 'failout' }, client_scope: '#server' });
    expect(jsonBack.config[0]).toMatchObject({ node: { id: 'bridge-test' }, client_scope: '#server' });
    const cluster = jsonBack.config[0]!.generic_xds_configs.find((g) => g.name === 'greetings-lva1')!;
    expect(cluster.xds_config).toMatchObject({ '@type': CDS_TYPE_URL, name: 'greetings-lva1', eds_cluster_config: { service_name: 'greetings-lva1-eds' } });
  });

  it('asks for the admin bearer token on the gRPC admin port when bound beyond loopback', async () => {
    // Prepare
    primary.setSnapshot('*', worldSnapshot('p1', world(1001)));
    const { bridge } = await startBridge(bridgeConfig([primary.uri], ['greetings'], base, { admin: { host: '0.0.0.0', port: 0, grpcPort: 0, token: TOKEN } }));
    await eventually(() => bridge.ready, 15_000, 'ready');

    // Act
    const refused = await connect(bridge.adminGrpcPort!).fetch().then(
      () => undefined,
      (err: { code: number }) => err,
    );
    const answered = await connect(bridge.adminGrpcPort!, `Bearer ${TOKEN}`).fetch();

    // Assess
    expect(refused?.code).toBe(16); // UNAUTHENTICATED
    expect(rows(answered).map((r) => r[0])).toEqual(['greetings', 'greetings-lor1', 'greetings-lor1-eds', 'greetings-route']);
    expect((await fetch(`http://127.0.0.1:${bridge.adminPort!}/config_dump`)).status).toBe(401);
    expect(rows(await configDump(bridge.adminPort!, { authorization: `Bearer ${TOKEN}` }))).toEqual(rows(answered));
  });
});
