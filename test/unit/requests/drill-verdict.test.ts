/**
 * Issue 21, item 3: which run an alarm seen in ALARM judges, and what it makes of it (ARC's practice-run
 * outcomes: the outcome alarm fails a run, a blocking alarm interrupts it; the first alarm in a run decides).
 */
import { runAlarms, type DrillNode, type DrillRun } from '../../../lib/requests/drill-node';
import { runTakesVerdict, verdictStatus } from '../../../lib/requests/drill-rules';
import { judgeRun, type AlarmVerdict } from '../../../lib/requests/drill-writes';
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

describe('judgeRun: a run is judged by the alarms it started under', () => {
  const definition = { name: 'd', cluster: 'c', peers: [{ cluster: 'p', weight: 1 }], buckets: { from: 0, to: 99 }, durationMs: 60_000, every: 'rate(1 days)', outcomeAlarm: 'new-errors', blockingAlarms: ['new-deploys'], blockedDates: [], blockedWindows: [], definedAt: NOW + 1000, requestId: 'put-2' };
  const started: DrillRun = { ...run, outcomeAlarm: 'errors', blockingAlarms: ['deploys'] };
  const nodeOf = (r: DrillRun): DrillNode => ({ version: 1, definition, runs: [r] });
  const verdict = (alarm: string): AlarmVerdict => ({ alarm, at: NOW + 1000, drill: 'd' });

  it.each<[string, DrillRun, string, string | undefined]>([
    ["its own outcome alarm, though the drill was put again with another: failed", started, 'errors', 'failed'],
    ['its own blocking alarm: interrupted', started, 'deploys', 'interrupted'],
    ["the drill's new outcome alarm, which the run never had: no verdict", started, 'new-errors', undefined],
    ["a run recorded before its alarms were kept: the definition's outcome alarm, failed", run, 'new-errors', 'failed'],
    ["a run recorded before its alarms were kept: an alarm the definition does not name, no verdict", run, 'errors', undefined],
  ])('%s', (_what, r, alarm, status) => {
    const node = nodeOf(r);
    const judged = judgeRun(node, verdict(alarm), 'stop-1', AFTER);
    expect(judged === node ? undefined : judged.runs[0]?.status).toBe(status);
  });

  it('reads the alarms a run started under, else the definition\'s', () => {
    expect(runAlarms(started, definition)).toEqual({ outcomeAlarm: 'errors', blockingAlarms: ['deploys'] });
    expect(runAlarms(run, definition)).toMatchObject({ outcomeAlarm: 'new-errors', blockingAlarms: ['new-deploys'] });
  });
});
