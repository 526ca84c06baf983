import fc from 'fast-check';
import type { FailoutProperties } from '../../../lib/d2';
import type { AlarmStatesView } from '../../../lib/console/alarms';
import { ClusterCards } from '../../../lib/console/card-cache';
import { HealthBoard } from '../../../lib/console/health-board';
import { healthTexts, nextShown, NO_HISTOGRAM, NO_REQUEST, renderOwnHealth, roundedText, unknownHealth, UNHEALTHY_ERROR_PCT, UNHEALTHY_MIN_RPS, verdictOf, type ShownHealth } from '../../../lib/console/health-view';
import { LiveState } from '../../../lib/console/live-state';
import { renderCard } from '../../../lib/console/page';
import { groupClusters, type ServiceGroup } from '../../../lib/console/snapshot';
import type { ClusterEntry } from '../../../lib/console/zk-view';
import type { TargetHealth } from '../../../lib/metrics';
import { describeFailout } from '../../../lib/operator/cluster-status';

// Issue 24, health per target: what a card and a chart legend show of a target cluster's requests/s,
// failed share and p99: the threshold that marks it unhealthy, the rounding, the tolerance that keeps
// steady traffic from changing what is shown (so no card is sent again for it), the reasons of the
// numbers that could not be measured, and the cards decorated with it.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;
const OFF: AlarmStatesView = { kind: 'off' };
const SERVICES = [{ name: 'greetings', cluster: 'greetings-lor1' }];

const health = (rps: number, errorPct: number | undefined, p99Ms: number | undefined): TargetHealth => ({ rps, errorPct, p99Ms });

describe('the shown health of a target', () => {
  it.each([
    [0, '0'],
    [0.04, '0.0'],
    [4.25, '4.3'],
    [9.96, '10.0'],
    [48.4, '48'],
    [1234, '1200'],
  ])('rounds %d as %s', (value, text) => expect(roundedText(value)).toBe(text));

  it.each([
    [health(100, UNHEALTHY_ERROR_PCT, 4), 'unhealthy'],
    [health(UNHEALTHY_MIN_RPS, 100, 4), 'unhealthy'],
    [health(100, 4.9, 4), 'ok'],
    [health(UNHEALTHY_MIN_RPS - 0.1, 100, 4), 'ok'],
    [health(0, undefined, undefined), 'idle'],
  ])('judges %j %s (at least 5 % failed, at least 1 request/s)', (measured, verdict) => expect(verdictOf(measured)).toBe(verdict));

  it('keeps the same object while steady traffic moves within the tolerance', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ rps: fc.double({ min: 47.6, max: 52.4, noNaN: true }), p99: fc.double({ min: 3.7, max: 4.3, noNaN: true }) }), { minLength: 1, maxLength: 30 }), (steps) => {
        const first = nextShown(undefined, health(50, 0, 4));
        return steps.every((s) => nextShown(first, health(s.rps, 0, s.p99)) === first);
      }),
    );
  });

  it('changes what it shows when a value moves past the tolerance, errors appear, or the verdict flips', () => {
    // Prepare
    const steady = nextShown(undefined, health(50, 0, 4));

    // Act
    const faster = nextShown(steady, health(60, 0, 4));
    const someErrors = nextShown(steady, health(50, 0.2, 4));
    const failing = nextShown(steady, health(50, 50, 4));

    // Assess
    expect(healthTexts(faster)).toMatchObject({ verdict: 'ok', rps: '60 req/s' });
    expect(healthTexts(someErrors)).toMatchObject({ verdict: 'ok', errors: '0.2 % errors' });
    expect(healthTexts(failing)).toEqual({ verdict: 'unhealthy', rps: '50 req/s', errors: '50 % errors', p99: 'p99 4.0 ms', reasons: [] });
    // Fresh numbers on a verdict change: the rate object is new even though 50 is 50.
    expect(failing.rps).not.toBe(steady.rps);
  });

  it('shows an unknown number as — with its reason, the others still', () => {
    // Act
    const noHistogram = healthTexts(nextShown(undefined, health(20, 0, undefined)));
    const idle = healthTexts(nextShown(undefined, health(0, undefined, undefined)));
    const down = healthTexts(unknownHealth('metrics not answering: timed out'));

    // Assess
    expect(noHistogram).toEqual({ verdict: 'ok', rps: '20 req/s', errors: '0 % errors', p99: 'p99 —', reasons: [NO_HISTOGRAM] });
    expect(idle).toEqual({ verdict: 'idle', rps: '0 req/s', errors: '— errors', p99: 'p99 —', reasons: [NO_REQUEST] });
    expect(down).toEqual({ verdict: 'unknown', rps: '— req/s', errors: '— errors', p99: 'p99 —', reasons: ['metrics not answering: timed out'] });
  });

  it('renders the word unhealthy, the reasons as text, and hostile text escaped', () => {
    // Prepare
    const hostile = '<img src=x onerror=alert(1)>';
    const failing = nextShown(undefined, health(12, 100, 3));

    // Act
    const own = renderOwnHealth(hostile, failing).text;
    const unknown = renderOwnHealth('greetings', unknownHealth(`metrics not answering: ${hostile}`)).text;

    // Assess
    expect(own).toContain('<strong class="unhealthy">unhealthy</strong>');
    expect(own).toContain('data-health="unhealthy"');
    expect(own).not.toContain('<img');
    expect(own).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(unknown).toContain('title="metrics not answering: &lt;img src=x onerror=alert(1)&gt;"');
    expect(unknown).toContain('<span class="vh"> (unknown: metrics not answering: &lt;img');
    expect(unknown).not.toContain('<img');
  });
});

function failout(peer: string): FailoutProperties {
  return { redirects: [{ peer, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: NOW - MIN, onlineAt: NOW + 60 * MIN, requestedBy: 'oncall', reason: 'INC-1', requestId: 'r-1' }] };
}

/** The cards of the home cluster failed out onto lva1, and ltx1, grouped; decorated by `board`. */
function world(board: HealthBoard) {
  const entries: ClusterEntry[] = [
    { name: 'greetings-lor1', failout: failout('greetings-lva1'), hosts: 1, problem: undefined },
    { name: 'greetings-lva1', failout: null, hosts: 1, problem: undefined },
    { name: 'greetings-ltx1', failout: null, hosts: 1, problem: undefined },
  ];
  const cards = new ClusterCards((cluster, properties, now) => describeFailout(cluster, properties, now));
  const live = new LiveState();
  const groups = (): ServiceGroup[] => board.decorate(groupClusters(SERVICES, cards.cards(entries, NOW)));
  const update = () => live.update({ now: NOW, alarms: OFF, groups: groups() });
  const card = (name: string) => groups()[0]!.clusters.find((c) => c.name === name)!;
  return { update, card };
}

const scrape = (targets: Record<string, TargetHealth>, healthProblem?: string) => ({ service: 'greetings', health: new Map(Object.entries(targets)), healthProblem });

describe('the health board', () => {
  it('sends a card again only when a health it shows changed', () => {
    // Prepare: lva1 takes the moved traffic
    const board = new HealthBoard(['greetings']);
    const w = world(board);
    expect(board.update(scrape({ 'greetings-lva1': health(50, 0, 4) }))).toBe(true);
    w.update();

    // Act: steady traffic, then lva1 answering 500s
    const steadyChanged = board.update(scrape({ 'greetings-lva1': health(51, 0, 4.1) }));
    const steadyPatch = w.update();
    const failingChanged = board.update(scrape({ 'greetings-lva1': health(50, 40, 4) }));
    const failingPatch = w.update();

    // Assess: the lva1 card and the failed-out lor1 card (lva1 is its peer), not ltx1
    expect(steadyChanged).toBe(false);
    expect(steadyPatch).toBeUndefined();
    expect(failingChanged).toBe(true);
    expect(failingPatch?.cards?.['greetings']?.upsert?.map((u) => u.id).sort()).toEqual(['greetings-lor1', 'greetings-lva1']);
    expect(w.card('greetings-lor1').health?.peers).toEqual([{ cluster: 'greetings-lva1', health: expect.objectContaining({ verdict: 'unhealthy' }) as ShownHealth }]);
    const html = renderCard(w.card('greetings-lor1'), true, NOW, OFF).text;
    expect(html).toMatch(/<li data-peer="greetings-lva1" data-health="unhealthy">greetings-lva1: .*40 % errors.*unhealthy/);
  });

  it('shows every number of a service whose metrics fail as — with the reason, and a service without metrics as unconfigured', () => {
    // Prepare
    const board = new HealthBoard(['greetings']);
    board.update(scrape({ 'greetings-lva1': health(50, 0, 4) }));

    // Act
    const changed = board.update(scrape({}, 'metrics not answering: http://127.0.0.1:1/metrics: timed out'));
    const again = board.update(scrape({}, 'metrics not answering: http://127.0.0.1:1/metrics: timed out'));

    // Assess
    expect(changed).toBe(true);
    expect(again).toBe(false);
    expect(healthTexts(board.of('greetings', 'greetings-lva1'))).toMatchObject({ verdict: 'unknown', rps: '— req/s', reasons: ['metrics not answering: http://127.0.0.1:1/metrics: timed out'] });
    expect(healthTexts(board.of('hello', 'hello-lor1')).reasons).toEqual(['no metrics endpoint configured for service hello']);
    expect(board.legend('greetings', ['greetings-lor1'])).toEqual({ 'greetings-lor1': expect.objectContaining({ verdict: 'unknown' }) as object });
  });

  it('leaves the cards as they are when no service has metrics', () => {
    // Prepare
    const board = new HealthBoard([]);
    const w = world(board);

    // Act
    const card = w.card('greetings-lva1');

    // Assess
    expect(card.health).toBeUndefined();
    expect(renderCard(card, false, NOW, OFF).text).not.toContain('class="health"');
  });
});
