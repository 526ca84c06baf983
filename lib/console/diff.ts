/**
 * What a checked request changes, against the failout the cluster has now: the lines the confirm
 * step shows above the worker's judgement (issue 21, item 7: "replaces 2h window → 30m"). Pure: the
 * dry run's before and after (`failout status`'s description of the cluster node read for the
 * check, and of the node the worker would write) at the moment of the check.
 *
 * Only windows that have not ended count as "the failout": an ended window moves nothing, and the
 * next write prunes it.
 */
import type { ClusterStatus, WindowStatus } from '../operator';
import { formatRemaining } from '../text';

/** The open part of a failout (windows active or scheduled), reduced to what an operator compares. */
interface OpenFailout {
  readonly windows: readonly WindowStatus[];
  /** Earliest start (epoch ms). */
  readonly start: number;
  /** Latest end (epoch ms), or null when a window has none. */
  readonly end: number | null;
  /** Share of the traffic moved once every step is on, held steps included (each bucket counted once). */
  readonly sharePct: number;
  /** Distinct starts, held steps included: a ramp has more than one. */
  readonly steps: number;
  /** Where a ramp stands (`step 1 of 3 (20% now; 60% in 10m)`, `held at 20% (60%, 100% held)`), or `none`. */
  readonly position: string;
  readonly peers: string;
  readonly stopAlarms: string;
  readonly requestIds: string;
  /** What `force` overrides (or overrode), or `not forced`. */
  readonly force: string;
}

/** To the second: the lines compare minutes, the judgement below has the exact times. */
/** The checks `force` can override, as the page names them (lib/requests FORCE_OVERRIDES). */
export const FORCE_LABEL: Readonly<Record<string, string>> = { peerState: 'peer state', capacity: 'capacity', stranding: 'stranding' };

const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/**
 * A length (a window's, a shift's) as `failout status` writes durations, rounded to the minute from
 * one minute on: a window made "for 2h" a few seconds before another request's clock is still `2h`.
 * Times left are floored instead ({@link formatRemaining}, as the card's countdown shows them).
 */
const duration = (ms: number): string => formatRemaining(ms >= 60_000 ? Math.round(ms / 60_000) * 60_000 : Math.round(ms / 1000) * 1000);
const left = formatRemaining;

function openFailout(status: ClusterStatus, now: number): OpenFailout | undefined {
  const windows = status.windows.filter((w) => w.onlineAt === null || Date.parse(w.onlineAt) > now);
  if (windows.length === 0) return undefined;
  const starts = windows.map((w) => Date.parse(w.offlineAt));
  const ends = windows.map((w) => (w.onlineAt === null ? null : Date.parse(w.onlineAt)));
  // A held ramp's steps are off the schedule, not gone: a hold changes where the ramp stands, not its share or steps.
  const held = status.ramp?.held?.heldSharePcts ?? [];
  return {
    windows,
    start: Math.min(...starts),
    end: ends.includes(null) ? null : Math.max(...(ends as number[])),
    sharePct: Math.max(unionSharePct(windows), ...held),
    steps: new Set(starts).size + held.length,
    position: rampPosition(status, now),
    peers: status.peers.map((p) => `${p.cluster} ×${p.weight}`).join(', ') || 'none',
    stopAlarms: (status.stopAlarms ?? []).join(', ') || 'none',
    requestIds: [...new Set(windows.map((w) => w.requestId ?? ''))].sort().join(','),
    force: status.forced === undefined ? 'not forced' : status.forced.length === 0 ? 'forced, nothing to override' : `overrides ${status.forced.map((f) => FORCE_LABEL[f] ?? f).join(', ')}`,
  };
}

/** Percentage of the 100 buckets the windows' ranges cover together (ranges may overlap). */
function unionSharePct(windows: readonly WindowStatus[]): number {
  const ranges = windows.map((w) => w.buckets).sort((a, b) => a.from - b.from);
  let covered = 0;
  let reach = -1;
  for (const { from, to } of ranges) {
    if (to > reach) covered += to - Math.max(from, reach + 1) + 1;
    reach = Math.max(reach, to);
  }
  return covered;
}

/** Where a ramp stands at `now`, as the operator compares it: the step, the share now, the next share and how soon, or what is held. */
function rampPosition(status: ClusterStatus, now: number): string {
  const ramp = status.ramp;
  if (ramp === undefined) return 'none';
  if (ramp.held !== undefined) return `held at ${ramp.sharePct}% (${ramp.held.heldSharePcts.join('%, ')}% held)`;
  const next = ramp.nextAt === null ? 'last step' : `${ramp.nextSharePct ?? 0}% in ${left(Date.parse(ramp.nextAt) - now)}`;
  return ramp.step === 0 ? `not started (${next})` : `step ${ramp.step} of ${ramp.steps} (${ramp.sharePct}% now; ${next})`;
}

/** `1h 52m left`, `starts in 10m`, `until restored`: where an open failout stands at `now`. */
function timing(f: OpenFailout, now: number): string {
  if (f.start > now) return `starts in ${left(f.start - now)}`;
  return f.end === null ? 'until restored' : `${left(f.end - now)} left`;
}

/** `2h`, `open-ended`: a window's length. */
const windowLength = (f: OpenFailout): string => (f.end === null ? 'open-ended' : duration(f.end - f.start));

/** The new window as the request makes it: `30m (ends …)`, `1h (starts in 15m, ends …)`. */
function newWindow(f: OpenFailout, now: number): string {
  const starts = f.start > now ? `starts in ${left(f.start - now)}, ` : '';
  return `${f.end === null ? 'until restored' : windowLength(f)} (${starts}${f.end === null ? 'no end' : `ends ${iso(f.end)}`})`;
}

const endText = (end: number | null, now: number): string => (end === null ? 'none (until restored)' : `in ${left(end - now)} (${iso(end)})`);

/** Lines that differ between two open failouts (peers, share, ramp, stop alarms). */
function fieldChanges(before: OpenFailout, after: OpenFailout): string[] {
  const lines: string[] = [];
  if (before.peers !== after.peers) lines.push(`peers: ${before.peers} → ${after.peers}`);
  if (before.sharePct !== after.sharePct) lines.push(`share: ${before.sharePct}% → ${after.sharePct}%`);
  const ramp = (f: OpenFailout): string => (f.steps > 1 ? `${f.steps} steps` : 'none');
  if (ramp(before) !== ramp(after)) lines.push(`ramp: ${ramp(before)} → ${ramp(after)}`);
  if (before.stopAlarms !== after.stopAlarms) lines.push(`stop alarms: ${before.stopAlarms} → ${after.stopAlarms}`);
  if (before.force !== after.force) lines.push(`force: ${before.force} → ${after.force}`);
  return lines;
}

/**
 * The changes from `before` to `after` (both described at `now`), one line each: the window replaced
 * or the end moved, then peers, share, ramp, stop alarms and force where they differ. A cluster with no
 * active or scheduled failout says so, and what the request starts (or that nothing changes).
 */
export function failoutChanges(before: ClusterStatus, after: ClusterStatus, now: number): string[] {
  const was = openFailout(before, now);
  const will = openFailout(after, now);
  const cluster = after.cluster;
  if (was === undefined) {
    if (will === undefined) return [`${cluster} has no active or scheduled failout: nothing changes`];
    const ramp = will.steps > 1 ? ` in ${will.steps} ramp steps` : '';
    const force = will.force === 'not forced' ? [] : [`force: ${will.force}`];
    return [`${cluster} has no active or scheduled failout: this starts one (${windowLength(will)}, ${will.sharePct}% moved${ramp} to ${will.peers})`, ...force];
  }
  const which = was.start > now ? 'scheduled' : 'active';
  if (will === undefined) return [`ends the ${which} ${windowLength(was)} window (${timing(was, now)}; ${was.sharePct}% moved to ${was.peers}): all traffic returns to ${cluster}`];
  if (was.requestIds === will.requestIds) {
    // The same windows (an extend, a ramp steered, an amend): the end may move, and where the ramp stands
    // (an advance of a ramp not started moves its start too: the same windows, not a replacement).
    const lines = was.end === will.end ? [] : [`window end: ${endText(was.end, now)} → ${endText(will.end, now)}${shift(was.end, will.end)}`];
    if (was.position === will.position) return [...lines, ...fieldChanges(was, will)];
    // The position says more than the number of steps: one `ramp:` line.
    return [...lines, `ramp: ${was.position} → ${will.position}`, ...fieldChanges(was, will).filter((line) => !line.startsWith('ramp: '))];
  }
  return [`replaces the ${which} ${windowLength(was)} window (${timing(was, now)}) → ${newWindow(will, now)}`, ...fieldChanges(was, will)];
}

/** `, 1h 7m earlier` / `, 2h later` between two ends (none when either is open-ended). */
function shift(from: number | null, to: number | null): string {
  if (from === null || to === null) return '';
  return to < from ? `, ${duration(from - to)} earlier` : `, ${duration(to - from)} later`;
}
