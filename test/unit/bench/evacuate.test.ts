/**
 * Issue 23: `npm run bench -- evacuate`. The pure parts, cheaply: the command line, which services a
 * client follows, the floor's values, the multi byte count, and the routing judgement the clients
 * apply, checked against what the benchmark's stand-in writer (`--writer stub`) leaves in an
 * in-memory ZooKeeper: evacuated in every bucket to peers outside lor1, then home again.
 */
import { clusterPath, parseClusterProperties } from '../../../lib/d2';
import { createFailoutConfig } from '../../../lib/failout';
import { evacuatedCluster, evacuateRequest, followedServices, floorValue, restoreRequest, seedFabrics, serviceName } from '../../../bench/evacuate/fabric';
import { multiPayloadBytes } from '../../../bench/evacuate/session-tap';
import { parameters } from '../../../bench/evacuate/parameters';
import { evacuatedAt, homeAt, nextBoundary } from '../../../bench/evacuate/routing';
import { StubEvacuationWriter } from '../../../bench/evacuate/stub-writer';
import { InMemoryZk } from '../../helpers/in-memory-zk';

describe('evacuate bench: parameters', () => {
  it('defaults to the issue sizes, the real writer and both parts', () => {
    const p = parameters([]);
    expect(p).toMatchObject({ part: 'all', writer: 'real' });
    expect(p.propagation).toMatchObject({ services: 100, clients: 1000, follow: 10, processes: 4 });
    expect(p.judgement).toMatchObject({ services: 1000, rounds: 20 });
  });

  it('warms up with two evacuations and two restores unless told, so a measured round runs no path for the first time', () => {
    expect(parameters([]).propagation.warmup).toBe(4);
    expect(parameters(['--warmup', '2']).propagation.warmup).toBe(2);
  });

  it('gives every worker the same young generation, 64 MiB unless told (0: node default)', () => {
    expect(parameters([]).propagation.semiSpaceMb).toBe(64);
    expect(parameters(['--semi-space-mb', '0']).propagation.semiSpaceMb).toBe(0);
    expect(() => parameters(['--semi-space-mb', '-1'])).toThrow();
  });

  it('takes the words in both spellings beside the counts', () => {
    const p = parameters(['--writer', 'stub', '--part=judgement', '--judge-services', '50', '--clients', '3']);
    expect(p).toMatchObject({ part: 'judgement', writer: 'stub', judgement: { services: 50 }, propagation: { clients: 3, processes: 3 } });
  });

  it.each([[['--writer', 'fake']], [['--part']], [['--clients', '0']], [['--nope', '1']]])('refuses %j', (args) => {
    expect(() => parameters(args)).toThrow();
  });
});

describe('evacuate bench: who follows what', () => {
  it('gives each client distinct services and every service the same number of followers', () => {
    const followers = new Array<number>(100).fill(0);
    for (let c = 0; c < 1000; c++) {
      const services = followedServices(c, 100, 10);
      expect(new Set(services).size).toBe(10);
      for (const s of services) followers[s]!++;
    }
    expect(new Set(followers)).toEqual(new Set([100]));
  });

  it('follows every service when there are fewer than asked', () => {
    expect(followedServices(7, 4, 10).sort()).toEqual([0, 1, 2, 3]);
  });
});

describe('evacuate bench: floor values and multi bytes', () => {
  it('pads the token to the document size, and never cuts it', () => {
    expect(floorValue('tok', 8).toString()).toBe('tok     ');
    expect(floorValue('token', 2).toString()).toBe('token');
  });

  it('counts paths and data', () => {
    expect(multiPayloadBytes([{ op: 'set', path: '/a', data: Buffer.from('xyz'), version: -1 }, { op: 'check', path: '/bc', version: 1 }])).toBe(2 + 3 + 3);
  });
});

describe('evacuate bench: the stand-in writer and the routing judgement', () => {
  const BASE = '/d2';

  async function world() {
    const zk = new InMemoryZk();
    const session = zk.session();
    await seedFabrics(session, BASE, 3, 2);
    let now = 1_000_000;
    const writer = new StubEvacuationWriter(session, BASE, () => now);
    const config = async (i: number) => {
      const { data } = await session.get(clusterPath(BASE, evacuatedCluster(i)));
      return createFailoutConfig(evacuatedCluster(i), parseClusterProperties(data.toString('utf8')).failoutProperties);
    };
    return { session, writer, config, advance: (ms: number) => (now += ms), at: () => now };
  }

  it('evacuates every lor1 cluster to lva1 and ltx1 by host count in one multi, then restores it', async () => {
    const w = await world();
    const multi = jest.spyOn(w.session, 'multi');
    const evacuated = await w.writer.process(evacuateRequest('t').body, { messageId: 'm1' });
    expect(evacuated.status).toBe('applied');
    expect(multi).toHaveBeenCalledTimes(1);
    for (let i = 0; i < 3; i++) {
      const config = await w.config(i);
      expect(config?.peers).toEqual([
        { cluster: `${serviceName(i)}-lva1`, weight: 2 },
        { cluster: `${serviceName(i)}-ltx1`, weight: 2 },
      ]);
      expect(evacuatedAt(config, w.at(), 'lor1')).toBe(true);
      expect(homeAt(config, w.at())).toBe(false);
    }
    w.advance(10);
    await w.writer.process(restoreRequest('t').body, { messageId: 'm2' });
    for (let i = 0; i < 3; i++) {
      const config = await w.config(i);
      expect(homeAt(config, w.at())).toBe(true);
      expect(evacuatedAt(config, w.at(), 'lor1')).toBe(false);
    }
  });

  it('does not count peers inside the fabric, or a window not started, as evacuated', async () => {
    const inside = createFailoutConfig('a-lor1', { redirects: [{ peer: 'a-lva1' }, { peer: 'b-lor1' }], ignoredRedirectEntries: 0, buckets: [{}] });
    expect(evacuatedAt(inside, 5, 'lor1')).toBe(false);
    const later = createFailoutConfig('a-lor1', { redirects: [{ peer: 'a-lva1' }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: 100 }] });
    expect(evacuatedAt(later, 50, 'lor1')).toBe(false);
    expect(nextBoundary(later, 50)).toBe(100);
    expect(evacuatedAt(later, 100, 'lor1')).toBe(true);
    const half = createFailoutConfig('a-lor1', { redirects: [{ peer: 'a-lva1' }], ignoredRedirectEntries: 0, buckets: [{ bucketOfflineRange: { from: 0, to: 49 } }] });
    expect(evacuatedAt(half, 5, 'lor1')).toBe(false);
  });
});
