import fc from 'fast-check';
import { CSV_COLUMNS, csvCell, exportDisposition, historyCsv, historyJson, type HistoryJsonExport } from '../../../lib/console/history-export';
import type { RequestRecord } from '../../../lib/requests';
import { readCsv } from '../../helpers/csv';

// The history's exports (issue 24, item 5): RFC 4180 CSV whose cells a spreadsheet cannot run as
// formulas, JSON with the records as they are, and the file name the browser saves them under.

const NOW = Date.parse('2026-12-01T12:34:56.789Z');

function record(extra: Partial<RequestRecord> = {}): RequestRecord {
  return { requestId: '0194f3b2-0000-7000-8000-000000000001', status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: NOW, clusterVersion: 3, requestedBy: 'oncall@example.com', ...extra };
}

describe('a CSV cell', () => {
  it.each([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['=HYPERLINK("http://evil")', `"'=HYPERLINK(""http://evil"")"`],
    ['+1', "'+1"],
    ['-2+3', "'-2+3"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\t=TAB', '\\t=TAB'],
    ['x\u202Eevil', 'x\\u202eevil'],
    ['carriage\r\nreturn', '"carriage\\r\nreturn"'],
  ])('%j is written %j', (value, written) => {
    // Act + Assess
    expect(csvCell(value)).toBe(written);
  });

  it('reads back as the value (control characters as the page shows them), never starting a formula', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom('a', 'Z', ' ', ',', '"', '\n', '=', '+', '-', '@', '\u00e9', '1') }), (value) => {
        // Act
        const [[cell]] = readCsv(`${csvCell(value)}\r\n`) as [[string]];

        // Assess
        expect(cell.replace(/^'(?=[=+\-@])/, '')).toBe(value);
        expect(/^[=+\-@]/.test(cell)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });
});

describe('the CSV export', () => {
  it('has a header and one row per record, in order, each with every column', () => {
    // Prepare
    const records = [
      record({ requestReason: 'INC-1, "big" one\nsecond line' }),
      record({ requestId: 'r-2', status: 'rejected', reason: 'unknownPeer', message: '=cmd|calc', cluster: null, fabric: 'lor1', action: 'evacuate', forced: ['capacity', 'stranding'] }),
    ];

    // Act
    const rows = readCsv(historyCsv(records));

    // Assess
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows).toHaveLength(3);
    expect(rows.every((r) => r.length === CSV_COLUMNS.length)).toBe(true);
    const column = (row: string[], name: (typeof CSV_COLUMNS)[number]): string => row[CSV_COLUMNS.indexOf(name)]!;
    expect(column(rows[1]!, 'requestReason')).toBe('INC-1, "big" one\nsecond line');
    expect(column(rows[1]!, 'appliedAt')).toBe('2026-12-01T12:34:56.789Z');
    expect(column(rows[1]!, 'appliedAtMs')).toBe(String(NOW));
    expect(column(rows[2]!, 'message')).toBe("'=cmd|calc");
    expect(column(rows[2]!, 'fabric')).toBe('lor1');
    expect(column(rows[2]!, 'forced')).toBe('capacity stranding');
    expect(column(rows[2]!, 'rejection')).toBe('unknownPeer');
  });

  it('says when a restore removed an unreadable failout, with the error as text', () => {
    // Prepare
    const error = 'malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].peer must be a cluster name, but "=x\u202e"';
    const records = [record({ action: 'restore', unreadableFailout: error }), record()];

    // Act
    const rows = readCsv(historyCsv(records));

    // Assess
    const column = (row: string[]): string => row[CSV_COLUMNS.indexOf('unreadableFailout')]!;
    expect([column(rows[1]!), column(rows[2]!)]).toEqual([error.replace('\u202e', '\\u202e'), '']);
  });

  it('is only the header when nothing matches', () => {
    // Act + Assess
    expect(historyCsv([])).toBe(`${CSV_COLUMNS.join(',')}\r\n`);
  });
});

describe('the JSON export', () => {
  it('holds the records as they are, the filter and the counts', () => {
    // Prepare
    const records = [record({ requestReason: '</script><img src=x onerror=alert(1)>\u202E' })];

    // Act
    const body = JSON.parse(historyJson({ filter: 'cluster “lor1”', total: 7, matched: 1, records }, NOW)) as HistoryJsonExport;

    // Assess
    expect(body).toEqual({ exportedAt: '2026-12-01T12:34:56.789Z', filter: 'cluster “lor1”', total: 7, matched: 1, records });
  });
});

describe('the export file name', () => {
  it.each([['csv' as const], ['json' as const]])('is an attachment named by the time, .%s', (extension) => {
    // Act + Assess
    expect(exportDisposition(extension, NOW)).toBe(`attachment; filename="failout-history-20261201T123456Z.${extension}"`);
  });
});
