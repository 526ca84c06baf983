import type { Page } from 'playwright-core';
import type { FailoutProperties } from '../../lib/d2';
import { OPEN_ACL } from '../../lib/zk';
import { seriousViolations } from '../helpers/axe';
import { checkForm, fillForm } from '../helpers/console-page';
import { ConsoleWorld } from '../helpers/console-world';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../helpers/d2';
import { clusterDrillDefinition, failedRun, writeDrillNode } from '../helpers/drill-nodes';
import { historyRecords, seedRecords } from '../helpers/history-records';
import { startMetricsServer, type MetricsServer } from '../helpers/metrics-server';

// People's habits on the console (issue 24, item 8) in Chromium, its local zone Asia/Kolkata (UTC+05:30,
// so local and UTC always differ): the header's switch shows the cards', history's, drills', trails'
// and the chart's times in UTC or local, keeps the choice across a reload and for times a patch brings
// later, and on a cluster's page; the keyboard shortcuts the page lists each work, and none fires while
// typing in a field or with a modifier held. axe reports nothing serious or critical on the way.

const MIN = 60_000;
const KOLKATA = 'Asia/Kolkata';
/** Minutes east of UTC of {@link KOLKATA} (no daylight saving). */
const KOLKATA_EAST = 330;
const HOME = 'greetings-lor1';
const PEER = 'greetings-lva1';
/** A cluster whose failout ended 5 minutes ago: its card shows the expiry's outcome trail. */
const ENDED = 'greetings-ltx1';
const METRIC = 'greetings_requests_total';
const DRILLS = '/console-habits/drills';
/** A time as the page shows it: the time of day today, else the day and the minute (and the year). */
const SHOWN = /^(\d\d:\d\d:\d\d|\d{1,2} [A-Z][a-z]{2}( \d{4})? \d\d:\d\d)$/;

/** `HH:MM` of `ms` in a zone `east` minutes east of UTC: in every form the page shows a time. */
const hhmm = (ms: number, east: number): string => new Date(ms + east * MIN).toISOString().slice(11, 16);

function failout(requestId: string, offlineAt: number, onlineAt: number): FailoutProperties {
  return { redirects: [{ peer: PEER, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestedBy: 'oncall@example.com', reason: 'INC-24 habits', requestId }] };
}

/** Each `time[data-clock]` under `selector`: its text and its instant. */
async function times(page: Page, selector: string): Promise<{ text: string; at: number }[]> {
  return page.locator(`${selector} time[data-clock]`).evaluateAll((els) => els.map((el) => ({ text: el.textContent ?? '', at: Number(el.getAttribute('data-clock')) })));
}

/** Whether every time under `selector` (at least one) is shown in the zone `east` minutes east of UTC, in the page's form. */
async function expectShownIn(page: Page, selector: string, east: number): Promise<void> {
  const shown = await times(page, selector);
  expect(shown.length).toBeGreaterThan(0);
  for (const t of shown) {
    expect(t.text).toMatch(SHOWN);
    expect(t.text).toContain(hhmm(t.at, east));
  }
}

/** Minutes since midnight of an `HH:MM` or `HH:MM:SS` label. */
const minuteOf = (label: string): number => Number(label.slice(0, 2)) * 60 + Number(label.slice(3, 5));

/** How far (minutes) the chart's farthest tick label is from now in the zone `east` minutes east of UTC. */
async function chartDrift(page: Page, east: number): Promise<number> {
  const ticks = ((await page.locator('figure.chart .uplot[data-ticks]').getAttribute('data-ticks')) ?? '').split(' ').filter((t) => t !== '');
  if (ticks.length === 0) return Number.POSITIVE_INFINITY;
  const now = minuteOf(hhmm(Date.now(), east));
  return Math.max(...ticks.map((tick) => Math.abs(minuteOf(tick) - now)).map((off) => Math.min(off, 1440 - off)));
}

/**
 * Whether the chart's time axis labels its ticks within 10 minutes of now in the zone `east` minutes
 * east of UTC. Read until it does (5 s): with its first point only, uPlot spreads the axis over hours.
 */
async function expectChartIn(page: Page, east: number): Promise<void> {
  const deadline = Date.now() + 5_000;
  let drift = await chartDrift(page, east);
  while (drift > 10 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    drift = await chartDrift(page, east);
  }
  expect(drift).toBeLessThanOrEqual(10);
}

/** The id of the element that has the focus ('' for none). */
async function focused(page: Page): Promise<string> {
  return page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id ?? '');
}

/** Takes the focus out of any field (as a click on the page's text would). */
async function leaveFields(page: Page): Promise<void> {
  await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur());
}

describe("the console's time zone switch and keyboard shortcuts", () => {
  const world = new ConsoleWorld();
  let metrics: MetricsServer;
  let page: Page;
  const base = '/console-habits/d2';
  const requests = '/console-habits/requests';

  beforeAll(async () => {
    await world.start();
    const session = world.session;
    const now = Date.now();
    metrics = await startMetricsServer(METRIC, { [HOME]: 40, [PEER]: 10 });
    await putService(session, base, serviceDoc('greetings', HOME));
    await putCluster(session, base, clusterDoc(HOME, { failoutProperties: failout('0194f3b2-cccc-7000-8000-00000000a001', now - MIN, now + 30 * MIN) }));
    await putCluster(session, base, clusterDoc(ENDED, { failoutProperties: failout('0194f3b2-cccc-7000-8000-00000000a002', now - 30 * MIN, now - 5 * MIN) }));
    await putCluster(session, base, clusterDoc(PEER));
    await putUri(session, base, PEER, 'h1', 'http://lva1-1:8080');
    await seedRecords(session, requests, historyRecords(20, now));
    await session.ensurePath(DRILLS, OPEN_ACL);
    await writeDrillNode(session, DRILLS, clusterDrillDefinition(now), [], now);
    page = await world.open(base, requests, PEER, { FAILOUT_DRILLS_PATH: DRILLS, FAILOUT_METRICS_URLS: `greetings=${metrics.url}`, FAILOUT_TRAFFIC_METRIC: METRIC }, KOLKATA);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    await page.locator('#drills .next-run time[data-clock]').waitFor({ timeout: 10_000 });
    await page.locator('figure.chart .uplot[data-ticks]').waitFor({ timeout: 15_000 });
  }, 120_000);

  afterAll(async () => {
    await world.close();
    await metrics?.close();
  }, 60_000);

  it("shows every time in UTC at first: the cards', the trail's, the drills', the history's and the chart's, the y-axis from 0", async () => {
    // Act + Assess
    expect(await page.getAttribute('#tz button[data-tz="utc"]', 'aria-pressed')).toBe('true');
    expect(await page.textContent('#tz [data-tz-label]')).toBe('UTC');
    await expectShownIn(page, `article.card[data-cluster="${HOME}"] .when`, 0);
    await expectShownIn(page, `article.card[data-cluster="${ENDED}"] p.trail`, 0);
    await expectShownIn(page, '#drills .next-run', 0);
    await expectShownIn(page, '#history-rows', 0);
    await expectChartIn(page, 0);
    // The chart is made again for the zone: its y-axis is read back at its next point.
    await page.locator('figure.chart[data-y-min="0"]').waitFor({ timeout: 5_000 });
    expect(await seriousViolations(page)).toEqual([]);
  }, 30_000);

  it('shows them all in the local zone after Local, saying which, with nothing serious for axe', async () => {
    // Act
    await page.click('#tz button[data-tz="local"]');

    // Assess
    expect(await page.getAttribute('#tz button[data-tz="local"]', 'aria-pressed')).toBe('true');
    expect(await page.getAttribute('#tz button[data-tz="utc"]', 'aria-pressed')).toBe('false');
    expect(await page.textContent('#tz [data-tz-label]')).toBe('local, UTC+05:30');
    expect(await page.textContent('#history th [data-tz-label]')).toBe('local, UTC+05:30');
    await expectShownIn(page, `article.card[data-cluster="${HOME}"] .when`, KOLKATA_EAST);
    await expectShownIn(page, `article.card[data-cluster="${ENDED}"] p.trail`, KOLKATA_EAST);
    await expectShownIn(page, '#drills .next-run', KOLKATA_EAST);
    await expectShownIn(page, '#history-rows', KOLKATA_EAST);
    await expectChartIn(page, KOLKATA_EAST);
    // The chart is made again for the zone: its y-axis is read back at its next point.
    await page.locator('figure.chart[data-y-min="0"]').waitFor({ timeout: 5_000 });
    expect(await seriousViolations(page)).toEqual([]);
  }, 30_000);

  it('keeps the local zone across a reload, and for a card, a history row and a drill a patch brings later', async () => {
    // Act: reload, then a new failout and a new record arrive over the event stream
    await page.reload();
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    const now = Date.now();
    const requestId = '0194f3b2-cccc-7000-8000-00000000a003';
    await putCluster(world.session, base, clusterDoc(PEER, { failoutProperties: { ...failout(requestId, now + 20 * MIN, now + 50 * MIN), redirects: [{ peer: HOME, weight: 1 }] } }));
    const record = { ...historyRecords(1, now + 5 * MIN)[0]!, cluster: PEER };
    await seedRecords(world.session, requests, [record]);
    await writeDrillNode(world.session, DRILLS, clusterDrillDefinition(now), [failedRun(now - 2 * 24 * 60 * MIN)], now);
    await page.locator(`article.card[data-cluster="${PEER}"] .when time[data-clock]`).first().waitFor({ timeout: 10_000 });
    await page.locator(`#history-rows tr[data-request="${record.requestId}"]`).waitFor({ timeout: 10_000 });
    await page.locator('#drills .last .outcome-failed').waitFor({ timeout: 10_000 });

    // Assess
    expect(await page.getAttribute('#tz button[data-tz="local"]', 'aria-pressed')).toBe('true');
    await expectShownIn(page, `article.card[data-cluster="${HOME}"] .when`, KOLKATA_EAST);
    await expectShownIn(page, `article.card[data-cluster="${PEER}"] .when`, KOLKATA_EAST);
    await expectShownIn(page, `#history-rows tr[data-request="${record.requestId}"]`, KOLKATA_EAST);
    await expectShownIn(page, '#drills .last', KOLKATA_EAST);
    expect(await page.textContent('#drills th [data-tz-label]')).toBe('local, UTC+05:30');
    await page.locator('figure.chart .uplot[data-ticks]').waitFor({ timeout: 15_000 });
    await expectChartIn(page, KOLKATA_EAST);
  }, 30_000);

  it("shows a cluster's page in the zone chosen, and switches it back to UTC there", async () => {
    // Prepare
    await page.goto(new URL(`/clusters/${HOME}`, world.server.url).href);

    // Act + Assess: local, as chosen on the console
    expect(await page.getAttribute('#tz button[data-tz="local"]', 'aria-pressed')).toBe('true');
    await expectShownIn(page, 'article.card .when', KOLKATA_EAST);
    await expectShownIn(page, '#history', KOLKATA_EAST);
    expect(await seriousViolations(page)).toEqual([]);
    await page.click('#tz button[data-tz="utc"]');
    await expectShownIn(page, 'article.card .when', 0);
    await expectShownIn(page, '#history', 0);

    // Back to the console, where UTC is now the choice
    await page.goto(world.server.url);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    expect(await page.getAttribute('#tz button[data-tz="utc"]', 'aria-pressed')).toBe('true');
    await expectShownIn(page, `article.card[data-cluster="${HOME}"] .when`, 0);
  }, 30_000);

  it('lists the shortcuts on the page, and each key does what its line says', async () => {
    // Prepare
    await leaveFields(page);
    const listed = await page.locator('#shortcuts dt kbd').allTextContents();

    // Act + Assess: the headings each key goes to, and `/` to the cluster filter
    expect(listed).toEqual(['/', 't', 'f', 'd', 'a', 'h', '?', 'Esc']);
    for (const [key, id] of [['f', 'fabrics-h'], ['d', 'drills-h'], ['a', 'act-h'], ['h', 'history-h'], ['?', 'keys-h']] as const) {
      await page.keyboard.press(key);
      expect(await focused(page)).toBe(id);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.keyboard.press('t');
    expect(await page.getAttribute('#tz button[data-tz="local"]', 'aria-pressed')).toBe('true');
    await expectShownIn(page, '#history-rows', KOLKATA_EAST);
    await page.keyboard.press('t');
    expect(await page.getAttribute('#tz button[data-tz="utc"]', 'aria-pressed')).toBe('true');
    await page.keyboard.press('/');
    expect(await focused(page)).toBe('q-cluster');
  }, 30_000);

  it('fires no shortcut while typing in a field, nor with Ctrl or Alt held', async () => {
    // Act: typed into the cluster filter, the reason and the action select
    await page.fill('#q-cluster', '');
    await page.focus('#q-cluster');
    await page.keyboard.type('th/?');
    await page.focus('#f-reason');
    await page.keyboard.type('fad');
    await page.focus('#f-action');
    await page.keyboard.press('t');
    const inSelect = await focused(page);
    await leaveFields(page);
    await page.keyboard.press('Alt+t');
    await page.keyboard.press('Control+h');

    // Assess: the keys were text, the zone and the focus stayed
    expect(await page.inputValue('#q-cluster')).toBe('th/?');
    expect(await page.inputValue('#f-reason')).toBe('fad');
    expect(inSelect).toBe('f-action');
    expect(await page.getAttribute('#tz button[data-tz="utc"]', 'aria-pressed')).toBe('true');
    expect(await focused(page)).toBe('');
  }, 30_000);

  it('closes an open check with Esc, and then clears the cluster filter', async () => {
    // Prepare: a check on screen, a filter typed
    await page.fill('#q-cluster', 'lor1');
    await fillForm(page, { 'f-action': 'failout', 'f-cluster': HOME, 'f-peers': '', 'f-for': '30m', 'f-reason': 'INC-24' });
    await checkForm(page);
    expect(await page.isHidden('#judgement')).toBe(false);
    await leaveFields(page);

    // Act + Assess: the first Esc closes the check, the second clears the filter
    await page.keyboard.press('Escape');
    expect(await page.isHidden('#judgement')).toBe(true);
    expect(await page.inputValue('#q-cluster')).toBe('lor1');
    await leaveFields(page);
    await page.keyboard.press('Escape');
    await page.locator(`article.card[data-cluster="${PEER}"]:not([hidden])`).waitFor({ timeout: 5_000 });
    expect(await page.inputValue('#q-cluster')).toBe('');
  }, 30_000);
});
