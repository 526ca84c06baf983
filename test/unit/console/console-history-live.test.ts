import { LiveState } from '../../../lib/console/live-state';
import type { AlarmStatesView } from '../../../lib/console/alarms';
import { renderHistoryControls, renderHistorySummary } from '../../../lib/console/history-view';
import type { RequestRecord } from '../../../lib/requests';

// The live side of the history (issue 24, item 5): the browsers get the newest page of rows and the
// count of every record, the count only when it changed; the controls and the summary render data as text.

const NOW = Date.parse('2026-12-01T12:00:00Z');
const OFF: AlarmStatesView = { kind: 'off' };

function record(i: number): RequestRecord {
  return { requestId: `r-${i}`, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: NOW - i, clusterVersion: 1 };
}

describe('the live history', () => {
  it('sends the record count when it changes, and nothing when it does not', () => {
    // Prepare
    const live = new LiveState();
    const rows = [record(1), record(2)];

    // Act
    const first = live.update({ now: NOW, alarms: OFF, records: rows, recordCount: 5000 });
    const same = live.update({ now: NOW, alarms: OFF, records: rows, recordCount: 5000 });
    const older = live.update({ now: NOW, alarms: OFF, records: rows, recordCount: 5001 });

    // Assess: a record older than the live page changes the count alone
    expect(first?.records).toBe(5000);
    expect(same).toBeUndefined();
    expect(older).toEqual({ records: 5001 });
  });
});

describe('the history controls and summary', () => {
  it('render action names and filter text as text', () => {
    // Act
    const controls = renderHistoryControls(['failout', '<script>']).text;
    const summary = renderHistorySummary({ total: 3, matched: 1, records: [record(1)], first: 1, newer: null, older: null }, { cluster: '"><img src=x>' }).text;

    // Assess
    expect(controls).toContain('<option value="&lt;script&gt;">&lt;script&gt;</option>');
    expect(summary).toBe('Records 1–1 of 1 matching cluster “&quot;&gt;&lt;img src=x&gt;” (3 in all).');
  });
});
