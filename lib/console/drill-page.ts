/**
 * The drills section of the console's page (issue 24, item 7), rendered on the server like every other
 * section (page.ts) and swapped in live by the `patch` events: one card per drill (drill-view.ts) with
 * its target, schedule in words and as written, the next run (a countdown the page keeps, from the
 * absolute time), blocked dates and windows, alarms, the last outcome and the alarms that blocked or
 * stopped it, its history, and a "Run now" button. The run-now confirmation is part of the page, not of
 * the live section (an update must not wipe what the operator is reading before Confirm). Every value
 * from data goes through `html`, which escapes it.
 */
import { html, type SafeHtml } from './html';
import { countdown } from './countdown';
import { clockTime, withClockTimes } from './clock-time';
import { DECIDED_HEADER } from './habits-view';
import type { RequestRecord } from '../requests';
import { buildDrillsView, earliestNextRun, type DrillRow, type DrillsView, type HistoryLine, type NextRun, type OutcomeLine } from './drill-view';
import type { DrillEntry } from './drill-watch';



function duration(ms: number): string {
  return ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 1000)} s`;
}

function nextRunHtml(next: NextRun, now: number): SafeHtml {
  if (next.kind === 'none') return html`<span class="next-run" data-next="none">not scheduled: ${next.why}</span>`;
  const passed = next.passedOver.length === 0 ? '' : html`<br><span class="passed-over">passed over: ${next.passedOver.map((p, i) => html`${i > 0 ? '; ' : ''}${clockTime(p.at)} (${p.why})`)}</span>`;
  return html`<span class="next-run" data-next="${next.at}">${clockTime(next.at)}, in ${countdown(next.at, now)}</span>${passed}`;
}

function outcomeHtml(line: OutcomeLine | undefined): SafeHtml {
  if (line === undefined) return html`<span class="outcome" data-status="none">no runs yet</span>`;
  const alarms = line.alarms.length === 0 ? '' : html` <span class="outcome-alarms" data-alarms="${line.alarms.join(' ')}">alarm: ${line.alarms.join(', ')}</span>`;
  return html`<span class="outcome outcome-${line.status}" data-status="${line.status}" data-run="${line.runId}">${line.status.toUpperCase()}</span> at ${clockTime(line.at)}${line.text === '' ? '' : html` — ${withClockTimes(line.text)}`}${alarms}`;
}

function historyRow(line: HistoryLine): SafeHtml {
  const outcome = line.outcome === null ? '—' : line.outcome;
  return html`<tr data-request="${line.requestId}"><td>${clockTime(line.at)}</td><td>${line.action ?? '—'}</td><td class="outcome-${line.outcome ?? 'none'}">${outcome}${line.rejection === undefined ? '' : html`<br>${line.rejection}`}</td><td>${line.run === undefined ? '—' : outcomeHtml(line.run)}</td><td class="rid">${line.requestId}</td></tr>`;
}

function historyHtml(row: DrillRow): SafeHtml {
  if (row.history.length === 0) return html`<p class="history-empty">No runs yet.</p>`;
  const more = row.historyCount > row.history.length ? html`<p>The newest ${row.history.length} of ${row.historyCount}; the history below filters by drill as well.</p>` : '';
  return html`<details class="drill-history" data-drill="${row.name}"><summary>History: ${row.historyCount} run${row.historyCount === 1 ? '' : 's'} and records</summary>${more}
<div class="scroll"><table><caption>Runs of drill ${row.name}, newest first</caption><thead><tr>${DECIDED_HEADER}<th scope="col">action</th><th scope="col">record</th><th scope="col">run</th><th scope="col">request id</th></tr></thead><tbody>${row.history.map(historyRow)}</tbody></table></div></details>`;
}

function list(values: readonly string[]): string {
  return values.length === 0 ? 'none' : values.join(', ');
}

/** One drill's card. */
export function renderDrillCard(row: DrillRow, now: number, connected: boolean): SafeHtml {
  const kind = row.target.kind === 'fabric' ? 'drain test' : 'cluster drill';
  const disabled = connected ? '' : html` disabled title="ZooKeeper is out of reach"`;
  return html`<article class="card drill" data-drill="${row.name}" data-target-kind="${row.target.kind}" data-target="${row.target.name}" data-enabled="${row.enabled}">
<h3>${row.name} <span class="tag">${kind}</span></h3>
<dl>
<dt>Target</dt><dd class="target">${row.target.kind === 'fabric' ? 'fabric' : 'cluster'} ${row.target.name}: ${row.target.moves}, for ${duration(row.durationMs)}</dd>
<dt>Schedule</dt><dd class="schedule">${row.scheduleWords} <code>${row.every}</code></dd>
<dt>Next run</dt><dd>${nextRunHtml(row.next, now)}</dd>
<dt>Enabled</dt><dd class="enabled">${row.enabled ? 'yes: the runner runs it when due' : 'no: it has no time to run'}</dd>
<dt>Blocked dates</dt><dd class="blocked-dates">${list(row.blockedDates)}</dd>
<dt>Blocked windows</dt><dd class="blocked-windows">${list(row.blockedWindows)} (UTC)</dd>
<dt>Alarms</dt><dd class="alarms">outcome ${row.outcomeAlarm}; blocking ${list(row.blockingAlarms)}</dd>
<dt>Last outcome</dt><dd class="last">${outcomeHtml(row.last)}</dd>
</dl>
<p><button type="button" data-drill-run="${row.name}"${disabled}>Run now</button> <span class="cli">CLI: <code>failout drill run-now ${row.name}</code></span></p>
${historyHtml(row)}
</article>`;
}

/** The live drills section: every drill's card, and the drill nodes that do not decode. */
export function renderDrills(view: DrillsView, now: number, connected: boolean): SafeHtml {
  const problems = view.problems.length === 0 ? '' : html`<ul class="problems">${view.problems.map((p) => html`<li data-drill="${p.name}">drill ${p.name} cannot be read: ${p.problem}${p.lastGoodShown ? ' (shown as last read)' : ''}</li>`)}</ul>`;
  if (view.rows.length === 0) return html`<p class="empty">No drills (define one with <code>failout drill put &lt;name&gt; …</code>).</p>${problems}`;
  return html`<div class="cards">${view.rows.map((row) => renderDrillCard(row, now, connected))}</div>${problems}`;
}

/** The run-now confirmation (part of the page, not of the live section): what will be sent, Confirm, Cancel. */
export function renderDrillConfirm(): SafeHtml {
  return html`<div id="drill-confirm" role="region" aria-live="polite" aria-label="drill run check" hidden>
<p id="dc-head"></p>
<p id="dc-what">This exact request will be sent to the queue:</p>
<pre id="dc-body"></pre>
<button type="button" id="dc-confirm" hidden>Confirm and send</button> <button type="button" id="dc-cancel">Cancel</button>
</div>
<ul id="drill-followed" aria-live="polite" aria-label="drill runs sent"></ul>`;
}

/**
 * The drills section as the server renders it (server.ts): its HTML, and the earliest next run, when it
 * must be rendered again on the clock alone (a run came due: its countdown is over, the next time shows).
 */
export function drillsSection(entries: readonly DrillEntry[], records: readonly RequestRecord[], now: number, connected: boolean): { readonly html: string; readonly nextRun: number } {
  const view = buildDrillsView(entries, records, now);
  return { html: renderDrills(view, now, connected).text, nextRun: earliestNextRun(view) };
}
