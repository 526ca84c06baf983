import type { FailoutProperties } from '../../../lib/d2/data';
import type { DrillDefinition } from '../../../lib/requests/drills';
import { decideRun, drillRunId, type AlarmState } from '../../../lib/safety';

const AT = Date.parse('2026-12-01T14:00:00Z'); // a Tuesday
const drill: DrillDefinition = {
  name: 'weekly',
  cluster: 'c-1',
  peers: [{ cluster: 'c-2', weight: 1 }],
  durationMs: 30 * 60_000,
  buckets: { from: 0, to: 99 },
  every: 'cron(0 14 ? * TUE *)',
  outcomeAlarm: 'errors',
  blockingAlarms: ['deploys'],
  blockedDates: [],
  blockedWindows: [],
  definedAt: 0,
  requestId: 'put-1',
};
const ok = new Map<string, AlarmState>([
  ['errors', 'OK'],
  ['deploys', 'OK'],
]);

function failout(bucket: Partial<FailoutProperties['buckets'][number]>): FailoutProperties {
  return { redirects: [{ peer: 'c-2', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: AT - 60_000, onlineAt: AT + 3_600_000, requestId: 'op-1', ...bucket }] };
}

describe('decideRun', () => {
  it('starts when nothing holds it back (INSUFFICIENT_DATA does not block)', () => {
    expect(decideRun(drill, { scheduledAt: AT, failout: null, alarms: new Map([['errors', 'INSUFFICIENT_DATA']]), now: AT })).toEqual({ start: true });
  });

  it.each([
    ['a blocked date', { ...drill, blockedDates: ['2026-12-01'] }, null, ok, 'blockedDate'],
    ['a blocked window overlapping the run (not its start)', { ...drill, blockedWindows: ['Tue:14:20-Tue:15:00'] }, null, ok, 'blockedWindow'],
    ["an operator's failout", drill, failout({ requestedBy: 'oncall' }), ok, 'operatorFailoutActive'],
    ["an operator's scheduled failout", drill, failout({ offlineAt: AT + 3_600_000, onlineAt: AT + 7_200_000 }), ok, 'operatorFailoutActive'],
    ["another drill's run", drill, failout({ drill: 'other' }), ok, 'drillRunning'],
    ['a blocking alarm', drill, null, new Map<string, AlarmState>([['errors', 'OK'], ['deploys', 'ALARM']]), 'blockingAlarm'],
    ['the outcome alarm', drill, null, new Map<string, AlarmState>([['errors', 'ALARM'], ['deploys', 'OK']]), 'outcomeAlarm'],
  ] as const)('skips for %s', (_what, d, props, alarms, skipReason) => {
    expect(decideRun(d, { scheduledAt: AT, failout: props, alarms, now: AT })).toMatchObject({ start: false, skipReason });
  });

  it.each([
    ['a blocked date the late start falls on', { ...drill, blockedDates: ['2026-12-02'] }, Date.parse('2026-12-01T23:59:00Z'), Date.parse('2026-12-02T00:05:00Z'), 'blockedDate'],
    ['a blocked window the late run reaches', { ...drill, blockedWindows: ['Tue:14:35-Tue:15:00'] }, AT, AT + 8 * 60_000, 'blockedWindow'],
  ] as const)('skips for %s when the tick comes after the due time', (_what, d, scheduledAt, now, skipReason) => {
    expect(decideRun(d, { scheduledAt, failout: null, alarms: ok, now })).toMatchObject({ start: false, skipReason });
  });

  it('ignores a window that ended and a blocked window after the run', () => {
    expect(decideRun({ ...drill, blockedWindows: ['Tue:14:30-Tue:15:00'] }, { scheduledAt: AT, failout: failout({ onlineAt: AT - 1 }), alarms: ok, now: AT })).toEqual({ start: true });
  });
});

describe('drillRunId', () => {
  it('is drill-<name>-<ms>, or a hash of a name too long for an id', () => {
    expect(drillRunId('weekly', AT)).toBe(`drill-weekly-${AT}`);
    expect(drillRunId('w'.repeat(128), AT)).toMatch(new RegExp(`^drill-[0-9a-f]{32}-${AT}$`));
  });
});
