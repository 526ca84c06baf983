import { clusterDoc, putCluster, putService, putUri, put, serviceDoc } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { encodeFabricMap } from '../../../lib/fabrics';
import { readFabricMembership, readFabrics } from '../../../lib/operator/fabric-status';
import type { ZkReader } from '../../../lib/zk';

// readFabrics over the in-memory ZooKeeper: what it reads, what it reports, and how many reads it has
// in flight. The CLI's view of it on a real ZooKeeper: test/integration/cli/cli.fabric.test.ts.

const NOW = Date.parse('2026-11-30T16:00:00Z');
const SETTINGS = { d2Base: '/d2', fabricsBase: '/failout/fabrics' };

let session: InMemoryZkSession;

beforeEach(() => {
  session = new InMemoryZk().session();
});

afterEach(async () => {
  await session.close();
});

describe('readFabrics', () => {
  it('reads an empty tree (no /d2, no maps) as no fabrics', async () => {
    // Act
    const view = await readFabrics(session, SETTINGS, NOW);

    // Assess
    expect(view).toEqual({ fabrics: [], unassigned: [], brokenMaps: [], conflicts: [], missing: [] });
  });

  it('counts hosts, reads each failout state, reports a broken map and applies the rule to its clusters', async () => {
    // Prepare
    await putService(session, '/d2', serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, '/d2', clusterDoc('greetings-lor1'));
    await putCluster(session, '/d2', clusterDoc('greetings-lva1'));
    await put(session, '/d2/clusters/odd', '{ not json');
    for (const host of ['h1', 'h2']) await putUri(session, '/d2', 'greetings-lor1', host, `http://${host}:8080`);
    await put(session, '/failout/fabrics/lva1', '{"version":1,"fabric":"lva1","clusters":[{"cluster":"greetings-lva1","service":"greetings/x"}]}');
    await put(session, '/failout/fabrics/lor1', encodeFabricMap({ fabric: 'lor1', clusters: [{ cluster: 'odd', service: 'greetings', tier: 'frontend' }] }).toString('utf8'));

    // Act
    const view = await readFabrics(session, SETTINGS, NOW);

    // Assess
    expect(view.brokenMaps).toEqual([{ fabric: 'lva1', problem: expect.stringContaining('clusters[0].service "greetings/x"') }]);
    expect(view.fabrics).toEqual([
      {
        name: 'lor1',
        services: ['greetings'],
        hosts: 2,
        failedOut: 0,
        clusters: [
          { cluster: 'greetings-lor1', service: 'greetings', source: 'rule', hosts: 2, state: 'serving', targets: [{ cluster: 'greetings-lva1', fabric: 'lva1' }] },
          { cluster: 'odd', service: 'greetings', tier: 'frontend', source: 'map', hosts: 0, state: 'malformed', problem: expect.any(String), targets: [{ cluster: 'greetings-lva1', fabric: 'lva1' }] },
        ],
      },
      {
        name: 'lva1',
        services: ['greetings'],
        hosts: 0,
        failedOut: 0,
        clusters: [{ cluster: 'greetings-lva1', service: 'greetings', source: 'rule', hosts: 0, state: 'serving', targets: [{ cluster: 'greetings-lor1', fabric: 'lor1' }, { cluster: 'odd', fabric: 'lor1' }] }],
      },
    ]);
  });

  it('reads at most 32 clusters at a time (64 reads: node and hosts), however many there are', async () => {
    // Prepare
    for (let i = 0; i < 200; i++) await putCluster(session, '/d2', clusterDoc(`c${i}`));
    let inFlight = 0;
    let most = 0;
    const counted = <T>(read: () => Promise<T>): Promise<T> => {
      inFlight++;
      most = Math.max(most, inFlight);
      return read().finally(() => inFlight--);
    };
    const reader: Pick<ZkReader, 'children' | 'read' | 'exists'> = {
      children: (path) => counted(() => session.children(path)),
      read: (path) => counted(() => session.read(path)),
      exists: (path) => counted(() => session.exists(path)),
    };

    // Act
    const view = await readFabrics(reader, SETTINGS, NOW);

    // Assess: two reads per cluster (its node and its hosts).
    expect(view.unassigned).toHaveLength(200);
    expect(most).toBeLessThanOrEqual(64);
    expect(most).toBeGreaterThan(2);
  });
});

describe('FAILOUT_FABRICS_PATH', () => {
  it('must be an absolute path: readFabrics refuses another as an input error (other commands never read it)', async () => {
    await expect(readFabrics(session, { ...SETTINGS, fabricsBase: 'failout/fabrics' }, NOW)).rejects.toMatchObject({ kind: 'input', message: expect.stringContaining('FAILOUT_FABRICS_PATH') });
  });
});

describe('readFabricMembership', () => {
  it("maps each cluster a fabric holds to its fabric, by the rule and the maps, without reading the cluster nodes", async () => {
    // Prepare: the rule places greetings-lor1 and greetings-lva1; the lor1 map places legacy-a; odd is in none.
    await putService(session, '/d2', serviceDoc('greetings', 'greetings-lor1'));
    for (const cluster of ['greetings-lor1', 'greetings-lva1', 'legacy-a', 'odd']) await putCluster(session, '/d2', clusterDoc(cluster));
    await put(session, '/failout/fabrics/lor1', encodeFabricMap({ fabric: 'lor1', clusters: [{ cluster: 'legacy-a', service: 'greetings' }] }).toString('utf8'));
    const reads: string[] = [];
    const counting: Pick<ZkReader, 'children' | 'read' | 'exists'> = {
      children: (path) => session.children(path),
      read: (path) => (reads.push(path), session.read(path)),
      exists: (path) => session.exists(path),
    };

    // Act
    const membership = await readFabricMembership(counting, SETTINGS);

    // Assess
    expect(Object.fromEntries(membership)).toEqual({ 'greetings-lor1': 'lor1', 'legacy-a': 'lor1', 'greetings-lva1': 'lva1' });
    expect(reads).toEqual(['/failout/fabrics/lor1']);
  });
});
