import { D2Client, LoadBalancerState, parseClusterProperties, parseServiceProperties, parseUriProperties } from '../../../lib/d2';
import { uriChildName } from '../../../lib/bridge';
import { buildListener, type XdsManagementServer } from '../../../lib/xds/server';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { bridgeConfig, paths, readNode, readUris, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { closeServers, startServer, type RecordingServer } from '../../helpers/http';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

// The bridge's first full sync over a real management server and a real ZooKeeper.

describe('bridge initial sync', () => {
  let xds: XdsManagementServer;
  let reader: ZkSession;
  let base: string;
  let servers: RecordingServer[];

  beforeEach(async () => {
    xds = await startXdsServer();
    reader = await openSession();
    base = uniqueBase('bridge');
    servers = await Promise.all(['lor1-a', 'lor1-b', 'plor1', 'plva1'].map((n) => startServer(n)));
  });

  afterEach(async () => {
    await stopBridges();
    await xds.close();
    await closeServers();
    await reader.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  function world(): World {
    return {
      services: [
        { name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] },
        { name: 'profiles', clusters: [{ name: 'profiles-lor1', weight: 3 }, { name: 'profiles-lva1', weight: 1 }] },
      ],
      clusters: [
        { name: 'greetings-lor1', endpoints: [{ address: '127.0.0.1', port: servers[0]!.port }, { address: '127.0.0.1', port: servers[1]!.port, weight: 2 }] },
        { name: 'profiles-lor1', endpoints: [{ address: '127.0.0.1', port: servers[2]!.port }] },
        { name: 'profiles-lva1', endpoints: [{ address: '127.0.0.1', port: servers[3]!.port }], lbPolicy: 'LEAST_REQUEST' },
      ],
    };
  }

  it('writes the service, cluster and URI nodes of two services and three clusters', async () => {
    // Prepare
    xds.setSnapshot('*', worldSnapshot('1', world()));

    // Act
    const { bridge } = await startBridge(bridgeConfig([xds.uri], ['greetings', 'profiles'], base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');

    // Assess
    const greetings = parseServiceProperties(Buffer.from((await readNode(reader, paths.service(base, 'greetings')))!.data));
    expect(greetings).toMatchObject({ serviceName: 'greetings', clusterName: 'greetings-lor1', path: '/greetings', prioritizedSchemes: ['http'] });
    const profiles = parseServiceProperties(Buffer.from((await readNode(reader, paths.service(base, 'profiles')))!.data));
    expect(profiles.clusterName).toBe('profiles-lor1');
    const lva1 = parseClusterProperties(Buffer.from((await readNode(reader, paths.cluster(base, 'profiles-lva1')))!.data));
    expect(lva1.properties).toMatchObject({ 'xds.lbPolicy': 'LEAST_REQUEST', 'xds.edsServiceName': 'profiles-lva1-eds' });
    const uris = await readUris(reader, base, 'greetings-lor1');
    expect([...uris.keys()].sort()).toEqual([uriChildName('127.0.0.1', servers[0]!.port), uriChildName('127.0.0.1', servers[1]!.port)].sort());
    expect(parseUriProperties(uris.get(uriChildName('127.0.0.1', servers[1]!.port))!.data).partitionDesc).toEqual({ [servers[1]!.uri]: { 0: 2 } });
    expect([...uris.values()].every((u) => !u.ephemeral)).toBe(true);
    expect((await readUris(reader, base, 'profiles-lva1')).size).toBe(1);
  });

  it('follows the listener gRPC clients of xds:<service> follow under a client_default_listener_resource_name_template (gRFC A47)', async () => {
    // Prepare: the management server names its listeners as xdstp names only
    const template = 'xdstp://ctl.example.com/envoy.config.listener.v3.Listener/%s';
    const snapshot = worldSnapshot('1', world());
    xds.setSnapshot('*', { ...snapshot, listeners: world().services.map((s) => buildListener(template.replace('%s', s.name), { routeConfigName: `${s.name}-route` })) });
    const config = bridgeConfig([xds.uri], ['greetings'], base, {
      bootstrap: {
        xds_servers: [{ server_uri: xds.uri, channel_creds: [{ type: 'insecure' }] }],
        client_default_listener_resource_name_template: template,
        authorities: { 'ctl.example.com': {} },
        node: { id: 'bridge-test' },
      },
    });

    // Act
    const { bridge } = await startBridge(config);
    await eventually(() => bridge.ready, 15_000, 'bridge ready');

    // Assess
    const greetings = parseServiceProperties(Buffer.from((await readNode(reader, paths.service(base, 'greetings')))!.data));
    expect(greetings).toMatchObject({ serviceName: 'greetings', clusterName: 'greetings-lor1' });
  });

  it('lets a D2Client reach the endpoints through what the bridge wrote', async () => {
    // Prepare
    xds.setSnapshot('*', worldSnapshot('1', world()));
    const { bridge } = await startBridge(bridgeConfig([xds.uri], ['greetings', 'profiles'], base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const state = new LoadBalancerState({ session: reader, basePath: base });
    const client = new D2Client({ state, random: () => 0 });

    try {
      // Act
      const names: string[] = [];
      for (let i = 0; i < 6; i++) {
        const response = await client.request('d2://greetings/hello');
        names.push(((await response.body.json()) as { server: string }).server);
      }
      const profile = await client.request('d2://profiles/me');
      const lva1 = await client.requestToCluster('profiles-lva1', 'd2://profiles/me');

      // Assess: weights 1:2 over six requests, the service path prepended
      expect(names.filter((n) => n === 'lor1-a')).toHaveLength(2);
      expect(names.filter((n) => n === 'lor1-b')).toHaveLength(4);
      expect(servers[0]!.paths[0]).toBe('/greetings/hello');
      expect(((await profile.body.json()) as { server: string }).server).toBe('plor1');
      expect(((await lva1.body.json()) as { server: string }).server).toBe('plva1');
    } finally {
      await client.close();
      state.close();
    }
  });

  it('never touches children that servers announced themselves', async () => {
    // Prepare: a server's own ephemeral announcement, even one with the bridge's marker
    xds.setSnapshot('*', worldSnapshot('1', world()));
    await reader.ensurePath(paths.uris(base, 'greetings-lor1'), OPEN_ACL);
    const own = await reader.create(`${paths.uris(base, 'greetings-lor1')}/ephemoral-`, Buffer.from('{"clusterName":"greetings-lor1"}'), { mode: 'ephemeralSequential', acl: OPEN_ACL });
    const marked = await reader.create(`${paths.uris(base, 'greetings-lor1')}/xds-bridge-impostor`, Buffer.from('{}'), { mode: 'ephemeral', acl: OPEN_ACL });

    // Act: the bridge syncs, then every endpoint of the cluster goes away
    const { bridge } = await startBridge(bridgeConfig([xds.uri], ['greetings', 'profiles'], base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const w = world();
    xds.setSnapshot('*', worldSnapshot('2', { ...w, clusters: w.clusters.map((c) => (c.name === 'greetings-lor1' ? { ...c, endpoints: [] } : c)) }));
    await eventually(async () => (await readUris(reader, base, 'greetings-lor1')).size === 2, 10_000, 'bridge children removed');

    // Assess
    const left = await readUris(reader, base, 'greetings-lor1');
    expect([...left.keys()].sort()).toEqual([own.split('/').pop(), marked.split('/').pop()].sort());
    expect(left.get('xds-bridge-impostor')!.data).toBe('{}');
  });
});
