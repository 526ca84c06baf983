import { currentRun, DEFAULT_DRILLS_PATH, runStatusAt, type DrillNode } from '../requests/drills';
import type { ClusterStatus, DrillStatus } from './cluster-status';
import type { OperatorEnv } from './errors';

/** Where drills live: `FAILOUT_DRILLS_PATH` (as the worker's ACL layout), default `/failout/drills`. */
export function drillsBase(env: OperatorEnv): string {
  return env.FAILOUT_DRILLS_PATH?.trim() || DEFAULT_DRILLS_PATH;
}

/** The statuses with each cluster's drills attached (only clusters that have drills get the field). */
export function withDrills(statuses: readonly ClusterStatus[], drills: readonly DrillNode[], now: number): ClusterStatus[] {
  return statuses.map((status) => {
    const mine = drills.filter((d) => d.definition.cluster === status.cluster);
    if (mine.length === 0) return status;
    return {
      ...status,
      drills: mine.map((d): DrillStatus => {
        // The run moving traffic, else the newest: a skip recorded during a run must not hide it.
        const last = currentRun(d, now);
        const outcome = last === undefined ? null : runStatusAt(last, now);
        return { name: d.definition.name, running: outcome === 'running', lastOutcome: outcome, lastAt: last === undefined ? null : new Date(last.at).toISOString(), lastRunId: last?.runId ?? null };
      }),
    };
  });
}

/** `weekly: RUNNING (drill-weekly-…); monthly: last passed at …`. */
export function formatDrills(drills: readonly DrillStatus[], safe: (text: string) => string): string {
  return drills
    .map((d) => {
      if (d.running) return `${safe(d.name)}: RUNNING (${safe(d.lastRunId ?? '')})`;
      if (d.lastOutcome === null) return `${safe(d.name)}: no runs yet`;
      return `${safe(d.name)}: last ${d.lastOutcome} at ${d.lastAt ?? '?'}`;
    })
    .join('; ');
}
