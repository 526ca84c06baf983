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
        message: 'peers[1].cluster: "tiny" would carry 3× its load per host (1 hosts + 2 hosts\' worth moved from 4 hosts), above maxPeerLoadFactor 2 (force overrides)',
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
