/**
 * Whether a due drill run starts, as pure rules (issue 16, "Drills"; ARC practice runs): a run does not
 * start on a blocked date (of its scheduled time, UTC), when its window would overlap a blocked window,
 * while the cluster is failed out by an operator (active or scheduled: an operator's failout takes
 * precedence) or in another drill run, or while a blocking alarm (or the outcome alarm itself) is in
 * ALARM. The checks run in that order, cheapest and most certain first; the first that holds is the
 * reason recorded.
 */
import { isBucketConfigActiveAt, type FailoutProperties } from '../d2/data';
import type { DrillDefinition, SkipReason } from '../requests';
import { blockedDateAt, blockedWindowOverlapping, parseBlockedWindow, type BlockedWindow } from '../schedule';
import type { AlarmState } from './alarm-states';

/** Start, or skip with a reason and what exactly. */
export type RunDecision = { readonly start: true } | { readonly start: false; readonly skipReason: SkipReason; readonly detail: string };

/** What the decision is made on. */
export interface RunFacts {
  /** When the run is due (epoch ms). */
  readonly scheduledAt: number;
  /** The cluster's failout now (null: none, or unreadable). */
  readonly failout: FailoutProperties | null;
  /** The state of the outcome and blocking alarms. */
  readonly alarms: ReadonlyMap<string, AlarmState>;
  /** Epoch ms now. */
  readonly now: number;
}

/** Decides one run of `drill`. */
export function decideRun(drill: DrillDefinition, facts: RunFacts): RunDecision {
  const date = blockedDateAt(drill.blockedDates, facts.scheduledAt);
  if (date !== undefined) return { start: false, skipReason: 'blockedDate', detail: `${date} is a blocked date (UTC)` };
  const windows = drill.blockedWindows.map(parseBlockedWindow).filter((w): w is BlockedWindow => typeof w !== 'string');
  const window = blockedWindowOverlapping(windows, facts.scheduledAt, facts.scheduledAt + drill.durationMs);
  if (window !== undefined) return { start: false, skipReason: 'blockedWindow', detail: `the run would overlap the blocked window ${window.text} (UTC)` };
  const operator = facts.failout?.buckets.find((b) => b.drill === undefined && (b.onlineAt === undefined || b.onlineAt > facts.now));
  if (operator !== undefined) {
    const by = operator.requestedBy === undefined ? '' : ` by ${operator.requestedBy.slice(0, 64)}`;
    return { start: false, skipReason: 'operatorFailoutActive', detail: `${drill.cluster} is failed out${by} (request ${operator.requestId ?? 'unknown'})` };
  }
  const running = facts.failout?.buckets.find((b) => b.drill !== undefined && isBucketConfigActiveAt(b, facts.now));
  if (running !== undefined) return { start: false, skipReason: 'drillRunning', detail: `${drill.cluster} is in a run of drill ${running.drill ?? ''} (${running.requestId ?? 'unknown'})` };
  const blocking = drill.blockingAlarms.find((a) => facts.alarms.get(a) === 'ALARM');
  if (blocking !== undefined) return { start: false, skipReason: 'blockingAlarm', detail: `blocking alarm ${blocking} is in ALARM` };
  if (facts.alarms.get(drill.outcomeAlarm) === 'ALARM') return { start: false, skipReason: 'outcomeAlarm', detail: `outcome alarm ${drill.outcomeAlarm} is already in ALARM` };
  return { start: true };
}
