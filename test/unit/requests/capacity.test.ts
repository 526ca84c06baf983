import fc from 'fast-check';
import { DEFAULT_MAX_PEER_LOAD_FACTOR, projectPeerLoad, type CapacityPeer } from '../../../lib/requests/capacity';

/**
 * The capacity guard's load model (issue 16): per peer, (h_p + moved × w_p / Σw) / h_p against
 * maxPeerLoadFactor, moved = X's hosts × buckets / 100, Σw over the peers that have hosts.
 */

const peer = (cluster: string, hosts: number, weight = 1): CapacityPeer => ({ cluster, hosts, weight });

describe('projectPeerLoad', () => {
  it.each([
    // name, X hosts, fraction, peers, expected factors, over
    ['a peer as large as X taking all of it doubles (at the limit, allowed)', 4, 1, [peer('p', 4)], [2], [false]],
    ['a small peer taking all of a larger X triples (rejected)', 2, 1, [peer('p', 1)], [3], [true]],
    ['half the buckets move half the load', 2, 0.5, [peer('p', 1)], [2], [false]],
    ['weights split the moved load (2:1 over equal peers)', 6, 1, [peer('a', 3, 2), peer('b', 3, 1)], [7 / 3, 5 / 3], [true, false]],
    ['equal weights over unequal peers load the small one more', 4, 1, [peer('big', 8), peer('small', 1)], [1.25, 3], [false, true]],
    ['a peer without hosts gets nothing and the others share all', 2, 1, [peer('empty', 0, 5), peer('p', 2)], [null, 2], [false, false]],
    ['X without hosts moves nothing', 0, 1, [peer('p', 1)], [1], [false]],
    ['no bucket moves nothing', 3, 0, [peer('p', 1)], [1], [false]],
  ] as const)('%s', (_name, clusterHosts, movedFraction, peers, factors, over) => {
    // Prepare / Act
    const projection = projectPeerLoad({ clusterHosts, movedFraction, peers, maxPeerLoadFactor: DEFAULT_MAX_PEER_LOAD_FACTOR });

    // Assess
    expect(projection.peers.map((p) => p.loadFactor)).toEqual(factors.map((f) => (f === null ? null : expect.closeTo(f, 10))));
    expect(projection.peers.map((p) => p.over)).toEqual(over);
    expect(projection.problems).toHaveLength(over.filter(Boolean).length);
    expect(projection.problems.every((p) => p.reason === 'insufficientPeerCapacity')).toBe(true);
  });

  it('names the peer, the factor, the host counts and the limit in the problem', () => {
    const projection = projectPeerLoad({ clusterHosts: 4, movedFraction: 1, peers: [peer('ok', 10), peer('tiny', 1)], maxPeerLoadFactor: 2 });

    expect(projection.movedLoad).toBe(4);
    expect(projection.problems).toEqual([
      {
        reason: 'insufficientPeerCapacity',
        message: 'peers[1].cluster: "tiny" would carry 3× its load per host (from host counts: 1 hosts + 2 hosts\' worth moved from 4 hosts), above maxPeerLoadFactor 2 (force overrides)',
      },
    ]);
  });

  it.each([
    [1.4, true],
    [3, false],
  ])('applies the deployment\'s limit %p (a 2.5× peer over it: %p)', (maxPeerLoadFactor, over) => {
    const projection = projectPeerLoad({ clusterHosts: 3, movedFraction: 1, peers: [peer('p', 2)], maxPeerLoadFactor });

    expect(projection.peers[0]).toMatchObject({ loadFactor: 2.5, over });
  });
});

/** Rates by cluster, X named `x`. */
const rates = (entries: Record<string, number>): { byCluster: Map<string, number>; source: string } => ({ byCluster: new Map(Object.entries(entries)), source: '2 scrapes of 1 endpoint' });

describe('projectPeerLoad from request rates', () => {
  it.each([
    // name, X hosts, fraction, peers, rates (x = X), expected factors, over
    ['a peer half as busy per host as X takes it all: 1 + 100/50 = 3 (host counts say 2)', 4, 1, [peer('p', 4)], { x: 100, p: 50 }, [3], [true]],
    ['a peer twice as busy as X: 1 + 100/200 = 1.5', 4, 1, [peer('p', 4)], { x: 100, p: 200 }, [1.5], [false]],
    ['half the buckets move half the rate', 2, 0.5, [peer('p', 1)], { x: 100, p: 50 }, [2], [false]],
    ['weights split the moved rate (2:1)', 6, 1, [peer('a', 3, 2), peer('b', 3, 1)], { x: 90, a: 60, b: 30 }, [2, 2], [false, false]],
    ['a peer without hosts needs no rate and gets nothing', 2, 1, [peer('empty', 0), peer('p', 2)], { x: 10, p: 10 }, [null, 2], [false, false]],
    ['X serving nothing moves nothing', 3, 1, [peer('p', 1)], { x: 0, p: 5 }, [1], [false]],
  ] as const)('%s', (_name, clusterHosts, movedFraction, peers, byCluster, factors, over) => {
    // Act
    const projection = projectPeerLoad({ cluster: 'x', clusterHosts, movedFraction, peers, maxPeerLoadFactor: 2, rates: rates(byCluster) });

    // Assess
    expect(projection.basis).toBe('requestRates');
    expect(projection.peers.map((p) => p.loadFactor)).toEqual(factors.map((f) => (f === null ? null : expect.closeTo(f, 10))));
    expect(projection.peers.map((p) => p.over)).toEqual(over);
    expect(projection.ratesSource).toBe('2 scrapes of 1 endpoint');
  });

  it('names the basis and the rates in the problem', () => {
    const projection = projectPeerLoad({ cluster: 'x', clusterHosts: 4, movedFraction: 1, peers: [peer('p', 4)], maxPeerLoadFactor: 2, rates: rates({ x: 100, p: 50 }) });

    expect(projection).toMatchObject({ basis: 'requestRates', movedLoad: 100, clusterRate: 100 });
    expect(projection.problems).toEqual([
      {
        reason: 'insufficientPeerCapacity',
        message: 'peers[0].cluster: "p" would carry 3× its load per host (from request rates: 50 req/s + 100 req/s moved from 100 req/s), above maxPeerLoadFactor 2 (force overrides)',
      },
    ]);
  });

  it.each([
    ["X's rate is unknown", { p: 50 }, 'no request rate for "x"'],
    ["X's rate is not a number", { x: Number.NaN, p: 50 }, 'no request rate for "x"'],
    ["a peer's rate is unknown", { x: 100 }, 'no request rate above 0 for "p"'],
    ['a peer serves nothing (no factor over 0)', { x: 100, p: 0 }, 'no request rate above 0 for "p"'],
  ])('falls back to host counts when %s, and says why', (_name, byCluster, why) => {
    const projection = projectPeerLoad({ cluster: 'x', clusterHosts: 4, movedFraction: 1, peers: [peer('p', 4)], maxPeerLoadFactor: 2, rates: rates(byCluster) });

    expect(projection).toMatchObject({ basis: 'hostCounts', ratesUnused: why });
    expect(projection.peers[0]?.loadFactor).toBe(2);
    expect(projection.peers[0]?.rate).toBeUndefined();
  });

  it('falls back to host counts while X is failed out now, and says why (its rate lacks what it sends away)', () => {
    // X all on p now: X measures 0 req/s, p its own 50 plus X's 100; by rates "nothing moves, ×1".
    const projection = projectPeerLoad({ cluster: 'x', clusterHosts: 4, movedFraction: 1, peers: [peer('p', 4)], maxPeerLoadFactor: 2, rates: rates({ x: 0, p: 150 }), clusterAwayNow: 1 });

    expect(projection).toMatchObject({ basis: 'hostCounts', ratesUnused: '"x" is failed out now for 100% of its traffic: its measured rate lacks what it sends away, and its peers\' rates hold it' });
    expect(projection.peers[0]?.loadFactor).toBe(2);
  });

  it('is from host counts, with nothing to explain, without rates', () => {
    const projection = projectPeerLoad({ cluster: 'x', clusterHosts: 4, movedFraction: 1, peers: [peer('p', 4)], maxPeerLoadFactor: 2 });

    expect(projection.basis).toBe('hostCounts');
    expect(projection.ratesUnused).toBeUndefined();
  });

  it('gives the same factors as host counts when every cluster serves the same rate per host', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.array(fc.record({ hosts: fc.integer({ min: 0, max: 500 }), weight: fc.integer({ min: 1, max: 100 }) }), { minLength: 1, maxLength: 8 }),
        fc.double({ min: 0.01, max: 10_000, noNaN: true }),
        (clusterHosts, movedFraction, shape, perHost) => {
          const peers = shape.map((p, i) => peer(`p${i}`, p.hosts, p.weight));
          const byCluster = Object.fromEntries([['x', clusterHosts * perHost], ...peers.map((p) => [p.cluster, p.hosts * perHost] as const)]);
          const fromHosts = projectPeerLoad({ cluster: 'x', clusterHosts, movedFraction, peers, maxPeerLoadFactor: 2 });
          const fromRates = projectPeerLoad({ cluster: 'x', clusterHosts, movedFraction, peers, maxPeerLoadFactor: 2, rates: rates(byCluster) });

          expect(fromRates.basis).toBe('requestRates');
          fromHosts.peers.forEach((p, i) => {
            const other = fromRates.peers[i]!.loadFactor;
            if (p.loadFactor === null) expect(other).toBeNull();
            else expect(other).toBeCloseTo(p.loadFactor, 9);
          });
        },
      ),
    );
  });
});
