import { z } from 'zod';
import { fabricNameProblem, tierProblem } from '../fabrics';
import { parseDuration } from './duration';
import { requestIdProblem } from './names';
import { rampProblems, rampSchema, type RampInput } from './ramp';
import { rejectionOf, type Problem } from './rejection';
import { commonFields, type ParseOutcome } from './request-fields';
import { alarmNameProblem, MAX_STOP_ALARMS, stopAlarmProblems, stopAlarmsSchema } from './stop-alarms';
import { durationSchema, EARLIEST_INSTANT, instantSchema, LATEST_INSTANT, normaliseWindow } from './window';

/**
 * Fabric evacuation (issue 23): `evacuate` moves every cluster of a fabric to the same service's
 * clusters in the target fabrics, judged as one plan (evacuation-plan.ts) and written in one multi
 * where it fits (evacuation-writes.ts); `restoreFabric` brings them back, in reverse stage order.
 * Both name a fabric, not a cluster: their FIFO group is the fabric actions' one (fabric-schema.ts
 * `FABRIC_MESSAGE_GROUP`), so evacuations, their restores and map changes apply in the order sent.
 */

/** The evacuation actions. */
export const EVACUATION_ACTIONS = ['evacuate', 'restoreFabric'] as const;

/** The largest target weight: weights are relative shares, and 100 steps are finer than any operator needs. */
export const MAX_TARGET_WEIGHT = 100;
/** The most stages one evacuation may have. */
export const MAX_STAGES = 10;
/** The most services one evacuation may exclude. */
export const MAX_EXCLUDED = 100;
/** Time between one stage being fully out and the next stage's start, when the request gives none. */
export const DEFAULT_HOLD_MS = 5 * 60_000;
/** Spacing of the reverse-order return between stages, when the request gives none. */
export const DEFAULT_RESTORE_GAP_MS = 30_000;

const { cluster: _cluster, ...fabricFields } = commonFields;

/** One target fabric of an evacuation (and of a drain test, drill-schema.ts). */
export const evacuationTargetSchema = z.strictObject({
  /** A target fabric: not the evacuated one, named once. */
  fabric: z.string(),
  /** Relative share of each service's traffic its cluster in this fabric receives: an integer 1–100; default 1. */
  weight: z.number().optional(),
});

/** One stage of an evacuation (and of a drain test, drill-schema.ts). */
export const evacuationStageSchema = z.strictObject({
  /** Every cluster of the fabric with this tier (the fabric map's). Give this or `clusters`. */
  tier: z.string().optional(),
  /** These clusters of the fabric. Give this or `tier`. */
  clusters: z.array(z.string()).min(1).optional(),
  /** Alarms that must stay OK while this stage moves and holds: one in ALARM ends the whole evacuation. */
  gateAlarms: stopAlarmsSchema.optional(),
});

/** `action: evacuate`: every cluster of `fabric` out to the same service's clusters in the targets. */
export const evacuateRequestSchema = z.strictObject({
  ...fabricFields,
  action: z.literal('evacuate'),
  /** The fabric to evacuate. */
  fabric: z.string(),
  /** Target fabrics and weights. Absent: every other fabric, each service's clusters weighted by their eligible hosts. */
  targets: z.array(evacuationTargetSchema).min(1).optional(),
  /** When the first stage starts (default: the time of parsing). */
  offlineAt: instantSchema.optional(),
  /** When the evacuation ends (the last stage returns first). Give this or `duration`. */
  onlineAt: instantSchema.optional(),
  /** Window length from `offlineAt`. Give this or `onlineAt`. */
  duration: durationSchema.optional(),
  /** Stages in order (the first moves first); clusters no stage names form a last stage. At most 10. */
  stages: z.array(evacuationStageSchema).min(1).optional(),
  /** Time between a stage being fully out and the next stage's start (ISO-8601 or `5m`). Default 5 minutes. */
  hold: z.string().optional(),
  /** Spacing of the return between stages, last stage first (ISO-8601 or `30s`). Default 30 seconds. */
  restoreGap: z.string().optional(),
  /** Each cluster's ramp, from its stage's start (as a failout's `ramp`, over all 100 buckets). */
  ramp: rampSchema.optional(),
  /** Alarms that end the whole evacuation. At most 5. */
  stopAlarms: stopAlarmsSchema.optional(),
  /** Services left in place. */
  exclude: z.array(z.string()).optional(),
  /** Set by the drill runner only: the drill (drain test) this evacuation is a run of. */
  drill: z.string().optional(),
});

/** `action: restoreFabric`: ends the fabric's open evacuation, stages back in reverse order. */
export const restoreFabricRequestSchema = z.strictObject({
  ...fabricFields,
  action: z.literal('restoreFabric'),
  fabric: z.string(),
  /** Set by the guard: the alarm whose ALARM state ended the evacuation. */
  stoppedByAlarm: z.string().optional(),
  /** With `stoppedByAlarm`: when it was seen in ALARM (epoch ms). */
  alarmAt: z.number().int().min(EARLIEST_INSTANT).max(LATEST_INSTANT).optional(),
  /** With `stoppedByAlarm`: the drill (drain test) whose run the alarm judges (its evacuation may have ended since). */
  drill: z.string().optional(),
});

/** A stage as requested. */
export type StageSpec = { readonly tier: string; readonly gateAlarms: readonly string[] } | { readonly clusters: readonly string[]; readonly gateAlarms: readonly string[] };

/** Fields of both normalised evacuation requests. */
interface EvacuationRequestBase {
  readonly version: 1;
  readonly requestId: string;
  readonly fabric: string;
  readonly requestedBy?: string;
  readonly reason?: string;
}

/** A normalised `evacuate`. */
export interface EvacuateChangeRequest extends EvacuationRequestBase, EvacuationOptions {
  readonly action: 'evacuate';
  readonly offlineAt: number;
  readonly onlineAt: number;
  readonly stopAlarms: readonly string[];
  readonly force: boolean;
  /** The drill (drain test) this evacuation is a run of (set by the drill runner only). */
  readonly drill?: string;
  /**
   * The latest instant any stage may return: the time of parsing plus the maximum window
   * (`MAX_FAILOUT_WINDOW`, 72 h by default). Stages return `restoreGap` apart AFTER `onlineAt`, the
   * last stage first, so the plan (evacuation-plan.ts) checks the first stage's return against it:
   * without it a restore gap would carry windows past the limit every failout keeps. Undefined: not checked.
   */
  readonly returnBy?: number;
}

/** A normalised `restoreFabric`. */
export interface RestoreFabricChangeRequest extends EvacuationRequestBase {
  readonly action: 'restoreFabric';
  readonly stoppedByAlarm?: string;
  readonly alarmAt?: number;
  /** With `stoppedByAlarm`: the drain test whose run it judges (drill-writes.ts). */
  readonly drill?: string;
  readonly force: boolean;
}

/**
 * How an evacuation moves, beside its window and alarms: what an `evacuate` gives and what a drain
 * test (a drill of a fabric, drill-schema.ts) keeps for each of its runs.
 */
export interface EvacuationOptions {
  /** Undefined: by capacity (every other fabric, peers weighted by eligible hosts). */
  readonly targets?: readonly { readonly fabric: string; readonly weight: number }[];
  /** Undefined: one stage, every cluster at once. */
  readonly stages?: readonly StageSpec[];
  readonly holdMs: number;
  readonly restoreGapMs: number;
  readonly ramp?: RampInput;
  readonly exclude: readonly string[];
}

/** The options as sent (the wire fields of `evacuate` and of a fabric's `putDrill`). */
export interface EvacuationOptionsInput {
  readonly fabric: string;
  readonly targets?: readonly z.output<typeof evacuationTargetSchema>[] | undefined;
  readonly stages?: readonly z.output<typeof evacuationStageSchema>[] | undefined;
  readonly hold?: string | undefined;
  readonly restoreGap?: string | undefined;
  readonly ramp?: RampInput | undefined;
  readonly exclude?: readonly string[] | undefined;
}

/** A normalised evacuation action. */
export type EvacuationChangeRequest = EvacuateChangeRequest | RestoreFabricChangeRequest;

/** An evacuation action as the wire schema read it. */
export type EvacuationInput = z.output<typeof evacuateRequestSchema> | z.output<typeof restoreFabricRequestSchema>;

/** True for the evacuation actions (inputs and normalised requests). */
export function isEvacuationAction(input: { readonly action: string }): boolean {
  return (EVACUATION_ACTIONS as readonly string[]).includes(input.action);
}

/** True for an evacuation action's input, as the wire schema read it. */
export function isEvacuationInput(input: { readonly action: string }): input is EvacuationInput {
  return isEvacuationAction(input);
}

/** True for a normalised evacuation request. */
export function isEvacuationRequest(request: { readonly action: string }): request is EvacuationChangeRequest {
  return isEvacuationAction(request);
}

/** Longest name quoted in a problem (a hostile name may fill the body). */
const QUOTED = 80;

function quote(text: string): string {
  return JSON.stringify(text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text);
}

/**
 * Checks and normalises an evacuation action that passed the wire schema, naming every problem:
 * names (`badName`), targets (`badTargets`), stages (`badStages`; whether a tier or cluster exists is
 * the plan's), the window (`badWindow`, `missingEnd`, `windowTooLong`), hold and restore gap, the ramp
 * (`badRamp`, checked against the first stage's window) and alarms (`badStopAlarm`).
 */
export function parseEvacuationRequest(input: EvacuationInput, limits: { readonly now: number; readonly maxWindowMs: number }): ParseOutcome<EvacuationChangeRequest> {
  const problems: Problem[] = [];
  const idProblem = requestIdProblem(input.requestId, 'requestId');
  if (idProblem) problems.push(idProblem);
  const fabricProblem = fabricNameProblem(input.fabric);
  if (fabricProblem !== undefined) problems.push({ reason: 'badName', message: `fabric: ${quote(input.fabric)} ${fabricProblem}` });
  const base: EvacuationRequestBase = {
    version: 1,
    requestId: input.requestId,
    fabric: input.fabric,
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
  };
  const id = idProblem === undefined ? input.requestId : undefined;
  if (input.action === 'restoreFabric') {
    if (input.stoppedByAlarm !== undefined) {
      const p = alarmNameProblem(input.stoppedByAlarm, 'stoppedByAlarm');
      if (p) problems.push(p);
      if (input.drill !== undefined && fabricNameProblem(input.drill) !== undefined) problems.push({ reason: 'badName', message: `drill: ${quote(input.drill)} ${fabricNameProblem(input.drill)}` });
    } else if (input.alarmAt !== undefined || input.drill !== undefined) {
      problems.push({ reason: 'badSchema', message: 'alarmAt and drill: only with stoppedByAlarm (they say when that alarm was seen, and which drain test run it judges)' });
    }
    if (problems.length > 0) return { ok: false, rejection: rejectionOf(problems, id) };
    const { stoppedByAlarm, alarmAt, drill } = input;
    return {
      ok: true,
      request: { ...base, action: 'restoreFabric', force: input.force ?? false, ...(stoppedByAlarm === undefined ? {} : { stoppedByAlarm }), ...(alarmAt === undefined ? {} : { alarmAt }), ...(drill === undefined ? {} : { drill }) },
    };
  }
  const options = parseEvacuationOptions(input, problems, input.stopAlarms === undefined ? [] : stopAlarmProblems(input.stopAlarms));
  if (input.drill !== undefined && fabricNameProblem(input.drill) !== undefined) problems.push({ reason: 'badName', message: `drill: ${quote(input.drill)} ${fabricNameProblem(input.drill)}` });
  const window = normaliseWindow(input, limits.now, limits.maxWindowMs);
  problems.push(...window.problems);
  if (input.ramp !== undefined && window.offlineAt !== undefined && window.onlineAt !== undefined && window.problems.length === 0) {
    problems.push(...rampProblems(input.ramp, { from: 0, to: 99 }, window.offlineAt, window.onlineAt));
  }
  if (problems.length > 0 || window.offlineAt === undefined || window.onlineAt === undefined) return { ok: false, rejection: rejectionOf(problems, id) };
  return {
    ok: true,
    request: {
      ...base,
      action: 'evacuate',
      ...options,
      offlineAt: window.offlineAt,
      onlineAt: window.onlineAt,
      stopAlarms: input.stopAlarms ?? [],
      force: input.force ?? false,
      ...(input.drill === undefined ? {} : { drill: input.drill }),
      returnBy: limits.now + limits.maxWindowMs,
    },
  };
}

/**
 * The evacuation options of `input` normalised, every problem pushed onto `problems`: targets
 * (`badTargets`, `badName`), stages (`badStages`; whether a tier or cluster exists is the plan's), hold
 * and restore gap, excluded services (`before` goes before the last: the caller's alarm problems, in
 * field order). The ramp is checked against a window by the caller. Shared by `evacuate` and a
 * fabric's `putDrill` (a drain test keeps them for its runs), so they cannot drift.
 */
export function parseEvacuationOptions(input: EvacuationOptionsInput, problems: Problem[], before: readonly Problem[] = []): EvacuationOptions {
  problems.push(...targetProblems(input));
  problems.push(...stageProblems(input.stages ?? []));
  const holdMs = spanOf(input.hold, 'hold', DEFAULT_HOLD_MS, problems);
  const restoreGapMs = spanOf(input.restoreGap, 'restoreGap', DEFAULT_RESTORE_GAP_MS, problems);
  problems.push(...before);
  (input.exclude ?? []).forEach((service, i) => {
    const p = fabricNameProblem(service);
    if (p !== undefined) problems.push({ reason: 'badName', message: `exclude[${i}]: ${quote(service)} ${p}` });
  });
  if ((input.exclude ?? []).length > MAX_EXCLUDED) problems.push({ reason: 'badSchema', message: `exclude: ${input.exclude!.length} given; at most ${MAX_EXCLUDED}` });
  const stages = input.stages?.map((s): StageSpec => (s.tier !== undefined ? { tier: s.tier, gateAlarms: s.gateAlarms ?? [] } : { clusters: s.clusters ?? [], gateAlarms: s.gateAlarms ?? [] }));
  return {
    ...(input.targets === undefined ? {} : { targets: input.targets.map((t) => ({ fabric: t.fabric, weight: t.weight ?? 1 })) }),
    ...(stages === undefined ? {} : { stages }),
    holdMs,
    restoreGapMs,
    ...(input.ramp === undefined ? {} : { ramp: input.ramp }),
    exclude: [...new Set(input.exclude ?? [])],
  };
}

function targetProblems(input: EvacuationOptionsInput): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  (input.targets ?? []).forEach((t, i) => {
    const name = fabricNameProblem(t.fabric);
    if (name !== undefined) problems.push({ reason: 'badName', message: `targets[${i}].fabric: ${quote(t.fabric)} ${name}` });
    else if (t.fabric === input.fabric) problems.push({ reason: 'badTargets', message: `targets[${i}].fabric: ${quote(t.fabric)} is the fabric being evacuated` });
    else if (seen.has(t.fabric)) problems.push({ reason: 'badTargets', message: `targets[${i}].fabric: ${quote(t.fabric)} is listed twice` });
    seen.add(t.fabric);
    if (t.weight !== undefined && !(Number.isInteger(t.weight) && t.weight >= 1 && t.weight <= MAX_TARGET_WEIGHT)) {
      problems.push({ reason: 'badTargets', message: `targets[${i}].weight: ${String(t.weight)} is not an integer from 1 to ${MAX_TARGET_WEIGHT}` });
    }
  });
  return problems;
}

function stageProblems(stages: readonly z.output<typeof evacuationStageSchema>[]): Problem[] {
  const problems: Problem[] = [];
  if (stages.length > MAX_STAGES) problems.push({ reason: 'badStages', message: `stages: ${stages.length} given; at most ${MAX_STAGES}` });
  const tiers = new Set<string>();
  const clusters = new Set<string>();
  let gates = 0;
  stages.forEach((s, i) => {
    if ((s.tier === undefined) === (s.clusters === undefined)) problems.push({ reason: 'badStages', message: `stages[${i}]: give a tier or a list of clusters, not ${s.tier === undefined ? 'neither' : 'both'}` });
    if (s.tier !== undefined) {
      const p = tierProblem(s.tier);
      if (p !== undefined) problems.push({ reason: 'badName', message: `stages[${i}].tier: ${quote(s.tier)} ${p}` });
      else if (tiers.has(s.tier)) problems.push({ reason: 'badStages', message: `stages[${i}].tier: ${quote(s.tier)} is named by two stages` });
      tiers.add(s.tier);
    }
    (s.clusters ?? []).forEach((c, j) => {
      const p = fabricNameProblem(c);
      if (p !== undefined) problems.push({ reason: 'badName', message: `stages[${i}].clusters[${j}]: ${quote(c)} ${p}` });
      else if (clusters.has(c)) problems.push({ reason: 'badStages', message: `stages[${i}].clusters[${j}]: ${quote(c)} is in two stages` });
      clusters.add(c);
    });
    (s.gateAlarms ?? []).forEach((a, j) => {
      const p = alarmNameProblem(a, `stages[${i}].gateAlarms[${j}]`);
      if (p) problems.push(p);
    });
    gates += (s.gateAlarms ?? []).length;
  });
  // Every gate alarm rides with the stop alarms in each bucket config: bound them together.
  if (gates > 2 * MAX_STOP_ALARMS) problems.push({ reason: 'badStopAlarm', message: `stages: ${gates} gate alarms given; at most ${2 * MAX_STOP_ALARMS} in all` });
  return problems;
}

/** A non-negative span (`PT5M`, `5m`, `0s`) in ms, its default when absent; a problem naming the field when it does not parse. */
function spanOf(text: string | undefined, field: 'hold' | 'restoreGap', fallback: number, problems: Problem[]): number {
  if (text === undefined) return fallback;
  const ms = text === '0' ? 0 : parseDuration(text);
  if (ms === undefined || ms < 0 || ms > 24 * 3600_000) {
    problems.push({ reason: 'badSchema', message: `${field}: ${quote(text)} is not a duration from 0 to 24 hours (PT5M, 30s)` });
    return fallback;
  }
  return ms;
}
