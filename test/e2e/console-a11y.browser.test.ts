import type { Page } from 'playwright-core';
import type { FailoutProperties } from '../../lib/d2';
import { seriousViolations } from '../helpers/axe';
import { ConsoleWorld } from '../helpers/console-world';
import { checkForm, fillForm } from '../helpers/console-page';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../helpers/d2';
import { historyRecords, seedRecords } from '../helpers/history-records';
import { clusterDrillDefinition, fabricDrillDefinition, failedRun, skippedRun, writeDrillNode } from '../helpers/drill-nodes';
import { OPEN_ACL } from '../../lib/zk';

// WCAG 2.1 AA in the states an operator sees (issue 24, item 8): axe-core (the engine, injected from
// node_modules) over the console in Chromium, with a failed-out card (stop alarms, countdown), a
// scheduled one, the fabric table, the form showing a refusal, and the history filtered and matching
// nothing (issue 24, item 5), the clusters filtered and a cluster's page (item 2). Nothing serious or critical may be
// reported; lesser findings are printed for whoever works on the page next.

const MIN = 60_000;
const DRILLS = '/console-a11y/drills';

function failout(peer: string, offlineAt: number, onlineAt: number, stopAlarms: string[]): FailoutProperties {
  return { redirects: [{ peer, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestedBy: 'oncall@example.com', reason: 'INC-24 contrast', requestId: '0194f3b2-bbbb-7000-8000-00000000a11e', stopAlarms }] };
}

describe('the console meets WCAG 2.1 AA (axe-core)', () => {
  const world = new ConsoleWorld();
  let page: Page;
  const base = '/console-a11y/d2';

  beforeAll(async () => {
    await world.start();
    const session = world.session;
    const now = Date.now();
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, base, clusterDoc('greetings-lor1', { failoutProperties: failout('greetings-lva1', now - MIN, now + 30 * MIN, ['greetings-lva1-errors']) }));
    await putCluster(session, base, clusterDoc('greetings-ltx1', { failoutProperties: failout('greetings-lva1', now + 20 * MIN, now + 50 * MIN, []) }));
    await putCluster(session, base, clusterDoc('greetings-lva1'));
    await putUri(session, base, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
    await seedRecords(session, '/console-a11y/requests', historyRecords(150, now));
    // Drills (issue 24, item 7): a cluster drill with a failed run, and a drain test with a skipped one.
    await session.ensurePath(DRILLS, OPEN_ACL);
    await writeDrillNode(session, DRILLS, clusterDrillDefinition(now), [failedRun(now - 8 * 24 * 60 * MIN)], now);
    await writeDrillNode(session, DRILLS, fabricDrillDefinition(now), [skippedRun(now - 2 * 24 * 60 * MIN)], now);
    page = await world.open(base, '/console-a11y/requests', 'greetings-ltx1', { FAILOUT_DRILLS_PATH: DRILLS });
    await page.locator('article.card[data-cluster="greetings-lor1"] .badge[data-state="failed-out"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(() => world.close(), 60_000);

  it('reports nothing serious or critical with a failed-out card, a scheduled one and the fabric table', async () => {
    // Act + Assess
    expect(await seriousViolations(page)).toEqual([]);
  }, 30_000);

  it('marks a refused input with the page\'s words, and reports nothing serious or critical then', async () => {
    // Prepare: a failout without peers, which the page refuses
    await fillForm(page, { 'f-action': 'failout', 'f-cluster': 'greetings-lor1', 'f-peers': '', 'f-for': '30m', 'f-reason': 'INC-24' });
    const answer = await checkForm(page);

    // Act + Assess: the refusal in the page's words, its input marked, and still nothing serious
    expect(answer.kind).toBe('invalid');
    expect(await page.getAttribute('#f-peers', 'aria-invalid')).toBe('true');
    expect(await page.getAttribute('#f-peers', 'aria-describedby')).toBe('field-error');
    const note = (await page.textContent('#field-error')) ?? '';
    expect(note).toContain('“Peers”');
    expect(note).not.toContain('--peer');
    expect(await seriousViolations(page)).toEqual([]);
  }, 30_000);

  it('reports nothing serious or critical in the history filtered, and matching nothing', async () => {
    // Prepare: the history filtered by cluster and outcome
    await page.fill('#h-cluster', 'lor1');
    await page.locator('#history-summary', { hasText: 'matching cluster “lor1”' }).waitFor({ timeout: 10_000 });
    await page.selectOption('#h-outcome', 'applied');
    await page.locator('#history-summary', { hasText: 'outcome applied' }).waitFor({ timeout: 10_000 });
    const filtered = await seriousViolations(page);

    // Act: a filter nothing matches
    await page.fill('#h-by', 'nobody-like-this');
    await page.locator('#history-rows tr.empty', { hasText: 'No records match' }).waitFor({ timeout: 10_000 });
    const empty = await seriousViolations(page);

    // Assess
    expect(filtered).toEqual([]);
    expect(empty).toEqual([]);
  }, 30_000);

  it('reports nothing serious or critical with the clusters filtered, matching and matching nothing (issue 24, item 2)', async () => {
    // Prepare: the clusters filtered by a part of the name and a state
    await page.fill('#q-cluster', 'lor1');
    await page.selectOption('#q-state', 'failed-out');
    await page.locator('#find-count', { hasText: 'match cluster “lor1”, state failed out' }).waitFor({ timeout: 10_000 });
    const filtered = await seriousViolations(page);

    // Act: a filter no cluster matches
    await page.fill('#q-cluster', 'nowhere');
    await page.locator('#find-empty:not([hidden])').waitFor({ timeout: 10_000 });
    const empty = await seriousViolations(page);

    // Assess
    expect(filtered).toEqual([]);
    expect(empty).toEqual([]);
  }, 30_000);

  it('reports nothing serious or critical on a cluster\'s page, nor on the page of an unknown cluster', async () => {
    // Prepare
    await page.goto(new URL('/clusters/greetings-lor1', page.url()).toString());
    await page.locator('h1', { hasText: 'Cluster greetings-lor1' }).waitFor({ timeout: 10_000 });
    const cluster = await seriousViolations(page);

    // Act
    await page.goto(new URL('/clusters/greetings-nope', page.url()).toString());
    await page.locator('h1', { hasText: 'No such cluster' }).waitFor({ timeout: 10_000 });
    const missing = await seriousViolations(page);

    // Assess
    expect(cluster).toEqual([]);
    expect(missing).toEqual([]);
  }, 30_000);

  it('reports nothing serious or critical in the drills, with a history open and a refused Run now (issue 24, item 7)', async () => {
    // Prepare: back on the console's page, the drills listed
    await page.goto(new URL('/', page.url()).toString());
    await page.locator('article.drill[data-drill="weekly-lor1"]').waitFor({ timeout: 10_000 });
    await page.locator('#drills-h').scrollIntoViewIfNeeded();
    const listed = await seriousViolations(page);

    // Act: a history opened, and Run now refused (this console has no queue to send a run to)
    await page.locator('article.drill[data-drill="weekly-lor1"] details.drill-history summary').click();
    await page.locator('button[data-drill-run="weekly-lor1"]').click();
    await page.locator('#drill-confirm.rejected').waitFor({ timeout: 10_000 });
    const refused = await seriousViolations(page);

    // Assess
    expect(await page.locator('#dc-head').textContent()).toMatch(/^Not sent: no request queue is configured/);
    expect(listed).toEqual([]);
    expect(refused).toEqual([]);
  }, 30_000);
});
