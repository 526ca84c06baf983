import fc from 'fast-check';
import type { FailoutProperties } from '../../../lib/d2';
import { deriveTrail, OutcomeTrails, renderTrail, TRAIL_MS, type TrailedCard } from '../../../lib/console/outcome-trail';
import { describeFailout } from '../../../lib/operator/cluster-status';
import { newRequestId, type RequestRecord } from '../../../lib/requests';
import { GUARD_REQUESTER } from '../../../lib/safety';

// The outcome trail (issue 24, item 4): a failout ended by a stop alarm or the guard (from the
// request records), by its window's expiry (from the cluster's document) or replaced by another
// failout (as the console saw it) keeps one line on its card for an hour; nothing else does.

const NOW = Date.parse('2026-12-01T23:10:00Z');
const MIN = 60_000;
const CLUSTER = 'greetings-lor1';

function restore(appliedAt: number, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return { requestId: newRequestId(appliedAt), status: 'applied', cluster: CLUSTER, action: 'restore', appliedAt, clusterVersion: 3, requestedBy: GUARD_REQUESTER, stoppedByAlarm: 'greetings-lva1-errors', ...overrides };
}

function failoutRecord(requestId: string, appliedAt: number, action: 'failout' | 'extend' = 'failout'): RequestRecord {
  return { requestId, status: 'applied', cluster: CLUSTER, action, appliedAt, clusterVersion: 2, requestedBy: 'oncall@example.com' };
}

function props(requestId: string, offlineAt: number, onlineAt: number): FailoutProperties {
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestId, requestedBy: 'oncall@example.com' }] };
}

const serving = describeFailout(CLUSTER, null, NOW);
const card = (failout: FailoutProperties | null, now = NOW): TrailedCard => ({ name: CLUSTER, status: describeFailout(CLUSTER, failout, now) });

describe('the trail of a failout ended by a stop alarm or the guard', () => {
  it('says which alarm stopped it, when, and who restored it (the guard\'s restore record)', () => {
    // Prepare
    const record = restore(Date.parse('2026-12-01T23:03:48Z'));

    // Act
    const trail = deriveTrail({ status: serving, records: [record], replaced: undefined, now: NOW });

    // Assess
    expect(trail).toEqual({ id: record.requestId, kind: 'alarm', at: record.appliedAt, text: 'stopped by alarm greetings-lva1-errors at 23:03:48 UTC, restored by failout-guard' });
  });

  it('says the guard restored it when its record names no alarm', () => {
    // Act
    const trail = deriveTrail({ status: serving, records: [restore(NOW - MIN, { stoppedByAlarm: undefined })], replaced: undefined, now: NOW });

    // Assess
    expect(trail?.kind).toBe('guard');
    expect(trail?.text).toBe('restored by failout-guard at 23:09:00 UTC');
  });

  it.each<[string, RequestRecord[], FailoutProperties | null]>([
    ['an hour after the restore', [restore(NOW - TRAIL_MS)], null],
    ['for an operator\'s restore', [restore(NOW - MIN, { requestedBy: 'oncall@example.com', stoppedByAlarm: undefined })], null],
    ['once a new failout runs', [failoutRecord('0194f3b2-0000-7000-8000-000000000002', NOW - MIN), restore(NOW - 2 * MIN)], props('0194f3b2-0000-7000-8000-000000000002', NOW - MIN, NOW + 30 * MIN)],
  ])('shows nothing %s', (_name, records, failout) => {
    // Act + Assess
    expect(deriveTrail({ status: describeFailout(CLUSTER, failout, NOW), records, replaced: undefined, now: NOW })).toBeUndefined();
  });

  it('keeps the line exactly while its hour lasts, whatever the records before it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 * TRAIL_MS }), fc.array(fc.integer({ min: 1, max: 3 * TRAIL_MS }), { maxLength: 5 }), (age, older) => {
        const records = [restore(NOW - age), ...older.map((o) => restore(NOW - age - o, { requestedBy: 'oncall@example.com', stoppedByAlarm: undefined }))];
        const trail = deriveTrail({ status: serving, records, replaced: undefined, now: NOW });
        return age < TRAIL_MS ? trail?.id === records[0]!.requestId : trail === undefined;
      }),
    );
  });
});

describe('the trail of a failout that expired', () => {
  it('says when its window ran out, for an hour', () => {
    // Prepare
    const ended = props('0194f3b2-0000-7000-8000-000000000001', NOW - 30 * MIN, NOW - 5 * MIN);

    // Act
    const trail = deriveTrail({ status: describeFailout(CLUSTER, ended, NOW), records: [], replaced: undefined, now: NOW });
    const later = deriveTrail({ status: describeFailout(CLUSTER, ended, NOW + TRAIL_MS), records: [], replaced: undefined, now: NOW + TRAIL_MS });

    // Assess
    expect(trail).toMatchObject({ kind: 'expired', at: NOW - 5 * MIN, text: 'expired at 23:05:00 UTC: its window ran to its end (request 0194f3b2-0000-7000-8000-000000000001)' });
    expect(later).toBeUndefined();
  });
});

describe('the trails of the cards', () => {
  const first = '0194f3b2-0000-7000-8000-00000000000a';
  const second = '0194f3b2-0000-7000-8000-00000000000b';

  it('says a failout was replaced when another request\'s failout took the place of its open windows', () => {
    // Prepare
    const trails = new OutcomeTrails();
    trails.decorate([card(props(first, NOW - 10 * MIN, NOW + 30 * MIN))], [], NOW);

    // Act
    const [replaced] = trails.decorate([card(props(second, NOW - MIN, NOW + 30 * MIN))], [failoutRecord(second, NOW - MIN)], NOW);

    // Assess
    expect(replaced?.trail).toMatchObject({ kind: 'replaced', text: `replaced at 23:09:00 UTC by request ${second} from oncall@example.com: the failout of request ${first} had not ended` });
    expect(trails.nextExpiry()).toBe(NOW - MIN + TRAIL_MS);
  });

  it('says nothing when the new windows come from an extend, or when it never saw the failout before', () => {
    // Prepare
    const extended = new OutcomeTrails();
    extended.decorate([card(props(first, NOW - 10 * MIN, NOW + 30 * MIN))], [], NOW);
    const fresh = new OutcomeTrails();

    // Act
    const [afterExtend] = extended.decorate([card(props(second, NOW - 10 * MIN, NOW + 60 * MIN))], [failoutRecord(second, NOW - MIN, 'extend')], NOW);
    const [unseen] = fresh.decorate([card(props(second, NOW - MIN, NOW + 30 * MIN))], [failoutRecord(second, NOW - MIN)], NOW);

    // Assess
    expect(afterExtend?.trail).toBeUndefined();
    expect(unseen?.trail).toBeUndefined();
    expect(fresh.nextExpiry()).toBe(Number.POSITIVE_INFINITY);
  });

  it('gives the same card object while its input and its trail stay, and a new one when the trail comes or goes', () => {
    // Prepare
    const trails = new OutcomeTrails();
    const base = card(null);
    const records = [restore(NOW - MIN)];

    // Act
    const [a] = trails.decorate([base], records, NOW);
    const [b] = trails.decorate([base], records, NOW + MIN);
    const [c] = trails.decorate([base], records, NOW + TRAIL_MS);

    // Assess
    expect(a?.trail?.kind).toBe('alarm');
    expect(b).toBe(a);
    expect(c).toBe(base);
  });

  it('renders the line as text, with an OK that names the trail it hides', () => {
    // Act
    const text = renderTrail({ id: 'r-1', kind: 'alarm', at: NOW, text: 'stopped by alarm <b>x</b>' }, CLUSTER).text;

    // Assess
    expect(text).toContain('stopped by alarm &lt;b&gt;x&lt;/b&gt;');
    expect(text).toContain('data-trail="r-1"');
    expect(text).toContain('<button type="button" class="trail-ok" data-trail-ok="r-1" aria-label="OK, hide this line on greetings-lor1">OK</button>');
  });
});
