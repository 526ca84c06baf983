/**
 * The peer load projection as the CLI and the console show it: a peer over the limit is marked
 * "(forced)" only when the request was applied anyway (with --force); a projection shown with a
 * rejection says it is over the limit and nothing about force having been used.
 */
import { formatProjections } from '../../../lib/operator';
import { projectPeerLoad } from '../../../lib/requests';

const over = projectPeerLoad({ clusterHosts: 3, movedFraction: 1, peers: [{ cluster: 'greetings-lva1', hosts: 1, weight: 1 }], maxPeerLoadFactor: 2 });

describe('formatProjections', () => {
  it('marks an over-limit peer as forced on an applied (forced) result', () => {
    expect(formatProjections({ ok: true, capacity: over })).toContain("greetings-lva1: 1 hosts, +3 hosts' load → ×4 OVER THE LIMIT (forced)");
  });

  it('does not say forced on a rejected result', () => {
    const text = formatProjections({ ok: false, capacity: over });
    expect(text).toContain("greetings-lva1: 1 hosts, +3 hosts' load → ×4 OVER THE LIMIT");
    expect(text).not.toContain('forced');
  });
});
