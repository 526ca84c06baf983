/**
 * When what the console shows changes on the clock alone (issue 24, item 2): a failout window starts
 * or ends without any write, and a card's state ("FAILED OUT", "scheduled", "ended"), its share and its
 * ramp step change then; an evacuation moves to its next stage. Between two boundaries only the
 * countdowns' texts change, and the page counts those down itself, so the server sets one timer for
 * the next boundary instead of rendering every second.
 *
 * Each function returns the first instant after `now` at which a description made at `now` may
 * differ (lib/operator `describeFailout` and `describeEvacuation` compare their times with `now` by
 * `<=`/`<`/`>`, so the description changes exactly at such a time), or `Infinity` when none.
 */
import type { FailoutProperties } from '../d2';
import { stageBackAt, type EvacuationNode } from '../requests';

/** The next start or end of a window of `properties` after `now` (`Infinity`: none). */
export function failoutBoundary(properties: FailoutProperties | null | undefined, now: number): number {
  let next = Number.POSITIVE_INFINITY;
  for (const bucket of properties?.buckets ?? []) {
    // A missing offlineAt is 0 (effectiveBucket), long past.
    for (const at of [bucket.offlineAt ?? 0, bucket.onlineAt]) if (at !== undefined && at > now && at < next) next = at;
  }
  return next;
}

/**
 * The next stage start, "fully out", stage return or end of an evacuation after `now` (`Infinity`:
 * none); of one a restore ended, also when each stage comes home (lib/requests `stageBackAt`).
 */
export function evacuationBoundary(node: EvacuationNode, now: number): number {
  const { endedAt, plan } = node;
  const restored = (node.status === 'restored' || node.status === 'stopped') && endedAt !== undefined;
  const times = [plan.offlineAt, plan.onlineAt, ...plan.stages.flatMap((s) => [s.offlineAt, s.fullyOutAt, s.onlineAt, ...(restored ? [stageBackAt(plan, s.index, endedAt)] : [])])];
  return times.reduce((next, at) => (at > now && at < next ? at : next), Number.POSITIVE_INFINITY);
}

/**
 * The delay of a timer for `boundary` (epoch ms) from `now`: at least 1 ms, one more than the distance
 * (Node may run a timer a little early), and at most what setTimeout can hold (about 24.8 days; a
 * timer that fires before the boundary only finds nothing changed and sets the next one).
 */
export function boundaryDelay(boundary: number, now: number): number {
  return Math.min(Math.max(1, boundary - now + 1), 2 ** 31 - 1);
}
