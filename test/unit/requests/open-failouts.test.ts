/**
 * The routing model of open failouts judged together (issue 21, lib/requests open-failouts.ts): which
 * failouts a change strands, which receivers it overloads, at now and at every later window start.
 */
import type { FailoutBucketConfig, FailoutProperties } from '../../../lib/d2/data';
import { rebaseView } from '../../../lib/requests/judge-together';
import { involvedClusters, judgeTogether } from '../../../lib/requests/open-failouts';

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;

function failout(peers: readonly (string | [string, number])[], buckets: Partial<FailoutBucketConfig>[] = [{}]): FailoutProperties {
  return {
    redirects: peers.map((p) => (typeof p === 'string' ? { peer: p, weight: 1 } : { peer: p[0], weight: p[1] })),
    ignoredRedirectEntries: 0,
    buckets: buckets.map((b) => ({ bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW - MIN, onlineAt: NOW + 60 * MIN, requestId: 'r', ...b })),
  };
}

const hosts = (entries: Record<string, number>): Map<string, number> => new Map(Object.entries(entries));

function judge(before: Record<string, FailoutProperties>, after: Record<string, FailoutProperties>, changed: string[], h: Record<string, number>) {
  return judgeTogether({ before: new Map(Object.entries(before)), after: new Map(Object.entries(after)), changed: new Set(changed), hosts: hosts(h), now: NOW, maxPeerLoadFactor: 2 });
}

describe('stranding', () => {
  it('finds the failout whose only peer the change fails out', () => {
    const x = failout(['a']);
    const result = judge({ x }, { x, a: failout(['b']) }, ['a'], { x: 2, a: 2, b: 2 });
    expect(result.strandings).toEqual([expect.objectContaining({ cluster: 'x', at: NOW, buckets: 100, peers: ['a'] })]);
  });

  it('finds nothing while another peer with hosts stays eligible', () => {
    const x = failout(['a', 'b']);
    expect(judge({ x }, { x, a: failout(['c']) }, ['a'], { x: 1, a: 2, b: 4, c: 4 }).strandings).toEqual([]);
  });

  it('counts only the buckets the change strands (the peer failed out for half of them)', () => {
    const x = failout(['a']);
    const result = judge({ x }, { x, a: failout(['b'], [{ bucketOfflineRange: { from: 0, to: 49 } }]) }, ['a'], { x: 1, a: 4, b: 4 });
    expect(result.strandings).toEqual([expect.objectContaining({ cluster: 'x', buckets: 50 })]);
  });

  it('judges a window that starts later at its start', () => {
    const x = failout(['a']);
    const later = failout(['b'], [{ offlineAt: NOW + 30 * MIN, onlineAt: NOW + 90 * MIN }]);
    expect(judge({ x }, { x, a: later }, ['a'], { x: 1, a: 4, b: 4 }).strandings).toEqual([expect.objectContaining({ cluster: 'x', at: NOW + 30 * MIN })]);
  });

  it('does not blame the change for what was stranded before it', () => {
    const x = failout(['a']);
    const a = failout(['b']);
    expect(judge({ x, a }, { x, a, y: failout(['b']) }, ['y'], { x: 1, a: 1, b: 8, y: 1 }).strandings).toEqual([]);
  });

  it('names the drill when every open window of the stranded failout is a drill run', () => {
    const x = failout(['a'], [{ drill: 'drill-x', requestId: 'run-1' }]);
    expect(judge({ x }, { x, a: failout(['b']) }, ['a'], { x: 1, a: 1, b: 4 }).strandings[0]?.drill).toEqual({ name: 'drill-x', runId: 'run-1' });
  });
});

describe('capacity', () => {
  it('adds what other failouts already send a receiver', () => {
    const x = failout(['a']);
    const result = judge({ x }, { x, y: failout(['a']) }, ['y'], { x: 2, y: 2, a: 2 });
    expect(result.overloads).toEqual([expect.objectContaining({ cluster: 'a', before: 2, after: 3 })]);
  });

  it('splits by weight among eligible peers and moves a failed-out peer share to the others', () => {
    const x = failout([['a', 1], ['b', 1]]);
    const result = judge({ x }, { x, a: failout(['c']) }, ['a'], { x: 4, a: 2, b: 2, c: 8 });
    // b had 2 + 2 (half of x) = 2×; with a out it gets all 4 of x: 3×.
    expect(result.overloads).toEqual([expect.objectContaining({ cluster: 'b', before: 2, after: 3 })]);
  });

  it('judges when a co-peer of another failout fails out later and sends that failout all onto the receiver', () => {
    // s splits onto p and q; q's own failout starts at +10m, and from then all of s lands on p. The
    // change (x onto p) fits now (p at 2×) but not from +10m (2.5×), though neither x, s nor p has
    // a window that starts then: only q, a peer of a failout sending to p, does.
    const s = failout(['p', 'q'], [{ onlineAt: NOW + 120 * MIN }]);
    const q = failout(['z'], [{ offlineAt: NOW + 10 * MIN, onlineAt: NOW + 90 * MIN }]);
    const x = failout(['p'], [{ bucketOfflineRange: { from: 0, to: 49 }, offlineAt: NOW }]);

    const result = judge({ s, q }, { s, q, x }, ['x'], { x: 2, p: 2, s: 2, q: 2, z: 2 });

    expect(result.instants).toContain(NOW + 10 * MIN);
    expect(result.overloads).toEqual([expect.objectContaining({ cluster: 'p', at: NOW + 10 * MIN, before: 2, after: 2.5 })]);
  });

  it('does not flag a receiver whose forced overload the change does not make worse', () => {
    const x = failout(['a']);
    expect(judge({ x }, { x, z: failout(['c']) }, ['z'], { x: 8, a: 2, z: 1, c: 4 }).overloads).toEqual([]);
  });
});

describe('involvedClusters', () => {
  it('reaches the failouts sending to the receivers of the change, not unrelated ones', () => {
    const view = new Map(Object.entries({ x: failout(['a']), y: failout(['b']), far: failout(['elsewhere']) }));
    const involvement = involvedClusters(view, view, new Set(['a']));
    expect([...involvement.sources].sort()).toEqual(['x']);
    expect(involvement.hostsNeeded.has('far')).toBe(false);
  });
});

describe('rebaseView (a view another writer changed since the judgement)', () => {
  const base = new Map(Object.entries({ x: failout(['a']) }));
  const rebase = { base, entries: new Map([['y', failout(['b'])]]), involved: new Set(['y', 'b']), now: NOW };

  it('keeps the verdict when the change touches none of the clusters it rests on', () => {
    const current = new Map([...base, ['far', failout(['elsewhere'])]]);
    expect([...(rebaseView(rebase, current)?.keys() ?? [])].sort()).toEqual(['far', 'x', 'y']);
  });

  it.each([
    ['a failout of a cluster it read', new Map([...base, ['b', failout(['c'])]])],
    ['a new failout sending to a cluster it read', new Map([...base, ['z', failout(['b'])]])],
    // `$bMaster` may link to b: which cluster it names takes a read, so the judgement is made again.
    ['a new failout sending to a D2 symlink ($ peer)', new Map([...base, ['z', failout(['$bMaster'])]])],
  ])('judges again after %s', (_name, current) => {
    expect(rebaseView(rebase, current)).toBeUndefined();
  });
});
