/**
 * The console's HTML, rendered on the server from a {@link ConsoleSnapshot}: the whole page for the
 * first load (usable before any script runs), and the pieces the live updates send (issue 24): one
 * card, one service group's shell, one history row, and the small sections (status, control planes,
 * fabrics). live-state.ts keeps what each browser has and sends only what changed. Every value from
 * data goes through `html`, which escapes it: a reason of `<img src=x onerror=alert(1)>` reaches the
 * page as those characters.
 */
import type { ClusterStatus } from '../operator';
import type { RequestRecord } from '../requests';
import type { RatePoint } from '../metrics';
import { escapeControlChars, formatRemaining, hideUrlCredentials } from '../text';
import { FORCE_LABEL } from './diff';
import { html, join, SafeHtml } from './html';
import { countdown } from './countdown';
import { clockTime } from './clock-time';
import { renderRamp } from './ramp-view';
import { liveKey } from './card-patches';
import type { AlarmStatesView } from './alarms';
import { shownWindowIndexes, type ClusterCard, type ConsoleSnapshot, type ServiceGroup } from './snapshot';
import type { BridgeSource } from './sources';
import { renderFabricForm, renderFabrics } from './fabric-page';
import { NO_RECORDS_ROW, renderHistoryControls } from './history-view';
import { renderDrillConfirm } from './drill-page';
import { cardStates, clusterHref } from './cluster-filter';
import { renderFindForm } from './find-view';
import { renderTrail } from './outcome-trail';
import { DECIDED_HEADER, renderShortcuts, renderZoneSwitch } from './habits-view';
import { renderOwnHealth, renderPeersHealth, shownLegend } from './health-view';
import { HEALTH_WINDOW_MS } from './sources';

/** The sections of the whole state (the `sections` event replaces them all), by element id. */
export type SectionId = 'status' | 'clusters' | 'fabrics' | 'drills' | 'planes' | 'history-rows';

/** The small sections a `patch` event replaces whole when they change, by element id. */
export type SmallSectionId = 'status' | 'fabrics' | 'drills' | 'planes' | 'clusters-note';

const STATE_LABEL: Record<ClusterStatus['state'], string> = {
  'failed-out': 'FAILED OUT',
  scheduled: 'scheduled',
  ended: 'serving (failout ended)',
  serving: 'serving',
  malformed: 'malformed failout',
};


/** `1h 30m`, `45s`: as `failout status` says it (the same function). */
export const remaining: (ms: number) => string = formatRemaining;

/** The status banner: ZooKeeper and the queue, and what to do when either is out of reach. */
export function renderStatus(s: ConsoleSnapshot): SafeHtml {
  const zk = s.zk;
  const zkLine =
    zk.state === 'connected'
      ? html`<p class="ok" data-zk="connected">ZooKeeper ${zk.connect}: connected.</p>`
      : zk.state === 'connecting'
        ? html`<p class="warn" data-zk="connecting">Connecting to ZooKeeper at ${zk.connect}…</p>`
        : html`<p class="alert" role="alert" data-zk="${zk.state}"><strong>ZooKeeper at ${zk.connect} is not reachable</strong> (${zk.state}${zk.error ? html`: ${zk.error}` : ''}) since ${clockTime(zk.since)}.
            The clusters below are the last state seen${zk.state === 'unreachable' ? ' (none yet)' : ''}; the console reconnects by itself.
            Check ZK_CONNECT / --zk, the network or the ssh tunnel. Requests can still be sent: the worker checks them against ZooKeeper when they arrive.</p>`;
  const q = s.queue;
  // A queue URL may carry a proxy's user:password@: the page shows ***@ in its place.
  const queueUrl = q.url === undefined ? undefined : hideUrlCredentials(q.url);
  const queueLine =
    q.url === undefined
      ? html`<p class="warn" data-queue="none">No request queue configured: the page shows state but cannot act. Set FAILOUT_QUEUE_URL or pass --queue-url.</p>`
      : q.probe === undefined
        ? html`<p data-queue="unknown">Queue ${queueUrl}: checking…</p>`
        : q.probe.ok
          ? html`<p class="ok" data-queue="ok">Queue ${queueUrl}: reachable${q.probe.visible === undefined ? '' : html`, ${q.probe.visible} waiting, ${q.probe.inFlight ?? 0} in flight`}.</p>`
          : html`<p class="alert" role="alert" data-queue="unreachable"><strong>The request queue is not reachable</strong>: ${hideUrlCredentials(q.probe.message)}. Requests cannot be sent until it is;
              check FAILOUT_QUEUE_URL, SQS_ENDPOINT, AWS credentials and the network.</p>`;
  return html`${zkLine}${queueLine}${alarmSourceLine(s.alarms)}`;
}

/** One line on where the alarm states come from, or why the cards show none. */
function alarmSourceLine(view: AlarmStatesView): SafeHtml {
  switch (view.kind) {
    case 'off':
      return html`<p data-alarms="off">Alarm states: not configured (pass --alarms-url or --cloudwatch-alarms, or set FAILOUT_ALARMS_URL or FAILOUT_CONSOLE_CLOUDWATCH=1, to see them next to the stop alarms).</p>`;
    case 'waiting':
      return html`<p data-alarms="waiting">Alarm states from ${view.source}: read while a card shows stop alarms.</p>`;
    case 'read': {
      // By name: "3 in ALARM" alone sends the operator hunting through the cards (issue 24).
      const firing = [...view.states].filter(([, state]) => state === 'ALARM').map(([name]) => name);
      return html`<p class="ok" data-alarms="read">Alarm states from ${view.source}: ${view.states.size} read${
        firing.length > 0 ? html`, <strong class="alarm-state firing" data-firing="${firing.length}">${firing.length} in ALARM: ${firing.join(', ')}</strong>` : ''
      }.</p>`;
    }
    case 'unreachable':
      return html`<p class="alert" role="alert" data-alarms="unreachable"><strong>Alarm states could not be read</strong> from ${view.source}: ${view.error}.
        The stop alarms on the cards are shown without their states; the console tries again by itself.</p>`;
  }
}

/**
 * `forced: overrode capacity, stranding` for a request or window written with `force` (issue 21's
 * audit); `forced: nothing needed overriding` when force was given but every check passed. A name
 * this console does not know is shown as it is (escaped).
 */
export function forcedText(forced: readonly string[]): string {
  if (forced.length === 0) return 'forced: nothing needed overriding';
  return `forced: overrode ${forced.map((f) => FORCE_LABEL[f] ?? f).join(', ')}`;
}

/** A stop alarm's name and, when known, its state (ALARM marked `firing`). */
function alarmItem(name: string, view: AlarmStatesView): SafeHtml {
  const state = view.kind === 'read' ? view.states.get(name) : undefined;
  if (state === undefined) return html`${name}`;
  return html`${name} <span class="alarm-state${state === 'ALARM' ? ' firing' : ''}" data-alarm="${name}" data-alarm-state="${state}">${state}</span>`;
}

/**
 * One cluster's card (`article.card[data-cluster]`). Its text depends on `now` only at its windows'
 * boundaries (a start or an end: boundaries.ts `failoutBoundary`) and in the countdowns' texts, which
 * the page keeps current itself.
 */
export function renderCard(c: ClusterCard, home: boolean, now: number, alarms: AlarmStatesView): SafeHtml {
  const st = c.status;
  // Nothing read well yet: loading, unless the reads so far failed (then the alert below says why).
  const state = st?.state ?? (c.problem ? 'malformed' : 'loading');
  const label = st ? STATE_LABEL[st.state] : c.problem ? STATE_LABEL.malformed : 'loading…';
  const active = st?.windows.filter((w) => w.active) ?? [];
  // A ramp is one failout shown as one bar (renderRamp): its first window says when, by whom and why;
  // its steps' windows are not listed one by one.
  const indexes = shownWindowIndexes(st);
  const shown = (st?.ramp ? indexes.slice(0, 1) : indexes).map((i) => ({ w: st!.windows[i]!, safety: c.safety[i] }));
  const share = st?.ramp?.sharePct ?? active.reduce((sum, w) => Math.max(sum, w.sharePct), 0);
  const totalWeight = st?.peers.reduce((sum, p) => sum + p.weight, 0) ?? 0;
  const windows = shown.map(({ w, safety }) => {
    return html`<li class="window${w.active ? ' active' : ''}">
      <span class="when">${w.active ? 'active' : Date.parse(w.offlineAt) > now ? 'starts' : 'ended'}: ${clockTime(w.offlineAt)} → ${w.onlineAt === null ? 'until restored' : clockTime(w.onlineAt)}</span>
      ${w.active && w.onlineAt !== null ? html` <span class="left">(${countdown(w.onlineAt, now)} left)</span>` : ''}
      ${!w.active && Date.parse(w.offlineAt) > now ? html` <span class="left">(starts in ${countdown(w.offlineAt, now)})</span>` : ''}
      ${st?.ramp ? '' : html`<br>buckets ${w.buckets.from}–${w.buckets.to} (${w.sharePct}%)`}
      <br>by <span class="who">${w.requestedBy ?? 'unknown'}</span>${w.reason !== null ? html` — <span class="reason">${w.reason}</span>` : ''}
      ${w.requestId !== null ? html`<br><span class="rid">request ${w.requestId}</span>` : ''}
      ${safety && safety.stopAlarms.length > 0 ? html`<br>stops when an alarm fires: <span class="alarms">${join(safety.stopAlarms.map((name) => alarmItem(name, alarms)), ', ')}</span>` : ''}
      ${safety?.drill !== undefined ? html`<br><span class="drill">drill ${safety.drill}</span>` : ''}
    </li>`;
  });
  const canRestore = st?.state === 'failed-out' || st?.state === 'scheduled';
  // Once per card: every window of a failout comes from the same request (a failout replaces them all).
  const forced = [...new Set(shown.flatMap(({ safety }) => (safety?.forced === undefined ? [] : [forcedText(safety.forced)])))];
  // data-fabric and data-states: what the browser's filter reads (cluster-filter.ts, public/find.js).
  return html`<article class="card state-${state}" data-cluster="${c.name}" data-key="${liveKey(c.name)}" data-fabric="${c.fabric ?? ''}" data-states="${cardStates(c, alarms, now).join(' ')}" aria-labelledby="c-${c.name}">
    <h3 id="c-${c.name}"><a href="${clusterHref(c.name)}">${c.name}</a>${home ? html` <span class="tag">home</span>` : ''}</h3>
    <p><span class="badge" data-state="${state}">${label}</span> <span class="hosts">${c.hosts} host${c.hosts === 1 ? '' : 's'}</span>
      ${st && (st.state === 'failed-out' || st.state === 'scheduled') ? html` <span class="share" data-share="${share}">${share}% moved</span>` : ''}</p>
    ${c.health ? renderOwnHealth(c.health.service, c.health.own) : ''}
    ${c.trail ? renderTrail(c.trail, c.name) : ''}
    ${c.problem ? html`<p class="alert">${st ? 'Latest write unreadable (the last good state stays in effect)' : 'Unreadable (no good state read yet)'}: ${c.problem}</p>` : ''}
    ${st?.problem ? html`<p class="alert">${st.problem}</p>` : ''}
    ${windows.length > 0 ? html`<ul class="windows">${windows}</ul>` : ''}
    ${forced.length > 0 ? html`<p class="forced" data-forced="true">${forced.join('; ')}</p>` : ''}
    ${st?.ramp ? renderRamp(c.name, st.ramp, now) : ''}
    ${st && st.peers.length > 0 ? html`<p class="peers">peers: ${join(st.peers.map((p) => html`<span class="peer">${p.cluster} ×${p.weight} (${Math.round((p.weight / totalWeight) * 100)}%)</span>`), ', ')}</p>` : ''}
    ${c.health && c.health.peers.length > 0 ? renderPeersHealth(c.health.service, c.health.peers) : ''}
    <div class="actions">
      <button type="button" data-act="failout" data-cluster="${c.name}">Fail out…</button>
      ${canRestore ? html`<button type="button" data-act="extend" data-cluster="${c.name}">Extend…</button> <button type="button" data-act="amend" data-cluster="${c.name}">Stop alarms…</button> <button type="button" data-act="restore" data-cluster="${c.name}">Restore…</button>` : ''}
    </div>
  </article>`;
}

/** A group's key in the live updates (its `data-key`): its service's {@link liveKey}, or `''` for the clusters no service claims. */
export function groupKey(g: ServiceGroup): string {
  return g.service === undefined ? '' : liveKey(g.service);
}

/** Where a group's cards go: its shell ends with the (empty) card container. */
export const GROUP_SHELL_END = '</div></section>';

/** A service group without its cards: its heading and an empty `div.cards` ({@link withCards} fills it). */
export function renderGroupShell(g: ServiceGroup): SafeHtml {
  return html`<section class="group" data-service="${g.service ?? ''}" data-key="${groupKey(g)}"><h2>${g.service === undefined ? 'Other clusters' : html`Service ${g.service}`}${g.homeCluster !== undefined ? html` <small>(home cluster ${g.homeCluster})</small>` : ''}</h2><div class="cards">${new SafeHtml(GROUP_SHELL_END)}`;
}

/** A group's shell with its cards' HTML (each made by {@link renderCard}) inside. */
export function withCards(shell: string, cards: string): string {
  return shell.slice(0, -GROUP_SHELL_END.length) + cards + GROUP_SHELL_END;
}

/** What the clusters section says when there is no group, else nothing (`#clusters-note`). */
export function renderClustersNote(s: Pick<ConsoleSnapshot, 'groups' | 'zk'>): SafeHtml {
  if (s.groups.length > 0) return html``;
  return s.zk.state === 'connected' ? html`<p>No clusters under the D2 path yet.</p>` : html`<p class="warn">No cluster state yet: waiting for ZooKeeper.</p>`;
}

/** The clusters, grouped by service, after the note that says why there are none. */
export function renderClusters(s: ConsoleSnapshot): SafeHtml {
  const groups = s.groups.map((g) => withCards(renderGroupShell(g).text, join(g.clusters.map((c) => renderCard(c, c.name === g.homeCluster, s.now, s.alarms))).text));
  return new SafeHtml(clustersSection(renderClustersNote(s).text, groups));
}

/** The clusters section's HTML from its note and its groups' HTML. */
export function clustersSection(note: string, groups: readonly string[]): string {
  return `<div id="clusters-note">${note}</div>${groups.join('')}`;
}

function bridge(b: BridgeSource, now: number): SafeHtml {
  const st = b.status;
  const head = st
    ? html`<h3>${st.replicaId} <span class="badge" data-role="${st.role}">${st.role}</span>${st.ready === false ? html` <span class="badge warn">not ready</span>` : ''}</h3>`
    : html`<h3>${b.url}</h3>`;
  const error = b.error
    ? html`<p class="alert" role="alert">Bridge admin ${b.url} is not answering: ${b.error}${b.readAt > 0 ? html` (data below from ${remaining(now - b.readAt)} ago)` : ''}.</p>`
    : '';
  const authorities = (st?.authorities ?? []).map(
    (a) => html`<li>authority ${a.authority === '' ? '(top level)' : a.authority}: active control plane <strong>${a.activeServer ?? 'none'}</strong>
      ${a.fallbackActive ? html` <span class="badge alert" data-fallback="true">FALLBACK in use: the primary is not answering</span>` : ''}
      <ul>${a.servers.map((sv, i) => html`<li>${i === 0 ? 'primary' : `fallback ${i}`} ${sv.serverUri}: ${sv.state}${sv.lastError ? html` — ${sv.lastError}` : ''}</li>`)}</ul></li>`,
  );
  const resources =
    b.resources.length === 0
      ? ''
      : html`<details><summary>${b.resources.length} xDS resources</summary><table><thead><tr><th scope="col">type</th><th scope="col">name</th><th scope="col">version</th><th scope="col">status</th></tr></thead>
        <tbody>${b.resources.map((r) => html`<tr><td>${r.type}</td><td>${r.name}</td><td>${r.version}</td><td>${r.status}</td></tr>`)}</tbody></table></details>`;
  const meta = st ? html`<p>ZooKeeper ${st.zookeeper?.state ?? 'unknown'}${st.sync?.lagMs != null ? html`, sync lag ${Math.round(st.sync.lagMs)} ms` : ''} — admin ${b.url}</p>` : '';
  return html`<article class="card bridge" data-bridge="${st?.replicaId ?? b.url}">${head}${error}${meta}<ul>${authorities}</ul>${resources}</article>`;
}

/** Bridge replicas, leader, active control plane per authority, resources. */
export function renderPlanes(s: ConsoleSnapshot): SafeHtml {
  if (s.bridges.length === 0) return html`<p>No bridge admin URLs configured (--bridge-admin or FAILOUT_BRIDGE_ADMIN_URLS).</p>`;
  const leaders = s.bridges.filter((b) => b.status?.role === 'leader').length;
  const summary =
    leaders === 1
      ? html`<p class="ok">One leader among ${s.bridges.length} replicas.</p>`
      : html`<p class="alert" role="alert">${leaders === 0 ? 'No bridge replica leads' : `${leaders} replicas say they lead`}: D2 data is not being written.</p>`;
  return html`${summary}<div class="cards">${s.bridges.map((b) => bridge(b, s.now))}</div>`;
}

/**
 * One history row (`tr[data-request]`); the page's instant filter and its paging read its data attributes.
 * A restore that removed an unreadable failout says so with the codec's error, in the words of the CLI's
 * `formatRecord` (`failout request <id>`); the page's followed line reads that span (public/console.js).
 */
export function renderRecordRow(r: RequestRecord): SafeHtml {
  const outcome = r.status === 'applied' && r.unchanged ? 'applied (nothing to change)' : r.status;
  // A fabric action (evacuate, restoreFabric, a map change) names a fabric, not a cluster.
  const target = r.cluster ?? (r.fabric === undefined ? '?' : `fabric ${r.fabric}`);
  return html`<tr data-cluster="${r.cluster ?? ''}" data-fabric="${r.fabric ?? ''}" data-by="${r.requestedBy ?? ''}" data-outcome="${r.status}" data-action="${r.action ?? ''}" data-at="${r.appliedAt}" data-request="${r.requestId}">
    <td>${clockTime(r.appliedAt)}</td><td>${r.action ?? '?'}</td><td>${target}</td><td>${r.requestedBy ?? ''}</td><td class="why">${r.requestReason ?? ''}</td>
    <td class="outcome-${r.status}">${outcome}${r.forced !== undefined ? html`<br><span class="forced">${forcedText(r.forced)}</span>` : ''}${r.unreadableFailout !== undefined ? html`<br><span class="unreadable">removed an unreadable failout (${r.unreadableFailout})</span>` : ''}</td><td class="rejection">${r.reason ? html`<span class="reason">${r.reason}</span>${r.message ? html` — ${r.message}` : ''}` : ''}</td><td class="rid">${r.requestId}</td></tr>`;
}

export { NO_RECORDS_ROW };

/** The history's rows, newest first. */
export function renderHistoryRows(s: ConsoleSnapshot): SafeHtml {
  if (s.records.length === 0) return NO_RECORDS_ROW;
  return join(s.records.map(renderRecordRow));
}

/** Every live section, rendered once per change for all browsers. */
export function renderSections(s: ConsoleSnapshot): Record<SectionId, string> {
  return {
    status: renderStatus(s).text,
    clusters: renderClusters(s).text,
    fabrics: renderFabrics(s.fabrics, s.now, s.zk.state === 'connected').text,
    // The drills are not in the snapshot: the server renders them (drill-page.ts) into the live state.
    drills: '',
    planes: renderPlanes(s).text,
    'history-rows': renderHistoryRows(s).text,
  };
}

/**
 * A traffic point for the page's script, which shows its target names as text (the chart's legend):
 * control characters as visible escapes, as everywhere else on the page.
 */
export function shownPoint(point: RatePoint): RatePoint {
  return { ...point, rates: Object.fromEntries(Object.entries(point.rates).map(([target, rate]) => [escapeControlChars(target), rate])) };
}

/** JSON inside a `<script type="application/json">`: `<` escaped so no `</script>` can close it. */
export function jsonForScript(value: unknown): SafeHtml {
  return new SafeHtml(JSON.stringify(value).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029'));
}

/** Options the whole page needs besides the snapshot. */
export interface PageContext {
  readonly csrfToken: string;
  /** Default `requestedBy` of the forms (the operator; `$FAILOUT_USER` or user@host). */
  readonly requester: string;
}

/** The live sections as the server holds them (live-state.ts), and the version the page starts from. */
export interface LivePage {
  readonly sections: Readonly<Record<SectionId, string>>;
  /** The version of the live state these sections are: the page's event stream starts after it. */
  readonly version: string;
}

/**
 * The whole page. With `live`, its live sections are those (what the event stream's patches follow
 * on from); without, they are rendered from the snapshot.
 */
export function renderPage(s: ConsoleSnapshot, context: PageContext, live?: LivePage): string {
  const clusterNames = s.groups.flatMap((g) => g.clusters.map((c) => c.name));
  const sections = live === undefined ? renderSections(s) : live.sections;
  const section = (id: SectionId): SafeHtml => new SafeHtml(sections[id]);
  const page = html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${context.csrfToken}">${live === undefined ? '' : html`<meta name="console-version" content="${live.version}">`}
<title>failout console</title>
<link rel="stylesheet" href="/static/uplot/uPlot.min.css"><link rel="stylesheet" href="/static/console.css">
<script src="/static/uplot/uPlot.iife.min.js" defer></script><script src="/static/time.js" defer></script><script src="/static/history.js" defer></script><script src="/static/health.js" defer></script><script src="/static/console.js" defer></script><script src="/static/fabrics.js" defer></script><script src="/static/shortcuts.js" defer></script>
</head><body>
<a class="skip" href="#act">Skip to the request form</a>
<header><h1>failout console</h1><nav aria-label="sections"><a href="#clusters-h">Clusters</a> <a href="#fabrics-h">Fabrics</a> <a href="#drills-h">Drills</a> <a href="#traffic-h">Traffic</a> <a href="#act">Act</a> <a href="#history-h">History</a> <a href="#planes-h">Control planes</a> <a href="#keys-h">Shortcuts</a></nav>
${renderZoneSwitch()}
<p id="live" class="live" role="status" aria-live="polite">Live updates: connecting…</p></header>
<main>
<section id="status" aria-label="connections">${section('status')}</section>
<h2 id="clusters-h">Clusters</h2>
${renderFindForm(s.fabrics.fabrics.map((f) => f.name))}<script src="/static/find.js" defer></script><script src="/static/trail.js" defer></script>
<div id="clusters">${section('clusters')}</div>
<section aria-labelledby="fabrics-h"><h2 id="fabrics-h">Fabrics</h2>
<div id="fabrics">${section('fabrics')}</div>
${renderFabricForm(s.fabrics.fabrics.map((f) => f.name), context.requester)}
</section>
<section aria-labelledby="drills-h"><h2 id="drills-h">Drills</h2>
<div id="drills">${section('drills')}</div>
${renderDrillConfirm()}<script src="/static/drills.js" defer></script>
</section>
<h2 id="traffic-h">Traffic: requests per second by target cluster</h2>
<div id="traffic">${s.traffic.length === 0 ? html`<p>No service metrics configured (--metrics service=URL or FAILOUT_METRICS_URLS).</p>` : ''}
${s.traffic.map(
  (t) => html`<figure class="chart" data-service="${t.service}"><figcaption>${t.service}${t.source === 'redirected' ? ' (moved traffic only: requests redirected by FailoutClient, by peer)' : ''}</figcaption>
  <div class="plot" aria-hidden="true"></div><table class="legend"><caption>Latest requests/s by target cluster, and each target's health over the last ${HEALTH_WINDOW_MS / 1000} s</caption>
  <thead><tr><th scope="col">target</th><th scope="col">req/s</th><th scope="col">health: req/s, errors, p99</th></tr></thead><tbody></tbody></table>
  <p class="source-error" role="status">${t.error ?? ''}</p></figure>`,
)}</div>
<script type="application/json" id="initial-traffic">${jsonForScript(s.traffic.map((t) => ({ service: escapeControlChars(t.service), points: t.points.map(shownPoint), health: shownLegend(s.trafficHealth?.get(t.service) ?? {}) })))}</script>
<section id="act" aria-labelledby="act-h"><h2 id="act-h">Act</h2>
<form id="action-form" novalidate>
<fieldset><legend>Request</legend>
<label>Action <select name="action" id="f-action"><option value="failout">fail out</option><option value="extend">extend</option><option value="restore">restore</option><option value="rampHold">hold the ramp</option><option value="rampResume">resume the ramp</option><option value="rampAdvance">next ramp step now</option><option value="amend">change stop alarms</option></select></label>
<label>Cluster <input name="cluster" id="f-cluster" list="cluster-names" required autocomplete="off"></label>
<datalist id="cluster-names">${clusterNames.map((n) => html`<option value="${n}"></option>`)}</datalist>
<label data-for="failout">Peers <input name="peers" id="f-peers" placeholder="greetings-lva1:2, greetings-ltx1" autocomplete="off"></label>
<label data-for="failout extend">For <input name="for" id="f-for" placeholder="2h, 90m, PT2H" autocomplete="off"></label>
<label data-for="failout extend">or until <input name="until" id="f-until" placeholder="2026-11-30T18:00:00Z, +2h" autocomplete="off"></label>
<label data-for="failout">Start at <input name="at" id="f-at" placeholder="now (default), +15m" autocomplete="off"></label>
<label data-for="failout">Share % <input name="share" id="f-share" inputmode="numeric" placeholder="100" autocomplete="off"></label>
<label data-for="failout">or buckets <input name="buckets" id="f-buckets" placeholder="0-49" autocomplete="off"></label>
<label data-for="failout">Ramp <input name="ramp" id="f-ramp" placeholder="10%:5m,50%:10m,100%" autocomplete="off"></label>
<label data-for="failout amend">Stop alarms <input name="stopAlarms" id="f-alarms" placeholder="greetings-5xx, greetings-p99" autocomplete="off"></label>
<label data-for="amend">Remove stop alarms <input name="removeStopAlarms" id="f-remove-alarms" placeholder="greetings-p99" autocomplete="off"></label>
<label>Reason <input name="reason" id="f-reason" placeholder="INC-4711" autocomplete="off"></label>
<label>By <input name="by" id="f-by" value="${context.requester}" autocomplete="off"></label>
<label data-for="failout extend rampHold rampResume rampAdvance amend" class="check"><input type="checkbox" name="force" id="f-force"> force: override the peer-state checks, the capacity guard and the stranding check (recorded)</label>
</fieldset>
<button type="submit" id="check">Check</button>
</form>
<div id="judgement" role="region" aria-live="polite" aria-label="check result" hidden>
<p id="judgement-head"></p>
<div id="judgement-diff" hidden><p>What it changes against the cluster's failout now:</p><ul id="judgement-changes"></ul></div>
<pre id="judgement-text"></pre>
<button type="button" id="confirm" hidden>Confirm and send</button> <button type="button" id="cancel">Cancel</button>
</div>
<ul id="followed" aria-live="polite" aria-label="sent requests"></ul>
</section>
<section aria-labelledby="history-h"><h2 id="history-h">History</h2>
${renderHistoryControls([...new Set(s.records.flatMap((r) => (r.action === null ? [] : [r.action])))].sort())}
<div class="scroll"><table id="history"><thead><tr>${DECIDED_HEADER}<th scope="col">action</th><th scope="col">cluster</th><th scope="col">by</th><th scope="col">why</th><th scope="col">outcome</th><th scope="col">rejection</th><th scope="col">request id</th></tr></thead>
<tbody id="history-rows">${section('history-rows')}</tbody></table></div>
</section>
<section aria-labelledby="planes-h"><h2 id="planes-h">Control planes</h2><div id="planes">${section('planes')}</div></section>
${renderShortcuts()}
</main></body></html>`;
  return page.text;
}
