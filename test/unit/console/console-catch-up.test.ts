import type { FailoutProperties } from '../../../lib/d2';
import { ClusterCards } from '../../../lib/console/card-cache';
import { LiveState } from '../../../lib/console/live-state';
import { MAX_KEYS, MAX_UPDATES } from '../../../lib/console/patch-log';
import { groupClusters } from '../../../lib/console/snapshot';
import type { ClusterEntry } from '../../../lib/console/zk-view';
import { describeFailout } from '../../../lib/operator/cluster-status';

// A page that stopped reading catches up with one patch (issue 24, item 1): each piece touched since
// the version it has, as it is now (the latest of several patches to one card), and the whole state
// only past the patch log's bounds or for a version the log cannot place.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const HOUR = 3_600_000;

function failout(reason: string): FailoutProperties {
  return { redirects: [{ peer: 'c0', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: NOW - HOUR, onlineAt: NOW + HOUR, requestedBy: 'oncall', reason, requestId: `r-${reason}` }] };
}

/** `count` clusters of one service; `set` changes one, `update` renders them into the live state. */
function world(count: number) {
  const entries: ClusterEntry[] = Array.from({ length: count }, (_, i) => ({ name: `c${i}`, failout: null, hosts: 1, problem: undefined }));
  const cards = new ClusterCards((cluster, properties, now) => describeFailout(cluster, properties, now));
  const live = new LiveState();
  const update = () => live.update({ now: NOW, alarms: { kind: 'off' }, groups: groupClusters([{ name: 'svc', cluster: 'c0' }], cards.cards(entries, NOW)), sections: { status: `${entries.filter((e) => e.failout !== null).length} failed out` } });
  const set = (i: number, reason: string): void => {
    entries[i] = { ...entries[i]!, failout: failout(reason) };
  };
  return { live, update, set, entries };
}

describe('catching up a page that stopped reading', () => {
  it('gives each card touched since its version once, as it is now, and the sections that changed', () => {
    // Prepare
    const w = world(5);
    w.update();
    const version = w.live.version;

    // Act: c1 changes twice, c3 once
    w.set(1, 'INC-first');
    w.update();
    w.set(3, 'INC-other');
    w.update();
    w.set(1, 'INC-second');
    w.update();
    const patch = w.live.patchSince(version);

    // Assess
    const upserts = Object.values(patch?.cards ?? {}).flatMap((list) => list.upsert ?? []);
    expect(upserts.map((u) => u.id)).toEqual(['c1', 'c3']);
    expect(upserts[0]!.html).toContain('INC-second');
    expect(upserts[0]!.html).not.toContain('INC-first');
    expect(patch?.sections).toEqual({ status: '2 failed out' });
    expect(patch?.groups).toBeUndefined();
  });

  it('gives a page that has the current version an empty patch', () => {
    // Prepare
    const w = world(2);
    w.update();

    // Act
    const patch = w.live.patchSince(w.live.version);

    // Assess
    expect(patch).toEqual({});
  });

  it.each([
    ['more patches than the log keeps', (w: ReturnType<typeof world>) => Array.from({ length: MAX_UPDATES + 1 }, (_, i) => (w.set(i % 3, `INC-${i}`), w.update()))],
    ['more pieces touched than a patch is worth', (w: ReturnType<typeof world>) => (w.entries.forEach((_, i) => w.set(i, `INC-${i}`)), w.update())],
  ])('leaves the page to the whole state after %s', (_name, act) => {
    // Prepare
    const w = world(MAX_KEYS + 1);
    w.update();
    const version = w.live.version;

    // Act
    act(w);

    // Assess
    expect(w.live.patchSince(version)).toBeUndefined();
  });

  it("leaves a version of another server, or one it never had, to the whole state", () => {
    // Prepare
    const w = world(2);
    w.update();
    const other = world(2);
    other.update();

    // Act / Assess
    expect(w.live.patchSince(other.live.version)).toBeUndefined();
    expect(w.live.patchSince(`${w.live.version}0`)).toBeUndefined();
  });
});
