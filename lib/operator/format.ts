import type { PruneMark, RequestRecord } from '../requests';
import { escapeControlChars, formatRemaining } from '../text';
import type { ClusterStatus } from './cluster-status';
import { formatDrills } from './drill-status';

/**
 * Human text for the CLI's results. Pure: tests compare strings. Every value from data (names,
 * reasons, who asked, messages) goes through `safe`: ZooKeeper holds other people's text, and
 * a control character in it must not reach the operator's terminal (issue 14).
 */

/** A value from data as the terminal may show it: control characters, newlines included, as escapes. */
const safe = (text: string): string => escapeControlChars(text);

/** How a cluster's failout state reads to an operator (`failout status`, `failout fabric`). */
export const STATE_LABEL: Readonly<Record<ClusterStatus['state'], string>> = {
  'failed-out': 'FAILED OUT',
  scheduled: 'scheduled',
  ended: 'serving (failout ended)',
  serving: 'serving',
  malformed: 'MALFORMED failout properties',
};

/** `1h 30m`, `45s`, `2d 3h`: a remaining time, coarse (shared with the console). */

/** Several lines for one cluster: state and window, then peers with weights and shares, then who and why. */
export function formatClusterStatus(status: ClusterStatus, now: number): string {
  const lines = [`${safe(status.cluster)}  ${STATE_LABEL[status.state]}`];
  if (status.problem) lines.push(`  problem  ${safe(status.problem)}`);
  const total = status.peers.reduce((sum, p) => sum + p.weight, 0);
  const shown = status.windows.filter((w) => status.state !== 'ended' || w === status.windows[status.windows.length - 1]);
  for (const w of shown) {
    const end = w.onlineAt === null ? 'until restored' : `until ${w.onlineAt}`;
    const left = w.active && w.onlineAt !== null ? ` (${formatRemaining(Date.parse(w.onlineAt) - now)} left)` : '';
    const starts = !w.active && Date.parse(w.offlineAt) > now ? ` (starts in ${formatRemaining(Date.parse(w.offlineAt) - now)})` : '';
    lines.push(`  window   from ${w.offlineAt} ${end}${left}${starts}`);
    lines.push(`  share    ${w.sharePct}% of traffic (buckets ${w.buckets.from}-${w.buckets.to})`);
    lines.push(`  by       ${safe(w.requestedBy ?? 'unknown')}${w.reason ? ` — ${safe(w.reason)}` : ''}${w.requestId ? `  [request ${safe(w.requestId)}]` : ''}`);
  }
  if (status.ramp !== undefined) lines.push(`  ramp     ${formatRamp(status.ramp, now)}`);
  if (status.stopAlarms !== undefined) lines.push(`  stops    when an alarm fires: ${status.stopAlarms.map(safe).join(', ')}`);
  if (status.forced !== undefined) lines.push(`  forced   ${formatForced(status.forced)}`);
  if (status.drills !== undefined) lines.push(`  drills   ${formatDrills(status.drills, safe)}`);
  if (status.peers.length > 0) {
    const peers = status.peers.map((p) => `${safe(p.cluster)} (weight ${p.weight}, ${Math.round((p.weight / total) * 100)}%)`);
    lines.push(`  peers    ${peers.join(', ')}`);
  }
  return lines.join('\n');
}

/** `step 2 of 3: 50% of traffic moved; next 100% at … (in 10m)`, or `… last step` once every step started. */
function formatRamp(ramp: NonNullable<ClusterStatus['ramp']>, now: number): string {
  if (ramp.held !== undefined) {
    const since = `${ramp.held.since} (${formatRemaining(now - Date.parse(ramp.held.since))} ago${ramp.held.requestedBy === null ? '' : ` by ${safe(ramp.held.requestedBy)}`})`;
    return `held at ${ramp.sharePct}% since ${since}; ${ramp.held.heldSharePcts.map((p) => `${p}%`).join(', ')} held (failout ramp resume|advance)`;
  }
  const current = ramp.step === 0 ? 'not started' : `step ${ramp.step} of ${ramp.steps}: ${ramp.sharePct}% of traffic moved`;
  if (ramp.nextAt === null) return `${current} (last step)`;
  return `${current}; next ${ramp.nextSharePct ?? 0}% at ${ramp.nextAt} (in ${formatRemaining(Date.parse(ramp.nextAt) - now)})`;
}

/** One or two lines: the outcome, and for a rejection what to do about it. */
export function formatRecord(record: RequestRecord): string {
  const at = Number.isFinite(record.appliedAt) && Math.abs(record.appliedAt) <= 8.64e15 ? ` at ${new Date(record.appliedAt).toISOString()}` : '';
  const what = safe(`${record.action ?? 'request'} ${record.cluster ?? (record.fabric === undefined ? '' : `fabric ${record.fabric}`)}`.trimEnd());
  const id = safe(record.requestId);
  switch (record.status) {
    case 'applied':
      if (record.unchanged && record.stoppedByAlarm !== undefined) {
        return `request ${id}: applied (${what})${at} — stopped by alarm ${safe(record.stoppedByAlarm)}, but no failout naming it was active; nothing was written`;
      }
      if (record.unchanged && record.action === 'restoreFabric') return `request ${id}: applied (${what})${at} — no evacuation of ${safe(record.fabric ?? 'the fabric')} was open; nothing was written`;
      if (record.unchanged && record.fabric !== undefined) return `request ${id}: applied (${what})${at} — fabric ${safe(record.fabric)} had no map; nothing was written`;
      if (record.evacuation !== undefined) return `request ${id}: applied (${what})${at} — ${formatEvacuationWrite(record.evacuation)}${record.stoppedByAlarm === undefined ? '' : ` — stopped by alarm ${safe(record.stoppedByAlarm)}`}${record.forced === undefined ? '' : ` — forced: ${formatForced(record.forced)}`}${record.alarmsUnchecked ? ' — its alarms could not be checked (the alarm source did not answer)' : ''}`;
      if (record.unchanged) return `request ${id}: applied (${what})${at} — ${safe(record.cluster ?? 'the cluster')} was already serving; nothing was written`;
      return `request ${id}: applied (${what})${at}${record.clusterVersion === null ? '' : `, ${record.cluster === null && record.fabric !== undefined ? 'fabric map' : 'cluster'} node version ${record.clusterVersion}`}${record.unreadableFailout === undefined ? '' : ` — removed an unreadable failout (${safe(record.unreadableFailout)})`}${record.stoppedByAlarm === undefined ? '' : ` — stopped by alarm ${safe(record.stoppedByAlarm)}`}${record.forced === undefined ? '' : ` — forced: ${formatForced(record.forced)}`}${record.alarmsUnchecked ? ' — its alarms could not be checked (the alarm source did not answer)' : ''}`;
    case 'duplicate':
      return `request ${id}: duplicate (${what}) — it had already been applied; nothing changed${at}`;
    case 'rejected':
      return [
        `request ${id}: REJECTED (${what}): ${record.reason ?? 'no reason given'}${record.message ? ` — ${safe(record.message)}` : ''}`,
        `  nothing was changed; fix the request and send it again${OVERRIDABLE.has(record.reason ?? '') ? ' (--force overrides this check, and is recorded)' : ''}`,
      ].join('\n');
    default:
      return `request ${id}: ${String(record.status)} (${what})${at}`;
  }
}

/** How an evacuation was written (issue 23): `2 clusters in 2 stages, in one ZooKeeper multi (1234 bytes)`. */
function formatEvacuationWrite(write: NonNullable<RequestRecord['evacuation']>): string {
  const what = `${write.clusters} ${write.clusters === 1 ? 'cluster' : 'clusters'} in ${write.stages} ${write.stages === 1 ? 'stage' : 'stages'}`;
  if (write.mode === 'multi') return `${what}, in one ZooKeeper multi (${write.multiBytes} bytes)`;
  return `${what}, in ${write.steps ?? '?'} ordered multis (one would have been ${write.multiBytes} bytes, over the limit; the evacuation node kept the plan)`;
}

/**
 * What a restore of a cluster whose `failoutProperties` do not read will do (the judge's
 * `unreadableFailout`), as the CLI's check and the console's Check say it.
 */
export function formatUnreadableFailout(error: string): string {
  return `removes an unreadable failout: ${safe(error)} (the cluster is written back without failoutProperties, every other key kept)`;
}

/** Rejections `--force` overrides: peer state, the capacity guard, stranding another failout. */
const OVERRIDABLE: ReadonlySet<string> = new Set(['peerFailedOut', 'noPeerWithHosts', 'insufficientPeerCapacity', 'strandsFailout']);

/** `overrode capacity, stranding`, or `overrode nothing` (force was given but every check passed). */
export function formatForced(forced: readonly string[]): string {
  const names: Record<string, string> = { peerState: 'peer-state checks', capacity: 'the capacity guard', stranding: 'stranding another failout' };
  return forced.length === 0 ? 'force given, overrode nothing' : `force overrode ${forced.map((f) => names[f] ?? safe(f)).join(', ')}`;
}

/** What `failout request` says of a record pruned after the retention. */
export function formatPruned(requestId: string, madeAt: number, mark: PruneMark): string {
  return [
    `request ${safe(requestId)}: pruned — it was made at ${new Date(madeAt).toISOString()}, and records older than ${formatRemaining(mark.retentionMs)} are removed`,
    `  (every record written before ${new Date(mark.prunedBefore).toISOString()} is gone); its outcome is no longer recorded`,
  ].join('\n');
}
