import type { RequestRecord } from '../requests';
import type { ClusterStatus } from './cluster-status';

/** Human text for the CLI's results. Pure: tests compare strings. */

const STATE_LABEL: Record<ClusterStatus['state'], string> = {
  'failed-out': 'FAILED OUT',
  scheduled: 'scheduled',
  ended: 'serving (failout ended)',
  serving: 'serving',
  malformed: 'MALFORMED failout properties',
};

/** `1h 30m`, `45s`, `2d 3h`: a remaining time, coarse. */
export function formatRemaining(ms: number): string {
  if (ms <= 0) return '0s';
  const units: [string, number][] = [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1000]];
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of units) {
    const n = Math.floor(rest / size);
    if (n > 0 || (unit === 's' && parts.length === 0)) parts.push(`${n}${unit}`);
    rest -= n * size;
    if (parts.length === 2) break;
  }
  return parts.join(' ');
}

/** Several lines for one cluster: state and window, then peers with weights and shares, then who and why. */
export function formatClusterStatus(status: ClusterStatus, now: number): string {
  const lines = [`${status.cluster}  ${STATE_LABEL[status.state]}`];
  if (status.problem) lines.push(`  problem  ${status.problem}`);
  const total = status.peers.reduce((sum, p) => sum + p.weight, 0);
  const shown = status.windows.filter((w) => status.state !== 'ended' || w === status.windows[status.windows.length - 1]);
  for (const w of shown) {
    const end = w.onlineAt === null ? 'until restored' : `until ${w.onlineAt}`;
    const left = w.active && w.onlineAt !== null ? ` (${formatRemaining(Date.parse(w.onlineAt) - now)} left)` : '';
    const starts = !w.active && Date.parse(w.offlineAt) > now ? ` (starts in ${formatRemaining(Date.parse(w.offlineAt) - now)})` : '';
    lines.push(`  window   from ${w.offlineAt} ${end}${left}${starts}`);
    lines.push(`  share    ${w.sharePct}% of traffic (buckets ${w.buckets.from}-${w.buckets.to})`);
    lines.push(`  by       ${w.requestedBy ?? 'unknown'}${w.reason ? ` — ${w.reason}` : ''}${w.requestId ? `  [request ${w.requestId}]` : ''}`);
  }
  if (status.peers.length > 0) {
    const peers = status.peers.map((p) => `${p.cluster} (weight ${p.weight}, ${Math.round((p.weight / total) * 100)}%)`);
    lines.push(`  peers    ${peers.join(', ')}`);
  }
  return lines.join('\n');
}

/** One or two lines: the outcome, and for a rejection what to do about it. */
export function formatRecord(record: RequestRecord): string {
  const at = ` at ${new Date(record.appliedAt).toISOString()}`;
  const what = `${record.action ?? 'request'} ${record.cluster ?? ''}`.trimEnd();
  switch (record.status) {
    case 'applied':
      return `request ${record.requestId}: applied (${what})${at}${record.clusterVersion === null ? '' : `, cluster node version ${record.clusterVersion}`}`;
    case 'duplicate':
      return `request ${record.requestId}: duplicate (${what}) — it had already been applied; nothing changed${at}`;
    case 'rejected':
      return [
        `request ${record.requestId}: REJECTED (${what}): ${record.reason ?? 'no reason given'}${record.message ? ` — ${record.message}` : ''}`,
        '  nothing was changed; fix the request and send it again (add --force only to override peer-state checks)',
      ].join('\n');
    default:
      return `request ${record.requestId}: ${record.status} (${what})${at}`;
  }
}
