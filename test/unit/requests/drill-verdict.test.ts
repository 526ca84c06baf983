/**
 * Issue 21, item 3: which run an alarm seen in ALARM judges, and what it makes of it (ARC's practice-run
 * outcomes: the outcome alarm fails a run, a blocking alarm interrupts it; the first alarm in a run decides).
 */
import type { DrillRun } from '../../../lib/requests/drill-node';
import { runTakesVerdict, verdictStatus } from '../../../lib/requests/drill-rules';
import { NOW } from '../../helpers/requests';

const run: DrillRun = { runId: 'r', status: 'running', at: NOW, endsAt: NOW + 60_000 };
const AFTER = NOW + 120_000;

describe('verdictStatus', () => {
  it.each([
    ['the outcome alarm', 'errors', 'failed'],
    ['a blocking alarm', 'deploys', 'interrupted'],
  ])('gives %s (%s) the status %s', (_what, alarm, status) => {
    expect(verdictStatus({ outcomeAlarm: 'errors' }, alarm)).toBe(status);
  });
});

describe('runTakesVerdict', () => {
  it.each<[string, boolean, DrillRun, number, number]>([
    ['a passed run, the alarm seen at its start', true, run, NOW, AFTER],
    ['a passed run, the alarm seen in its last millisecond', true, run, NOW + 59_999, AFTER],
    ['a passed run, the alarm seen as its window ended', false, run, NOW + 60_000, AFTER],
    ['a passed run, the alarm seen before it started', false, run, NOW - 1, AFTER],
    ['a run still moving traffic (its window stops it, not a verdict)', false, run, NOW + 1000, NOW + 2000],
    ['a run stored passed', true, { ...run, status: 'passed' }, NOW + 1000, AFTER],
    ['a failed run judged by a later alarm', true, { ...run, status: 'failed', alarmAt: NOW + 5000, endedAt: NOW + 6000 }, NOW + 1000, AFTER],
    ['a failed run judged by an earlier alarm', false, { ...run, status: 'failed', alarmAt: NOW + 5000, endedAt: NOW + 6000 }, NOW + 5500, AFTER],
    ['an interrupted run, the alarm seen after it was ended', false, { ...run, status: 'interrupted', alarmAt: NOW + 5000, endedAt: NOW + 6000 }, NOW + 7000, AFTER],
    ['a failed run without the time of its alarm', false, { ...run, status: 'failed', endedAt: NOW + 6000 }, NOW + 1000, AFTER],
    ['a replaced run', false, { ...run, status: 'replaced', endedAt: NOW + 6000 }, NOW + 1000, AFTER],
    ['a skipped run', false, { runId: 's', status: 'skipped', at: NOW, skipReason: 'blockedDate' }, NOW + 1000, AFTER],
  ])('%s: judged %s', (_what, takes, r, at, now) => {
    expect(runTakesVerdict(r, at, now)).toBe(takes);
  });
});
