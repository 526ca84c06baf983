/**
 * The history's query (issue 24, item 5): what the page asks `GET /api/history` (and the exports) for,
 * parsed and checked at the boundary with zod, and answered from every request record the console
 * holds: which records match, how many, and one page of them. Pure: no HTTP, no ZooKeeper.
 *
 * Records are ordered newest first by `appliedAt`, then by request id (descending), which is total: a
 * record's id is its node name. Paging is by cursor (the last or first record a page showed, as
 * `<appliedAt>:<requestId>`), not by offset, so a page the operator reads stays the same page while
 * new records arrive on top of it.
 *
 * Filters (all optional, all combined with "and"):
 * - `cluster`: a case-insensitive substring of the cluster (for a fabric action: of the fabric), so
 *   `lor1` finds `greetings-lor1`;
 * - `by`: a case-insensitive substring of who asked;
 * - `outcome`: `applied` or `rejected`;
 * - `action`: one action name, as the records write it (`failout`, `restore`, …);
 * - `from`, `to`: a time range on `appliedAt` (see {@link parseTimeBound});
 * - `drill`: the records of one drill's runs (issue 24, item 7): the runner's request ids
 *   (`drill-<name>-<ms>`, lib/safety `drillRunId`) and their stopping restores (`…-stop`).
 */
import { z } from 'zod';
import type { RequestRecord } from '../requests';
import { drillRunId } from '../safety';

/** Records in one page of the history, and in the live first page every browser is sent. */
export const HISTORY_PAGE_SIZE = 100;

/** Most records one page may ask for. */
export const MAX_HISTORY_PAGE_SIZE = 500;

/** Longest filter text accepted (a cluster name is at most a znode name). */
const MAX_FILTER_TEXT = 256;

/** The outcomes a record can have (`duplicate` is never stored). */
export const HISTORY_OUTCOMES = ['applied', 'rejected'] as const;

/** A time bound as given (`from`/`to`): the instant it starts at and how long the unit it names lasts. */
interface TimeBound {
  readonly at: number;
  readonly unitMs: number;
}

/** What the records are filtered by; only the fields given filter. */
export interface HistoryFilter {
  readonly cluster?: string;
  readonly by?: string;
  readonly outcome?: (typeof HISTORY_OUTCOMES)[number];
  readonly action?: string;
  /** Epoch ms, inclusive. */
  readonly from?: number;
  /** Epoch ms, exclusive (the end of the minute, day … the operator wrote). */
  readonly toBefore?: number;
  /** A drill's name: only the records of its runs (see the module doc). */
  readonly drill?: string;
}

/** Where a page starts: the newest records, those older or newer than a cursor, or the oldest. */
export type HistoryPosition =
  | { readonly kind: 'newest' }
  | { readonly kind: 'before'; readonly cursor: HistoryCursor }
  | { readonly kind: 'after'; readonly cursor: HistoryCursor }
  | { readonly kind: 'oldest' };

/** A record's place in the order: its decision time and its id. */
export interface HistoryCursor {
  readonly appliedAt: number;
  readonly requestId: string;
}

/** A parsed `GET /api/history` query. */
export interface HistoryQuery {
  readonly filter: HistoryFilter;
  readonly position: HistoryPosition;
  /** Records per page, 0 … {@link MAX_HISTORY_PAGE_SIZE} (0: the counts alone). */
  readonly limit: number;
}

/** One page of the history and where it sits among the matching records. */
export interface HistoryPage {
  /** Every record the console holds. */
  readonly total: number;
  /** The records matching the filter. */
  readonly matched: number;
  /** The page's records, newest first. */
  readonly records: readonly RequestRecord[];
  /** 1-based position of the page's first record among the matching ones (0: the page is empty). */
  readonly first: number;
  /** The cursor for the page of newer records, null when this page holds the newest. */
  readonly newer: string | null;
  /** The cursor for the page of older records, null when this page holds the oldest. */
  readonly older: string | null;
}

/** A query that cannot be answered, and why (the page shows the message). */
export type HistoryQueryResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };

const text = z.string().trim().max(MAX_FILTER_TEXT);
const filterShape = {
  cluster: text.optional(),
  by: text.optional(),
  outcome: z.union([z.enum(HISTORY_OUTCOMES), z.literal('')]).optional(),
  // Any action name a record may carry; one this console does not know simply matches nothing.
  action: z.union([z.string().regex(/^[A-Za-z]{1,40}$/, 'an action is a name such as failout or restore'), z.literal('')]).optional(),
  from: text.optional(),
  to: text.optional(),
  drill: text.optional(),
};
/** The export's query: the filter alone (an export holds every matching record, never a page). */
const filterSchema = z.strictObject(filterShape);
const pageSchema = z.strictObject({
  ...filterShape,
  before: text.optional(),
  after: text.optional(),
  oldest: z.enum(['1']).optional(),
  limit: z.coerce.number().int().min(0).max(MAX_HISTORY_PAGE_SIZE).optional(),
});

/** The query string's values, as fastify parses them (a repeated key is an array). */
export type RawQuery = Readonly<Record<string, unknown>>;

/**
 * Parses the filter of an export (`/api/history.csv`, `.json`). Unknown parameters are refused, so a
 * misspelt one never silently exports everything.
 */
export function parseHistoryFilter(raw: RawQuery): HistoryQueryResult<HistoryFilter> {
  const parsed = filterSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: problemOf(parsed.error) };
  return toFilter(parsed.data);
}

/** Parses a page's query (`/api/history`): the filter, at most one of before/after/oldest, and the limit. */
export function parseHistoryQuery(raw: RawQuery): HistoryQueryResult<HistoryQuery> {
  const parsed = pageSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, message: problemOf(parsed.error) };
  const { before, after, oldest, limit, ...rest } = parsed.data;
  const filter = toFilter(rest);
  if (!filter.ok) return filter;
  const given = [before, after, oldest].filter((v) => v !== undefined && v !== '');
  if (given.length > 1) return { ok: false, message: 'give at most one of before, after and oldest' };
  let position: HistoryPosition = { kind: 'newest' };
  if (before !== undefined && before !== '') {
    const cursor = parseCursor(before);
    if (cursor === undefined) return { ok: false, message: `before: not a history cursor: ${before}` };
    position = { kind: 'before', cursor };
  } else if (after !== undefined && after !== '') {
    const cursor = parseCursor(after);
    if (cursor === undefined) return { ok: false, message: `after: not a history cursor: ${after}` };
    position = { kind: 'after', cursor };
  } else if (oldest !== undefined) position = { kind: 'oldest' };
  return { ok: true, value: { filter: filter.value, position, limit: limit ?? HISTORY_PAGE_SIZE } };
}

function toFilter(data: z.infer<typeof filterSchema>): HistoryQueryResult<HistoryFilter> {
  const from = data.from ? parseTimeBound(data.from) : undefined;
  if (from === null) return { ok: false, message: `from: not a time: ${data.from} (write 2026-12-01, 2026-12-01T10:00 or 2026-12-01T10:00:00Z)` };
  const to = data.to ? parseTimeBound(data.to) : undefined;
  if (to === null) return { ok: false, message: `to: not a time: ${data.to} (write 2026-12-01, 2026-12-01T10:00 or 2026-12-01T10:00:00Z)` };
  const toBefore = to === undefined ? undefined : to.at + to.unitMs;
  if (from !== undefined && toBefore !== undefined && from.at >= toBefore) return { ok: false, message: `the time range is empty: from ${data.from} is not before to ${data.to}` };
  const filter: { -readonly [K in keyof HistoryFilter]: HistoryFilter[K] } = {};
  if (data.cluster) filter.cluster = data.cluster;
  if (data.by) filter.by = data.by;
  if (data.outcome) filter.outcome = data.outcome;
  if (data.action) filter.action = data.action;
  if (data.drill) filter.drill = data.drill;
  if (from !== undefined) filter.from = from.at;
  if (toBefore !== undefined) filter.toBefore = toBefore;
  return { ok: true, value: filter };
}

function problemOf(error: z.ZodError): string {
  return error.issues.map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message)).join('; ');
}

const TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?(Z|[+-]\d{2}:\d{2})?$/;

/**
 * A time bound as the operator writes it: a date (`2026-12-01`), a minute (`2026-12-01T10:00`, what a
 * `datetime-local` input gives), a second, or milliseconds, with an optional zone (`Z`, `+01:00`); no
 * zone means UTC, as the history shows its times. Returns the instant it starts at and the length of
 * the unit it names (so `to 2026-12-01` takes the whole day, `to …T10:00` the whole minute), or null.
 */
export function parseTimeBound(value: string): TimeBound | null {
  const m = TIME.exec(value);
  if (m === null) return null;
  const [, y, mo, d, h, mi, s, ms, zone] = m;
  const at = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0), Number((ms ?? '0').padEnd(3, '0')));
  // Date.UTC rolls 2026-02-31 over to March: such a date is refused, not moved.
  const check = new Date(at);
  if (check.getUTCFullYear() !== Number(y) || check.getUTCMonth() !== Number(mo) - 1 || check.getUTCDate() !== Number(d) || Number(h ?? 0) > 23 || Number(mi ?? 0) > 59 || Number(s ?? 0) > 59) return null;
  const offset = zone === undefined || zone === 'Z' ? 0 : (zone.startsWith('-') ? -1 : 1) * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4, 6))) * 60_000;
  const unitMs = ms !== undefined ? 1 : s !== undefined ? 1000 : mi !== undefined ? 60_000 : 86_400_000;
  return { at: at - offset, unitMs };
}

/** `<appliedAt>:<requestId>`: the cursor of a record (the page puts it in the paging buttons). */
export function cursorOf(record: Pick<RequestRecord, 'appliedAt' | 'requestId'>): string {
  return `${record.appliedAt}:${record.requestId}`;
}

function parseCursor(value: string): HistoryCursor | undefined {
  const colon = value.indexOf(':');
  if (colon <= 0 || colon === value.length - 1) return undefined;
  const appliedAt = Number(value.slice(0, colon));
  return Number.isFinite(appliedAt) ? { appliedAt, requestId: value.slice(colon + 1) } : undefined;
}

/** The history's order: newest first, then by request id descending (total: ids are unique). */
export function newestFirst(a: HistoryCursor, b: HistoryCursor): number {
  return b.appliedAt - a.appliedAt || (a.requestId < b.requestId ? 1 : a.requestId > b.requestId ? -1 : 0);
}

/** True when `record` passes every filter given. */
export function matchesFilter(record: RequestRecord, filter: HistoryFilter): boolean {
  if (filter.outcome !== undefined && record.status !== filter.outcome) return false;
  if (filter.action !== undefined && record.action !== filter.action) return false;
  if (filter.from !== undefined && record.appliedAt < filter.from) return false;
  if (filter.toBefore !== undefined && record.appliedAt >= filter.toBefore) return false;
  if (filter.cluster !== undefined && !contains(record.cluster ?? record.fabric, filter.cluster)) return false;
  if (filter.by !== undefined && !contains(record.requestedBy, filter.by)) return false;
  if (filter.drill !== undefined && !isDrillRunRecord(record.requestId, filter.drill)) return false;
  return true;
}

/** A run time of today's length (13 digits): a name just short enough for `drill-<name>-0` may need the hash form. */
const RUN_ID_TIME = 1_000_000_000_000;

/**
 * True for the request id of one of `drill`'s runs or of a run's stopping restore: the runner's
 * `drill-<name>-<ms>` (its own function, so the two cannot drift) and `…-stop`. The prefix ends with
 * `-` and the rest is digits, so drill `weekly` never claims the runs of drill `weekly-lor1`.
 */
export function isDrillRunRecord(requestId: string, drill: string): boolean {
  const prefix = drillRunId(drill, RUN_ID_TIME).slice(0, -String(RUN_ID_TIME).length);
  return requestId.startsWith(prefix) && /^\d+(?:-stop)?$/.test(requestId.slice(prefix.length));
}

function contains(value: string | null | undefined, part: string): boolean {
  return value !== null && value !== undefined && value.toLowerCase().includes(part.toLowerCase());
}

/** Every record matching `filter`, in the order of `records` (the caller's, newest first). */
export function filterRecords(records: readonly RequestRecord[], filter: HistoryFilter): RequestRecord[] {
  return records.filter((record) => matchesFilter(record, filter));
}

/**
 * The page `query` asks for, from `records` newest first ({@link newestFirst}). A cursor need not be
 * a record that still exists (it may have been pruned): the page starts where it would have been.
 */
export function historyPage(records: readonly RequestRecord[], query: HistoryQuery): HistoryPage {
  const matching = filterRecords(records, query.filter);
  const n = matching.length;
  const limit = query.limit;
  // Index of the first record of the page among the matching ones.
  let start: number;
  switch (query.position.kind) {
    case 'newest':
      start = 0;
      break;
    case 'oldest':
      start = Math.max(0, n - limit);
      break;
    case 'before':
      start = firstAfter(matching, query.position.cursor);
      break;
    case 'after':
      // The `limit` records just newer than the cursor; fewer left: the newest page.
      start = Math.max(0, firstAfter(matching, query.position.cursor, true) - limit);
      break;
  }
  const page = matching.slice(start, start + limit);
  const end = start + page.length;
  return {
    total: records.length,
    matched: n,
    records: page,
    first: page.length === 0 ? 0 : start + 1,
    newer: start > 0 && page.length > 0 ? cursorOf(page[0]!) : null,
    older: end < n && page.length > 0 ? cursorOf(page[page.length - 1]!) : null,
  };
}

/**
 * Binary search in the matching records (newest first): the index of the first record older than the
 * cursor, or with `orSame`, of the first not newer than it (the cursor's own index when present).
 */
function firstAfter(matching: readonly RequestRecord[], cursor: HistoryCursor, orSame = false): number {
  let lo = 0;
  let hi = matching.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const order = newestFirst(cursor, matching[mid]!);
    if (order < 0 || (orSame && order === 0)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The filter in words, for the empty-state line and the summary (`cluster “lor1”, outcome rejected`); '' for none. */
export function describeFilter(filter: HistoryFilter): string {
  const parts: string[] = [];
  if (filter.cluster !== undefined) parts.push(`cluster “${filter.cluster}”`);
  if (filter.by !== undefined) parts.push(`requester “${filter.by}”`);
  if (filter.outcome !== undefined) parts.push(`outcome ${filter.outcome}`);
  if (filter.action !== undefined) parts.push(`action ${filter.action}`);
  if (filter.drill !== undefined) parts.push(`drill “${filter.drill}”`);
  if (filter.from !== undefined) parts.push(`from ${isoTime(filter.from)}`);
  if (filter.toBefore !== undefined) parts.push(`before ${isoTime(filter.toBefore)}`);
  return parts.join(', ');
}

function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}
