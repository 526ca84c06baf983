/**
 * The fabric section of the console's page (issue 23, item 6), rendered on the server like every other
 * section (page.ts) and swapped in live: the fabrics × services table (each cell a service's cluster in
 * a fabric, its hosts and state, and the fabric's share of the service's traffic), one card per fabric
 * with its open evacuation (request id, stage, when the next stage starts, a countdown to the end: the
 * page counts down from the absolute times it is sent) and its buttons, and what the derivation could
 * not place. Also the evacuate form, which is part of the page, not of the live section (an update must
 * not wipe what the operator is typing). Every value from data goes through `html`, which escapes it.
 */
import type { evacuation } from '../operator';
import { html, join, type SafeHtml } from './html';
import { countdown } from './countdown';
import { liveKey, type KeyedItem } from './card-patches';
import { clockTime } from './clock-time';
import type { FabricCell, FabricCellState, FabricColumn, FabricServiceRow, FabricTable } from './fabric-view';

const CELL_LABEL: Record<FabricCellState, string> = {
  serving: 'serving',
  'failed-out': 'FAILED OUT',
  evacuated: 'EVACUATED',
  scheduled: 'failout scheduled',
  malformed: 'malformed failout',
  loading: 'loading…',
};

const PHASE_LABEL: Record<evacuation.EvacuationPhase, string> = {
  scheduled: 'scheduled',
  moving: 'moving out',
  out: 'out',
  restoring: 'returning, last stage first',
  ended: 'ended',
};


/** `42%`, `<1%` for a share above 0 that rounds to 0. */
function percent(share: number): string {
  const pct = Math.round(share * 100);
  return pct === 0 && share > 0 ? '<1%' : `${pct}%`;
}

function cellItem(cell: FabricCell): SafeHtml {
  const moved = cell.movedPct !== undefined && cell.movedPct < 100 ? html` <span class="moved">(${cell.movedPct}% moved)</span>` : '';
  const rate = cell.rate === undefined ? '' : html` <span class="rate">${cell.rate.toFixed(1)} req/s</span>`;
  return html`<li data-cluster="${cell.cluster}" data-state="${cell.state}"><span class="cluster-name">${cell.cluster}</span>
    <span class="hosts">${cell.hosts} host${cell.hosts === 1 ? '' : 's'}</span> <span class="badge" data-state="${cell.state}">${CELL_LABEL[cell.state]}</span>${moved}${rate}</li>`;
}

function cell(row: FabricServiceRow, fabric: FabricColumn, index: number): SafeHtml {
  const cells = row.cells[index] ?? [];
  if (cells.length === 0) return html`<td class="none" data-fabric="${fabric.name}">—</td>`;
  const share = row.shares[index];
  const shareText = share === undefined ? '' : html`<p class="share" data-share="${share.toFixed(4)}">${percent(share)} of the traffic${row.shareBy === 'hosts' ? ' (by hosts)' : ''}</p>`;
  return html`<td data-fabric="${fabric.name}"><ul>${cells.map(cellItem)}</ul>${shareText}</td>`;
}

/** The stage an evacuation is at: `stage 2 of 3 (midtier)`, the name left out when it is just `stage 2`. */
function stageText(summary: evacuation.EvacuationSummary): string {
  const s = summary.stage;
  if (s === undefined) return summary.phase === 'scheduled' ? 'not started' : '';
  return `stage ${s.number} of ${s.of}${s.name === `stage ${s.number}` ? '' : ` (${s.name})`}`;
}

function evacuationBlock(summary: evacuation.EvacuationSummary, now: number): SafeHtml {
  const stage = stageText(summary);
  return html`<div class="evacuation" data-request="${summary.requestId}" data-phase="${summary.phase}">
    <p><span class="badge alert">EVACUATION</span> <span class="stage">${stage}${stage === '' ? '' : ', '}${PHASE_LABEL[summary.phase]}</span></p>
    <p>request <span class="rid">${summary.requestId}</span>${summary.requestedBy === undefined ? '' : html` by <span class="who">${summary.requestedBy}</span>`}${summary.reason === undefined ? '' : html` — <span class="reason">${summary.reason}</span>`}</p>
    ${summary.phase === 'scheduled' ? html`<p class="starts">starts ${clockTime(summary.offlineAt)} (in ${countdown(summary.offlineAt, now)})</p>` : ''}
    ${summary.nextStageAt !== undefined && summary.phase !== 'scheduled' ? html`<p class="next-stage">next stage starts ${clockTime(summary.nextStageAt)} (in ${countdown(summary.nextStageAt, now)})</p>` : ''}
    <p class="ends">ends ${clockTime(summary.onlineAt)} (${countdown(summary.onlineAt, now)} left); ${summary.clusters} cluster${summary.clusters === 1 ? '' : 's'}</p>
  </div>`;
}

function lastEvacuation(summary: evacuation.EvacuationSummary, now: number): SafeHtml {
  const how = summary.status === 'stopped' ? `stopped${summary.stoppedByAlarm === undefined ? '' : ` by alarm ${summary.stoppedByAlarm}`}` : summary.status === 'restored' ? 'restored' : 'ended';
  // A restore brings the stages home a restore gap apart: until the last is back, its clusters still send traffic away.
  const returning = summary.backAt === undefined ? '' : html` <span class="returning">Its stages still coming home, the last stage first: all back ${clockTime(summary.backAt)} (in ${countdown(summary.backAt, now)}).</span>`;
  return html`<p class="last-evacuation" data-request="${summary.requestId}" data-status="${summary.status}">Last evacuation <span class="rid">${summary.requestId}</span>: ${how}${summary.endedAt === undefined ? html` at ${clockTime(summary.onlineAt)}` : html` at ${clockTime(summary.endedAt)}`}${summary.endedBy === undefined ? '' : html` by <span class="who">${summary.endedBy}</span>`}.${returning}</p>`;
}

function fabricCard(fabric: FabricColumn, now: number): SafeHtml {
  return html`<article class="card fabric${fabric.evacuation ? ' evacuating' : ''}" data-fabric="${fabric.name}" data-key="${liveKey(fabric.name)}">
    <h3>Fabric ${fabric.name}</h3>
    <p>${fabric.clusters} cluster${fabric.clusters === 1 ? '' : 's'}, ${fabric.hosts} host${fabric.hosts === 1 ? '' : 's'}${fabric.movedOut > 0 ? html`; <strong>${fabric.movedOut} moved out</strong>` : ''}</p>
    ${fabric.evacuation ? evacuationBlock(fabric.evacuation, now) : ''}
    ${fabric.lastEvacuation ? lastEvacuation(fabric.lastEvacuation, now) : ''}
    <div class="actions">
      ${fabric.evacuation
        ? html`<button type="button" data-fabric-act="restoreFabric" data-fabric="${fabric.name}">Restore…</button>`
        : html`<button type="button" data-fabric-act="evacuate" data-fabric="${fabric.name}">Evacuate…</button>`}
    </div>
  </article>`;
}

/** What the derivation could not place, said once each. */
function problems(table: FabricTable): SafeHtml {
  const lines: SafeHtml[] = [];
  if (table.unassigned.length > 0) lines.push(html`<li>In no fabric (no rule and no map places them): ${join(table.unassigned.map((c) => html`<span class="cluster-name">${c}</span>`), ', ')}</li>`);
  for (const b of table.brokenMaps) lines.push(html`<li class="alert">The map of fabric <span class="fabric-name">${b.fabric}</span> does not decode (its clusters follow the rule): ${b.problem}</li>`);
  for (const e of table.unreadableEvacuations) {
    lines.push(html`<li class="alert">The evacuation node of fabric <span class="fabric-name">${e.fabric}</span> does not decode: ${e.problem}. ${e.lastGoodShown ? 'Shown as last read; the' : 'The'} worker treats it as open (it may still move traffic); a restore of the fabric removes it.</li>`);
  }
  for (const c of table.conflicts) lines.push(html`<li class="warn">Cluster <span class="cluster-name">${c.cluster}</span> is in the maps of ${c.fabrics.join(', ')}: kept in ${c.kept}</li>`);
  for (const m of table.missing) lines.push(html`<li>The map of fabric <span class="fabric-name">${m.fabric}</span> names <span class="cluster-name">${m.cluster}</span>, which D2 does not have</li>`);
  return lines.length === 0 ? html`` : html`<ul class="fabric-problems">${lines}</ul>`;
}

/**
 * The live fabric section in pieces (issue 24 item 1): the table's rows (`tr[data-key]` in
 * `#fabric-table > tbody`) and the fabric cards (`article.card.fabric[data-key]` in `div.fabric-cards`),
 * each keyed by {@link liveKey} of its service or fabric, so a change patches only the pieces that
 * changed; and the frame around them (the shares' source, the table's head, what could not be
 * placed), which is sent whole when it changes. {@link joinFabricPieces} makes the section of them.
 */
export interface FabricPieces {
  /** Everything before the first row (the whole section when there is no table). */
  readonly head: string;
  readonly rows: readonly KeyedItem[];
  /** Between the last row and the first card. */
  readonly middle: string;
  readonly cards: readonly KeyedItem[];
  /** After the last card. */
  readonly tail: string;
}

/** The section's HTML from its pieces. */
export function joinFabricPieces(pieces: FabricPieces): string {
  return `${pieces.head}${pieces.rows.map((r) => r.html).join('')}${pieces.middle}${pieces.cards.map((c) => c.html).join('')}${pieces.tail}`;
}

/**
 * Each service row's HTML, made again only for a row object not seen before (fabric-view.ts's
 * {@link FabricTables} keeps an unchanged row the same object) or when the fabrics (the columns) changed.
 */
export class FabricRowHtml {
  private columns = '';
  private byRow = new WeakMap<FabricServiceRow, SafeHtml>();

  /** The row's `<tr>` under `fabrics`' columns. */
  html(row: FabricServiceRow, fabrics: readonly FabricColumn[]): SafeHtml {
    const columns = fabrics.map((f) => f.name).join('\u0000');
    if (columns !== this.columns) {
      this.columns = columns;
      this.byRow = new WeakMap();
    }
    let text = this.byRow.get(row);
    if (text === undefined) this.byRow.set(row, (text = serviceRowHtml(row, fabrics)));
    return text;
  }
}

function serviceRowHtml(row: FabricServiceRow, fabrics: readonly FabricColumn[]): SafeHtml {
  return html`<tr data-service="${row.service}" data-key="${liveKey(row.service)}"><th scope="row">${row.service}</th>${fabrics.map((f, i) => cell(row, f, i))}</tr>`;
}

/** The live fabric section. */
export function renderFabrics(table: FabricTable, now: number, connected: boolean): SafeHtml {
  const p = safePieces(table, now, connected, new FabricRowHtml());
  return html`${p.head}${p.rows.map((r) => r.html)}${p.middle}${p.cards.map((c) => c.html)}${p.tail}`;
}

/** The live fabric section in pieces; `rows` reuses the HTML of unchanged rows. */
export function fabricPieces(table: FabricTable, now: number, connected: boolean, rows: FabricRowHtml): FabricPieces {
  const p = safePieces(table, now, connected, rows);
  const text = (items: readonly { readonly id: string; readonly html: SafeHtml }[]): KeyedItem[] => items.map((i) => ({ id: i.id, html: i.html.text }));
  return { head: p.head.text, rows: text(p.rows), middle: p.middle.text, cards: text(p.cards), tail: p.tail.text };
}

/** {@link FabricPieces} as safe HTML. */
function safePieces(table: FabricTable, now: number, connected: boolean, rows: FabricRowHtml) {
  const none: { readonly id: string; readonly html: SafeHtml }[] = [];
  if (table.fabrics.length === 0) {
    const head = html`${connected ? html`<p>No fabrics: no cluster is named <code>&lt;service&gt;-&lt;fabric&gt;</code> and no fabric map exists.</p>` : html`<p class="warn">No fabric state yet: waiting for ZooKeeper.</p>`}${problems(table)}`;
    return { head, rows: none, middle: html``, cards: none, tail: html`` };
  }
  const byHosts = table.services.some((s) => s.shareBy !== 'rates');
  const source =
    table.ratesSource === undefined
      ? html`<p class="note" data-share-source="hosts">No request rates (no service metrics configured, or a scrape is missing or stale): shares are each fabric's share of the service's hosts, not of its traffic.</p>`
      : html`<p class="note" data-share-source="rates">Shares of each service's traffic from request rates by target cluster (${table.ratesSource})${byHosts ? '; a service without rates is shared by hosts' : ''}.</p>`;
  return {
    head: html`${source}
  <div class="scroll"><table class="fabrics" id="fabric-table">
    <caption>Fabrics × services: each service's cluster in each fabric, its hosts and state, and the share of the service's traffic it serves</caption>
    <thead><tr><th scope="col">service</th>${table.fabrics.map((f) => html`<th scope="col" data-fabric="${f.name}">${f.name}${f.evacuation ? html` <span class="badge alert">evacuating</span>` : ''}</th>`)}</tr></thead>
    <tbody>`,
    rows: table.services.map((row) => ({ id: liveKey(row.service), html: rows.html(row, table.fabrics) })),
    middle: html`</tbody>
  </table></div>
  <div class="cards fabric-cards">`,
    cards: table.fabrics.map((f) => ({ id: liveKey(f.name), html: fabricCard(f, now) })),
    tail: html`</div>
  ${problems(table)}`,
  };
}

/** The evacuate / restore form and its result box (static: the live section never replaces it). */
export function renderFabricForm(fabricNames: readonly string[], requester: string): SafeHtml {
  return html`<section id="fabric-act" aria-labelledby="fabric-act-h"><h3 id="fabric-act-h">Evacuate or restore a fabric</h3>
<form id="fabric-form" novalidate>
<fieldset><legend>Fabric request</legend>
<label>Action <select name="action" id="e-action"><option value="evacuate">evacuate</option><option value="restoreFabric">restore (end its evacuation)</option></select></label>
<label>Fabric <input name="fabric" id="e-fabric" list="fabric-names" required autocomplete="off"></label>
<datalist id="fabric-names">${fabricNames.map((n) => html`<option value="${n}"></option>`)}</datalist>
<label data-for="evacuate">Targets <input name="to" id="e-to" placeholder="lva1:2, ltx1 (empty: all, by capacity)" autocomplete="off"></label>
<label data-for="evacuate">For <input name="for" id="e-for" placeholder="2h, 90m, PT2H" autocomplete="off"></label>
<label data-for="evacuate">or until <input name="until" id="e-until" placeholder="2026-11-30T18:00:00Z, +2h" autocomplete="off"></label>
<label data-for="evacuate">Stages (tiers) <input name="stages" id="e-stages" placeholder="frontend, midtier, storage" autocomplete="off"></label>
<label data-for="evacuate">or stages of clusters <input name="stageClusters" id="e-stage-clusters" placeholder="greetings-lor1; hello-lor1, legacy-a" autocomplete="off"></label>
<label data-for="evacuate">Gate alarms <input name="gateAlarms" id="e-gates" placeholder="frontend=fe-5xx, 2=hello-5xx" autocomplete="off"></label>
<label data-for="evacuate">Stop alarms <input name="stopAlarms" id="e-alarms" placeholder="lor1-evac-errors" autocomplete="off"></label>
<label data-for="evacuate">Exclude services <input name="exclude" id="e-exclude" placeholder="legacy-batch" autocomplete="off"></label>
<label>Reason <input name="reason" id="e-reason" placeholder="INC-4711" autocomplete="off"></label>
<label>By <input name="by" id="e-by" value="${requester}" autocomplete="off"></label>
<label data-for="evacuate" class="check"><input type="checkbox" name="force" id="e-force"> force: override the capacity guard, the peer-state checks and stranding, for the whole plan (recorded)</label>
</fieldset>
<button type="submit" id="e-check">Check</button>
</form>
<div id="fabric-judgement" role="region" aria-live="polite" aria-label="fabric check result" hidden>
<p id="fj-head"></p>
<div id="fj-plan" hidden>
<p id="fj-summary"></p>
<h4>Stages</h4><ol id="fj-stages"></ol>
<h4>Clusters and where their traffic goes</h4>
<div class="scroll"><table id="fj-clusters"><thead><tr><th scope="col">cluster</th><th scope="col">service</th><th scope="col">stage</th><th scope="col">hosts</th><th scope="col">peers (weight)</th></tr></thead><tbody></tbody></table></div>
<h4 id="fj-receivers-h">Receiving clusters: projected load per host, × their own load</h4>
<div class="scroll"><table id="fj-receivers"><thead><tr><th scope="col">cluster</th><th scope="col">fabric</th><th scope="col">service</th><th scope="col">hosts</th><th scope="col">before</th><th scope="col">after</th></tr></thead><tbody></tbody></table></div>
</div>
<ul id="fj-notes"></ul>
<details id="fj-details"><summary>As the CLI prints it</summary><pre id="fj-text"></pre></details>
<button type="button" id="e-confirm" hidden>Confirm and send</button> <button type="button" id="e-cancel">Cancel</button>
</div>
<ul id="fabric-followed" aria-live="polite" aria-label="sent fabric requests"></ul>
</section>`;
}
