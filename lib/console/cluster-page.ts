/**
 * A cluster's own page (issue 24, item 2): `GET /clusters/<name>` (the name percent-encoded, as every
 * card links it: cluster-filter.ts `clusterHref`) shows the cluster's failout (its card: windows,
 * shares, peers), its peers with their hosts and states, its stop alarms with their states, its
 * hosts, and its own history: the records of exactly this cluster (history-query.ts's filter, then
 * the whole name), the newest {@link CLUSTER_HISTORY_ROWS}. A name the console does not know, or that
 * is no cluster name, gets a 404 page in the console's style.
 *
 * Read-only and served from what the console already holds (its ZooKeeper view through watches, the
 * alarm poller's states): no read of its own, however many browsers ask. The server's `onRequest` hook
 * (server.ts) applies its Host and access-token rules, its CSP and its headers here as on every route.
 * Everything from data goes through `html` (escaped by construction).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { clusterNameProblem } from '../d2/data';
import type { RequestRecord } from '../requests';
import type { AlarmStatesView } from './alarms';
import { clusterHref } from './cluster-filter';
import { filterRecords } from './history-query';
import { DECIDED_HEADER, renderZoneSwitch } from './habits-view';
import { html, join, type SafeHtml } from './html';
import { renderCard, renderRecordRow } from './page';
import { shownWindowIndexes, type ClusterCard, type ServiceGroup } from './snapshot';

/** Most history rows the page shows (the console's history pages through the rest). */
export const CLUSTER_HISTORY_ROWS = 100;

/** What the page is made of: the console's state now. */
export interface ClusterPageState {
  readonly now: number;
  readonly groups: readonly ServiceGroup[];
  readonly alarms: AlarmStatesView;
  /** Every record held, newest first. */
  readonly records: readonly RequestRecord[];
  /** Whether the console's ZooKeeper view is connected (a 404 while it is not may be a cluster not read yet). */
  readonly connected: boolean;
}

/** The page, or the 404 page, for `name` (decoded). */
export function clusterPage(name: string, state: ClusterPageState): { readonly status: 200 | 404; readonly html: string } {
  const groups = state.groups;
  const card = groups.flatMap((g) => g.clusters).find((c) => c.name === name);
  if (card === undefined) return { status: 404, html: notFound(name, state.connected) };
  const home = groups.some((g) => g.homeCluster === name);
  const service = groups.find((g) => g.homeCluster === name)?.service ?? groups.find((g) => g.clusters.includes(card))?.service;
  const body = html`<main>
<section aria-labelledby="failout-h"><h2 id="failout-h">Failout</h2><div class="cards">${renderCard(card, home, state.now, state.alarms)}</div></section>
<section aria-labelledby="peers-h"><h2 id="peers-h">Peers</h2>${peersTable(card, groups)}</section>
<section aria-labelledby="alarms-h"><h2 id="alarms-h">Stop alarms</h2>${alarmList(card, state.alarms)}</section>
<section aria-labelledby="hosts-h"><h2 id="hosts-h">Hosts</h2><p data-hosts="${card.hosts}">${card.hosts} host${card.hosts === 1 ? '' : 's'} announced (the children of its URI node).</p></section>
<section aria-labelledby="history-h"><h2 id="history-h">History</h2>${history(name, state.records)}</section>
</main>`;
  return { status: 200, html: shell(name, html`Cluster ${name}${service === undefined ? '' : html` <small>(service ${service})</small>`}`, body) };
}

/** The peers of its failout: weight, share, their hosts and state, each linked to its own page. */
function peersTable(card: ClusterCard, groups: readonly ServiceGroup[]): SafeHtml {
  const peers = card.status?.peers ?? [];
  if (peers.length === 0) return html`<p>No failout names peers.</p>`;
  const total = peers.reduce((sum, p) => sum + p.weight, 0);
  const cards = new Map(groups.flatMap((g) => g.clusters).map((c) => [c.name, c]));
  const rows = peers.map((p) => {
    const peer = cards.get(p.cluster);
    return html`<tr data-peer="${p.cluster}"><th scope="row">${peer === undefined ? p.cluster : html`<a href="${clusterHref(p.cluster)}">${p.cluster}</a>`}</th><td>×${p.weight} (${total > 0 ? Math.round((p.weight / total) * 100) : 0}%)</td>
<td>${peer === undefined ? 'not in ZooKeeper' : `${peer.hosts} host${peer.hosts === 1 ? '' : 's'}`}</td><td>${peer?.status?.state ?? 'unknown'}</td></tr>`;
  });
  return html`<div class="scroll"><table class="detail"><thead><tr><th scope="col">peer</th><th scope="col">weight</th><th scope="col">hosts</th><th scope="col">state</th></tr></thead><tbody>${rows}</tbody></table></div>`;
}

/** The stop alarms of the windows it shows, each with its state when the alarm source gave one. */
function alarmList(card: ClusterCard, alarms: AlarmStatesView): SafeHtml {
  const names = [...new Set(shownWindowIndexes(card.status).flatMap((i) => card.safety[i]?.stopAlarms ?? []))];
  if (names.length === 0) return html`<p>No stop alarm.</p>`;
  const stateOf = (name: string): string | undefined => (alarms.kind === 'read' ? alarms.states.get(name) : undefined);
  return html`<ul class="alarm-list">${names.map((name) => {
    const state = stateOf(name);
    return html`<li data-alarm-name="${name}">${name} ${state === undefined ? html`<span class="alarm-state">${alarms.kind === 'off' ? 'state not configured' : 'state unknown'}</span>` : html`<span class="alarm-state${state === 'ALARM' ? ' firing' : ''}" data-alarm-state="${state}">${state}</span>`}</li>`;
  })}</ul>`;
}

/** The records of exactly this cluster, newest first. */
function history(name: string, records: readonly RequestRecord[]): SafeHtml {
  // history-query.ts's filter takes a substring (`lor1` finds `greetings-lor1`); this page is one cluster's.
  const own = filterRecords(records, { cluster: name }).filter((r) => r.cluster === name);
  if (own.length === 0) return html`<p class="empty-state">No request records for this cluster.</p>`;
  const shown = own.slice(0, CLUSTER_HISTORY_ROWS);
  return html`<p id="cluster-history-count">${own.length === shown.length ? `${own.length} record${own.length === 1 ? '' : 's'}.` : `The newest ${shown.length} of ${own.length} records.`}</p>
<div class="scroll"><table id="history"><thead><tr>${DECIDED_HEADER}<th scope="col">action</th><th scope="col">cluster</th><th scope="col">by</th><th scope="col">why</th><th scope="col">outcome</th><th scope="col">rejection</th><th scope="col">request id</th></tr></thead>
<tbody>${join(shown.map(renderRecordRow))}</tbody></table></div>`;
}

function notFound(name: string, connected: boolean): string {
  const problem = clusterNameProblem(name);
  const why = problem !== undefined ? html`“${name}” is not a cluster name: it ${problem}.` : html`The console knows no cluster “${name}”${connected ? '' : ' (ZooKeeper is not connected: it may not have been read yet)'}.`;
  return shell('not found', html`No such cluster`, html`<main id="not-found"><p class="warn" role="alert">${why}</p><p><a href="/">All clusters</a></p></main>`);
}

/** The page around a body: the console's stylesheet, a header that leads back to the console. */
function shell(title: string, heading: SafeHtml, body: SafeHtml): string {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · failout console</title><link rel="stylesheet" href="/static/console.css"><script src="/static/time.js" defer></script><script src="/static/trail.js" defer></script>
</head><body class="cluster-page">
<header><p class="crumb"><a href="/">failout console</a></p><h1>${heading}</h1>${title === 'not found' ? '' : html`<nav aria-label="sections"><a href="#failout-h">Failout</a> <a href="#peers-h">Peers</a> <a href="#alarms-h">Stop alarms</a> <a href="#hosts-h">Hosts</a> <a href="#history-h">History</a></nav>${renderZoneSwitch()}`}</header>
${body}
</body></html>`.text;
}

/** Registers `GET /clusters/:name`; `state` gives the console's state now. */
export function registerClusterPage(app: FastifyInstance, state: () => ClusterPageState): void {
  app.get('/clusters/:name', async (request: FastifyRequest<{ Params: { name: string } }>, reply) => {
    const page = clusterPage(request.params.name, state());
    return reply.code(page.status).type('text/html; charset=utf-8').send(page.html);
  });
}
