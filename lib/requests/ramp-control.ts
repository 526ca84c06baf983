import { isFailedOutAt, type ClusterProperties, type FailoutBucketConfig, type FailoutProperties } from '../d2/data';
import type { AmendChangeRequest, RampChangeRequest } from './adjust-schema';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import { MAX_STOP_ALARMS } from './stop-alarms';

/**
 * Adjusting a running failout (issue 24, item 6), pure: `applyRequest` hands the ramp actions and
 * `amend` here. A ramp is the failout's bucket entries with staggered `offlineAt` (ramp.ts); a step
 * is the entries that start at one time.
 *
 * How a hold is kept: the entries of the steps that have not started are moved out of
 * `failoutBucketConfigs` into `failoutProperties.rampHold` (`{heldAt, failoutBucketConfigs, requestId,
 * requestedBy?, reason?}`, the failout codec's `rampHold`), unchanged. Readers route only on
 * `failoutBucketConfigs`, so a held step starts nowhere, with no process alive; `rampResume` puts
 * them back with their `offlineAt` shifted by the time held (`now - heldAt`), which keeps each step as
 * far from now as it was from the hold; steps the shift would start at or after their end are dropped
 * (never past the failout's end). A new failout or a restore replaces the whole `failoutProperties`,
 * the hold with it; an `extend` moves the held entries' end too (extend in apply-request.ts).
 */

/** What {@link applyAdjust} returns: the cluster with its new failout, or why not. */
export type AdjustResult = { readonly ok: true; readonly props: ClusterProperties } | { readonly ok: false; readonly rejection: Rejection };

/** The new cluster properties for a ramp action or an amend at `now`, or why it cannot be applied. */
export function applyAdjust(clusterProps: ClusterProperties, request: RampChangeRequest | AmendChangeRequest, now: number): AdjustResult {
  const props = clusterProps.failoutProperties;
  const outcome = props === null ? notFailedOut(request, now) : adjusted(props, request, now);
  if ('problem' in outcome) return { ok: false, rejection: rejectionOf([outcome.problem], request.requestId) };
  return { ok: true, props: { ...clusterProps, failoutProperties: outcome.next } };
}

type Outcome = { readonly next: FailoutProperties } | { readonly problem: Problem };

function adjusted(props: FailoutProperties, request: RampChangeRequest | AmendChangeRequest, now: number): Outcome {
  switch (request.action) {
    case 'rampHold':
      return hold(props, request, now);
    case 'rampResume':
      return resume(props, request, now);
    case 'rampAdvance':
      return advance(props, request, now);
    case 'amend':
      return amend(props, request, now);
  }
}

/** Entries whose window has not ended at `now` (active or scheduled): the failout the operator sees. */
function openOf(props: FailoutProperties, now: number): FailoutBucketConfig[] {
  return props.buckets.filter((b) => b.onlineAt === undefined || b.onlineAt > now);
}

const startOf = (b: FailoutBucketConfig): number => b.offlineAt ?? 0;

function distinctStarts(buckets: readonly FailoutBucketConfig[]): number {
  return new Set(buckets.map(startOf)).size;
}

function notFailedOut(request: RampChangeRequest | AmendChangeRequest, now: number, props?: FailoutProperties): { problem: Problem } {
  const what = request.action === 'rampHold' ? 'active failout whose ramp could be held' : request.action === 'amend' ? 'active or scheduled failout to amend' : 'active or scheduled failout';
  const scheduled = request.action === 'rampHold' && props !== undefined && openOf(props, now).length > 0 ? ' (its ramp has not started: advance it, or hold it once it runs)' : '';
  return { problem: { reason: 'notFailedOut', message: `cluster: ${JSON.stringify(request.cluster)} has no ${what}${scheduled}` } };
}

/** Without the ended windows (pruned by every write, as `extend` does), `buckets` replacing the open ones. */
function withBuckets(props: FailoutProperties, buckets: FailoutBucketConfig[], hold: FailoutProperties['rampHold']): FailoutProperties {
  const next: FailoutProperties = { ...props, buckets };
  if (hold === undefined || hold.buckets.length === 0) delete next.rampHold;
  else next.rampHold = hold;
  return next;
}

function hold(props: FailoutProperties, request: RampChangeRequest, now: number): Outcome {
  if (!isFailedOutAt(props, now)) return notFailedOut(request, now, props);
  if (props.rampHold !== undefined) {
    return { problem: { reason: 'rampHeld', message: `cluster: ${JSON.stringify(request.cluster)}: the ramp is held already (since ${shownTime(props.rampHold.heldAt)}); resume or advance it` } };
  }
  const open = openOf(props, now);
  if (distinctStarts(open) < 2) return { problem: { reason: 'noRamp', message: `cluster: ${JSON.stringify(request.cluster)}: the failout is no ramp (all its windows start at once); there are no steps to hold` } };
  const pending = open.filter((b) => startOf(b) > now);
  if (pending.length === 0) return { problem: { reason: 'rampComplete', message: `cluster: ${JSON.stringify(request.cluster)}: every step of the ramp has started; nothing is left to hold` } };
  const held: NonNullable<FailoutProperties['rampHold']> = { heldAt: now, buckets: pending, requestId: request.requestId };
  if (request.requestedBy !== undefined) held.requestedBy = request.requestedBy;
  if (request.reason !== undefined) held.reason = request.reason;
  return { next: withBuckets(props, open.filter((b) => startOf(b) <= now), held) };
}

function resume(props: FailoutProperties, request: RampChangeRequest, now: number): Outcome {
  const open = openOf(props, now);
  if (open.length === 0) return notFailedOut(request, now);
  const held = props.rampHold;
  if (held === undefined) return { problem: { reason: 'rampNotHeld', message: `cluster: ${JSON.stringify(request.cluster)}: the ramp is not held; there is nothing to resume` } };
  // Each held step keeps the distance from now it had from the hold; clocks never move it earlier.
  const shift = Math.max(0, now - held.heldAt);
  const resumed = held.buckets.map((b) => ({ ...b, offlineAt: startOf(b) + shift })).filter((b) => b.onlineAt === undefined || b.offlineAt < b.onlineAt);
  return { next: withBuckets(props, [...open, ...resumed], undefined) };
}

function advance(props: FailoutProperties, request: RampChangeRequest, now: number): Outcome {
  const open = openOf(props, now);
  if (open.length === 0) return notFailedOut(request, now);
  const held = props.rampHold;
  if (held !== undefined && held.buckets.length > 0) {
    // A held ramp: its next held step starts now, the others stay held.
    const next = Math.min(...held.buckets.map(startOf));
    const started = held.buckets.filter((b) => startOf(b) === next).map((b) => ({ ...b, offlineAt: now }));
    return { next: withBuckets(props, [...open, ...started], { ...held, buckets: held.buckets.filter((b) => startOf(b) !== next) }) };
  }
  if (distinctStarts(open) < 2) return { problem: { reason: 'noRamp', message: `cluster: ${JSON.stringify(request.cluster)}: the failout is no ramp (all its windows start at once); there is no step to advance to` } };
  const pending = open.filter((b) => startOf(b) > now);
  if (pending.length === 0) return { problem: { reason: 'rampComplete', message: `cluster: ${JSON.stringify(request.cluster)}: every step of the ramp has started; there is no next step` } };
  const next = Math.min(...pending.map(startOf));
  return { next: withBuckets(props, open.map((b) => (startOf(b) === next ? { ...b, offlineAt: now } : b)), held) };
}

function amend(props: FailoutProperties, request: AmendChangeRequest, now: number): Outcome {
  const open = openOf(props, now);
  if (open.length === 0) return notFailedOut(request, now);
  const remove = new Set(request.removeStopAlarms);
  let changed = false;
  let most = 0;
  const amended = (b: FailoutBucketConfig): FailoutBucketConfig => {
    const before = b.stopAlarms ?? [];
    const kept = before.filter((name) => !remove.has(name));
    const alarms = [...kept, ...request.addStopAlarms.filter((name) => !kept.includes(name))];
    // The limit holds against a window growing: an evacuation's windows name its stop and gate alarms
    // (more than 5), and an amend that removes some of them, or swaps them, must stay possible.
    if (alarms.length > before.length) most = Math.max(most, alarms.length);
    if (alarms.length === before.length && alarms.every((name, i) => name === before[i])) return b;
    changed = true;
    const next: FailoutBucketConfig = { ...b, stopAlarms: alarms };
    if (alarms.length === 0) delete next.stopAlarms;
    return next;
  };
  const buckets = open.map(amended);
  const held = props.rampHold === undefined ? undefined : { ...props.rampHold, buckets: props.rampHold.buckets.map(amended) };
  if (most > MAX_STOP_ALARMS) return { problem: { reason: 'badStopAlarm', message: `addStopAlarms: a window would name ${most} stop alarms; at most ${MAX_STOP_ALARMS} are accepted (remove some)` } };
  if (!changed) {
    return { problem: { reason: 'amendsNothing', message: `cluster: ${JSON.stringify(request.cluster)}: every alarm to add is named already and no alarm to remove is named; nothing would change` } };
  }
  return { next: withBuckets(props, buckets, held) };
}

/**
 * `props` (an extend's result) with its held entries ending at the new end `onlineAt`; one whose start
 * is not before it is dropped (a resume only moves starts later, so it could never start).
 */
export function withHeldEnd(props: FailoutProperties, onlineAt: number): FailoutProperties {
  const hold = props.rampHold;
  if (hold === undefined) return props;
  return withBuckets(props, props.buckets, { ...hold, buckets: hold.buckets.filter((b) => startOf(b) < onlineAt).map((b) => ({ ...b, onlineAt })) });
}

/** ISO-8601 of epoch ms, or the number when no Date holds it: judging must not throw (issue 14). */
export function shownTime(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}
