// bench/console: the figures from the raw samples, each against its target (issue 24, item 1), and
// the table and results file. Pure but for the printing and writing at the end.
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';
import type { Parameters } from './parameters';

/** Issue 24, item 1's targets. */
export const TARGET = {
  firstPaintMs: 2000,
  fullyLoadedMs: 3000,
  changeP95Ms: 500,
  idleKiBPerS: 20,
  cpuPercent: 10,
} as const;

/** A figure and whether it met its target. */
export interface Judged {
  readonly value: number | null;
  readonly target: number | string;
  readonly met: boolean;
}

/** `value ≤ target`; a figure not measured (null) misses. */
export function atMost(value: number | null, target: number): Judged {
  return { value: value === null ? null : round(value), target, met: value !== null && value <= target };
}

/** A process's CPU time as `process.cpuUsage()` gives it, with when it was read (ms). */
export interface CpuReading {
  readonly userUs: number;
  readonly systemUs: number;
  readonly at: number;
}

/** CPU used between two readings as % of one core (100 = one core busy all the time). */
export function cpuPercent(before: CpuReading, after: CpuReading): number {
  const wallMs = after.at - before.at;
  if (wallMs <= 0) return 0;
  const cpuMs = (after.userUs - before.userUs + (after.systemUs - before.systemUs)) / 1000;
  return (cpuMs / wallMs) * 100;
}

/** Change → shown latencies: the measured ones, and how many page×change samples never showed. */
export interface ChangeSamples {
  /** One per page and change that showed, ms from the write going out. */
  readonly latenciesMs: readonly number[];
  /** Page×change samples that did not show within the timeout: counted at the timeout in the percentiles. */
  readonly missed: number;
  readonly timeoutMs: number;
}

/** p50/p95/max over every page×change sample, a missed one counted as the timeout. */
export function changeStats(s: ChangeSamples): { samples: number; missed: number; p50Ms: number; p95Ms: number; maxMs: number } {
  const all = [...s.latenciesMs, ...new Array<number>(s.missed).fill(s.timeoutMs)];
  return { samples: all.length, missed: s.missed, p50Ms: round(percentile(all, 50)), p95Ms: round(percentile(all, 95)), maxMs: round(all.length ? Math.max(...all) : 0) };
}

/** Everything one run measured, raw. */
export interface ConsoleMeasurements {
  readonly loads: readonly { readonly firstPaintMs: number | null; readonly fullyLoadedMs: number; readonly loadEventEndMs: number; readonly liveOkMs: number; readonly firstStateMs: number | null }[];
  readonly changes: ChangeSamples;
  readonly idle: { readonly seconds: number; readonly encodedBytes: number; readonly dataBytes: number; readonly eventSourceBytes: number; readonly eventSourceMessages: number };
  readonly cpu: { readonly pages: number; readonly seconds: number; readonly changes: number; readonly percent: number };
  readonly selection: { readonly clusters: number; readonly seconds: number; readonly changes: number; readonly selected: string; readonly after: string; readonly connected: boolean };
}

/** The median of the load samples (the run's loads, one page at a time). */
const median = (xs: readonly number[]): number | null => (xs.length ? percentile(xs, 50) : null);

/**
 * The judged figures. Loads: the median of the loads (each a fresh page alone). Idle bytes: the
 * bytes on the wire (`encodedDataLength`), or the decoded bytes where Chromium reported none.
 */
export function judge(m: ConsoleMeasurements) {
  const firstPaints = m.loads.flatMap((l) => (l.firstPaintMs === null ? [] : [l.firstPaintMs]));
  const idleBytes = m.idle.encodedBytes > 0 ? m.idle.encodedBytes : m.idle.dataBytes;
  const change = changeStats(m.changes);
  return {
    firstPaint: atMost(median(firstPaints), TARGET.firstPaintMs),
    fullyLoaded: atMost(median(m.loads.map((l) => l.fullyLoadedMs)), TARGET.fullyLoadedMs),
    changeP95: atMost(m.changes.latenciesMs.length || m.changes.missed ? change.p95Ms : null, TARGET.changeP95Ms),
    change,
    idleKiBPerS: atMost(idleBytes / 1024 / m.idle.seconds, TARGET.idleKiBPerS),
    cpuPercent: atMost(m.cpu.percent, TARGET.cpuPercent),
    selectionSurvives: { value: m.selection.selected !== '' && m.selection.after === m.selection.selected ? 1 : 0, target: 'survives', met: m.selection.selected !== '' && m.selection.after === m.selection.selected },
  };
}

const verdict = (j: { met: boolean }): string => (j.met ? 'MET' : 'MISSED');

/** Prints the table and writes bench/results/console.json. */
export function reportConsole(m: ConsoleMeasurements, p: Parameters, extra: { setupMs: Record<string, number>; elapsedMs: number }): void {
  const j = judge(m);
  const rows: Row[] = [
    { measurement: `first paint (FCP), ${p.services * 3} clusters, median of ${m.loads.length}`, value: j.firstPaint.value ?? 'none', unit: 'ms', target: `≤ ${TARGET.firstPaintMs}`, result: verdict(j.firstPaint) },
    { measurement: `fully loaded (load + stream + first state), median of ${m.loads.length}`, value: j.fullyLoaded.value ?? 'none', unit: 'ms', target: `≤ ${TARGET.fullyLoadedMs}`, result: verdict(j.fullyLoaded) },
    { measurement: `one change → card shows it, ${p.pages} pages × ${p.changes} changes: p50`, value: j.change.p50Ms, unit: 'ms', target: '', result: '' },
    { measurement: `one change → card shows it: p95 (${j.change.missed} of ${j.change.samples} missed)`, value: j.changeP95.value ?? 'none', unit: 'ms', target: `≤ ${TARGET.changeP95Ms}`, result: verdict(j.changeP95) },
    { measurement: `idle page, countdowns running, over ${m.idle.seconds} s`, value: j.idleKiBPerS.value ?? 'none', unit: 'KiB/s', target: `≤ ${TARGET.idleKiBPerS}`, result: verdict(j.idleKiBPerS) },
    { measurement: `console server CPU, ${m.cpu.pages} pages, a change every ${round(m.cpu.seconds / Math.max(1, m.cpu.changes), 1)} s for ${m.cpu.seconds} s`, value: j.cpuPercent.value ?? 'none', unit: '% of a core', target: `≤ ${TARGET.cpuPercent}`, result: verdict(j.cpuPercent) },
    { measurement: `text selection in a card survives ${m.selection.seconds} s, ${m.selection.clusters} clusters, ${m.selection.changes} changes`, value: j.selectionSurvives.met ? 'yes' : 'no', unit: '', target: 'yes', result: verdict(j.selectionSurvives) },
  ];
  printTable('console: the page at scale (issue 24, item 1)', rows);
  const loadRows: Row[] = m.loads.map((l, i) => ({ load: i + 1, firstPaintMs: l.firstPaintMs === null ? 'none' : round(l.firstPaintMs), loadEventEndMs: round(l.loadEventEndMs), liveOkMs: round(l.liveOkMs), firstStateMs: l.firstStateMs === null ? 'none' : round(l.firstStateMs), fullyLoadedMs: round(l.fullyLoadedMs) }));
  printTable('console: page loads (ms since navigation start)', loadRows);
  process.stdout.write(
    `idle: ${m.idle.encodedBytes} bytes on the wire (${m.idle.dataBytes} decoded; ${m.idle.eventSourceMessages} event-stream messages, ${m.idle.eventSourceBytes} bytes of data) in ${m.idle.seconds} s; ` +
      `selection: ${JSON.stringify(m.selection.selected)} → ${JSON.stringify(m.selection.after)}${m.selection.connected ? '' : ' (its node left the document)'}\n`,
  );
  writeResults('console', {
    parameters: { ...p },
    rows,
    summary: {
      firstPaintP50Ms: j.firstPaint.value,
      fullyLoadedP50Ms: j.fullyLoaded.value,
      changeP50Ms: j.change.p50Ms,
      changeP95Ms: j.change.p95Ms,
      idleKiBPerS: j.idleKiBPerS.value,
      serverCpuPercent: j.cpuPercent.value,
      selectionSurvives: j.selectionSurvives.met,
      met: { firstPaint: j.firstPaint.met, fullyLoaded: j.fullyLoaded.met, changeP95: j.changeP95.met, idle: j.idleKiBPerS.met, cpu: j.cpuPercent.met, selection: j.selectionSurvives.met },
    },
    targets: TARGET,
    loads: m.loads,
    changes: { ...j.change, latenciesMs: m.changes.latenciesMs.map((x) => round(x)) },
    idle: m.idle,
    cpu: m.cpu,
    selection: m.selection,
    setupMs: extra.setupMs,
    elapsedMs: extra.elapsedMs,
    note:
      'Chromium (playwright-core, /usr/bin/chromium, headless), each page in its own browser context (its own connections), ' +
      'against the console server alone in a child process (tsx; parameters.consoleRoot is the checkout whose console ran), ' +
      'reading a real ZooKeeper on the same machine. ' +
      'First paint: the Paint Timing entry first-contentful-paint. Fully loaded: the latest of the load event end, ' +
      '#live getting class ok (the event stream open) and the first DOM change after it that is not a countdown or #live ' +
      '(the page applying the state the stream brought; waited for 3 s). A change: the cluster document written with ' +
      'lib/d2 codec (failout set, or removed on a second pass), timed from the set going out until a MutationObserver in the ' +
      "page sees the card's badge carry the new data-state (DOM, before paint); the page clock offset measured per page. " +
      'Idle bytes: CDP Network.dataReceived encodedDataLength on one page, nothing written. CPU: the console process ' +
      'cpuUsage (user + system) over the window / wall time. Selection: a Range over a card .rid, compared as getSelection().toString().',
  });
}
