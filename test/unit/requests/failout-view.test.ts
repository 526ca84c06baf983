/**
 * The view of open failouts (issue 21, lib/requests failout-view.ts): one codec, round trip; ended
 * windows pruned; drift between the view and the cluster nodes; rebuilt from the cluster nodes.
 */
import { parseFailoutProperties, type FailoutProperties } from '../../../lib/d2/data';
import { decodeFailoutView, encodeFailoutView, rebuildFailoutView, viewDrift, viewPathFor } from '../../../lib/requests';
import fc from 'fast-check';
import { withViewEntries, withViewEntry } from '../../../lib/requests/failout-view';
import { digestAcl, OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk } from '../../helpers/in-memory-zk';

const NOW = Date.parse('2026-12-01T12:00:00Z');

function props(onlineAt: number, extra: Record<string, unknown> = {}): FailoutProperties {
  return parseFailoutProperties({
    failoutRedirectConfigs: [{ peer: 'a', weight: 2 }],
    failoutBucketConfigs: [{ bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW - 1000, onlineAt, requestId: 'r-1', forced: ['capacity'], ...extra }],
    someFutureKey: { kept: true },
  })!;
}

it('round-trips through its codec, unknown keys and forced marks included', () => {
  const view = new Map([['x', props(NOW + 1000)], ['y', props(NOW + 2000, { drill: 'd' })]]);
  expect(decodeFailoutView(encodeFailoutView(view))).toEqual(view);
});

it('refuses a view that is not its format, naming the problem', () => {
  expect(() => decodeFailoutView('{"version":2}')).toThrow(/version/);
  expect(() => decodeFailoutView('{"version":1,"clusters":{"x":{"failoutBucketConfigs":[{"offlineAt":"soon"}]}}}')).toThrow(/"x" is malformed/);
});

it('keeps only open windows when an entry is set, and drops a cluster whose windows ended', () => {
  const view = new Map([['x', props(NOW - 1)], ['y', props(NOW + 1000)]]);
  expect([...withViewEntry(view, 'z', props(NOW + 5), NOW).keys()]).toEqual(['y', 'z']);
  expect([...withViewEntry(view, 'y', null, NOW).keys()]).toEqual([]);
});

it('sets many entries in one copy exactly as one at a time would, order of keys included', () => {
  const cluster = fc.constantFrom<string>('a', 'b', 'c', 'd', 'e');
  // An entry: ended, open, or none (removes the cluster).
  const entry = fc.constantFrom<FailoutProperties | null>(null, props(NOW - 1), props(NOW + 1000), props(NOW + 2000, { drill: 'd' }));
  fc.assert(
    fc.property(fc.array(fc.tuple(cluster, entry), { maxLength: 8 }), fc.array(fc.tuple(cluster, entry), { maxLength: 8 }), (start, changes) => {
      const view = new Map(start.filter((e): e is [string, FailoutProperties] => e[1] !== null));
      let oneByOne = new Map(view);
      for (const [name, p] of changes) oneByOne = withViewEntry(oneByOne, name, p, NOW);
      const together = withViewEntries(view, changes, NOW);
      expect([...together]).toEqual([...oneByOne]);
    }),
  );
});

it('sits beside the records parent', () => {
  expect(viewPathFor('/failout/requests')).toBe('/failout/view');
  expect(viewPathFor('/t-1/requests/')).toBe('/t-1/view');
});

it('reports drift by kind', () => {
  const truth = new Map([['x', props(NOW + 1000)], ['y', props(NOW + 1000)]]);
  const stored = new Map([['y', props(NOW + 9000)], ['z', props(NOW + 1000)]]);
  expect(viewDrift(stored, truth, NOW)).toEqual([
    { cluster: 'x', kind: 'missing' },
    { cluster: 'y', kind: 'differs' },
    { cluster: 'z', kind: 'stale' },
  ]);
});

it('is rebuilt from the cluster nodes, leaving out ended and unreadable failouts', async () => {
  const zk = new InMemoryZk();
  const s = zk.session();
  const doc = (p: unknown): Buffer => Buffer.from(JSON.stringify({ clusterName: 'c', failoutProperties: p }));
  const open = { failoutRedirectConfigs: [{ peer: 'a' }], failoutBucketConfigs: [{ offlineAt: NOW - 1, onlineAt: NOW + 1000 }] };
  await s.create('/d2/clusters/open', doc(open), { parents: true, acl: OPEN_ACL });
  await s.create('/d2/clusters/ended', doc({ ...open, failoutBucketConfigs: [{ offlineAt: 0, onlineAt: NOW - 1 }] }), { acl: OPEN_ACL });
  await s.create('/d2/clusters/broken', doc({ failoutBucketConfigs: [{ offlineAt: 'x' }] }), { acl: OPEN_ACL });
  await s.create('/d2/clusters/serving', Buffer.from('{"clusterName":"serving"}'), { acl: OPEN_ACL });
  expect([...(await rebuildFailoutView(s, '/d2', NOW)).keys()]).toEqual(['open']);
});

it('is rebuilt without a cluster node the worker may not read (noAuth), as without an unreadable one', async () => {
  // Prepare
  const s = new InMemoryZk().session();
  const doc = (p: unknown): Buffer => Buffer.from(JSON.stringify({ clusterName: 'c', failoutProperties: p }));
  const open = { failoutRedirectConfigs: [{ peer: 'a' }], failoutBucketConfigs: [{ offlineAt: NOW - 1, onlineAt: NOW + 1000 }] };
  await s.create('/d2/clusters/open', doc(open), { parents: true, acl: OPEN_ACL });
  await s.create('/d2/clusters/locked', doc(open), { acl: [digestAcl('someone-else', 'not-the-worker')] });

  // Act
  const view = await rebuildFailoutView(s, '/d2', NOW);

  // Assess
  expect([...view.keys()]).toEqual(['open']);
});
