import type { ResourceKind } from '../../../lib/xds/resource-types';
import { TYPE_URLS } from '../../../lib/xds/resource-types';
import { garbageResource, invalidResource, type SnapshotInput } from '../../../lib/xds/server';
import { bridgeConfig, readNode, readUris, startBridge, useBridgeFixture, worldSnapshot, type World, paths } from '../../helpers/bridge';
import { sleep } from '../../helpers/xds-chain';
import { eventually } from '../../helpers/zk';

// A control plane that sends garbage or invalid resources: the bridge NACKs them (lib/xds) and the
// last good data stays in ZooKeeper.

const world: World = {
  services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }],
  clusters: [{ name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
};

/** The kinds the bridge watches (not rest.li's D2 ones). */
type EnvoyKind = Exclude<ResourceKind, 'd2Node' | 'd2UriMap' | 'd2SymlinkNode'>;

/** The world's snapshot with one resource replaced by an invalid one of the same name. */
function withInvalid(kind: EnvoyKind, name: string): SnapshotInput {
  const good = worldSnapshot('2', world);
  const field = ({ listener: 'listeners', routeConfiguration: 'routes', cluster: 'clusters', clusterLoadAssignment: 'endpoints' } as const)[kind];
  return { ...good, [field]: [invalidResource(kind, name)] };
}

describe('bridge with invalid resources', () => {
  const fx = useBridgeFixture();

  async function zkState(): Promise<string> {
    const service = await readNode(fx.reader, paths.service(fx.base, 'greetings'));
    const cluster = await readNode(fx.reader, paths.cluster(fx.base, 'greetings-lor1'));
    const uris = await readUris(fx.reader, fx.base, 'greetings-lor1');
    return JSON.stringify([service?.mzxid.toString(), cluster?.mzxid.toString(), [...uris].map(([n, u]) => [n, u.mzxid.toString()])]);
  }

  it.each<[EnvoyKind, string]>([
    ['listener', 'greetings'],
    ['routeConfiguration', 'greetings-route'],
    ['cluster', 'greetings-lor1'],
    ['clusterLoadAssignment', 'greetings-lor1-eds'],
  ])('NACKs an invalid %s and keeps the last good data in ZooKeeper', async (kind, name) => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', world));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { deletionGraceMs: 200 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const before = await zkState();
    const writes = bridge.syncStats().writes;

    // Act
    fx.xds.setSnapshot('*', withInvalid(kind, name));
    await eventually(() => bridge.configDump().config[0]!.generic_xds_configs.some((r) => r.name === name && r.client_status === 'NACKED'), 10_000, 'NACK');
    await sleep(500);

    // Assess
    expect(await zkState()).toBe(before);
    expect(bridge.syncStats().writes).toBe(writes);
  });

  it('NACKs resources whose bytes do not decode and keeps the last good data', async () => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', world));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings'], fx.base, { deletionGraceMs: 200 }));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const before = await zkState();

    // Act
    const sent = fx.xds.pushRaw(TYPE_URLS.clusterLoadAssignment, [garbageResource(TYPE_URLS.clusterLoadAssignment)]);
    await eventually(() => fx.xds.recorder.nacks.some((r) => r.typeUrl === TYPE_URLS.clusterLoadAssignment), 10_000, 'NACK');
    await sleep(500);

    // Assess
    expect(sent).toBeGreaterThan(0);
    expect(await zkState()).toBe(before);
    expect(bridge.status().services[0]!.state).toBe('resolved');
  });
});
