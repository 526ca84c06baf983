import { z } from 'zod';
import { parseDuration } from './duration';
import type { Problem } from './rejection';

/**
 * Ramps (issue 16, ARCHITECTURE "Failout properties"): a failout that moves its share of traffic in
 * steps. It is still one request and one write: each step becomes one bucket config with its own
 * `offlineAt`, all ending at the window's end, so every client already evaluates it and no process has
 * to stay alive for the ramp to advance.
 *
 * Percentages are of the request's bucket range (`buckets`, default 0–99), so `--share 50 --ramp
 * 20%:5m,100%` moves 10 % of all traffic first, then 50 %. Step k covers the first
 * `ceil(size × percent / 100)` buckets of the range; the buckets it adds to step k−1 go offline at the
 * window's start plus the durations of the steps before it.
 */

/** The most steps one ramp may have: more gives no operator a clearer picture, and bounds the write. */
export const MAX_RAMP_STEPS = 10;

/** One step as sent: a cumulative percentage of the request's buckets, and how long it holds. */
export const rampStepSchema = z.strictObject({
  /** Cumulative percentage of the request's bucket range moved from this step on, 1–100. */
  percent: z.number().int().min(1).max(100),
  /** How long this step holds before the next starts (ISO-8601, e.g. `PT5M`); required on every step but the last, absent on the last. */
  duration: z.string().optional(),
});

/** The wire form of `ramp`: at least one step (checked further by {@link rampProblems}). */
export const rampSchema = z.array(rampStepSchema).min(1);

/** A ramp as sent. */
export type RampInput = z.output<typeof rampSchema>;

/** One normalised step: the buckets it adds and when they go offline. */
export interface RampStage {
  /** The cumulative percentage of the request's range moved from this step on. */
  readonly percent: number;
  /** Epoch ms at which this step's buckets go offline (the window's start for the first step). */
  readonly offlineAt: number;
  /** The buckets this step adds (inclusive), disjoint from every other step's. */
  readonly buckets: {
    /** First bucket this step adds. */
    readonly from: number;
    /** Last bucket this step adds (inclusive). */
    readonly to: number;
  };
}

/**
 * Every problem of a ramp for a window `[offlineAt, onlineAt)` over `range`, each a `badRamp` naming
 * the step: too many steps, percentages not increasing or not ending at 100, a missing or bad step
 * duration (or one on the last step), steps that add no bucket of the range, and steps whose durations
 * leave no time for the last step before the window ends.
 */
export function rampProblems(ramp: RampInput, range: { from: number; to: number }, offlineAt: number, onlineAt: number): Problem[] {
  const problems: Problem[] = [];
  const bad = (message: string): void => void problems.push({ reason: 'badRamp', message });
  if (ramp.length > MAX_RAMP_STEPS) bad(`ramp: ${ramp.length} steps given; at most ${MAX_RAMP_STEPS} are accepted`);
  const size = range.to - range.from + 1;
  let total = 0;
  ramp.forEach((step, i) => {
    const last = i === ramp.length - 1;
    const before = ramp[i - 1];
    if (before !== undefined && step.percent <= before.percent) {
      bad(`ramp[${i}].percent: ${step.percent}% does not increase on ${before.percent}% of the step before`);
    } else if (before !== undefined && bucketsAt(size, step.percent) === bucketsAt(size, before.percent)) {
      bad(`ramp[${i}].percent: ${step.percent}% of buckets ${range.from}-${range.to} (${size}) adds no bucket to ${before.percent}%; use fewer steps or a wider range`);
    }
    if (last && step.percent !== 100) bad(`ramp[${i}].percent: the last step must be 100%, not ${step.percent}%`);
    if (last && step.duration !== undefined) bad(`ramp[${i}].duration: the last step holds until the window ends; give it no duration`);
    if (!last) {
      const ms = step.duration === undefined ? undefined : parseDuration(step.duration);
      if (ms === undefined || ms <= 0) {
        bad(`ramp[${i}].duration: ${step.duration === undefined ? 'missing' : JSON.stringify(step.duration) + ' is not'}; every step but the last needs a positive ISO-8601 duration such as PT5M`);
      } else {
        total += ms;
      }
    }
  });
  if (problems.length === 0 && offlineAt + total >= onlineAt) {
    bad(`ramp: its steps take until ${new Date(offlineAt + total).toISOString()}, not before the window ends at ${new Date(onlineAt).toISOString()}`);
  }
  return problems;
}

/**
 * The stages of a ramp that {@link rampProblems} accepted: one per step, with disjoint bucket ranges
 * that together cover `range`, and staggered `offlineAt` from the window's start.
 */
export function rampStages(ramp: RampInput, range: { from: number; to: number }, offlineAt: number): RampStage[] {
  const size = range.to - range.from + 1;
  const stages: RampStage[] = [];
  let at = offlineAt;
  let covered = 0;
  for (const step of ramp) {
    const upTo = bucketsAt(size, step.percent);
    stages.push({ percent: step.percent, offlineAt: at, buckets: { from: range.from + covered, to: range.from + upTo - 1 } });
    covered = upTo;
    if (step.duration !== undefined) at += parseDuration(step.duration) ?? 0;
  }
  return stages;
}

/** How many of `size` buckets `percent` moves: rounded up, so the first step always moves some. */
function bucketsAt(size: number, percent: number): number {
  return Math.ceil((size * percent) / 100);
}
