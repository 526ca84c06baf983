import type { FailoutProperties } from '../../../lib/d2';
import type { AlarmStatesView } from '../../../lib/console/alarms';
import { failoutBoundary, evacuationBoundary, boundaryDelay } from '../../../lib/console/boundaries';
import { ClusterCards } from '../../../lib/console/card-cache';
import { LiveState, type LiveParts } from '../../../lib/console/live-state';
import { renderClusters } from '../../../lib/console/page';
import { groupClusters, type ConsoleSnapshot, type ServiceGroup } from '../../../lib/console/snapshot';
import type { ClusterEntry } from '../../../lib/console/zk-view';
import { describeFailout } from '../../../lib/operator/cluster-status';
import type { EvacuationNode, RequestRecord } from '../../../lib/requests';

// The console's live state (issue 24): per-card patches, cards made again only when their inputs
// change or a window boundary passes, the whole state for a browser that (re)connects, and the one
// timer for the next boundary.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;
const SERVICES = [{ name: 'greetings', cluster: 'greetings-lor1' }];
const OFF: AlarmStatesView = { kind: 'off' };

function failout(reason: string, offlineAt = NOW - MIN, onlineAt = NOW + 60 * MIN, stopAlarms: string[] = []): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestedBy: 'oncall', reason, requestId: `r-${reason}`, stopAlarms }] };
}

function entry(name: string, failoutProperties: FailoutProperties | null = null, hosts = 1): ClusterEntry {
  return { name, failout: failoutProperties, hosts, problem: undefined };
}

/** The world of one test: ZooKeeper's entries, the card cache and the live state, updated together. */
function world(entries: ClusterEntry[]) {
  const described: string[] = [];
  const cards = new ClusterCards((cluster, properties, now) => {
    described.push(cluster);
    return describeFailout(cluster, properties, now);
  });
  const live = new LiveState();
  const groups = (now: number): ServiceGroup[] => groupClusters(SERVICES, cards.cards(entries, now));
  const update = (extra: Partial<LiveParts> = {}, now = NOW) => live.update({ now, alarms: OFF, groups: groups(now), ...extra });
  return { entries, cards, live, described, update, groups };
}

describe('the live state', () => {
  it('sends nothing when nothing changed', () => {
    // Prepare
    const w = world([entry('greetings-lor1', failout('INC-1')), entry('greetings-lva1')]);
    w.update();
    const version = w.live.version;

    // Act
    const patch = w.update();

    // Assess
    expect(patch).toBeUndefined();
    expect(w.live.version).toBe(version);
  });

  it('sends only the card whose cluster changed, and describes only that cluster again', () => {
    // Prepare
    const w = world([entry('greetings-lor1'), entry('greetings-lva1'), entry('greetings-ltx1')]);
    w.update();
    w.described.length = 0;
    const version = w.live.version;

    // Act: a failout of lva1
    w.entries[1] = entry('greetings-lva1', failout('<b>INC-2</b>'));
    const patch = w.update();

    // Assess
    expect(Object.keys(patch ?? {})).toEqual(['cards']);
    expect(patch?.cards?.greetings?.upsert?.map((c) => c.id)).toEqual(['greetings-lva1']);
    expect(patch?.cards?.greetings?.upsert?.[0]?.html).toContain('&lt;b&gt;INC-2&lt;/b&gt;');
    expect(patch?.cards?.greetings?.remove).toBeUndefined();
    expect(w.described).toEqual(['greetings-lva1']);
    expect(w.live.version).not.toBe(version);
  });

  it('sends a removed cluster by its name, and a new one with the card it follows (no order)', () => {
    // Prepare
    const w = world([entry('greetings-lor1'), entry('greetings-lva1'), entry('greetings-ltx1')]);
    w.update();

    // Act
    w.entries.splice(1, 1);
    const removed = w.update();
    w.entries.push(entry('greetings-aaa1'));
    const added = w.update();

    // Assess: the home cluster first, then by name
    expect(removed).toEqual({ cards: { greetings: { remove: ['greetings-lva1'] } } });
    expect(added?.cards?.greetings?.upsert?.map((c) => [c.id, c.after])).toEqual([['greetings-aaa1', 'greetings-lor1']]);
    expect(added?.cards?.greetings?.order).toBeUndefined();
  });

  it('sends a new group with its shell and all its cards, and the history rows by request id', () => {
    // Prepare
    const w = world([entry('greetings-lor1')]);
    w.update({ records: [] });
    const record = { requestId: '0194f3b2-0000-7000-8000-000000000001', status: 'applied', appliedAt: NOW, cluster: 'other-x1', action: 'failout' } as unknown as RequestRecord;

    // Act
    w.entries.push(entry('other-x1'));
    const patch = w.update({ records: [record] });

    // Assess: "other clusters" have the key '' ; the "no records" row goes, the record's row comes
    expect(patch?.groups?.upsert?.map((g) => g.id)).toEqual(['']);
    expect(patch?.groups?.upsert?.[0]?.html).toBe('<section class="group" data-service="" data-key=""><h2>Other clusters</h2><div class="cards"></div></section>');
    expect(patch?.cards?.['']?.upsert?.map((c) => c.id)).toEqual(['other-x1']);
    expect(patch?.rows?.remove).toEqual(['']);
    expect(patch?.rows?.upsert?.map((r) => r.id)).toEqual([record.requestId]);
  });

  it('keys a card by its name percent-encoded, as its data-key says, whatever characters the name has', () => {
    // Prepare: a dot, a quote and a right-to-left override (ZooKeeper allows all three)
    const name = 'greetings-x.1"\u202e';
    const w = world([entry('greetings-lor1')]);
    w.update();

    // Act
    w.entries.push(entry(name));
    const card = w.update()?.cards?.greetings?.upsert?.[0];

    // Assess: the key is exact (encoded), the shown name escaped
    expect(card?.id).toBe('greetings-x.1%22%E2%80%AE');
    expect(card?.html).toContain(`data-cluster="greetings-x.1&quot;\\u202e" data-key="${card?.id}"`);
  });

  it("renders the clusters section of the page (before scripts run) as the live state's whole state", () => {
    // Prepare
    const w = world([entry('greetings-lor1', failout('INC-1')), entry('greetings-lva1'), entry('other-x1')]);
    w.update({ sections: { 'clusters-note': '' } });
    const groups = w.groups(NOW);

    // Act
    const page = renderClusters({ now: NOW, zk: { connect: 'zk', state: 'connected', error: undefined, since: NOW }, groups, alarms: OFF } as unknown as ConsoleSnapshot).text;

    // Assess
    expect(page).toBe(w.live.full().clusters);
  });

  it('sends a small section only when it changed', () => {
    // Prepare
    const w = world([]);
    w.update({ sections: { status: '<p>connected</p>', planes: '<p>none</p>' } });

    // Act
    const same = w.update({ sections: { status: '<p>connected</p>', planes: '<p>none</p>' } });
    const changed = w.update({ sections: { status: '<p>lost</p>', planes: '<p>none</p>' } });

    // Assess
    expect(same).toBeUndefined();
    expect(changed).toEqual({ sections: { status: '<p>lost</p>' } });
  });

  it("renders a card again for a change of the states of its own alarms, not of others'", () => {
    // Prepare
    const w = world([entry('greetings-lor1', failout('INC-1', NOW - MIN, NOW + 60 * MIN, ['lor1-5xx'])), entry('greetings-lva1', failout('INC-2', NOW - MIN, NOW + 60 * MIN, ['lva1-5xx']))]);
    const read = (states: Record<string, 'OK' | 'ALARM'>): AlarmStatesView => ({ kind: 'read', source: 'test', states: new Map(Object.entries(states)), at: NOW });
    w.update({ alarms: read({ 'lor1-5xx': 'OK', 'lva1-5xx': 'OK' }) });

    // Act
    const samePoll = w.update({ alarms: read({ 'lor1-5xx': 'OK', 'lva1-5xx': 'OK' }) });
    const firing = w.update({ alarms: read({ 'lor1-5xx': 'OK', 'lva1-5xx': 'ALARM' }) });

    // Assess
    expect(samePoll).toBeUndefined();
    expect(firing?.cards?.greetings?.upsert?.map((c) => c.id)).toEqual(['greetings-lva1']);
  });

  it('gives the whole state every patch so far led to', () => {
    // Prepare
    const w = world([entry('greetings-lor1'), entry('greetings-lva1')]);
    w.update({ records: [], sections: { status: '<p>s</p>', planes: '<p>p</p>', fabrics: '<p>f</p>', 'clusters-note': '' } });
    w.entries[0] = entry('greetings-lor1', failout('INC-3'));
    w.update();

    // Act
    const full = w.live.full();

    // Assess
    expect(Object.keys(full).sort()).toEqual(['clusters', 'drills', 'fabrics', 'history-rows', 'planes', 'status']);
    // No drills section was given: empty (the server renders it, drill-page.ts).
    expect(full.drills).toBe('');
    expect(full.clusters).toMatch(/^<div id="clusters-note"><\/div><section class="group" data-service="greetings" data-key="greetings"><h2>Service greetings <small>\(home cluster greetings-lor1\)<\/small><\/h2><div class="cards"><article class="card state-failed-out" data-cluster="greetings-lor1" data-key="greetings-lor1"[\s\S]*<article class="card state-serving" data-cluster="greetings-lva1" data-key="greetings-lva1"[\s\S]*<\/article><\/div><\/section>$/);
    expect(full['history-rows']).toContain('No request records yet.');
    expect(full.status).toBe('<p>s</p>');
  });
});

describe('window boundaries', () => {
  it('makes a card again once its window has ended, and not before', () => {
    // Prepare: lor1's window ends in 10 minutes
    const w = world([entry('greetings-lor1', failout('INC-1', NOW - MIN, NOW + 10 * MIN)), entry('greetings-lva1')]);
    w.update();
    w.described.length = 0;

    // Act
    const before = w.update({}, NOW + 10 * MIN - 1);
    const at = w.update({}, NOW + 10 * MIN);

    // Assess
    expect(before).toBeUndefined();
    expect(w.described).toEqual(['greetings-lor1']);
    expect(at?.cards?.greetings?.upsert?.map((c) => c.id)).toEqual(['greetings-lor1']);
    expect(at?.cards?.greetings?.upsert?.[0]?.html).toContain('data-state="ended"');
  });

  it('picks the next start or end of any card for the one timer', () => {
    // Prepare: lor1 ends in 60 minutes, lva1 starts in 5 and ends in 30
    const w = world([entry('greetings-lor1', failout('INC-1', NOW - MIN, NOW + 60 * MIN)), entry('greetings-lva1', failout('INC-2', NOW + 5 * MIN, NOW + 30 * MIN)), entry('greetings-ltx1')]);

    // Act
    w.update();
    const first = w.cards.nextBoundary();
    w.update({}, NOW + 5 * MIN);
    const second = w.cards.nextBoundary();

    // Assess
    expect(first).toBe(NOW + 5 * MIN);
    expect(second).toBe(NOW + 30 * MIN);
  });

  it.each([
    ['no failout', null, Infinity],
    ['a window that has not started', failout('a', NOW + 2 * MIN, NOW + 9 * MIN), NOW + 2 * MIN],
    ['an active window', failout('a', NOW - MIN, NOW + 9 * MIN), NOW + 9 * MIN],
    ['an ended window', failout('a', NOW - 9 * MIN, NOW - MIN), Infinity],
    ['a window without an end', { ...failout('a'), buckets: [{ offlineAt: NOW - MIN }] }, Infinity],
  ])('of a failout with %s', (_case, properties: FailoutProperties | null, expected: number) => {
    expect(failoutBoundary(properties, NOW)).toBe(expected);
  });

  it("takes an evacuation's next stage start, fully-out time or return", () => {
    // Prepare
    const node = { plan: { offlineAt: NOW - 10 * MIN, onlineAt: NOW + 60 * MIN, stages: [{ offlineAt: NOW - 10 * MIN, fullyOutAt: NOW - 5 * MIN, onlineAt: NOW + 60 * MIN }, { offlineAt: NOW + 3 * MIN, fullyOutAt: NOW + 8 * MIN, onlineAt: NOW + 50 * MIN }] } } as unknown as EvacuationNode;

    // Act / Assess
    expect(evacuationBoundary(node, NOW)).toBe(NOW + 3 * MIN);
    expect(evacuationBoundary(node, NOW + 3 * MIN)).toBe(NOW + 8 * MIN);
    expect(evacuationBoundary(node, NOW + 60 * MIN)).toBe(Infinity);
  });

  it('takes, of an evacuation a restore ended, when each stage still out comes home (a restore gap apart)', () => {
    // Prepare: restored 10 s ago; stage 2 was back at once, stage 1 comes home a gap (10 min) after the restore
    const stages = [
      { index: 0, offlineAt: NOW - 10 * MIN, fullyOutAt: NOW - 5 * MIN, onlineAt: NOW + 60 * MIN },
      { index: 1, offlineAt: NOW - 3 * MIN, fullyOutAt: NOW - 2 * MIN, onlineAt: NOW + 50 * MIN },
    ];
    const node = { status: 'restored', endedAt: NOW - 10_000, plan: { offlineAt: NOW - 10 * MIN, onlineAt: NOW + 60 * MIN, stages } } as unknown as EvacuationNode;

    // Act / Assess
    expect(evacuationBoundary(node, NOW)).toBe(NOW - 10_000 + 10 * MIN);
  });

  it('waits just past the boundary, at least 1 ms and at most what a timer holds', () => {
    expect([boundaryDelay(NOW + 5000, NOW), boundaryDelay(NOW - 5, NOW), boundaryDelay(NOW + 100 * 86_400_000, NOW)]).toEqual([5001, 1, 2 ** 31 - 1]);
  });
});
