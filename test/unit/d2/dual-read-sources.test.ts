/**
 * Dual read (rest.li DualReadZkAndXdsLoadBalancerFactory): the state is served by the primary
 * sources; the secondary is followed too, and a resource on which it disagrees with the primary,
 * once both answered and for longer than `settleMs`, is reported once per disagreement (parsed values
 * compared, not bytes).
 */
import { dualReadSources, LoadBalancerState, serializeClusterProperties, xdsSources, zooKeeperSources } from '../../../lib/d2';
import type { DualReadMismatch } from '../../../lib/d2/dual-read-sources';
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { clusterDoc, putCluster, putUri } from '../../helpers/d2';
import { FakeD2Xds } from '../../helpers/d2-xds-fake';
import { InMemoryZk } from '../../helpers/in-memory-zk';
import { capturingLogger } from '../../helpers/logging';

const BASE = '/d2';
const json = (v: string, name = 'c1'): Record<string, unknown> => JSON.parse(serializeClusterProperties(clusterDoc(name, { properties: { v } }))) as Record<string, unknown>;
const announcement = (host: string): Record<string, unknown> => ({ clusterName: 'c1', partitionDesc: { [host]: { '0': { weight: 1 } } }, uriSpecificProperties: {} });
const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('dual read', () => {
  let zk: InMemoryZk;
  let secondary: FakeD2Xds;
  let mismatches: DualReadMismatch[];
  let state: LoadBalancerState;
  let logLines: ReturnType<typeof capturingLogger>['lines'];

  beforeEach(() => {
    zk = new InMemoryZk();
    secondary = new FakeD2Xds();
    mismatches = [];
    const { logger, lines } = capturingLogger();
    logLines = lines;
    state = new LoadBalancerState({
      sources: dualReadSources({ primary: zooKeeperSources(zk.session()), secondary: xdsSources(secondary), settleMs: 20, onMismatch: (m) => mismatches.push(m) }),
      basePath: BASE,
      logger,
    });
  });
  afterEach(() => state.close());

  async function settle(): Promise<void> {
    await zk.idle();
    await secondary.idle();
    await wait(40);
  }

  it('serves from the primary and reports nothing while both sources agree', async () => {
    // Prepare
    const writer = zk.session();
    await putCluster(writer, BASE, clusterDoc('c1', { properties: { v: '1' } }));
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:80');
    secondary.putNode(clusterPath(BASE, 'c1'), json('1'));
    secondary.putUri(urisPath(BASE, 'c1'), 'h1', announcement('http://h1:80'));

    // Act
    await state.listenToCluster('c1');
    await settle();

    // Assess
    expect(state.getClusterProperties('c1')?.properties.v).toBe('1');
    expect(secondary.watched('d2Node')).toEqual([clusterPath(BASE, 'c1')]);
    expect(mismatches).toEqual([]);
  });

  it('reports a resource the secondary disagrees on once, by kind, and logs it', async () => {
    // Prepare
    const writer = zk.session();
    await putCluster(writer, BASE, clusterDoc('c1', { properties: { v: '1' } }));
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:80');
    secondary.putNode(clusterPath(BASE, 'c1'), json('stale'));
    secondary.putUri(urisPath(BASE, 'c1'), 'h1', announcement('http://h1:80'));

    // Act
    await state.listenToCluster('c1');
    await settle();
    secondary.putNode(clusterPath(BASE, 'c1'), json('still stale'));
    await settle();

    // Assess
    expect(state.getClusterProperties('c1')?.properties.v).toBe('1');
    expect(mismatches.map((m) => `${m.kind}:${m.name}`)).toEqual(['cluster:c1']);
    expect(logLines.some((l) => String(l.msg).startsWith('dual read'))).toBe(true);
  });

  it('does not report a disagreement that ends within settleMs, and reports a new one after agreeing', async () => {
    const writer = zk.session();
    await putCluster(writer, BASE, clusterDoc('c1', { properties: { v: '1' } }));
    secondary.putNode(clusterPath(BASE, 'c1'), json('1'));
    await state.listenToCluster('c1');
    await settle();

    // The primary hears a write first; the secondary follows within settleMs.
    await putCluster(writer, BASE, clusterDoc('c1', { properties: { v: '2' } }));
    await zk.idle();
    secondary.putNode(clusterPath(BASE, 'c1'), json('2'));
    await settle();
    const afterCatchUp = mismatches.length;
    // Then the secondary misses a host the primary has.
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:80');
    await settle();

    expect(afterCatchUp).toBe(0);
    expect(mismatches.map((m) => `${m.kind}:${m.name}`)).toEqual(['uris:c1']);
  });
});
