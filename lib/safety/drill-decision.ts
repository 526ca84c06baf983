/**
 * Whether a due drill run starts, as pure rules (issue 16, "Drills"; ARC practice runs): a run does not
 * start on a blocked date (of its scheduled time, or of now when the tick comes after midnight; UTC),
 * when its window (from its due time to the end of a run started now) would overlap a blocked window,
 * while the cluster is failed out by an operator (active or scheduled: an operator's failout takes
 * precedence) or in another drill run, or while a blocking alarm (or the outcome alarm itself) is in
 * ALARM. The checks run in that order, cheapest and most certain first; the first that holds is the
 * reason recorded.
 *
 * A drain test (a drill of a fabric, issue 23) is decided the same way over its fabric: it does not
 * start while an evacuation is open anywhere (an operator's: `operatorFailoutActive`; another drain
 * test's: `drillRunning`), while an operator's failout of one of the fabric's clusters has not ended
 * (`operatorFailoutActive`), or while a drill run moves one of them (`drillRunning`).
 */
import { isBucketConfigActiveAt, type FailoutProperties } from '../d2/data';
import type { SkipReason } from '../requests';
import type { DrillDefinition } from '../requests/drills';
import { blockedDateAt, blockedWindowOverlapping, parseBlockedWindow, type BlockedWindow } from '../schedule';
import type { AlarmState } from './alarm-states';

/** Start, or skip with a reason and what exactly. */
export type RunDecision = { readonly start: true } | { readonly start: false; readonly skipReason: SkipReason; readonly detail: string };

/** An evacuation open now, as a drain test's decision sees it. */
export interface OpenEvacuationFact {
  readonly fabric: string;
  readonly requestId: string;
  /** Set when it is a drain test's run. */
  readonly drill?: string | undefined;
}

/** What the decision is made on. */
export interface RunFacts {
  /** When the run is due (epoch ms). */
  readonly scheduledAt: number;
  /** A cluster's drill: the cluster's failout now (null or absent: none, or unreadable). */
  readonly failout?: FailoutProperties | null;
  /** A drain test: each cluster of its fabric and its failout now. */
  readonly members?: ReadonlyMap<string, FailoutProperties | null>;
  /** A drain test: the evacuations open now, of any fabric. */
  readonly evacuations?: readonly OpenEvacuationFact[];
  /** The state of the outcome and blocking alarms. */
  readonly alarms: ReadonlyMap<string, AlarmState>;
  /** Epoch ms now. */
  readonly now: number;
}

/** Decides one run of `drill`. */
export function decideRun(drill: DrillDefinition, facts: RunFacts): RunDecision {
  // The run starts when it is sent (a tick within the grace period may come minutes after the due
  // time), and its window runs from then: both the due time and that start are checked.
  const startsAt = Math.max(facts.scheduledAt, facts.now);
  const date = blockedDateAt(drill.blockedDates, facts.scheduledAt) ?? blockedDateAt(drill.blockedDates, startsAt);
  if (date !== undefined) return { start: false, skipReason: 'blockedDate', detail: `${date} is a blocked date (UTC)` };
  const windows = drill.blockedWindows.map(parseBlockedWindow).filter((w): w is BlockedWindow => typeof w !== 'string');
  const window = blockedWindowOverlapping(windows, facts.scheduledAt, startsAt + drill.durationMs);
  if (window !== undefined) return { start: false, skipReason: 'blockedWindow', detail: `the run would overlap the blocked window ${window.text} (UTC)` };
  const busy = drill.fabric === undefined ? clusterBusy(drill.cluster, facts.failout ?? null, facts.now) : fabricBusy(facts);
  if (busy !== undefined) return busy;
  const blocking = drill.blockingAlarms.find((a) => facts.alarms.get(a) === 'ALARM');
  if (blocking !== undefined) return { start: false, skipReason: 'blockingAlarm', detail: `blocking alarm ${blocking} is in ALARM` };
  if (facts.alarms.get(drill.outcomeAlarm) === 'ALARM') return { start: false, skipReason: 'outcomeAlarm', detail: `outcome alarm ${drill.outcomeAlarm} is already in ALARM` };
  return { start: true };
}

/** Skipped because a cluster is failed out by an operator or in a drill run (the order of {@link decideRun}). */
function clusterBusy(cluster: string, failout: FailoutProperties | null, now: number): RunDecision | undefined {
  const operator = failout?.buckets.find((b) => b.drill === undefined && (b.onlineAt === undefined || b.onlineAt > now));
  if (operator !== undefined) {
    const by = operator.requestedBy === undefined ? '' : ` by ${operator.requestedBy.slice(0, 64)}`;
    return { start: false, skipReason: 'operatorFailoutActive', detail: `${cluster} is failed out${by} (request ${operator.requestId ?? 'unknown'})` };
  }
  const running = failout?.buckets.find((b) => b.drill !== undefined && isBucketConfigActiveAt(b, now));
  if (running !== undefined) return { start: false, skipReason: 'drillRunning', detail: `${cluster} is in a run of drill ${running.drill ?? ''} (${running.requestId ?? 'unknown'})` };
  return undefined;
}

/** Skipped because an evacuation is open, or a cluster of the fabric is failed out by an operator or in a drill run. */
function fabricBusy(facts: RunFacts): RunDecision | undefined {
  const evacuations = facts.evacuations ?? [];
  const operator = evacuations.find((e) => e.drill === undefined);
  if (operator !== undefined) return { start: false, skipReason: 'operatorFailoutActive', detail: `fabric ${operator.fabric} is being evacuated by an operator (request ${operator.requestId})` };
  const members = [...(facts.members ?? [])].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [cluster, failout] of members) {
    const busy = clusterBusy(cluster, failout, facts.now);
    if (busy !== undefined && !busy.start && busy.skipReason === 'operatorFailoutActive') return busy;
  }
  const drain = evacuations.find((e) => e.drill !== undefined);
  if (drain !== undefined) return { start: false, skipReason: 'drillRunning', detail: `fabric ${drain.fabric} is being evacuated by a run of drill ${drain.drill ?? ''} (${drain.requestId})` };
  for (const [cluster, failout] of members) {
    const busy = clusterBusy(cluster, failout, facts.now);
    if (busy !== undefined) return busy;
  }
  return undefined;
}
