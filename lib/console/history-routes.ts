/**
 * The history's read-only endpoints (issue 24, item 5), answered by the server from every record the
 * console holds, so a browser gets one page, never all 5,000 rows:
 * - `GET /api/history?cluster=&by=&outcome=&action=&from=&to=&before=|after=|oldest=1&limit=` one page
 *   as JSON: `{total, matched, first, count, newer, older, rows, summary, actions}`; `rows` and
 *   `summary` are HTML rendered here (escaped by construction, page.ts and history-view.ts), `newer` and
 *   `older` the cursors of the next pages (null at either end), `actions` every action the records hold.
 * - `GET /api/history.csv?<filter>` and `GET /api/history.json?<filter>`: every matching record, as a
 *   download (history-export.ts).
 * A query that does not parse gets 400 `{kind: 'invalid', message}`. They change nothing, so they need
 * no CSRF token; the server's `onRequest` hook (server.ts) applies its Host and access-token rules and
 * security headers to them as to every route.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { RequestRecord } from '../requests';
import { exportDisposition, historyCsv, historyJson } from './history-export';
import { describeFilter, filterRecords, historyPage, parseHistoryFilter, parseHistoryQuery, type RawQuery } from './history-query';
import { renderHistorySummary, renderNoMatchRow } from './history-view';
import { renderRecordRow } from './page';

/** The answer of `GET /api/history`. */
export interface HistoryAnswer {
  readonly total: number;
  readonly matched: number;
  /** 1-based position of the first row among the matching records (0: none). */
  readonly first: number;
  /** Rows in this page. */
  readonly count: number;
  readonly newer: string | null;
  readonly older: string | null;
  /** The rows' HTML (`tr[data-request]`), or the row saying nothing matches. */
  readonly rows: string;
  /** The line saying where the page sits (HTML). */
  readonly summary: string;
  /** Every action the records hold, sorted (the filter's choices). */
  readonly actions: readonly string[];
}

/** Registers the history's routes on `app`; `records` gives every record held, newest first. */
export function registerHistoryRoutes(app: FastifyInstance, records: () => readonly RequestRecord[]): void {
  app.get('/api/history', async (request: FastifyRequest<{ Querystring: RawQuery }>, reply) => {
    const query = parseHistoryQuery(request.query);
    if (!query.ok) return invalid(reply, query.message);
    const all = records();
    const page = historyPage(all, query.value);
    const rows = page.records.length === 0 ? renderNoMatchRow(page, query.value.filter).text : page.records.map((r) => renderRecordRow(r).text).join('');
    const answer: HistoryAnswer = {
      total: page.total,
      matched: page.matched,
      first: page.first,
      count: page.records.length,
      newer: page.newer,
      older: page.older,
      rows,
      summary: renderHistorySummary(page, query.value.filter).text,
      actions: actionsOf(all),
    };
    return reply.type('application/json; charset=utf-8').send(answer);
  });
  app.get('/api/history.csv', async (request: FastifyRequest<{ Querystring: RawQuery }>, reply) => {
    const filter = parseHistoryFilter(request.query);
    if (!filter.ok) return invalid(reply, filter.message);
    return download(reply, 'csv', historyCsv(filterRecords(records(), filter.value)));
  });
  app.get('/api/history.json', async (request: FastifyRequest<{ Querystring: RawQuery }>, reply) => {
    const filter = parseHistoryFilter(request.query);
    if (!filter.ok) return invalid(reply, filter.message);
    const all = records();
    const matching = filterRecords(all, filter.value);
    return download(reply, 'json', historyJson({ filter: describeFilter(filter.value), total: all.length, matched: matching.length, records: matching }, Date.now()));
  });
}

function invalid(reply: FastifyReply, message: string): FastifyReply {
  return reply.code(400).type('application/json; charset=utf-8').send({ kind: 'invalid', message });
}

function download(reply: FastifyReply, extension: 'csv' | 'json', body: string): FastifyReply {
  const type = extension === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8';
  return reply.type(type).header('content-disposition', exportDisposition(extension, Date.now())).send(body);
}

function actionsOf(records: readonly RequestRecord[]): string[] {
  const actions = new Set<string>();
  for (const r of records) if (r.action !== null) actions.add(r.action);
  return [...actions].sort();
}
