/**
 * The find form above the cluster cards (issue 24, item 2): service and cluster substrings, a state
 * and a fabric, the line that counts the clusters shown and the line that says none matched.
 * public/find.js fills it from the URL, filters the cards in the browser and writes the URL back.
 * Everything from data goes through `html` (escaped by construction).
 */
import { CLUSTER_STATES, STATE_WORDS } from './cluster-filter';
import { html, type SafeHtml } from './html';

/** The form; `fabrics`: the fabrics known now (find.js adds any a card names later). */
export function renderFindForm(fabrics: readonly string[]): SafeHtml {
  return html`<form id="find" class="filters" role="search" aria-label="find clusters">
<label>Service <input name="service" id="q-service" autocomplete="off" placeholder="greetings"></label>
<label>Cluster <input name="cluster" id="q-cluster" autocomplete="off" placeholder="lor1"></label>
<label>State <select name="state" id="q-state"><option value="">any</option>${CLUSTER_STATES.map((s) => html`<option value="${s}">${STATE_WORDS[s]}</option>`)}</select></label>
<label>Fabric <select name="fabric" id="q-fabric"><option value="">any</option>${fabrics.map((f) => html`<option value="${f}">${f}</option>`)}</select></label>
<button type="reset" id="q-clear">Clear</button>
</form>
<p id="find-count" role="status" aria-live="polite"></p>
<p id="find-empty" class="empty-state" hidden></p>`;
}
