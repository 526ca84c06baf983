import fc from 'fast-check';
import { cursorOf, describeFilter, filterRecords, historyPage, HISTORY_PAGE_SIZE, newestFirst, parseHistoryFilter, parseHistoryQuery, parseTimeBound, type HistoryQuery } from '../../../lib/console/history-query';
import type { RequestRecord } from '../../../lib/requests';

// The history's query (issue 24, item 5): parsed and checked at the boundary, filters by substring,
// outcome, action and time range, and cursor paging that reaches every record exactly once.

const T0 = Date.parse('2026-12-01T00:00:00Z');
const MIN = 60_000;

function record(i: number, extra: Partial<RequestRecord> = {}): RequestRecord {
  return { requestId: `r-${String(i).padStart(5, '0')}`, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: T0 + i * MIN, clusterVersion: 1, requestedBy: 'oncall@example.com', ...extra };
}

const newest = (records: RequestRecord[]): RequestRecord[] => [...records].sort(newestFirst);

function parsed(raw: Record<string, string>): HistoryQuery {
  const result = parseHistoryQuery(raw);
  if (!result.ok) throw new Error(result.message);
  return result.value;
}

describe('parsing the history query', () => {
  it('takes an empty query as the newest page of everything', () => {
    // Act
    const query = parsed({});

    // Assess
    expect(query).toEqual({ filter: {}, position: { kind: 'newest' }, limit: HISTORY_PAGE_SIZE });
  });

  it('drops empty fields (a form sends every field) and trims the text ones', () => {
    // Act
    const query = parsed({ cluster: '  lor1 ', by: '', outcome: '', action: '', from: '', to: '' });

    // Assess
    expect(query.filter).toEqual({ cluster: 'lor1' });
  });

  it.each([
    [{ outcome: 'duplicate' }, 'outcome'],
    [{ action: 'fail out!' }, 'action'],
    [{ limit: '501' }, 'limit'],
    [{ limit: '-1' }, 'limit'],
    [{ colour: 'red' }, 'colour'],
    [{ from: 'yesterday' }, 'from: not a time'],
    [{ to: '2026-02-31' }, 'to: not a time'],
    [{ from: '2026-12-02', to: '2026-12-01' }, 'the time range is empty'],
    [{ before: 'nonsense' }, 'before: not a history cursor'],
    [{ before: `${T0}:r-1`, oldest: '1' }, 'at most one of'],
    [{ cluster: 'x'.repeat(300) }, 'cluster'],
  ])('refuses %j, saying what is wrong (%s)', (raw, words) => {
    // Act
    const result = parseHistoryQuery(raw);

    // Assess
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.message).toContain(words);
  });

  it('refuses paging parameters in an export filter: an export holds every matching record', () => {
    // Act
    const result = parseHistoryFilter({ cluster: 'lor1', before: `${T0}:r-1` });

    // Assess
    expect(result.ok).toBe(false);
  });

  it.each([
    ['2026-12-01', T0, 86_400_000],
    ['2026-12-01T10:30', T0 + 10.5 * 60 * MIN, MIN],
    ['2026-12-01T10:30:15', T0 + 10.5 * 60 * MIN + 15_000, 1000],
    ['2026-12-01T10:30:15.5Z', T0 + 10.5 * 60 * MIN + 15_500, 1],
    ['2026-12-01T10:30+01:00', T0 + 9.5 * 60 * MIN, MIN],
    ['2026-12-01T10:30-02:00', T0 + 12.5 * 60 * MIN, MIN],
  ])('reads the time %s as UTC unless it names a zone, and the unit it names', (text, at, unitMs) => {
    // Act + Assess
    expect(parseTimeBound(text)).toEqual({ at, unitMs });
  });

  it('takes the whole day, minute or second that `to` names', () => {
    // Prepare: records at 23:59 on Dec 1 and 00:00 on Dec 2
    const records = newest([record(0, { appliedAt: T0 + 86_400_000 - MIN }), record(1, { appliedAt: T0 + 86_400_000 })]);

    // Act
    const day = historyPage(records, parsed({ to: '2026-12-01' }));
    const minute = historyPage(records, parsed({ from: '2026-12-01T23:59', to: '2026-12-01T23:59' }));

    // Assess
    expect(day.records.map((r) => r.requestId)).toEqual(['r-00000']);
    expect(minute.records.map((r) => r.requestId)).toEqual(['r-00000']);
  });
});

describe('filtering the history', () => {
  const records = newest([
    record(1, { cluster: 'greetings-lor1', requestedBy: 'Alice@example.com' }),
    record(2, { cluster: 'GREETINGS-LOR1-canary', requestedBy: 'bob', status: 'rejected', reason: 'unknownPeer' }),
    record(3, { cluster: 'greetings-lva1', requestedBy: 'failout-guard', action: 'restore' }),
    record(4, { cluster: null, fabric: 'lor1', action: 'evacuate', requestedBy: undefined }),
    record(5, { cluster: null, action: null, requestedBy: undefined, status: 'rejected' }),
  ]);
  const ids = (raw: Record<string, string>): string[] => filterRecords(records, parsed(raw).filter).map((r) => r.requestId);

  it.each([
    [{ cluster: 'lor1' }, ['r-00004', 'r-00002', 'r-00001']],
    [{ cluster: 'LoR1' }, ['r-00004', 'r-00002', 'r-00001']],
    [{ by: 'ALICE' }, ['r-00001']],
    [{ by: 'guard' }, ['r-00003']],
    [{ outcome: 'rejected' }, ['r-00005', 'r-00002']],
    [{ action: 'restore' }, ['r-00003']],
    [{ cluster: 'lor1', outcome: 'applied' }, ['r-00004', 'r-00001']],
    [{ from: '2026-12-01T00:02', to: '2026-12-01T00:03' }, ['r-00003', 'r-00002']],
    [{ cluster: 'nowhere' }, []],
  ])('%j finds %j (substrings case-insensitive; a fabric action by its fabric)', (raw, expected) => {
    // Act + Assess
    expect(ids(raw)).toEqual(expected);
  });

  it('names the filter in words for the empty-state line', () => {
    // Act
    const words = describeFilter(parsed({ cluster: 'lor1', by: 'bob', outcome: 'rejected', action: 'failout', from: '2026-12-01', to: '2026-12-01' }).filter);

    // Assess
    expect(words).toBe('cluster “lor1”, requester “bob”, outcome rejected, action failout, from 2026-12-01T00:00:00Z, before 2026-12-02T00:00:00Z');
  });
});

describe('paging the history', () => {
  const arbitraryRecords = fc
    .uniqueArray(fc.record({ at: fc.integer({ min: 0, max: 50 }), id: fc.integer({ min: 0, max: 9999 }), lor1: fc.boolean() }), { selector: (r) => r.id, maxLength: 120 })
    .map((rows) => newest(rows.map((r) => record(r.id, { appliedAt: T0 + r.at * MIN, cluster: r.lor1 ? 'greetings-lor1' : 'greetings-lva1' }))));

  it('reaches every matching record exactly once going older from the newest page, in order, and back by newer', () => {
    fc.assert(
      fc.property(arbitraryRecords, fc.integer({ min: 1, max: 17 }), fc.boolean(), (records, limit, filtered) => {
        // Prepare
        const filter: Record<string, string> = filtered ? { cluster: 'lor1' } : {};
        const expected = filterRecords(records, parsed(filter).filter).map((r) => r.requestId);

        // Act: older from the newest page until there is no older one
        const seen: string[] = [];
        const pages = [];
        let page = historyPage(records, parsed({ ...filter, limit: String(limit) }));
        for (;;) {
          pages.push(page);
          expect(page.first).toBe(page.records.length === 0 ? 0 : seen.length + 1);
          seen.push(...page.records.map((r) => r.requestId));
          if (page.older === null) break;
          page = historyPage(records, parsed({ ...filter, limit: String(limit), before: page.older }));
        }
        // ... and newer from the oldest page back to the newest
        let back = historyPage(records, parsed({ ...filter, limit: String(limit), oldest: '1' }));
        const backSeen = [...back.records.map((r) => r.requestId)];
        while (back.newer !== null) {
          back = historyPage(records, parsed({ ...filter, limit: String(limit), after: back.newer }));
          backSeen.unshift(...back.records.map((r) => r.requestId).filter((id) => !backSeen.includes(id)));
        }

        // Assess
        expect(seen).toEqual(expected);
        expect(backSeen).toEqual(expected);
        expect(pages.every((p) => p.matched === expected.length && p.total === records.length)).toBe(true);
        expect(pages[0]!.newer).toBeNull();
      }),
      { numRuns: 200 },
    );
  });

  it('starts an older page where the cursor was when its record is gone (pruned)', () => {
    // Prepare
    const records = newest([record(1), record(2), record(4), record(5)]);

    // Act: the cursor of record 3, which is not there
    const page = historyPage(records, parsed({ before: cursorOf(record(3)), limit: '10' }));

    // Assess
    expect(page.records.map((r) => r.requestId)).toEqual(['r-00002', 'r-00001']);
    expect(page.first).toBe(3);
  });

  it('shows the oldest page as the last `limit` matching records', () => {
    // Prepare
    const records = newest(Array.from({ length: 250 }, (_, i) => record(i)));

    // Act
    const page = historyPage(records, parsed({ oldest: '1' }));

    // Assess
    expect(page.records.at(-1)!.requestId).toBe('r-00000');
    expect(page.first).toBe(151);
    expect(page.older).toBeNull();
    expect(page.newer).toBe(cursorOf(page.records[0]!));
  });

  it('counts without rows when the limit is 0', () => {
    // Act
    const page = historyPage(newest([record(1), record(2, { status: 'rejected' })]), parsed({ outcome: 'rejected', limit: '0' }));

    // Assess
    expect({ total: page.total, matched: page.matched, rows: page.records.length, first: page.first, older: page.older }).toEqual({ total: 2, matched: 1, rows: 0, first: 0, older: null });
  });
});
