/**
 * The history section's own markup (issue 24, item 5): the filter form, the paging buttons, the
 * export links, the line that counts the records and the line that says nothing matched. Rows are
 * page.ts's `renderRecordRow`, the same for the live first page and for a query's pages. Everything
 * from data goes through `html` (escaped by construction).
 */
import { html, type SafeHtml } from './html';
import { describeFilter, HISTORY_OUTCOMES, type HistoryFilter, type HistoryPage } from './history-query';

const count = (n: number): string => n.toLocaleString('en-US');

/** The row the history shows while there is no record at all (key `''` in the live updates: no request id is empty). */
export const NO_RECORDS_ROW = html`<tr class="empty"><td colspan="8">No request records yet.</td></tr>`;

/**
 * The filters, paging and export controls above the history table. `actions`: the actions the records
 * hold now (the page's script adds any that come later, from the query's answers).
 */
export function renderHistoryControls(actions: readonly string[]): SafeHtml {
  return html`<form id="history-filters" class="filters" role="search" aria-label="filter the history">
<label>Cluster <input name="cluster" id="h-cluster" list="cluster-names" autocomplete="off" placeholder="lor1"></label>
<label>Requester <input name="by" id="h-by" autocomplete="off"></label>
<label>Outcome <select name="outcome" id="h-outcome"><option value="">any</option>${HISTORY_OUTCOMES.map((o) => html`<option value="${o}">${o}</option>`)}</select></label>
<label>Action <select name="action" id="h-action"><option value="">any</option>${actions.map((a) => html`<option value="${a}">${a}</option>`)}</select></label>
<label>From (UTC) <input name="from" id="h-from" type="datetime-local"></label>
<label>To (UTC) <input name="to" id="h-to" type="datetime-local"></label>
</form>
<div class="history-bar"><p id="history-summary" role="status" aria-live="polite"></p>
<nav class="pager" aria-label="history pages"><button type="button" id="h-newest" disabled>Newest</button> <button type="button" id="h-newer" disabled>Newer</button> <button type="button" id="h-older" disabled>Older</button> <button type="button" id="h-oldest" disabled>Oldest</button></nav>
<p class="exports">Export the records shown by the filter: <a id="h-csv" href="/api/history.csv" download>CSV</a> <a id="h-json" href="/api/history.json" download>JSON</a></p></div>`;
}

/** `Records 101–200 of 1,667 matching cluster “lor1” (5,000 in all).`: where a query's page sits. */
export function renderHistorySummary(page: HistoryPage, filter: HistoryFilter): SafeHtml {
  const words = describeFilter(filter);
  const last = page.first + page.records.length - 1;
  if (page.records.length === 0) return html`${words === '' ? `${count(page.total)} records.` : `0 of ${count(page.total)} records match ${words}.`}`;
  return html`Records ${count(page.first)}–${count(last)} of ${count(page.matched)}${words === '' ? '' : ` matching ${words}`}${words === '' ? '' : ` (${count(page.total)} in all)`}.`;
}

/** The row that says no record matches, naming the filter (or that there is none at all). */
export function renderNoMatchRow(page: HistoryPage, filter: HistoryFilter): SafeHtml {
  const words = describeFilter(filter);
  if (page.total === 0) return NO_RECORDS_ROW;
  if (words === '') return html`<tr class="empty"><td colspan="8">No records on this page.</td></tr>`;
  return html`<tr class="empty"><td colspan="8">No records match ${words}.</td></tr>`;
}
