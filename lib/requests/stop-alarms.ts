import { z } from 'zod';
import type { FailoutBucketConfig } from '../d2/data';
import { findControlChar } from '../text';
import { requestIdTime } from './request-id';
import type { Problem } from './rejection';

/**
 * Stop conditions (issue 16, ARCHITECTURE "Change request"): a failout may name CloudWatch alarms
 * (`stopAlarms`); when one of them goes to ALARM, the guard (lib/safety) sends a `restore` carrying
 * `stoppedByAlarm`. The names are written into every bucket config of the failout, so the guard finds
 * them in ZooKeeper with no other store, and `failout status` shows them.
 *
 * The wire schema only checks the structure (a list of strings); the rules of a name are checked here,
 * so a bad name is rejected as `badStopAlarm` with the field named, not as a schema error.
 */

/** The most stop alarms one failout may name: more would bloat every bucket config for no clearer stop. */
export const MAX_STOP_ALARMS = 5;

/** CloudWatch's limit for an alarm name (`PutMetricAlarm` `AlarmName`: 1–255 characters). */
export const MAX_ALARM_NAME_LENGTH = 255;

/** The wire form of `stopAlarms` on a failout: a list of alarm names (checked by {@link stopAlarmProblems}). */
export const stopAlarmsSchema = z.array(z.string());

/**
 * The problem with `name` as a CloudWatch alarm name in `field`, or undefined when it is fine: 1 to
 * 255 characters, no control characters (it is printed in operators' terminals: issue 14).
 */
export function alarmNameProblem(name: string, field: string): Problem | undefined {
  const bad = (why: string): Problem => ({ reason: 'badStopAlarm', message: `${field}: ${why}` });
  if (name.length === 0) return bad('an alarm name must not be empty');
  if (name.length > MAX_ALARM_NAME_LENGTH) return bad(`${name.length} characters; an alarm name has at most ${MAX_ALARM_NAME_LENGTH}`);
  const found = findControlChar(name);
  if (found) return bad(`must not contain control characters (${found.codePoint} at index ${found.index})`);
  return undefined;
}

/** Every problem of a failout's `stopAlarms`: each name's, names given twice, more than {@link MAX_STOP_ALARMS}. */
export function stopAlarmProblems(names: readonly string[]): Problem[] {
  const problems: Problem[] = [];
  if (names.length > MAX_STOP_ALARMS) {
    problems.push({ reason: 'badStopAlarm', message: `stopAlarms: ${names.length} given; at most ${MAX_STOP_ALARMS} are accepted` });
  }
  const seen = new Set<string>();
  names.forEach((name, i) => {
    const problem = alarmNameProblem(name, `stopAlarms[${i}]`);
    if (problem) problems.push(problem);
    else if (seen.has(name)) problems.push({ reason: 'badStopAlarm', message: `stopAlarms[${i}]: ${quote(name)} is listed twice` });
    seen.add(name);
  });
  return problems;
}

/** The name as JSON, its first 64 characters when longer. */
function quote(name: string): string {
  return name.length > 64 ? `${JSON.stringify(name.slice(0, 64))}…` : JSON.stringify(name);
}

/**
 * How much later than an alarm's change a window's request id may say it was made and still be
 * stopped by that change: the id is made before the worker checks the alarm, so only a requester's
 * clock running ahead of CloudWatch's makes a real stop look later; 5 minutes cover it.
 */
export const ALARM_BEFORE_WINDOW_MARGIN_MS = 5 * 60_000;

/**
 * True when `window` was made after the alarm changed state (`alarmAt`), by more than
 * {@link ALARM_BEFORE_WINDOW_MARGIN_MS}: its request id is a UUIDv7 (the CLI's) whose time is that much
 * later. Such a window did not exist when the alarm fired (its request was judged, and accepted, after
 * the change), so that change does not stop it: neither the guard that reads an old event again, nor
 * the worker that gets the guard's restore late (a DLQ redrive). The id's time is trusted only when it
 * is not later than `writtenAt` (the cluster node's last write, ZooKeeper's clock, or now): an id
 * claiming a time after its own write (a requester's clock running fast, a hand-made id) proves
 * nothing, and the window is stopped as before. No id time, no change time: stopped as before.
 */
export function windowMadeAfterAlarm(window: Pick<FailoutBucketConfig, 'requestId'>, alarmAt: number | undefined, writtenAt: number): boolean {
  const madeAt = window.requestId === undefined ? undefined : requestIdTime(window.requestId);
  if (madeAt === undefined || alarmAt === undefined || madeAt > writtenAt) return false;
  return alarmAt < madeAt - ALARM_BEFORE_WINDOW_MARGIN_MS;
}
