import type { DrillDefinition, DrillNode, DrillRun } from '../../lib/requests/drills';
import { encodeDrillNode } from '../../lib/requests/drill-node';
import { OPEN_ACL, type ZkSession } from '../../lib/zk';

/**
 * Drill nodes as the worker writes them, for the console's drill tests (issue 24, item 7): a cluster
 * drill and a drain test (a drill of fabric lor1), written straight to ZooKeeper with the one codec.
 */

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** The next Tuesday 14:00 UTC strictly after `now` (when `cron(0 14 ? * TUE *)` is due next). */
export function nextTuesday14(now: number): number {
  for (let d = Math.floor(now / DAY) * DAY; ; d += DAY) {
    const at = d + 14 * HOUR;
    if (new Date(d).getUTCDay() === 2 && at > now) return at;
  }
}

/** The weekly blocked window the tests' cluster drill names normally: Friday evening to Monday morning. */
const WEEKEND = 'Fri:16:00-Mon:08:00';
/** The one it names when `now` is in or near the weekend's: it must not block a run started now. */
const MIDWEEK = 'Tue:20:00-Wed:08:00';

/**
 * The blocked window of `weekly-lor1` for a test running at `now`: the weekend's, unless a run started
 * within six hours of `now` could overlap it (tests run now, on any day), then a midweek night that
 * neither such a run nor the Tuesday 14:00 runs overlap.
 */
export function weeklyBlockedWindow(now: number): string {
  const week = 7 * DAY;
  const from = 5 * DAY + 16 * HOUR; // Friday 16:00 after Sunday 00:00
  const to = 1 * DAY + 8 * HOUR; // Monday 08:00
  const sunday = (new Date(now).getUTCDay() * DAY + (now % DAY)) % week;
  for (let t = 0; t <= 6 * HOUR; t += 15 * MIN) {
    const at = (sunday + t) % week;
    if (at >= from || at < to) return MIDWEEK;
  }
  return WEEKEND;
}

/** `weekly-lor1`: greetings-lor1 → greetings-lva1×2 for 30 min on Tuesdays 14:00, its next Tuesday a blocked date. */
export function clusterDrillDefinition(now: number, overrides: Partial<Extract<DrillDefinition, { cluster: string }>> = {}): DrillDefinition {
  return {
    name: 'weekly-lor1',
    definedAt: now - 30 * DAY,
    requestId: 'put-weekly',
    cluster: 'greetings-lor1',
    peers: [{ cluster: 'greetings-lva1', weight: 2 }],
    buckets: { from: 0, to: 99 },
    durationMs: 30 * MIN,
    every: 'cron(0 14 ? * TUE *)',
    outcomeAlarm: 'greetings-lor1-errors',
    blockingAlarms: ['deploys-in-progress'],
    blockedDates: [new Date(nextTuesday14(now)).toISOString().slice(0, 10)],
    blockedWindows: [weeklyBlockedWindow(now)],
    ...overrides,
  };
}

/** `drain-lor1`: a drain test of fabric lor1 to lva1, for 1 hour every 7 days. */
export function fabricDrillDefinition(now: number, overrides: Partial<Extract<DrillDefinition, { fabric: string }>> = {}): DrillDefinition {
  return {
    name: 'drain-lor1',
    definedAt: now - 30 * DAY,
    requestId: 'put-drain',
    fabric: 'lor1',
    evacuation: { targets: [{ fabric: 'lva1', weight: 1 }], holdMs: 5 * MIN, restoreGapMs: 30_000, exclude: [] },
    durationMs: HOUR,
    every: 'rate(7 days)',
    outcomeAlarm: 'lor1-drain-errors',
    blockingAlarms: ['deploys-in-progress'],
    blockedDates: [],
    blockedWindows: [],
    ...overrides,
  };
}

/** A failed run of weekly-lor1 at `at`, stopped by its outcome alarm (its restore: `<runId>-stop`). */
export function failedRun(at: number): DrillRun {
  const runId = `drill-weekly-lor1-${at}`;
  return { runId, status: 'failed', at, endsAt: at + 30 * MIN, buckets: { from: 0, to: 99 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }], stoppedByAlarm: 'greetings-lor1-errors', alarmAt: at + 4 * MIN, endedAt: at + 4 * MIN, endedBy: `${runId}-stop` };
}

/** A run of drain-lor1 at `at`, skipped for its blocking alarm. */
export function skippedRun(at: number): DrillRun {
  return { runId: `drill-drain-lor1-${at}`, status: 'skipped', at, skipReason: 'blockingAlarm', detail: 'blocking alarm deploys-in-progress is in ALARM' };
}

/** Writes (creates or replaces) the drill node of `definition` with `runs` under `drillsBase`. */
export async function writeDrillNode(session: ZkSession, drillsBase: string, definition: DrillDefinition, runs: readonly DrillRun[], now: number): Promise<void> {
  const node: DrillNode = { version: 1, definition, runs };
  const path = `${drillsBase}/${definition.name}`;
  const data = encodeDrillNode(node, now);
  if ((await session.read(path)).exists) await session.set(path, data);
  else await session.create(path, data, { acl: OPEN_ACL });
}
