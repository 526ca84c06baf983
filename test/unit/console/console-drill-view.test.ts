import { buildDrillsView, drillRow, nextRun, outcomeLine, scheduleInWords } from '../../../lib/console/drill-view';
import { renderDrills } from '../../../lib/console/drill-page';
import { isDrillRunRecord, parseHistoryQuery } from '../../../lib/console/history-query';
import type { RequestRecord } from '../../../lib/requests';
import type { DrillDefinition, DrillNode, DrillRun } from '../../../lib/requests/drills';
import { parseSchedule, type Schedule } from '../../../lib/schedule';
import { clusterDrillDefinition, fabricDrillDefinition } from '../../helpers/drill-nodes';

// The drills as the console shows them (issue 24, item 7): the next run honours blocked dates and
// windows as the runner's decision does, the outcome lines name the alarm that blocked or stopped a run,
// the history is the drill's own records, and every text from data renders as text.

const MIN = 60_000;
const HOUR = 60 * MIN;
/** Monday 2026-11-30 10:00 UTC. */
const MONDAY_10 = Date.UTC(2026, 10, 30, 10, 0);
const TUESDAY_14 = Date.UTC(2026, 11, 1, 14, 0);
const NEXT_TUESDAY_14 = TUESDAY_14 + 7 * 24 * HOUR;

function schedule(text: string): Schedule {
  const parsed = parseSchedule(text);
  if (!parsed.ok) throw new Error(parsed.message);
  return parsed.schedule;
}

/** weekly-lor1 (test/helpers/drill-nodes.ts) without blocked dates or windows, unless given. */
function clusterDrill(overrides: Partial<Extract<DrillDefinition, { cluster: string }>> = {}): DrillDefinition {
  return clusterDrillDefinition(MONDAY_10, { blockedDates: [], blockedWindows: [], ...overrides });
}

/** drain-lor1, with two blocking alarms; defined 30 days before Monday 10:00. */
function fabricDrill(): DrillDefinition {
  return fabricDrillDefinition(MONDAY_10, { evacuation: { targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1', weight: 1 }], holdMs: 5 * MIN, restoreGapMs: 30_000, exclude: [] }, blockingAlarms: ['deploys-in-progress', 'freeze'] });
}

function record(requestId: string, appliedAt: number, overrides: Partial<RequestRecord> = {}): RequestRecord {
  return { requestId, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt, clusterVersion: 3, requestedBy: 'failout-drills', ...overrides };
}

describe('the next run of a drill', () => {
  it('is the next due time when nothing blocks it', () => {
    // Act
    const next = nextRun(clusterDrill(), schedule('cron(0 14 ? * TUE *)'), MONDAY_10);

    // Assess
    expect(next).toEqual({ kind: 'at', at: TUESDAY_14, passedOver: [] });
  });

  it('passes over a due time on a blocked date, as the runner would skip it', () => {
    // Act
    const next = nextRun(clusterDrill({ blockedDates: ['2026-12-01'] }), schedule('cron(0 14 ? * TUE *)'), MONDAY_10);

    // Assess
    expect(next).toEqual({ kind: 'at', at: NEXT_TUESDAY_14, passedOver: [{ at: TUESDAY_14, why: '2026-12-01 is a blocked date' }] });
  });

  it.each([
    ['a blocked window the run would overlap (it starts 15 minutes before the window)', 'Mon:14:15-Mon:16:00'],
    ['a blocked window that wraps the week', 'Sun:20:00-Mon:14:10'],
  ])('passes over a daily due time on %s, as the runner would skip it', (_name, window) => {
    // Act
    const next = nextRun(clusterDrill({ every: 'cron(0 14 ? * * *)', blockedWindows: [window] }), schedule('cron(0 14 ? * * *)'), MONDAY_10);

    // Assess
    expect(next).toEqual({ kind: 'at', at: TUESDAY_14, passedOver: [{ at: MONDAY_10 + 4 * HOUR, why: `the run would overlap the blocked window ${window}` }] });
  });

  it('keeps a due time whose run ends exactly when a blocked window starts', () => {
    // Act
    const next = nextRun(clusterDrill({ blockedWindows: ['Tue:14:30-Tue:16:00'] }), schedule('cron(0 14 ? * TUE *)'), MONDAY_10);

    // Assess
    expect(next).toEqual({ kind: 'at', at: TUESDAY_14, passedOver: [] });
  });

  it('says never when every due time is blocked, and when the schedule has no time ahead', () => {
    // Act
    const everyDay = nextRun(clusterDrill({ blockedWindows: ['Mon:00:00-Sun:23:59'] }), schedule('cron(0 14 ? * * *)'), MONDAY_10);
    const over = nextRun(clusterDrill(), schedule('cron(0 14 ? * TUE 2025)'), MONDAY_10);

    // Assess
    expect(everyDay).toEqual({ kind: 'none', why: expect.stringMatching(/due times are all blocked$/) });
    expect(over).toEqual({ kind: 'none', why: 'the schedule has no time ahead (its years are over)' });
  });

  it('counts a rate from the definition, as the runner does', () => {
    // Act
    const next = nextRun(fabricDrill(), schedule('rate(7 days)'), MONDAY_10);

    // Assess
    expect(next).toEqual({ kind: 'at', at: MONDAY_10 - 30 * 24 * HOUR + 5 * 7 * 24 * HOUR, passedOver: [] });
  });
});

describe('a schedule in words', () => {
  it.each([
    ['cron(0 14 ? * TUE *)', 'at 14:00 UTC on Tuesday'],
    ['cron(* * ? * * *)', 'every minute every day'],
    ['cron(0,30 9 1 JAN ? *)', 'at minute 0, 30 of hour 9 UTC on day 1 of the month in January'],
    ['cron(15 6 ? * MON-FRI 2027)', 'at 06:15 UTC on Monday, Tuesday, Wednesday, Thursday, Friday in 2027'],
    ['rate(7 days)', 'every 7 days'],
    ['rate(1 hour)', 'every hour'],
    ['rate(90 minutes)', 'every 90 minutes'],
  ])('says %s as %j', (text, words) => {
    // Act + Assess
    expect(scheduleInWords(schedule(text))).toBe(words);
  });
});

describe('the outcome lines of a drill', () => {
  it.each<[string, DrillDefinition, DrillRun, { status: string; text: string; alarms: string[] }]>([
    [
      'failed: stopped by the outcome alarm',
      clusterDrill(),
      { runId: 'drill-weekly-lor1-1', status: 'failed', at: TUESDAY_14, endsAt: TUESDAY_14 + 30 * MIN, buckets: { from: 0, to: 99 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }], stoppedByAlarm: 'greetings-lor1-errors', alarmAt: TUESDAY_14 + 5 * MIN, endedAt: TUESDAY_14 + 5 * MIN, endedBy: 'drill-weekly-lor1-1-stop' },
      { status: 'failed', text: 'moved 100% to greetings-lva1×2; stopped by outcome alarm greetings-lor1-errors (in ALARM at 2026-12-01T14:05:00Z)', alarms: ['greetings-lor1-errors'] },
    ],
    [
      'failed: stopped by the outcome alarm it started under, though the drill was put again with another',
      clusterDrill({ outcomeAlarm: 'greetings-lor1-errors-v2' }),
      { runId: 'drill-weekly-lor1-7', status: 'failed', at: TUESDAY_14, outcomeAlarm: 'greetings-lor1-errors', blockingAlarms: [], stoppedByAlarm: 'greetings-lor1-errors', alarmAt: TUESDAY_14 + 5 * MIN },
      { status: 'failed', text: 'stopped by outcome alarm greetings-lor1-errors (in ALARM at 2026-12-01T14:05:00Z)', alarms: ['greetings-lor1-errors'] },
    ],
    [
      'interrupted by a blocking alarm',
      clusterDrill(),
      { runId: 'drill-weekly-lor1-2', status: 'interrupted', at: TUESDAY_14, stoppedByAlarm: 'deploys-in-progress' },
      { status: 'interrupted', text: 'interrupted by blocking alarm deploys-in-progress: no verdict on the peers', alarms: ['deploys-in-progress'] },
    ],
    [
      'interrupted by its outcome alarm, seen in ALARM before the run started (an event delivered late): not called a blocking alarm',
      clusterDrill(),
      { runId: 'drill-weekly-lor1-8', status: 'interrupted', at: TUESDAY_14, stoppedByAlarm: 'greetings-lor1-errors', alarmAt: TUESDAY_14 - 5 * MIN, endedAt: TUESDAY_14 + MIN, endedBy: 'guard-restore' },
      { status: 'interrupted', text: 'interrupted by outcome alarm greetings-lor1-errors (in ALARM at 2026-12-01T13:55:00Z, before the run started): no verdict on the peers', alarms: ['greetings-lor1-errors'] },
    ],
    [
      'skipped for its only blocking alarm',
      clusterDrill(),
      { runId: 'drill-weekly-lor1-3', status: 'skipped', at: TUESDAY_14, skipReason: 'blockingAlarm', detail: 'blocking alarm deploys-in-progress is in ALARM' },
      { status: 'skipped', text: 'skipped: a blocking alarm was in ALARM: blocking alarm deploys-in-progress is in ALARM', alarms: ['deploys-in-progress'] },
    ],
    [
      'skipped for one of several blocking alarms: the detail names it',
      fabricDrill(),
      { runId: 'drill-drain-lor1-4', status: 'skipped', at: TUESDAY_14, skipReason: 'blockingAlarm', detail: 'blocking alarm freeze is in ALARM' },
      { status: 'skipped', text: 'skipped: a blocking alarm was in ALARM: blocking alarm freeze is in ALARM', alarms: [] },
    ],
    [
      'skipped: the outcome alarm already in ALARM',
      fabricDrill(),
      { runId: 'drill-drain-lor1-5', status: 'skipped', at: TUESDAY_14, skipReason: 'outcomeAlarm', detail: 'outcome alarm lor1-drain-errors is already in ALARM' },
      { status: 'skipped', text: 'skipped: the outcome alarm was already in ALARM: outcome alarm lor1-drain-errors is already in ALARM', alarms: ['lor1-drain-errors'] },
    ],
    [
      'a drain test that ran its window: passed',
      fabricDrill(),
      { runId: 'drill-drain-lor1-6', status: 'running', at: TUESDAY_14, endsAt: TUESDAY_14 + HOUR, clusters: 2 },
      { status: 'passed', text: 'evacuated 2 clusters; ended 2026-12-01T15:00:00Z', alarms: [] },
    ],
  ])('%s', (_name, drill, run, expected) => {
    // Act
    const line = outcomeLine(drill, run, TUESDAY_14 + 2 * HOUR);

    // Assess
    expect(line).toEqual({ runId: run.runId, at: run.at, ...expected });
  });
});

describe("a drill's last outcome", () => {
  it('is the run moving traffic, though a skip was recorded after it (a due time or a Run now during the run)', () => {
    // Prepare
    const running: DrillRun = { runId: `drill-weekly-lor1-${TUESDAY_14}`, status: 'running', at: TUESDAY_14, endsAt: TUESDAY_14 + 30 * MIN, buckets: { from: 0, to: 99 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }] };
    const skipped: DrillRun = { runId: `drill-weekly-lor1-${TUESDAY_14 + 10 * MIN}`, status: 'skipped', at: TUESDAY_14 + 10 * MIN, skipReason: 'drillRunning', detail: `greetings-lor1 is in a run of drill weekly-lor1 (${running.runId})` };
    const node: DrillNode = { version: 1, definition: clusterDrill(), runs: [skipped, running] };

    // Act
    const during = drillRow(node, [], TUESDAY_14 + 11 * MIN);
    const after = drillRow(node, [], TUESDAY_14 + 31 * MIN);

    // Assess
    expect(during.last).toMatchObject({ runId: running.runId, status: 'running' });
    expect(after.last).toMatchObject({ runId: skipped.runId, status: 'skipped' });
  });
});

describe("a drill's history", () => {
  it("joins the drill's records with its runs, leaves other drills' records out, and keeps runs whose records are gone", () => {
    // Prepare: drill weekly-lor1's start and stop records, another drill's whose name it begins, and a run whose record was pruned
    const node: DrillNode = {
      version: 1,
      definition: clusterDrill(),
      runs: [
        { runId: `drill-weekly-lor1-${TUESDAY_14}`, status: 'failed', at: TUESDAY_14, stoppedByAlarm: 'greetings-lor1-errors', endedBy: `drill-weekly-lor1-${TUESDAY_14}-stop` },
        { runId: `drill-weekly-lor1-${TUESDAY_14 - 7 * 24 * HOUR}`, status: 'passed', at: TUESDAY_14 - 7 * 24 * HOUR },
      ],
    };
    const records = [
      record(`drill-weekly-lor1-${TUESDAY_14}-stop`, TUESDAY_14 + 5 * MIN, { action: 'restore' }),
      record(`drill-weekly-lor1-x-${TUESDAY_14}`, TUESDAY_14 + MIN),
      record(`drill-weekly-lor1-${TUESDAY_14}`, TUESDAY_14),
      record('0194f3b2-bbbb-7000-8000-00000000a11e', TUESDAY_14 - MIN),
    ];

    // Act
    const row = drillRow(node, records, TUESDAY_14 + HOUR);

    // Assess
    expect(row.history.map((h) => [h.requestId, h.action, h.outcome, h.run?.status])).toEqual([
      [`drill-weekly-lor1-${TUESDAY_14}-stop`, 'restore', 'applied', undefined],
      [`drill-weekly-lor1-${TUESDAY_14}`, 'failout', 'applied', 'failed'],
      [`drill-weekly-lor1-${TUESDAY_14 - 7 * 24 * HOUR}`, null, null, 'passed'],
    ]);
    expect(row.last?.status).toBe('failed');
    expect(row.enabled).toBe(true);
  });

  it.each([
    ['drill-weekly-1764597600000', 'weekly', true],
    ['drill-weekly-1764597600000-stop', 'weekly', true],
    ['drill-weekly-lor1-1764597600000', 'weekly', false],
    ['drill-weekly-lor1-1764597600000', 'weekly-lor1', true],
    ['drill-weekly-lor1-1764597600000-stopped', 'weekly-lor1', false],
    ['0194f3b2-bbbb-7000-8000-00000000a11e', 'weekly-lor1', false],
  ])('tells %s as a run of drill %s: %s', (requestId, drill, expected) => {
    // Act + Assess
    expect(isDrillRunRecord(requestId, drill)).toBe(expected);
  });

  it('filters the history query by drill', () => {
    // Act
    const query = parseHistoryQuery({ drill: 'weekly-lor1' });

    // Assess
    expect(query).toEqual({ ok: true, value: expect.objectContaining({ filter: { drill: 'weekly-lor1' } }) });
  });
});

describe('the drills section', () => {
  it('renders a hostile drill name, target and detail as text', () => {
    // Prepare
    const hostile = '<img src=x onerror=alert(1)>';
    const node: DrillNode = {
      version: 1,
      definition: clusterDrill({ name: `w${hostile}`, cluster: `c${hostile}`, outcomeAlarm: `a${hostile}` }),
      runs: [{ runId: 'drill-w-1', status: 'skipped', at: TUESDAY_14, skipReason: 'rejected', detail: `d${hostile}\u202e` }],
    };

    // Act
    const markup = renderDrills(buildDrillsView([{ name: 'w', node }, { name: 'broken', problem: `bad ${hostile}` }], [], MONDAY_10), MONDAY_10, true).text;

    // Assess
    expect(markup).not.toContain('<img');
    expect(markup).toContain('w&lt;img src=x onerror=alert(1)&gt;');
    expect(markup).toContain('\\u202e');
    expect(markup).toContain('drill broken cannot be read: bad &lt;img');
  });

  it('keeps the card of a drill whose node stopped decoding as last read, and says so', () => {
    // Prepare
    const lastGood: DrillNode = { version: 1, definition: clusterDrill(), runs: [] };

    // Act
    const view = buildDrillsView([{ name: 'weekly-lor1', problem: 'drill node is not JSON', lastGood }], [], MONDAY_10);
    const markup = renderDrills(view, MONDAY_10, true).text;

    // Assess
    expect(view.rows.map((r) => r.name)).toEqual(['weekly-lor1']);
    expect(view.problems).toEqual([{ name: 'weekly-lor1', problem: 'drill node is not JSON', lastGoodShown: true }]);
    expect(markup).toContain('data-drill="weekly-lor1"');
    expect(markup).toContain('drill weekly-lor1 cannot be read: drill node is not JSON (shown as last read)');
  });

  it('lists both kinds with next run, schedule, blocked dates and windows, and a Run now button', () => {
    // Prepare
    const nodes = [
      { name: 'drain-lor1', node: { version: 1 as const, definition: fabricDrill(), runs: [] } },
      { name: 'weekly-lor1', node: { version: 1 as const, definition: clusterDrill({ blockedDates: ['2026-12-01'], blockedWindows: ['Fri:16:00-Mon:08:00'] }), runs: [] } },
    ];

    // Act
    const markup = renderDrills(buildDrillsView(nodes, [], MONDAY_10), MONDAY_10, true).text;

    // Assess
    expect(markup).toContain('data-drill="drain-lor1" data-target-kind="fabric" data-target="lor1"');
    expect(markup).toContain('fabric lor1 → lva1×2, ltx1×1');
    expect(markup).toContain(`data-next="${NEXT_TUESDAY_14}"`);
    expect(markup).toContain(`passed over: <time datetime="2026-12-01T14:00:00.000Z" data-clock="${Date.parse('2026-12-01T14:00:00Z')}">2026-12-01T14:00:00Z</time> (2026-12-01 is a blocked date)`);
    expect(markup).toContain('at 14:00 UTC on Tuesday <code>cron(0 14 ? * TUE *)</code>');
    expect(markup).toContain('Fri:16:00-Mon:08:00 (UTC)');
    expect(markup).toContain('<button type="button" data-drill-run="weekly-lor1">Run now</button>');
    expect(markup).toContain('no runs yet');
  });
});
