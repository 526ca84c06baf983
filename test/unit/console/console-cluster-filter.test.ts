import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';
import type { FailoutBucketConfig, FailoutProperties } from '../../../lib/d2';
import type { AlarmStatesView } from '../../../lib/console/alarms';
import {
  CardFabrics,
  cardStates,
  CLUSTER_STATES,
  clusterFilterQuery,
  clusterHref,
  matchesCard,
  parseClusterFilter,
  type CardFacts,
  type ClusterFilter,
} from '../../../lib/console/cluster-filter';
import { windowSafety, type ClusterCard } from '../../../lib/console/snapshot';
import { describeFailout } from '../../../lib/operator/cluster-status';

// Finding clusters (issue 24, item 2): which states a card has, the matching rule (substrings of
// service and cluster, case-insensitive; a state; a fabric), the filter in the URL, each card's fabric,
// and the browser's matcher (public/find.js) held to this rule with random cards and filters.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;

/** The pure part of public/find.js, as the browser runs it (loaded as CommonJS: no DOM). */
interface FindScript {
  matches(card: CardFacts, filter: ClusterFilter): boolean;
  parseFilter(search: string): ClusterFilter;
  filterQuery(filter: ClusterFilter): string;
}
function loadFindScript(): FindScript {
  const module = { exports: {} as Partial<FindScript> };
  runInNewContext(readFileSync(join(__dirname, '../../../lib/console/public/find.js'), 'utf8'), { module, URLSearchParams });
  return module.exports as FindScript;
}

const facts = (cluster: string, overrides: Partial<CardFacts> = {}): CardFacts => ({ service: 'greetings', cluster, states: [], fabric: '', ...overrides });

function card(buckets: FailoutBucketConfig[] | null, name = 'greetings-lor1'): ClusterCard {
  const props: FailoutProperties | null = buckets === null ? null : { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets };
  return { name, hosts: 3, status: describeFailout(name, props, NOW), safety: windowSafety(props), problem: undefined };
}

const alarmsRead = (states: Record<string, 'OK' | 'ALARM'>): AlarmStatesView => ({ kind: 'read', source: 'test', states: new Map(Object.entries(states)), at: NOW });

describe('matching a card', () => {
  it.each<[string, ClusterFilter, CardFacts, boolean]>([
    ['a part of the cluster name finds it', { cluster: 'lor1' }, facts('greetings-lor1'), true],
    ['the cluster part is case-insensitive', { cluster: 'LOR1' }, facts('greetings-lor1'), true],
    ['another cluster does not match', { cluster: 'lor1' }, facts('greetings-lva1'), false],
    ['a part of the service finds its cards', { service: 'greet' }, facts('greetings-lva1'), true],
    ['a card with no service matches no service text', { service: 'greet' }, facts('x', { service: '' }), false],
    ['a state the card has', { state: 'failed-out' }, facts('a', { states: ['failed-out', 'alarm'] }), true],
    ['a state the card has not', { state: 'drill' }, facts('a', { states: ['failed-out'] }), false],
    ['the fabric, whole', { fabric: 'lor1' }, facts('a', { fabric: 'lor1' }), true],
    ['not a part of the fabric', { fabric: 'lor' }, facts('a', { fabric: 'lor1' }), false],
    ['blank texts do not filter', { cluster: '  ', service: '' }, facts('a'), true],
    ['every field given must hold', { cluster: 'lor1', state: 'failed-out' }, facts('greetings-lor1'), false],
  ])('%s', (_name, filter, facts, expected) => {
    // Act + Assess
    expect(matchesCard(facts, filter)).toBe(expected);
  });

  const factsArb = fc.record({
    service: fc.string({ maxLength: 12 }),
    cluster: fc.string({ maxLength: 16 }),
    states: fc.subarray([...CLUSTER_STATES]),
    fabric: fc.constantFrom('', 'lor1', 'LVA1', 'ltx1'),
  });
  const filterArb = fc.record(
    { service: fc.string({ maxLength: 4 }), cluster: fc.string({ maxLength: 4 }), state: fc.constantFrom(...CLUSTER_STATES), fabric: fc.constantFrom('', 'lor1', 'lva1', ' LOR1 ') },
    { requiredKeys: [] },
  );

  it('matches every card with no filter, and any part of its own name', () => {
    fc.assert(
      fc.property(factsArb, fc.nat(), fc.nat(), (c, a, b) => {
        const [from, to] = [Math.min(a, b) % (c.cluster.length + 1), Math.max(a, b) % (c.cluster.length + 1)];
        return matchesCard(c, {}) && matchesCard(c, { cluster: c.cluster.slice(from, to) }) && matchesCard(c, { cluster: c.cluster.toUpperCase() }) === matchesCard(c, { cluster: c.cluster.toLowerCase() });
      }),
    );
  });

  it('matches a filter exactly when it matches each of the filter\'s fields alone', () => {
    fc.assert(
      fc.property(factsArb, filterArb, (c, filter) => {
        const each = Object.entries(filter).every(([key, value]) => matchesCard(c, { [key]: value }));
        return matchesCard(c, filter) === each;
      }),
    );
  });

  it('is what the browser\'s matcher (public/find.js) decides, for any card and filter', () => {
    // Prepare
    const find = loadFindScript();

    // Act + Assess
    fc.assert(fc.property(factsArb, filterArb, (c, filter) => find.matches(c, filter) === matchesCard(c, filter)));
  });
});

describe('the filter in the URL', () => {
  it('reads the four fields, trimmed, and ignores an unknown state and unknown parameters', () => {
    // Act
    const filter = parseClusterFilter(new URLSearchParams('cluster=%20lor1%20&state=burning&service=greetings&fabric=lva1&page=2'));

    // Assess
    expect(filter).toEqual({ cluster: 'lor1', service: 'greetings', fabric: 'lva1' });
  });

  it('gives back the filter it was written from, as the browser writes and reads it', () => {
    // Prepare
    const find = loadFindScript();
    const text = fc.string({ maxLength: 10 }).filter((s) => s.trim() === s && s !== '');
    const filterArb = fc.record({ service: text, cluster: text, state: fc.constantFrom(...CLUSTER_STATES), fabric: text }, { requiredKeys: [] });

    // Act + Assess
    fc.assert(
      fc.property(filterArb, (filter) => {
        const query = clusterFilterQuery(filter);
        expect(find.filterQuery(filter)).toBe(query);
        expect(parseClusterFilter(new URLSearchParams(query))).toEqual(filter);
        expect({ ...find.parseFilter(query) }).toEqual(filter);
      }),
    );
  });

  it('links a cluster\'s page with its name percent-encoded', () => {
    expect(clusterHref('greetings-lor1')).toBe('/clusters/greetings-lor1');
    expect(clusterHref('a b/c?')).toBe('/clusters/a%20b%2Fc%3F');
  });
});

describe('the states of a card', () => {
  it.each<[string, FailoutBucketConfig[] | null, AlarmStatesView, string[]]>([
    ['a serving cluster has none', null, { kind: 'off' }, []],
    ['an active window is failed out', [{ offlineAt: NOW - MIN, onlineAt: NOW + 30 * MIN }], { kind: 'off' }, ['failed-out']],
    ['a ramp with steps to come is ramping', [{ offlineAt: NOW - MIN, onlineAt: NOW + 30 * MIN, bucketOfflineRange: { from: 0, to: 19 } }, { offlineAt: NOW + 5 * MIN, onlineAt: NOW + 30 * MIN, bucketOfflineRange: { from: 20, to: 99 } }], { kind: 'off' }, ['failed-out', 'ramping']],
    ['a drill window still to start is a drill', [{ offlineAt: NOW + 10 * MIN, onlineAt: NOW + 20 * MIN, drill: 'weekly' }], { kind: 'off' }, ['drill']],
    ['an ended drill window is not', [{ offlineAt: NOW - 20 * MIN, onlineAt: NOW - 10 * MIN, drill: 'weekly' }], { kind: 'off' }, []],
    ['a stop alarm in ALARM is an alarm', [{ offlineAt: NOW - MIN, onlineAt: NOW + 30 * MIN, stopAlarms: ['errors'] }], alarmsRead({ errors: 'ALARM' }), ['failed-out', 'alarm']],
    ['a stop alarm in OK is not', [{ offlineAt: NOW - MIN, onlineAt: NOW + 30 * MIN, stopAlarms: ['errors'] }], alarmsRead({ errors: 'OK' }), ['failed-out']],
  ])('%s', (_name, buckets, alarms, expected) => {
    // Act + Assess
    expect(cardStates(card(buckets), alarms, NOW)).toEqual(expected);
  });
});

describe('each card\'s fabric', () => {
  it('places a card by the rule, leaves an unplaced one without, and keeps a card unchanged the same object', () => {
    // Prepare
    const fabrics = new CardFabrics();
    const cards = [card(null, 'greetings-lor1'), card(null, 'standalone')];

    // Act
    const first = fabrics.decorate(cards, ['greetings'], []);
    const again = fabrics.decorate(cards, ['greetings'], []);
    const mapped = fabrics.decorate(cards, ['greetings'], [{ fabric: 'lva1', map: { fabric: 'lva1', clusters: [{ cluster: 'standalone', service: 'greetings' }] } }]);

    // Assess
    expect(first.map((c) => c.fabric)).toEqual(['lor1', undefined]);
    expect(again[0]).toBe(first[0]);
    expect(again[1]).toBe(first[1]);
    expect(mapped.map((c) => c.fabric)).toEqual(['lor1', 'lva1']);
    expect(mapped[0]).toBe(first[0]);
  });
});
