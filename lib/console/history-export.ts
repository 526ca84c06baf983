/**
 * The history's exports (issue 24, item 5): every record matching the page's filter, as CSV for a
 * spreadsheet and as JSON for a program, with the file name the browser saves them under.
 *
 * CSV follows RFC 4180: CRLF between records, a field quoted when it holds a quote, a comma, CR or LF,
 * its quotes doubled. A spreadsheet runs a cell that starts with `=`, `+`, `-`, `@` (or with a tab
 * or CR before one: those are escaped first, see below) as a formula, so such a cell from data gets a leading `'` (OWASP's "CSV
 * injection" advice): a reason of `=HYPERLINK(…)` reads as that text. Control and bidi characters
 * are shown as visible escapes (lib/text, as on the page and in the CLI), line breaks kept, so a
 * spreadsheet shows what the page shows.
 *
 * JSON is the records as ZooKeeper holds them (the request record's shape, lib/requests), with the
 * filter and the counts: a program gets the data exactly, JSON's own escaping keeps it inert.
 */
import type { RequestRecord } from '../requests';
import { escapeControlChars } from '../text';

/** The CSV's columns, in order: the history table's, with the times as ISO and as epoch ms. */
export const CSV_COLUMNS = ['appliedAt', 'appliedAtMs', 'action', 'cluster', 'fabric', 'requestedBy', 'requestReason', 'status', 'unchanged', 'forced', 'rejection', 'message', 'stoppedByAlarm', 'unreadableFailout', 'requestId'] as const;

// A leading tab or CR (which some spreadsheets strip before looking) is already a visible escape here.
const FORMULA_START = /^[=+\-@]/;

/** One CSV field: neutralised against formulas, control characters escaped, quoted when it must be. */
export function csvCell(value: string): string {
  let cell = escapeControlChars(value, { keepNewlines: true });
  if (FORMULA_START.test(cell)) cell = `'${cell}`;
  return /[",\r\n]/.test(cell) ? `"${cell.replace(/"/g, '""')}"` : cell;
}

/** The CSV row of one record, in {@link CSV_COLUMNS}' order. */
function csvFields(r: RequestRecord): string[] {
  return [
    new Date(r.appliedAt).toISOString(),
    String(r.appliedAt),
    r.action ?? '',
    r.cluster ?? '',
    r.fabric ?? '',
    r.requestedBy ?? '',
    r.requestReason ?? '',
    r.status,
    r.unchanged ? 'true' : '',
    r.forced === undefined ? '' : r.forced.join(' '),
    r.reason ?? '',
    r.message ?? '',
    r.stoppedByAlarm ?? '',
    r.unreadableFailout ?? '',
    r.requestId,
  ];
}

/** The records as one CSV text with a header row; `records` newest first, as the history shows them. */
export function historyCsv(records: readonly RequestRecord[]): string {
  const lines = [CSV_COLUMNS.join(','), ...records.map((r) => csvFields(r).map(csvCell).join(','))];
  return `${lines.join('\r\n')}\r\n`;
}

/** What the JSON export holds. */
export interface HistoryJsonExport {
  /** When the export was made (ISO). */
  readonly exportedAt: string;
  /** The filter in words ('' for none). */
  readonly filter: string;
  /** Every record the console holds, and how many matched. */
  readonly total: number;
  readonly matched: number;
  readonly records: readonly RequestRecord[];
}

/** The JSON export's text. */
export function historyJson(content: Omit<HistoryJsonExport, 'exportedAt'>, now: number): string {
  const body: HistoryJsonExport = { exportedAt: new Date(now).toISOString(), ...content };
  return `${JSON.stringify(body, null, 1)}\n`;
}

/** `attachment; filename="failout-history-20261201T120000Z.csv"`: the export's Content-Disposition. */
export function exportDisposition(extension: 'csv' | 'json', now: number): string {
  const stamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
  return `attachment; filename="failout-history-${stamp}.${extension}"`;
}
