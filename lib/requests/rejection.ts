/**
 * Why a change request was refused for good. A rejection is recorded under the request's id (or the
 * SQS message id when the request has none) and the message is acknowledged: it never blocks the FIFO
 * group of its cluster and is never retried.
 */

/** Every permanent rejection reason, in the order the checks run. */
export const REJECTION_REASONS = [
  /** The body is larger than `maxBodyBytes`. */
  'oversize',
  /** The body is not JSON. */
  'badJson',
  /** The JSON breaks the version 1 schema; the message names every problem. */
  'badSchema',
  /** `cluster`, a peer or `requestId` is not a valid D2 name (a single znode name, bounded length). */
  'badName',
  /** A peer is the cluster itself. */
  'peerIsCluster',
  /** A peer is listed twice. */
  'duplicatePeer',
  /** More peers than `maxPeers`. */
  'tooManyPeers',
  /** A failout without `onlineAt` or `duration`. */
  'missingEnd',
  /** The window ends before it starts, or already ended, or both `onlineAt` and `duration` are given. */
  'badWindow',
  /** The window ends more than the configured maximum (default 72 h) ahead. */
  'windowTooLong',
  /** A `ramp` that cannot be applied: steps not increasing to 100 %, a bad step duration, too many steps, or steps that overrun the window. */
  'badRamp',
  /** A `stopAlarms` name (or a restore's `stoppedByAlarm`) that is empty, longer than 255 characters or has control characters; a name listed twice; more than 5 names. */
  'badStopAlarm',
  /** A `putDrill` that cannot be kept: a bad schedule (`every`), blocked date or window, run length, or too many alarms. */
  'badDrill',
  /** A `putFabric` map that cannot be kept: a cluster named twice, or more clusters than a map holds. */
  'badFabric',
  /** An `evacuate` whose `targets` cannot be used: a target fabric equal to the evacuated one, named twice, or a weight outside 1–100 (an unknown target fabric: `unknownFabric`). */
  'badTargets',
  /** An `evacuate` whose `stages` cannot be built: a stage with both or neither of `tier` and `clusters`, a tier or cluster the fabric does not have, a cluster in two stages. */
  'badStages',
  /** No `/d2/clusters/<cluster>` node. */
  'unknownCluster',
  /** An `evacuate` (or a target) naming a fabric that has no cluster (derived by the rule or mapped). */
  'unknownFabric',
  /** An `evacuate` while another evacuation is open (the message names its fabric and request id): restore it first. */
  'evacuationOpen',
  /** An `evacuate` leaving services with no cluster to move to (none outside the fabric in the targets, or all of them failed out or without hosts): the message names them; exclude them or add a target. */
  'noTargetForService',
  /** The cluster's JSON cannot be read, so it cannot be rewritten safely. */
  'malformedCluster',
  /** An `extend` or `amend` of a cluster with no failout active or scheduled (a `rampHold`: none active now); there is nothing to change. */
  'notFailedOut',
  /** A `rampHold`, `rampResume` or `rampAdvance` of a failout that is no ramp (all its windows start at once). */
  'noRamp',
  /** A `rampHold` or `rampAdvance` of a ramp whose steps have all started: nothing left to hold or start. */
  'rampComplete',
  /** A `rampHold` of a ramp that is held already. */
  'rampHeld',
  /** A `rampResume` of a ramp that is not held. */
  'rampNotHeld',
  /** An `amend` that would change nothing: every name to add is there already, every name to remove is not. */
  'amendsNothing',
  /** A drill action (or a drill's failout) naming a drill that is not defined for this cluster. */
  'unknownDrill',
  /** A drill's failout while the cluster has an active failout that is no drill's: an operator's failout takes precedence (the run is recorded skipped). */
  'operatorFailoutActive',
  /** A drill's failout while another drill run moves the cluster's traffic, or a `deleteDrill` of a drill whose run is moving it. */
  'drillRunning',
  /** A peer has no cluster node. Not overridden by `force`. */
  'unknownPeer',
  /** A peer is failed out itself at the time of application, for a bucket the request moves (a peer failed out only for other buckets is no problem). Overridden by `force`. */
  'peerFailedOut',
  /** No peer has any announced host. Overridden by `force`. */
  'noPeerWithHosts',
  /**
   * A peer would carry more than `maxPeerLoadFactor` (default 2.0) times its load per host, projected
   * from host counts (lib/requests `capacity.ts`); the message gives the numbers. Overridden by `force`.
   */
  'insufficientPeerCapacity',
  /**
   * The request would leave another open failout's traffic (or its own, at a later ramp step or
   * window start) with no eligible peer, or push a peer of another failout over capacity: the
   * message names the failouts it would strand. Overridden by `force` (a drill is never forced: it
   * is skipped).
   */
  'strandsFailout',
  /** A `stopAlarms` name (or a drill's alarm) is in ALARM already: EventBridge only delivers changes, so it could never stop the failout. */
  'stopAlarmFiring',
  /** A `stopAlarms` name (or a drill's outcome alarm) that the alarm source does not know: a typo that would never fire. */
  'unknownAlarm',
  /** A `putFabric` naming a cluster another fabric's map already names (the message says which fabric). */
  'fabricConflict',
  /**
   * The request passed every check but could not be judged or written as a valid cluster document
   * (a guard: judging never throws, so no input can turn into retries that block its cluster's FIFO
   * group). The message says what failed; it points at a gap in the checks above.
   */
  'unjudgeable',
] as const;

/** One of {@link REJECTION_REASONS}. */
export type RejectionReason = (typeof REJECTION_REASONS)[number];

/** A permanent refusal: the first reason found, and a message naming every problem. */
export interface Rejection {
  /** The reason of the first problem found. */
  readonly reason: RejectionReason;
  /**
   * Human-readable, says what is wrong and where (`peers[1].cluster: ...`); problems joined by `; `,
   * at most {@link MAX_REJECTION_MESSAGE_BYTES} (the first problems, then how many more there are).
   */
  readonly message: string;
  /** The request's id when it could be read (a valid name), so the rejection is recorded under it. */
  readonly requestId?: string;
}

/** A problem found by a check: its reason and what to tell the operator. */
export interface Problem {
  /** Which check failed. */
  readonly reason: RejectionReason;
  /** What is wrong and where, e.g. `peers[1].cluster: "x" is listed twice`. */
  readonly message: string;
}

/**
 * Largest rejection message, in UTF-8 bytes (issue 14). A 14 KB body whose `peers` were 7,000 zeros
 * named 7,000 problems, a 433 KB message; a larger body's broke ZooKeeper's packet limit and turned the
 * rejection into a DLQ message. The first problems tell the operator what to fix.
 */
export const MAX_REJECTION_MESSAGE_BYTES = 2048;

/** Longest single problem message kept whole, in characters (a 16 KB name quoted in full helps nobody). */
const MAX_PROBLEM_CHARS = 512;

/** Room kept for the `; … and N more problems (M in all)` tail. */
const TAIL_BYTES = 64;

/**
 * Folds problems into one rejection: the first problem's reason, and the problems' messages joined by
 * `; ` up to {@link MAX_REJECTION_MESSAGE_BYTES} (each cut at 512 characters), then how many more.
 */
export function rejectionOf(problems: readonly Problem[], requestId?: string): Rejection {
  const first = problems[0];
  if (!first) throw new Error('rejectionOf needs at least one problem');
  const message = joinWithin(problems.map((p) => cutText(p.message, MAX_PROBLEM_CHARS)), MAX_REJECTION_MESSAGE_BYTES);
  return requestId === undefined ? { reason: first.reason, message } : { reason: first.reason, message, requestId };
}

/** `parts` joined by `; ` within `maxBytes`: as many as fit (the first always, cut to fit), then a count of the rest. */
function joinWithin(parts: readonly string[], maxBytes: number): string {
  const all = parts.join('; ');
  if (Buffer.byteLength(all, 'utf8') <= maxBytes) return all;
  let text = '';
  let bytes = 0;
  let used = 0;
  for (const part of parts) {
    const add = (used === 0 ? 0 : 2) + Buffer.byteLength(part, 'utf8');
    if (bytes + add > maxBytes - TAIL_BYTES) break;
    text += used === 0 ? part : `; ${part}`;
    bytes += add;
    used++;
  }
  if (used === 0) return cutText(parts[0]!, Math.floor((maxBytes - TAIL_BYTES) / 4));
  return `${text}; … and ${parts.length - used} more problems (${parts.length} in all)`;
}

/**
 * `text` cut to at most `maxChars` UTF-16 units (never inside a surrogate pair), marked
 * `… (N characters cut)`; unchanged when it fits.
 */
export function cutText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  let end = maxChars;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} characters cut)`;
}
