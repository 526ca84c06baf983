/**
 * Issue 16, stop conditions in the CLI: `failout out --stop-alarm <name>` (repeatable) sends
 * `stopAlarms`; a bad name is refused before anything is sent with the worker's reason; `failout
 * status` and `failout request` show stop alarms, escaped.
 */
import type { FailoutProperties } from '../../../lib/d2';
import { OperatorError, formatClusterStatus, formatRecord, validateLocally, buildFailoutBody } from '../../../lib/operator';
import { describeFailout } from '../../../lib/operator/cluster-status';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const H = 3_600_000;
const CONTEXT = { requestId: '6c1f0d0e-8a4b-4c0e-9a55-0b5e3f1c2d7a', now: NOW, requestedBy: 'oncall@host' };

describe('failout out --stop-alarm', () => {
  it('sends every --stop-alarm as stopAlarms, in order', () => {
    // Act
    const body = buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], for: '2h', stopAlarm: ['lva1-errors', 'lva1-latency'] }, CONTEXT);

    // Assess
    expect(body.stopAlarms).toEqual(['lva1-errors', 'lva1-latency']);
    expect(validateLocally(body, NOW, {})).toMatchObject({ stopAlarms: ['lva1-errors', 'lva1-latency'] });
  });

  it('sends no stopAlarms without the flag', () => {
    expect(buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], for: '2h' }, CONTEXT)).not.toHaveProperty('stopAlarms');
  });

  it.each([
    ['a name given twice', ['x', 'x'], /badStopAlarm.*listed twice/],
    ['an empty name', [''], /badStopAlarm.*must not be empty/],
    ['six names', ['a', 'b', 'c', 'd', 'e', 'f'], /badStopAlarm.*at most 5/],
  ])('refuses %s as a usage error naming badStopAlarm, before sending', (_what, stopAlarm, message) => {
    // Prepare
    const body = buildFailoutBody('greetings-lor1', { peer: ['greetings-lva1'], for: '2h', stopAlarm }, CONTEXT);

    // Act
    const act = (): unknown => validateLocally(body, NOW, {});

    // Assess
    expect(act).toThrow(OperatorError);
    expect(act).toThrow(message);
  });
});

describe('failout status with stop alarms', () => {
  const props = (buckets: FailoutProperties['buckets']): FailoutProperties => ({ redirects: [{ peer: 'greetings-lva1' }], ignoredRedirectEntries: 0, buckets });

  it('shows the stop alarms of windows that have not ended, each once, escaped', () => {
    // Prepare
    const status = describeFailout(
      'greetings-lor1',
      props([
        { offlineAt: NOW - H, onlineAt: NOW + H, bucketOfflineRange: { from: 0, to: 49 }, stopAlarms: ['lva1-errors', 'bad\u001b[2J'] },
        { offlineAt: NOW, onlineAt: NOW + H, bucketOfflineRange: { from: 50, to: 99 }, stopAlarms: ['lva1-errors'] },
      ]),
      NOW,
    );

    // Act
    const text = formatClusterStatus(status, NOW);

    // Assess
    expect(status.stopAlarms).toEqual(['lva1-errors', 'bad\u001b[2J']);
    expect(text).toContain('stops    when an alarm fires: lva1-errors, bad\\u001b[2J');
    expect(text).not.toContain('\u001b');
  });

  it('shows no stop alarms for a failout without them, or one that ended', () => {
    // Act
    const none = describeFailout('c', props([{ offlineAt: NOW - H, onlineAt: NOW + H }]), NOW);
    const ended = describeFailout('c', props([{ offlineAt: NOW - 2 * H, onlineAt: NOW - H, stopAlarms: ['x'] }]), NOW);

    // Assess
    expect(none).not.toHaveProperty('stopAlarms');
    expect(ended).not.toHaveProperty('stopAlarms');
    expect(formatClusterStatus(none, NOW)).not.toContain('stops');
  });
});

describe('failout request of a guard restore', () => {
  const base = { requestId: 'r-1', status: 'applied', cluster: 'greetings-lor1', action: 'restore', appliedAt: NOW, requestedBy: 'failout-guard' } as const;

  it('says which alarm stopped the failout', () => {
    expect(formatRecord({ ...base, clusterVersion: 4, stoppedByAlarm: 'lva1-errors' })).toBe(
      'request r-1: applied (restore greetings-lor1) at 2026-11-30T16:00:00.000Z, cluster node version 4 — stopped by alarm lva1-errors',
    );
  });

  it('says when there was no failout naming the alarm to stop', () => {
    expect(formatRecord({ ...base, clusterVersion: 3, unchanged: true, stoppedByAlarm: 'lva1-errors' })).toMatch(/stopped by alarm lva1-errors, but no failout naming it was active; nothing was written/);
  });
});
