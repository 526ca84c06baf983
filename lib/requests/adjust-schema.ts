import { z } from 'zod';
import { nameProblem, requestIdProblem } from './names';
import type { Problem } from './rejection';
import { commonFields, requestBaseOf, type ChangeRequestBase } from './request-fields';
import { alarmNameProblem, MAX_STOP_ALARMS, stopAlarmsSchema } from './stop-alarms';

/**
 * Adjusting a running failout (issue 24, item 6): its ramp held, resumed or advanced, its stop alarms
 * amended. Each is a cluster action on the same path as `extend` (MessageGroupId = the cluster; judged
 * and written in one multi with its record), applied by ramp-control.ts.
 *
 * Bodies (version 1, with the common fields `requestedBy`, `reason`, `force`):
 * - `{"action": "rampHold", "cluster": …}`: the steps not started yet stop being scheduled.
 * - `{"action": "rampResume", "cluster": …}`: the held steps are scheduled again, shifted by the time held.
 * - `{"action": "rampAdvance", "cluster": …}`: the next step not started (held or not) starts now.
 * - `{"action": "amend", "cluster": …, "addStopAlarms": […], "removeStopAlarms": […]}`: stop alarms
 *   added to or removed from every window that has not ended (at least one name in all).
 */

/** The ramp actions: hold, resume, advance. */
export const RAMP_ACTIONS = ['rampHold', 'rampResume', 'rampAdvance'] as const;

/** One of {@link RAMP_ACTIONS}. */
export type RampAction = (typeof RAMP_ACTIONS)[number];

const rampSchemaOf = <A extends RampAction>(action: A) =>
  z.strictObject({
    ...commonFields,
    /** What to do with the cluster's ramp. */
    action: z.literal(action),
  });

/** `action: rampHold`: keep the current share; the steps not started yet are held until a resume or the failout's end. */
export const rampHoldRequestSchema = rampSchemaOf('rampHold');
/** `action: rampResume`: the held steps are scheduled again, each as far from now as it was from the hold. */
export const rampResumeRequestSchema = rampSchemaOf('rampResume');
/** `action: rampAdvance`: the next step not started yet starts now. */
export const rampAdvanceRequestSchema = rampSchemaOf('rampAdvance');

/** `action: amend`: stop alarms added to or removed from the cluster's open failout (every window that has not ended). */
export const amendRequestSchema = z.strictObject({
  ...commonFields,
  /** Changes the stop alarms of the open failout. */
  action: z.literal('amend'),
  /** Alarm names to add (the rules of `stopAlarms`; each must exist and not be in ALARM). */
  addStopAlarms: stopAlarmsSchema.optional(),
  /** Alarm names to remove. */
  removeStopAlarms: stopAlarmsSchema.optional(),
});

/** A normalised ramp action. */
export interface RampChangeRequest extends ChangeRequestBase {
  /** Hold, resume or advance the cluster's ramp (one of `RAMP_ACTIONS`). */
  readonly action: 'rampHold' | 'rampResume' | 'rampAdvance';
}

/** A normalised amend: the names to add and to remove (each possibly empty, not both). */
export interface AmendChangeRequest extends ChangeRequestBase {
  /** Changes the stop alarms of the open failout. */
  readonly action: 'amend';
  /** Names to add, in the order given. */
  readonly addStopAlarms: readonly string[];
  /** Names to remove. */
  readonly removeStopAlarms: readonly string[];
}

type AdjustInput = z.output<typeof rampHoldRequestSchema | typeof rampResumeRequestSchema | typeof rampAdvanceRequestSchema | typeof amendRequestSchema>;

/** True for the input of an action of this file. */
export function isAdjustInput(input: { readonly action: string }): input is AdjustInput {
  return input.action === 'amend' || (RAMP_ACTIONS as readonly string[]).includes(input.action);
}

/** True for a normalised request of this file. */
export function isAdjustRequest(request: { readonly action: string }): request is RampChangeRequest | AmendChangeRequest {
  return isAdjustInput(request);
}

/**
 * The guard rails of a ramp action or amend after the schema: names (`badName`); for an amend, each
 * alarm name's rules, names given twice or both added and removed, more than {@link MAX_STOP_ALARMS}
 * added or removed (`badStopAlarm`; the names of a longer list are not checked one by one), and nothing
 * at all to change (`badSchema`).
 */
export function parseAdjustRequest(input: AdjustInput): { ok: true; request: RampChangeRequest | AmendChangeRequest } | { ok: false; problems: Problem[] } {
  const problems = [requestIdProblem(input.requestId, 'requestId'), nameProblem(input.cluster, 'cluster')].filter((p): p is Problem => p !== undefined);
  if (input.action !== 'amend') {
    return problems.length > 0 ? { ok: false, problems } : { ok: true, request: { ...requestBaseOf(input), action: input.action } };
  }
  const add = input.addStopAlarms ?? [];
  const remove = input.removeStopAlarms ?? [];
  if (add.length === 0 && remove.length === 0) problems.push({ reason: 'badSchema', message: 'addStopAlarms, removeStopAlarms: give at least one alarm name to add or remove' });
  if (add.length > MAX_STOP_ALARMS) problems.push({ reason: 'badStopAlarm', message: `addStopAlarms: ${add.length} given; at most ${MAX_STOP_ALARMS} are accepted` });
  if (remove.length > MAX_STOP_ALARMS) problems.push({ reason: 'badStopAlarm', message: `removeStopAlarms: ${remove.length} given; at most ${MAX_STOP_ALARMS} are accepted (a window names at most ${MAX_STOP_ALARMS})` });
  const seen = new Set<string>();
  for (const [field, names] of [['addStopAlarms', add], ['removeStopAlarms', remove]] as const) {
    names.slice(0, MAX_STOP_ALARMS * 2).forEach((name, i) => {
      const problem = alarmNameProblem(name, `${field}[${i}]`);
      if (problem) problems.push(problem);
      else if (seen.has(name)) problems.push({ reason: 'badStopAlarm', message: `${field}[${i}]: ${quote(name)} is given twice (added or removed once)` });
      seen.add(name);
    });
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, request: { ...requestBaseOf(input), action: 'amend', addStopAlarms: [...add], removeStopAlarms: [...remove] } };
}

/** The name as JSON, its first 64 characters when longer. */
function quote(name: string): string {
  return name.length > 64 ? `${JSON.stringify(name.slice(0, 64))}…` : JSON.stringify(name);
}
