import type { EvacuationPlan, ForceOverride } from '../requests';
import { escapeControlChars, formatRemaining } from '../text';
import { formatForced } from './format';

/**
 * The text of an evacuation plan (issue 23), as `failout evacuate` shows it before sending and with
 * `--dry-run`: a summary, one line per stage (when it starts, is fully out and returns), a table of the
 * evacuated clusters (cluster → peers with weights, stage, hosts) and a table of the receiving
 * clusters (hosts, projected load per host before → after, as a multiple of their own load, against
 * the capacity limit). Pure: tests compare strings. Every value from data goes through `safe`.
 */

/** A value from data as the terminal may show it (issue 14): control characters as escapes. */
const safe = (text: string): string => escapeControlChars(text);

/** The number an operator reads for a plan's stage (`index` counts from 0; people count from 1). */
export function stageNumber(index: number): number {
  return index + 1;
}

/** `1 (frontend)`, `2` (a stage of listed clusters, named `stage 2`), `3 (rest)`. */
export function stageLabel(stage: { readonly index: number; readonly name: string }): string {
  const n = stageNumber(stage.index);
  return stage.name === `stage ${n}` ? String(n) : `${n} (${safe(stage.name)})`;
}

/**
 * The plan as text, ending in a newline. With `now`, times in the stage lines also say how far off they are.
 */
export function formatEvacuationPlan(plan: EvacuationPlan, options: { readonly now?: number; readonly forced?: readonly ForceOverride[] } = {}): string {
  const services = new Set(plan.clusters.map((c) => c.service)).size;
  const stages = plan.stages.length;
  const lines = [
    `evacuation of ${safe(plan.fabric)}: ${plural(plan.clusters.length, 'cluster')} of ${plural(services, 'service')} in ${plural(stages, 'stage')}, ${targetsText(plan.targets)}`,
    `  window   from ${iso(plan.offlineAt)}${ago(plan.offlineAt, options.now)} until ${iso(plan.onlineAt)}${ago(plan.onlineAt, options.now)}`,
  ];
  for (const stage of plan.stages) {
    const gates = stage.gateAlarms.length === 0 ? '' : `; gate alarms: ${stage.gateAlarms.map(safe).join(', ')}`;
    lines.push(
      `  stage ${stageLabel(stage)}: ${plural(stage.clusters.length, 'cluster')}, out from ${iso(stage.offlineAt)}, fully out ${iso(stage.fullyOutAt)}, back at ${iso(stage.onlineAt)}${gates}`,
    );
  }
  if (plan.stopAlarms.length > 0) lines.push(`  stops    when a stop or gate alarm fires (the whole evacuation returns): ${plan.stopAlarms.map(safe).join(', ')}`);
  if (plan.excluded.length > 0) lines.push(`  excluded ${plan.excluded.map(safe).join(', ')} (left in place)`);
  if (options.forced !== undefined) lines.push(`  forced   ${formatForced(options.forced)}`);
  lines.push('');
  if (plan.clusters.length === 0) lines.push('no cluster moves (every service of the fabric is excluded)');
  else {
    const stageName = new Map(plan.stages.map((s) => [s.index, stageLabel(s)]));
    const rows = plan.clusters.map((c) => [
      safe(c.cluster),
      safe(c.service),
      stageName.get(c.stage) ?? String(stageNumber(c.stage)),
      String(c.hosts),
      `${c.peers.length === 0 ? 'none' : c.peers.map((p) => `${safe(p.cluster)} (${formatWeight(p.weight)})`).join(', ')}${c.replaces === undefined ? '' : `; replaces the failout of request ${safe(c.replaces)}`}`,
    ]);
    lines.push(...table(['CLUSTER', 'SERVICE', 'STAGE', 'HOSTS', 'PEERS (WEIGHT)'], rows));
  }
  if (plan.receivers.length > 0) {
    lines.push('', `receiving clusters: projected load per host, × their own load (limit ×${round(plan.maxPeerLoadFactor)})`);
    const rows = plan.receivers.map((r) => [
      safe(r.cluster),
      safe(r.fabric),
      safe(r.service),
      String(r.hosts),
      `×${round(r.factorBefore)}`,
      `×${round(r.factorAfter)}${r.factorAfter > plan.maxPeerLoadFactor ? ' OVER THE LIMIT' : ''}`,
    ]);
    lines.push(...table(['CLUSTER', 'FABRIC', 'SERVICE', 'HOSTS', 'BEFORE', 'AFTER'], rows));
  }
  return `${lines.join('\n')}\n`;
}

function targetsText(targets: EvacuationPlan['targets']): string {
  if (targets === 'capacity') return 'to every other fabric, by capacity (peers weighted by their hosts)';
  return `to ${targets.map((t) => `${safe(t.fabric)} (weight ${t.weight})`).join(', ')}`;
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function iso(ms: number): string {
  return Number.isFinite(ms) && Math.abs(ms) <= 8.64e15 ? new Date(ms).toISOString() : String(ms);
}

/** ` (in 5m)` / ` (5m ago)` from `now`, or nothing without it. */
function ago(ms: number, now: number | undefined): string {
  if (now === undefined) return '';
  return ms >= now ? ` (in ${formatRemaining(ms - now)})` : ` (${formatRemaining(now - ms)} ago)`;
}

/** A weight as given, or rounded when the plan weighs by capacity (host counts may be fractional shares). */
function formatWeight(weight: number): string {
  return String(round(weight));
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** Left-aligned columns two spaces apart, indented by two; the last column is not padded. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => `  ${cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ')}`;
  return [line(header), ...rows.map(line)];
}
