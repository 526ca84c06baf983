import { bridgeConfig, paths, readNode, readUris, startBridge, useBridgeFixture, worldSnapshot, type World } from '../../helpers/bridge';
import { sleep } from '../../helpers/xds-chain';
import { eventually } from '../../helpers/zk';

// Removal: only for resources the control plane says do not exist, only after the grace period, and
// never because the control plane cannot be reached.

const world: World = {
  services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }],
  clusters: [{ name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
};

describe('bridge removal', () => {
  const fx = useBridgeFixture();

  it('removes a deleted service and its endpoints only after the grace period, keeping the cluster node', async () => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', world));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { deletionGraceMs: 1500 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');

    // Act: the listener and cluster disappear from the SotW responses
    fx.xds.setSnapshot('*', { version: '2', listeners: [], routes: [], clusters: [], endpoints: [] });
    await sleep(700);

    // Assess: still there within the grace period …
    expect(await readNode(fx.reader, paths.service(fx.base, 'greetings'))).toBeDefined();
    expect((await readUris(fx.reader, fx.base, 'greetings-lor1')).size).toBe(1);
    // … gone after it, except the cluster node (it holds failoutProperties)
    await eventually(async () => (await readNode(fx.reader, paths.service(fx.base, 'greetings'))) === undefined, 10_000, 'service removed');
    await eventually(async () => (await readUris(fx.reader, fx.base, 'greetings-lor1')).size === 0, 10_000, 'uris removed');
    expect(await readNode(fx.reader, paths.cluster(fx.base, 'greetings-lor1'))).toBeDefined();
  });

  it('removes a service whose listener was deleted even when its route configuration changes during the grace period', async () => {
    // Prepare
    const moved: World = {
      services: [{ name: 'greetings', clusters: [{ name: 'greetings-lva1', weight: 1 }] }],
      clusters: [...world.clusters, { name: 'greetings-lva1', endpoints: [{ address: '10.0.0.2', port: 80 }] }],
    };
    fx.xds.setSnapshot('*', worldSnapshot('1', world));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { deletionGraceMs: 1500 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');

    // Act: the listener goes (its route stays), then the route changes while the listener is still gone
    fx.xds.setSnapshot('*', { ...worldSnapshot('2', world), listeners: [] });
    await eventually(() => bridge.status().services.some((s) => s.name === 'greetings' && s.state === 'doesNotExist'), 10_000, 'listener gone');
    fx.xds.setSnapshot('*', { ...worldSnapshot('3', moved), listeners: [] });

    // Assess: a service without its listener has no route (as for gRPC clients): removed after the grace period
    await eventually(async () => (await readNode(fx.reader, paths.service(fx.base, 'greetings'))) === undefined, 10_000, 'service removed');
    expect((await readUris(fx.reader, fx.base, 'greetings-lva1')).size).toBe(0);
  });

  it('keeps everything while the control plane is unreachable', async () => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', world));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { deletionGraceMs: 200, watchExpiryMs: 500 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const writes = bridge.syncStats().writes;

    // Act
    await fx.xds.stopServing();
    await sleep(2500);

    // Assess
    expect(await readNode(fx.reader, paths.service(fx.base, 'greetings'))).toBeDefined();
    expect((await readUris(fx.reader, fx.base, 'greetings-lor1')).size).toBe(1);
    expect(bridge.syncStats().writes).toBe(writes);
  });
});
