import { isBucketConfigActiveAt, type FailoutBucketConfig, type FailoutProperties } from '../d2/data';
import { runStatusAt, type DrillDefinition, type DrillRun } from './drill-node';
import type { Problem } from './rejection';
import type { DrillChangeRequest } from './drill-schema';
import type { ChangeRequest, FailoutChangeRequest } from './schema';

/**
 * Precedence between drills and operators (as ARC's practice runs and zonal shifts): an operator's
 * failout always wins. A drill's failout is refused while the cluster has a failout window that is no
 * drill's and has not ended (active, or scheduled: replacing it would erase an operator's plan), and
 * while another drill run moves the cluster's traffic. The reverse, an operator's failout or restore
 * ending a running drill, is the writer's (it marks the run `replaced` or `failed` in the same multi).
 */

/** The drill window active at `now` (a bucket config carrying `drill`), if any: its drill and run (request) id. */
export function activeDrillWindow(props: FailoutProperties | null, now: number): { readonly drill: string; readonly runId: string | undefined; readonly bucket: FailoutBucketConfig } | undefined {
  const bucket = props?.buckets.find((b) => b.drill !== undefined && isBucketConfigActiveAt(b, now));
  return bucket === undefined ? undefined : { drill: bucket.drill!, runId: bucket.requestId, bucket };
}

/**
 * What an alarm in ALARM during a run makes of it (ARC's practice-run outcomes): the drill's outcome
 * alarm fails it; any other of its alarms (a blocking one, "deploys in progress") interrupts it, which
 * is no verdict on the peers. `alarms` are the run's own (`runAlarms`: those it started under).
 */
export function verdictStatus(alarms: Pick<DrillDefinition, 'outcomeAlarm'>, alarm: string): 'failed' | 'interrupted' {
  return alarm === alarms.outcomeAlarm ? 'failed' : 'interrupted';
}

/**
 * Whether an alarm seen in ALARM at `at` judges `run`: `at` lies in the run's time moving traffic
 * (from its start to its window's end, or to when it was ended), and the run has no verdict yet (it
 * `passed`), or its verdict came from an alarm seen later (the first alarm in a run decides it: the
 * run stopped there, and what came after is not its doing). A run still running at `now`, replaced
 * or skipped takes none.
 */
export function runTakesVerdict(run: DrillRun, at: number, now: number): boolean {
  const end = Math.min(run.endsAt ?? Infinity, run.endedAt ?? Infinity);
  if (at < run.at || at >= end) return false;
  const status = runStatusAt(run, now);
  if (status === 'passed') return true;
  return (status === 'failed' || status === 'interrupted') && run.alarmAt !== undefined && at < run.alarmAt;
}

/** Problems of a drill's failout against the cluster's current failout (none for an operator's failout). */
export function drillPrecedenceProblems(props: FailoutProperties | null, request: Pick<FailoutChangeRequest, 'cluster' | 'drill'>, now: number): Problem[] {
  if (request.drill === undefined || props === null) return [];
  const operator = props.buckets.find((b) => b.drill === undefined && (b.onlineAt === undefined || b.onlineAt > now));
  if (operator !== undefined) {
    const by = operator.requestedBy === undefined ? '' : ` by ${JSON.stringify(operator.requestedBy.slice(0, 64))}`;
    return [{ reason: 'operatorFailoutActive', message: `cluster: ${JSON.stringify(request.cluster)} is failed out${by} (request ${operator.requestId ?? 'unknown'}); an operator's failout takes precedence over a drill` }];
  }
  const running = activeDrillWindow(props, now);
  if (running !== undefined) {
    return [{ reason: 'drillRunning', message: `cluster: ${JSON.stringify(request.cluster)} is in a run of drill ${JSON.stringify(running.drill)} (${running.runId ?? 'unknown'})` }];
  }
  return [];
}

/** True for `putDrill`, `deleteDrill` and `skipDrill`: requests that change a drill, never the cluster. */
export function isDrillAction(request: ChangeRequest): request is DrillChangeRequest {
  return request.action === 'putDrill' || request.action === 'deleteDrill' || request.action === 'skipDrill';
}
