import type { Page } from 'playwright-core';
import { seedWorld, type SeededWorld } from '../../bench/console/world';
import { ConsoleWorld } from '../helpers/console-world';

// Issue 24 at the scale it was filed at, in Chromium: a ZooKeeper seeded with 1,000 services × 3
// clusters (3,000 clusters, 3 hosts each), 50 failed out, and 5,000 request records, as the console
// bench seeds it. Finding a cluster (item 2), its page, the history reaching back to the oldest
// record (item 5), and the time zone switch (item 8) work there as they do on a small world.

const D2 = '/console-scale/d2';
const REQUESTS = '/console-scale/requests';
const PLAN = { services: 1000, hosts: 3, failedOut: 50, records: 5000 };

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelectorAll(selector: string): { length: number } };

describe('the console at 3,000 clusters and 5,000 records', () => {
  const world = new ConsoleWorld();
  let page: Page;
  let seeded: SeededWorld;

  beforeAll(async () => {
    await world.start();
    seeded = await seedWorld(world.session, { d2Base: D2, requestsBase: REQUESTS }, PLAN);
    page = await world.open(D2, REQUESTS, 'svc0999-ltx1', {}, 'Asia/Kolkata');
    await page.locator('#live.ok').waitFor({ timeout: 20_000 });
  }, 180_000);

  afterAll(() => world.close(), 60_000);

  it('shows every card, and finds the 50 failed-out lor1 clusters by a part of the name and the state', async () => {
    // Act
    const cards = await page.evaluate(() => document.querySelectorAll('#clusters article.card').length);
    await page.fill('#q-cluster', 'lor1');
    await page.selectOption('#q-state', 'failed-out');
    await page.locator('#find-count', { hasText: '50 of 3,000 clusters' }).waitFor({ timeout: 10_000 });

    // Assess
    expect(cards).toBe(3000);
    const shown = await page.locator('#clusters article.card:not([hidden])').evaluateAll((nodes) => nodes.map((n) => n.getAttribute('data-cluster')));
    expect(new Set(shown)).toEqual(new Set(seeded.failedOut.map((f) => f.cluster)));
  }, 60_000);

  it("opens a failed-out cluster's own page with its failout, peers and its history", async () => {
    // Prepare
    const { cluster, requestId } = seeded.failedOut[7]!;

    // Act: its card's link, as an operator follows it, and back
    await page.click(`article.card[data-cluster="${cluster}"] h3 a`);
    await page.waitForURL(/\/clusters\//, { timeout: 10_000 });
    const text = await page.locator('body').innerText();
    await page.goBack();
    await page.locator('#live.ok').waitFor({ timeout: 20_000 });

    // Assess
    expect(text).toContain(cluster);
    expect(text).toMatch(/failed out/i);
    expect(text).toContain(requestId);
    expect(text).toContain(cluster.replace('-lor1', '-lva1'));
  }, 60_000);

  it('counts the 5,000 records and pages back to the oldest', async () => {
    // Act
    await page.locator('#history-summary', { hasText: 'of 5,000' }).waitFor({ timeout: 10_000 });
    const newest = await page.locator('#history-summary').innerText();
    await page.click('#h-oldest');
    await page.locator('#history-summary', { hasText: '5,000 of 5,000' }).waitFor({ timeout: 10_000 });

    // Assess
    expect(newest).toMatch(/^Records 1–\d+ of 5,000 \(the newest, live\)\.$/);
    expect(await page.locator('#history-summary').innerText()).toMatch(/–5,000 of 5,000/);
    expect(await page.locator('#h-older').isDisabled()).toBe(true);
  }, 60_000);

  it('switches every shown time to the local zone and back', async () => {
    // Prepare
    const time = page.locator('#clusters article.card:not([hidden]) time[data-clock]').first();
    const utc = await time.innerText();

    // Act
    await page.click('text=Local');
    await page.waitForFunction((before) => (globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }).document.querySelector('#clusters article.card:not([hidden]) time[data-clock]')?.textContent !== before, utc, { timeout: 5_000 });
    const local = await time.innerText();
    await page.click('text=UTC');

    // Assess: India is 5 h 30 min ahead of UTC, so the minutes differ by 30
    expect(local).not.toBe(utc);
    expect(Number(local.split(':')[1]) % 30).toBe((Number(utc.split(':')[1]) + 30) % 30);
  }, 60_000);
});
