/**
 * The drills as the console shows them (issue 24, item 7): one row per drill node (drill-watch.ts),
 * with its target (a cluster, or a fabric for a drain test, issue 23), its schedule in words beside the
 * raw expression, the next time it will run, its blocked dates and windows, its last outcome and the
 * alarm that blocked or stopped it, and its history. Pure: no HTML (drill-page.ts renders), no
 * ZooKeeper, no clock of its own.
 *
 * The next run honours what the runner would skip on the clock alone: a due time on a blocked date, or
 * whose window would overlap a blocked window, is passed over (and listed), exactly by lib/schedule's
 * functions the runner's decision uses (lib/safety drill-decision.ts). What is decided only at the due
 * time (alarms, an operator's failout) cannot be known ahead and is not guessed.
 *
 * The history is the drill's request records (history-query.ts `drill` filter: the runner's own run
 * ids), each joined with the run the drill node keeps under that id, plus the node's runs whose
 * records are gone (pruned): what each run did and how it ended.
 */
import { type RequestRecord } from '../requests';
import { currentRun, runAlarms, runStatusAt, type DrillDefinition, type DrillNode, type DrillRun, type DrillRunStatus } from '../requests/drills';
import { blockedDateAt, blockedWindowOverlapping, nextDueAfter, parseBlockedWindow, parseSchedule, type BlockedWindow, type Schedule } from '../schedule';
import type { DrillEntry } from './drill-watch';
import { filterRecords } from './history-query';
import { isoText } from './clock-time';

/** Due times looked at for the next run that is not blocked (every minute for a week, and then some). */
const MAX_DUE_TIMES = 12_000;
/** Passed-over due times listed with the next run. */
const MAX_PASSED_OVER = 3;
/** History lines kept per drill (the node keeps at most 20 runs; the records reach further back). */
export const MAX_DRILL_HISTORY = 30;

/** A due time the runner will skip on the clock alone, and why. */
export interface PassedOver {
  readonly at: number;
  readonly why: string;
}

/** When a drill runs next: a time (with the blocked due times before it), or never and why. */
export type NextRun = { readonly kind: 'at'; readonly at: number; readonly passedOver: readonly PassedOver[] } | { readonly kind: 'none'; readonly why: string };

/** What a run came to, in one line, with the alarm that blocked or stopped it when there was one. */
export interface OutcomeLine {
  readonly runId: string;
  readonly status: DrillRunStatus;
  /** When the worker recorded the start or the skip. */
  readonly at: number;
  /** The run in words: what moved, until when, why skipped, what ended it. */
  readonly text: string;
  /** The alarms that blocked or stopped it (empty: none did). */
  readonly alarms: readonly string[];
}

/** One line of a drill's history: a request record of a run, its run as the node keeps it, or both. */
export interface HistoryLine {
  readonly requestId: string;
  /** When it was decided (the record's `appliedAt`, else the run's `at`). */
  readonly at: number;
  /** The request's action (`failout`, `skipDrill`, `evacuate`, `restore`, …), when its record is held. */
  readonly action: string | null;
  /** The worker's decision, when its record is held. */
  readonly outcome: 'applied' | 'rejected' | null;
  /** A rejection's reason and message. */
  readonly rejection: string | undefined;
  /** The run, when the node keeps it. */
  readonly run: OutcomeLine | undefined;
}

/** One drill as the page shows it: its schedule's fields as stored (`every` raw, as given), and what the page adds. */
export interface DrillRow extends Pick<DrillDefinition, 'every' | 'durationMs' | 'outcomeAlarm' | 'blockingAlarms' | 'blockedDates' | 'blockedWindows'> {
  readonly name: string;
  readonly target: { readonly kind: 'cluster'; readonly name: string; readonly moves: string } | { readonly kind: 'fabric'; readonly name: string; readonly moves: string };
  /** The expression in words (or why it does not parse). */
  readonly scheduleWords: string;
  readonly next: NextRun;
  /** Scheduled: the runner will run it (a valid schedule with a time ahead); otherwise why not. */
  readonly enabled: boolean;
  readonly last: OutcomeLine | undefined;
  readonly history: readonly HistoryLine[];
  /** How many history lines there were before {@link MAX_DRILL_HISTORY}. */
  readonly historyCount: number;
}

/** A drill node that does not decode: shown with why, and whether its last good read is shown as its card. */
export interface DrillProblem {
  readonly name: string;
  readonly problem: string;
  readonly lastGoodShown: boolean;
}

/** The drills section's model. */
export interface DrillsView {
  readonly rows: readonly DrillRow[];
  readonly problems: readonly DrillProblem[];
}

/** The view of every drill node, at `now`, with the records the console holds (newest first). */
export function buildDrillsView(entries: readonly DrillEntry[], records: readonly RequestRecord[], now: number): DrillsView {
  const rows: DrillRow[] = [];
  const problems: DrillProblem[] = [];
  // Every run id starts so (lib/safety `drillRunId`): one pass over the records, not one per drill.
  const runRecords = records.filter((r) => r.requestId.startsWith('drill-'));
  for (const entry of entries) {
    if ('node' in entry) rows.push(drillRow(entry.node, runRecords, now));
    else {
      problems.push({ name: entry.name, problem: entry.problem, lastGoodShown: entry.lastGood !== undefined });
      if (entry.lastGood !== undefined) rows.push(drillRow(entry.lastGood, runRecords, now));
    }
  }
  return { rows, problems };
}

/** The earliest next run of the view (epoch ms; Infinity: none): when the section must be rendered again on the clock alone. */
export function earliestNextRun(view: DrillsView): number {
  return view.rows.reduce((min, row) => (row.next.kind === 'at' ? Math.min(min, row.next.at) : min), Infinity);
}

/** One drill's row. */
export function drillRow(node: DrillNode, records: readonly RequestRecord[], now: number): DrillRow {
  const d = node.definition;
  const parsed = parseSchedule(d.every);
  const next = parsed.ok ? nextRun(d, parsed.schedule, now) : { kind: 'none' as const, why: `the schedule does not parse: ${parsed.message}` };
  const lines = historyLines(node, filterRecords(records, { drill: d.name }), now);
  // The run moving traffic, else the newest: a due time or a Run now during a run records a newer skip.
  const last = currentRun(node, now);
  return {
    name: d.name,
    target: d.fabric === undefined ? { kind: 'cluster', name: d.cluster, moves: clusterMoves(d) } : { kind: 'fabric', name: d.fabric, moves: fabricMoves(d) },
    every: d.every,
    scheduleWords: parsed.ok ? scheduleInWords(parsed.schedule) : `not a schedule: ${parsed.message}`,
    durationMs: d.durationMs,
    next,
    enabled: next.kind === 'at',
    outcomeAlarm: d.outcomeAlarm,
    blockingAlarms: d.blockingAlarms,
    blockedDates: d.blockedDates,
    blockedWindows: d.blockedWindows,
    last: last === undefined ? undefined : outcomeLine(d, last, now),
    history: lines.slice(0, MAX_DRILL_HISTORY),
    historyCount: lines.length,
  };
}

/**
 * The first due time after `now` that the runner will not skip on the clock alone (a blocked date of
 * its UTC day, or a blocked window its run would overlap: lib/safety `decideRun`'s first two checks),
 * and the blocked ones before it.
 */
export function nextRun(drill: DrillDefinition, schedule: Schedule, now: number): NextRun {
  const windows = drill.blockedWindows.map(parseBlockedWindow).filter((w): w is BlockedWindow => typeof w !== 'string');
  const passedOver: PassedOver[] = [];
  let at = nextDueAfter(schedule, Math.max(now, drill.definedAt), drill.definedAt);
  for (let i = 0; at !== undefined && i < MAX_DUE_TIMES; i++) {
    const why = blockedWhy(drill.blockedDates, windows, at, drill.durationMs);
    if (why === undefined) return { kind: 'at', at, passedOver };
    if (passedOver.length < MAX_PASSED_OVER) passedOver.push({ at, why });
    at = nextDueAfter(schedule, at, drill.definedAt);
  }
  return { kind: 'none', why: at === undefined ? 'the schedule has no time ahead (its years are over)' : `the next ${MAX_DUE_TIMES} due times are all blocked` };
}

function blockedWhy(dates: readonly string[], windows: readonly BlockedWindow[], at: number, durationMs: number): string | undefined {
  const date = blockedDateAt(dates, at);
  if (date !== undefined) return `${date} is a blocked date`;
  const window = blockedWindowOverlapping(windows, at, at + durationMs);
  return window === undefined ? undefined : `the run would overlap the blocked window ${window.text}`;
}

/** A run in one line, with the alarms that blocked or stopped it. */
export function outcomeLine(drill: DrillDefinition, run: DrillRun, now: number): OutcomeLine {
  const status = runStatusAt(run, now);
  const parts: string[] = [];
  if (run.buckets !== undefined && run.peers !== undefined) parts.push(`moved ${run.buckets.to - run.buckets.from + 1}% to ${run.peers.map((p) => `${p.cluster}×${p.weight}`).join(', ')}`);
  if (run.clusters !== undefined) parts.push(`evacuated ${run.clusters} cluster${run.clusters === 1 ? '' : 's'}`);
  if (run.endsAt !== undefined && (status === 'running' || status === 'passed')) parts.push(`${status === 'running' ? 'until' : 'ended'} ${isoText(run.endsAt)}`);
  if (run.skipReason !== undefined) parts.push(`${SKIP_WORDS[run.skipReason]}${run.detail === undefined ? '' : `: ${run.detail}`}`);
  else if (run.detail !== undefined) parts.push(run.detail);
  if (run.stoppedByAlarm !== undefined) {
    const seen = run.alarmAt === undefined ? '' : ` (in ALARM at ${isoText(run.alarmAt)})`;
    // A started run is judged by the alarms it started under, whatever the drill was put again with since.
    const outcome = run.stoppedByAlarm === runAlarms(run, drill).outcomeAlarm;
    parts.push(status === 'interrupted' ? interruptedWords(run.stoppedByAlarm, outcome, run.alarmAt) : `stopped by ${outcome ? 'outcome ' : ''}alarm ${run.stoppedByAlarm}${seen}`);
  }
  if (run.endedBy !== undefined && run.stoppedByAlarm === undefined) parts.push(`ended ${isoText(run.endedAt ?? run.at)} by request ${run.endedBy}`);
  return { runId: run.runId, status, at: run.at, text: parts.join('; '), alarms: blamedAlarms(drill, run) };
}

/**
 * Why a run was interrupted: a blocking alarm in ALARM during it, or its outcome alarm seen in ALARM
 * before it started (an event delivered late: lib/requests drill-writes.ts stops the run, with no
 * verdict), which is no blocking alarm and is not called one.
 */
function interruptedWords(alarm: string, outcome: boolean, alarmAt: number | undefined): string {
  if (!outcome) return `interrupted by blocking alarm ${alarm}${alarmAt === undefined ? '' : ` (in ALARM at ${isoText(alarmAt)})`}: no verdict on the peers`;
  const seen = alarmAt === undefined ? ' (in ALARM before the run started)' : ` (in ALARM at ${isoText(alarmAt)}, before the run started)`;
  return `interrupted by outcome alarm ${alarm}${seen}: no verdict on the peers`;
}

/**
 * The alarms that blocked or stopped a run, from the run's own fields: the alarm that stopped it, the
 * outcome alarm of a run skipped for it, and the blocking alarm of a run skipped for one when the drill
 * has only that one (with several, the run's detail names which).
 */
function blamedAlarms(drill: DrillDefinition, run: DrillRun): string[] {
  if (run.stoppedByAlarm !== undefined) return [run.stoppedByAlarm];
  if (run.skipReason === 'outcomeAlarm') return [drill.outcomeAlarm];
  if (run.skipReason === 'blockingAlarm' && drill.blockingAlarms.length === 1) return [drill.blockingAlarms[0]!];
  return [];
}

const SKIP_WORDS: Record<NonNullable<DrillRun['skipReason']>, string> = {
  blockingAlarm: 'skipped: a blocking alarm was in ALARM',
  outcomeAlarm: 'skipped: the outcome alarm was already in ALARM',
  blockedDate: 'skipped: blocked date',
  blockedWindow: 'skipped: blocked window',
  operatorFailoutActive: 'skipped: an operator has it failed out',
  drillRunning: 'skipped: another drill run was moving it',
  rejected: 'skipped: the worker rejected the run',
};

/** The drill's records (newest first) joined with the node's runs, and the runs whose records are gone. */
function historyLines(node: DrillNode, records: readonly RequestRecord[], now: number): HistoryLine[] {
  const runs = new Map(node.runs.map((r) => [r.runId, r]));
  const lines: HistoryLine[] = records.map((r) => {
    const run = runs.get(r.requestId);
    runs.delete(r.requestId);
    return {
      requestId: r.requestId,
      at: r.appliedAt,
      action: r.action,
      outcome: r.status === 'duplicate' ? null : r.status,
      rejection: r.status === 'rejected' ? `${r.reason ?? 'rejected'}${r.message === undefined ? '' : `: ${r.message}`}` : undefined,
      run: run === undefined ? undefined : outcomeLine(node.definition, run, now),
    };
  });
  for (const run of runs.values()) lines.push({ requestId: run.runId, at: run.at, action: null, outcome: null, rejection: undefined, run: outcomeLine(node.definition, run, now) });
  return lines.sort((a, b) => b.at - a.at || (a.requestId < b.requestId ? 1 : a.requestId > b.requestId ? -1 : 0));
}

/** `greetings-lor1 → greetings-lva1×2, greetings-ltx1×1, 100%`: as `failout drill list` says it. */
function clusterMoves(d: Extract<DrillDefinition, { cluster: string }>): string {
  return `${d.cluster} → ${d.peers.map((p) => `${p.cluster}×${p.weight}`).join(', ')}, ${d.buckets.to - d.buckets.from + 1}%`;
}

/** `fabric lor1 → lva1×2, ltx1×1 (stages frontend; storage)`: as `failout drill list` says it. */
function fabricMoves(d: Extract<DrillDefinition, { fabric: string }>): string {
  const e = d.evacuation;
  const targets = e.targets === undefined ? 'every other fabric by capacity' : e.targets.map((t) => `${t.fabric}×${t.weight}`).join(', ');
  const stages = e.stages === undefined ? '' : ` (stages ${e.stages.map((st, i) => ('tier' in st ? st.tier : `${i + 1}: ${st.clusters.join(',')}`)).join('; ')})`;
  const exclude = e.exclude.length === 0 ? '' : `, excluding ${e.exclude.join(', ')}`;
  return `fabric ${d.fabric} → ${targets}${stages}${exclude}`;
}

const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/**
 * A schedule in words, UTC: `every 7 days`, `at 14:00 UTC on Tuesday`, `every minute`,
 * `at minute 0, 30 of hour 9, 17 UTC on day 1 of the month in January`.
 */
export function scheduleInWords(schedule: Schedule): string {
  if (schedule.kind === 'rate') return `every ${rateWords(schedule.periodMs)}`;
  const minutes = [...schedule.minutes].sort((a, b) => a - b);
  const hours = [...schedule.hours].sort((a, b) => a - b);
  const time =
    minutes.length === 60 && hours.length === 24
      ? 'every minute'
      : minutes.length === 1 && hours.length === 1
        ? `at ${pad(hours[0]!)}:${pad(minutes[0]!)} UTC`
        : `at minute ${list(minutes.map(String), 60)} of ${hours.length === 24 ? 'every hour' : `hour ${list(hours.map(String), 24)}`} UTC`;
  const days =
    schedule.daysOfWeek !== undefined
      ? schedule.daysOfWeek.size === 7
        ? 'every day'
        : `on ${[...schedule.daysOfWeek].sort((a, b) => a - b).map((d) => DAY_NAMES[d]!).join(', ')}`
      : schedule.daysOfMonth !== undefined && schedule.daysOfMonth.size < 31
        ? `on day ${[...schedule.daysOfMonth].sort((a, b) => a - b).join(', ')} of the month`
        : 'every day';
  const months = schedule.months.size === 12 ? '' : ` in ${[...schedule.months].sort((a, b) => a - b).map((m) => MONTH_NAMES[m - 1]!).join(', ')}`;
  const years = schedule.years === undefined ? '' : ` in ${[...schedule.years].sort((a, b) => a - b).join(', ')}`;
  return `${time} ${days}${months}${years}`;
}

function rateWords(periodMs: number): string {
  const units: [number, string][] = [
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  for (const [ms, unit] of units) {
    if (periodMs % ms === 0) {
      const n = periodMs / ms;
      return n === 1 ? unit : `${n} ${unit}s`;
    }
  }
  return `${periodMs} ms`;
}

/** Values joined, or `every` when the field allows all `count` of them. */
function list(values: readonly string[], count: number): string {
  return values.length === count ? 'every' : values.join(', ');
}

const pad = (n: number): string => String(n).padStart(2, '0');
