import { bridgeConfig, paths, readNode, readUris, startBridge, useBridgeFixture, worldSnapshot, type World } from '../../helpers/bridge';
import { eventually } from '../../helpers/zk';

// A route that moves a service to another cluster is applied whole (gRFC A74, "xDS config tears"):
// the service node keeps naming its cluster, whose endpoints stay, until the new cluster's CDS and
// EDS are in; a route to a cluster the control plane does not have is bad data, and changes nothing.

const LOR1 = { name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }] };
const LVA1 = { name: 'greetings-lva1', endpoints: [{ address: '10.0.0.2', port: 80 }] };
const routedTo = (cluster: string, clusters: World['clusters']): World => ({ services: [{ name: 'greetings', clusters: [{ name: cluster, weight: 1 }] }], clusters });

describe('bridge route change', () => {
  const fx = useBridgeFixture();

  const clusterNameOfService = async (): Promise<string | undefined> => {
    const node = await readNode(fx.reader, paths.service(fx.base, 'greetings'));
    return node && (JSON.parse(node.data) as { clusterName?: string }).clusterName;
  };

  it('keeps the service on its cluster and that cluster’s hosts while the new route names a cluster the control plane does not have, and moves once it does', async () => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', routedTo(LOR1.name, [LOR1])));
    // (a short does-not-exist timer: a management server may answer a subscription to a name it lacks with nothing)
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { watchExpiryMs: 1000 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    await bridge.whenSynced();

    // Act 1: the route moves to greetings-lva1, which CDS does not have
    fx.xds.setSnapshot('*', worldSnapshot('2', routedTo(LVA1.name, [LOR1])));
    await eventually(() => bridge.status().clusters.some((c) => c.name === LVA1.name && c.cds === 'doesNotExist'), 10_000, 'new cluster known missing');
    await bridge.whenSynced();

    // Assess 1: the last good route stays in ZooKeeper, hosts included
    expect(await clusterNameOfService()).toBe(LOR1.name);
    expect([...(await readUris(fx.reader, fx.base, LOR1.name)).keys()]).toEqual(['xds-bridge-10.0.0.1-80']);

    // Act 2: the control plane gets the cluster
    fx.xds.setSnapshot('*', worldSnapshot('3', routedTo(LVA1.name, [LOR1, LVA1])));

    // Assess 2: the service moves, with the new cluster's node and hosts, and the old hosts go
    await eventually(async () => (await clusterNameOfService()) === LVA1.name, 10_000, 'service moved');
    expect(await readNode(fx.reader, paths.cluster(fx.base, LVA1.name))).toBeDefined();
    expect([...(await readUris(fx.reader, fx.base, LVA1.name)).keys()]).toEqual(['xds-bridge-10.0.0.2-80']);
    await eventually(async () => (await readUris(fx.reader, fx.base, LOR1.name)).size === 0, 10_000, 'old hosts withdrawn');
  });
});
