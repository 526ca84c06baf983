import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { newRequestId, type RequestRecord } from '../../lib/requests';
import { ConsoleWorld } from '../helpers/console-world';
import { clusterDoc, putCluster, putService, serviceDoc } from '../helpers/d2';
import { historyRecords, seedRecords } from '../helpers/history-records';
import { readCsv } from '../helpers/csv';

// The history that reaches back (issue 24, item 5), as an operator uses it in Chromium over 5,000
// records: the count, a substring filter on the cluster, paging to the oldest matching record, the
// line that says nothing matches, the CSV of the filter, words that wrap whole at 1280 px, and new
// records still arriving live on the newest page.

const COUNT = 5000;

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelector(selector: string): { textContent: string | null; getAttribute(name: string): string | null } | null };
const D2 = '/console-history/d2';
const REQUESTS = '/console-history/requests';

/** The words (between spaces and hyphens) of the history's cells that the layout broke over two lines. */
const BROKEN_WORDS = `(() => {
  const broken = [];
  for (const td of document.querySelectorAll('#history-rows td')) {
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const m of node.data.matchAll(/[^\\s-]+/g)) {
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const lines = new Set(Array.from(range.getClientRects()).filter((r) => r.width > 0).map((r) => Math.round(r.top)));
        if (lines.size > 1) broken.push(m[0]);
      }
    }
  }
  return broken;
})()`;

/** Selects the request id of the newest history row; returns the selected text. */
const SELECT_NEWEST_ID = `(() => {
  const range = document.createRange();
  range.selectNodeContents(document.querySelector('#history-rows tr[data-request] td.rid'));
  const selection = window.getSelection();
  selection.removeAllRanges();
  selection.addRange(range);
  return selection.toString();
})()`;

describe('the console history in Chromium over 5,000 records', () => {
  const world = new ConsoleWorld();
  let page: Page;
  const now = Date.now();
  const records = historyRecords(COUNT, now);
  const lor1 = records.filter((r) => r.cluster!.toLowerCase().includes('lor1'));
  const summary = (): Promise<string> => page.locator('#history-summary').innerText();
  const rowIds = (): Promise<string[]> => page.locator('#history-rows tr[data-request]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-request') ?? ''));

  beforeAll(async () => {
    await world.start();
    await putService(world.session, D2, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(world.session, D2, clusterDoc('greetings-lor1'));
    await putCluster(world.session, D2, clusterDoc('greetings-lva1'));
    await seedRecords(world.session, REQUESTS, records);
    page = await world.open(D2, REQUESTS, 'greetings-lva1');
    await page.locator('#live.ok').waitFor({ timeout: 20_000 });
    // The console reads the records in the background; the count follows them live.
    await page.waitForFunction(() => document.querySelector('#history-summary')?.textContent?.includes('of 5,000') === true, undefined, { timeout: 60_000 });
  }, 180_000);

  afterAll(() => world.close(), 60_000);

  it('shows the newest page live with the count of every record, words wrapped whole at 1280 px', async () => {
    // Act
    const ids = await rowIds();
    const broken = (await page.evaluate(BROKEN_WORDS)) as string[];

    // Assess
    expect(await summary()).toBe('Records 1–100 of 5,000 (the newest, live).');
    expect(ids).toEqual(records.slice(0, 100).map((r) => r.requestId));
    expect(await page.locator('#h-older').isEnabled()).toBe(true);
    expect(broken).toEqual([]);
  });

  it('filters by “lor1”, pages older, then to the oldest matching record', async () => {
    // Act: the filter
    await page.fill('#h-cluster', 'lor1');
    await page.locator('#history-summary', { hasText: 'matching cluster “lor1”' }).waitFor({ timeout: 10_000 });
    const filtered = await summary();
    const firstPage = await rowIds();
    // ... one page older
    await page.click('#h-older');
    await page.locator('#history-summary', { hasText: 'Records 101–200' }).waitFor({ timeout: 10_000 });
    const secondPage = await rowIds();
    // ... the oldest
    await page.click('#h-oldest');
    await page.waitForFunction((oldest) => document.querySelector('#history-rows tr[data-request]:last-child')?.getAttribute('data-request') === oldest, lor1.at(-1)!.requestId, { timeout: 10_000 });
    const oldestPage = await rowIds();

    // Assess
    expect(filtered).toBe(`Records 1–100 of ${lor1.length.toLocaleString('en-US')} matching cluster “lor1” (5,000 in all).`);
    expect(firstPage).toEqual(lor1.slice(0, 100).map((r) => r.requestId));
    expect(secondPage).toEqual(lor1.slice(100, 200).map((r) => r.requestId));
    expect(oldestPage).toEqual(lor1.slice(-100).map((r) => r.requestId));
    expect(await page.locator('#h-older').isDisabled()).toBe(true);
    expect(await page.locator('#h-newer').isEnabled()).toBe(true);
  }, 60_000);

  it('says which filter matched nothing', async () => {
    // Act
    await page.fill('#h-by', 'nobody-like-this');
    const line = page.locator('#history-rows tr.empty');
    await line.filter({ hasText: 'No records match' }).waitFor({ timeout: 10_000 });

    // Assess
    expect(await line.innerText()).toBe('No records match cluster “lor1”, requester “nobody-like-this”.');
    expect(await page.locator('#history-rows tr[data-request]').count()).toBe(0);
    expect(await summary()).toBe('0 of 5,000 records match cluster “lor1”, requester “nobody-like-this”.');
  });

  it('downloads the CSV of the filter: every matching record, not only the page', async () => {
    // Prepare
    await page.fill('#h-by', '');
    await page.locator('#history-summary', { hasText: 'Records 1–100' }).waitFor({ timeout: 10_000 });

    // Act
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#h-csv')]);
    const rows = readCsv(readFileSync((await download.path())!, 'utf8'));

    // Assess
    expect(download.suggestedFilename()).toMatch(/^failout-history-\d{8}T\d{6}Z\.csv$/);
    expect(rows).toHaveLength(lor1.length + 1);
    const id = rows[0]!.indexOf('requestId');
    expect(rows.slice(1).map((r) => r[id])).toEqual(lor1.map((r) => r.requestId));
  }, 30_000);

  it('still brings new records live: on the filter’s newest page, and on the newest page without a filter', async () => {
    // Prepare: two new records, one of lor1 and one not
    const record = (cluster: string): RequestRecord => ({ requestId: newRequestId(), status: 'applied', cluster, action: 'failout', appliedAt: Date.now(), clusterVersion: 9, requestedBy: 'live@example.com' });
    const matching = record('greetings-lor1');
    const other = record('greetings-lva1');

    // Act: with the filter on its newest page
    await seedRecords(world.session, REQUESTS, [matching, other]);
    await page.locator(`#history-rows tr[data-request="${matching.requestId}"]`).waitFor({ timeout: 10_000 });
    const filteredOther = await page.locator(`#history-rows tr[data-request="${other.requestId}"]`).count();
    // ... and without a filter
    await page.fill('#h-cluster', '');
    await page.locator('#history-summary', { hasText: 'of 5,002 (the newest, live)' }).waitFor({ timeout: 10_000 });
    const first = (await rowIds()).slice(0, 2).sort();

    // Assess
    expect(filteredOther).toBe(0);
    expect(first).toEqual([matching.requestId, other.requestId].sort());
  }, 30_000);

  it('keeps a selected request id selected in the live rows while new records arrive, after a filter came and went', async () => {
    // Prepare: a filter round trip, then the newest row's request id selected, as an operator would to copy it
    await page.fill('#h-cluster', 'lva1');
    await page.locator('#history-summary', { hasText: 'matching cluster “lva1”' }).waitFor({ timeout: 10_000 });
    await page.fill('#h-cluster', '');
    await page.locator('#history-summary', { hasText: '(the newest, live)' }).waitFor({ timeout: 10_000 });
    const selected = (await page.evaluate(SELECT_NEWEST_ID)) as string;
    const patchesBefore = (await page.evaluate('window.failoutConsole.stats.patches')) as number;

    // Act: a new record arrives on top
    const record: RequestRecord = { requestId: newRequestId(), status: 'applied', cluster: 'greetings-lva1', action: 'restore', appliedAt: Date.now(), clusterVersion: 10, requestedBy: 'live@example.com' };
    await seedRecords(world.session, REQUESTS, [record]);
    await page.locator(`#history-rows tr[data-request="${record.requestId}"]`).waitFor({ timeout: 10_000 });
    const after = (await page.evaluate('window.getSelection().toString()')) as string;

    // Assess: the selection is the same text, and it came by a patch of the same stream
    expect(selected).toMatch(/^[0-9a-f-]{36}$/);
    expect(after).toBe(selected);
    expect((await page.evaluate('window.failoutConsole.stats.patches')) as number).toBeGreaterThan(patchesBefore);
    expect(await page.locator('#live.ok').count()).toBe(1);
  }, 30_000);

  it('keeps the older page asked for when a live patch came just before the click (its re-ask of the newest page is dropped)', async () => {
    // Prepare: the filter's newest page, then a live patch as console.js hands one over (it re-asks the
    // filter's newest page a moment later, a new record may match)
    await page.fill('#h-cluster', 'lor1');
    await page.locator('#history-summary', { hasText: 'Records 1–100 of' }).filter({ hasText: 'matching cluster “lor1”' }).waitFor({ timeout: 10_000 });
    const newest = await rowIds();
    await page.evaluate('window.failoutHistory.onLiveRows(undefined, false)');

    // Act: one page older before that re-ask goes out
    await page.click('#h-older');
    await page.locator('#history-summary', { hasText: 'Records 101–200' }).waitFor({ timeout: 10_000 });
    await page.waitForTimeout(700);

    // Assess: still the older page
    expect(await summary()).toMatch(/^Records 101–200 of /);
    const older = await rowIds();
    expect(older).toHaveLength(100);
    expect(older.filter((id) => newest.includes(id))).toEqual([]);
    await page.fill('#h-cluster', '');
    await page.locator('#history-summary', { hasText: '(the newest, live)' }).waitFor({ timeout: 10_000 });
  }, 30_000);
});
