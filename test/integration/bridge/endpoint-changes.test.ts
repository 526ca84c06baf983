import { parseUriProperties } from '../../../lib/d2';
import { uriChildName } from '../../../lib/bridge';
import type { EndpointInput } from '../../../lib/xds/resource-types';
import { bridgeConfig, paths, readNode, readUris, startBridge, useBridgeFixture, worldSnapshot, type World } from '../../helpers/bridge';
import type { ZkSession } from '../../../lib/zk';
import { eventually } from '../../helpers/zk';

// Incremental sync: an xDS endpoint change rewrites only the znodes it concerns.

const A: EndpointInput = { address: '10.0.0.1', port: 8080 };
const B: EndpointInput = { address: '10.0.0.2', port: 8080 };
const C: EndpointInput = { address: '10.0.0.3', port: 8080 };

function world(endpoints: readonly EndpointInput[]): World {
  return {
    services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }, { name: 'profiles', clusters: [{ name: 'profiles-lor1', weight: 1 }] }],
    clusters: [
      { name: 'greetings-lor1', endpoints },
      { name: 'profiles-lor1', endpoints: [{ address: '10.0.1.1', port: 80 }] },
    ],
  };
}

/** Every znode under the base with its mzxid. */
async function snapshot(session: ZkSession, base: string): Promise<Map<string, bigint>> {
  const out = new Map<string, bigint>();
  const walk = async (path: string): Promise<void> => {
    const node = await readNode(session, path);
    if (!node) return;
    out.set(path, node.mzxid);
    for (const child of (await session.children(path)).children) await walk(`${path}/${child}`);
  };
  await walk(base);
  return out;
}

function changed(before: Map<string, bigint>, after: Map<string, bigint>): string[] {
  const paths = new Set([...before.keys(), ...after.keys()]);
  return [...paths].filter((p) => before.get(p) !== after.get(p)).sort();
}

describe('bridge incremental sync', () => {
  const fx = useBridgeFixture();

  const child = (e: EndpointInput): string => `${paths.uris('', 'greetings-lor1')}/${uriChildName(e.address, e.port)}`;

  it.each<[string, EndpointInput[], string[]]>([
    ['an endpoint added', [A, B, C], [child(C)]],
    ['an endpoint removed', [A], [child(B)]],
    ['an endpoint marked unhealthy', [A, { ...B, healthStatus: 'UNHEALTHY' }], [child(B)]],
    ['an endpoint draining', [{ ...A, healthStatus: 'DRAINING' }, B], [child(A)]],
    ['a weight changed', [A, { ...B, weight: 5 }], [child(B)]],
  ])('%s → only that URI node changes', async (_name, next, expected) => {
    // Prepare
    fx.xds.setSnapshot('*', worldSnapshot('1', world([A, B])));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings', 'profiles'], fx.base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');
    const before = await snapshot(fx.reader, fx.base);
    const writesBefore = bridge.syncStats().writes;

    // Act
    fx.xds.setSnapshot('*', worldSnapshot('2', world(next)));
    await eventually(() => bridge.syncStats().writes > writesBefore, 10_000, 'the change written');
    await bridge.whenSynced();

    // Assess
    const after = await snapshot(fx.reader, fx.base);
    expect(changed(before, after)).toEqual(expected.map((p) => `${fx.base}${p}`));
    expect(bridge.syncStats().writes - writesBefore).toBe(1);
  });

  it('writes the new weight into the URI document', async () => {
    fx.xds.setSnapshot('*', worldSnapshot('1', world([A])));
    const { bridge } = await startBridge(bridgeConfig([fx.xds.uri], ['greetings', 'profiles'], fx.base));
    await eventually(() => bridge.ready, 15_000, 'bridge ready');

    fx.xds.setSnapshot('*', worldSnapshot('2', world([{ ...A, weight: 7 }])));
    await eventually(async () => (await readUris(fx.reader, fx.base, 'greetings-lor1')).get(uriChildName(A.address, A.port))?.data.includes('7.0') ?? false, 10_000, 'weight 7');

    const data = (await readUris(fx.reader, fx.base, 'greetings-lor1')).get(uriChildName(A.address, A.port))!.data;
    expect(parseUriProperties(data).partitionDesc).toEqual({ 'http://10.0.0.1:8080': { 0: 7 } });
  });
});
