import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { errorAlarmName } from '../../lib/local';
import { LocalStack } from '../../lib/local/stack';
import { launchBrowser, screenshotDir } from '../helpers/browser';

// The console in a real browser (Debian's Chromium through playwright-core) on the whole local stack:
// real ZooKeeper, fauxqs, the request worker, bridges and FailoutClient traffic. One stack for the
// file; the steps run in order (the failout, then the restore, then ZooKeeper going away).

const XSS = '<img src=x onerror=alert(1)>';
/** The local evaluator's error-rate alarm of the home cluster (OK while its traffic succeeds). */
const STOP_ALARM = errorAlarmName('greetings-lor1');

// The little of the DOM the functions run in the page use (this project compiles without the DOM's
// types). Module-scoped: these declare nothing globally. (The page's CSP forbids eval, so page
// functions are passed as functions, never as strings.)
interface PageElement {
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): PageElement | null; activeElement: { id: string } | null; documentElement: { scrollWidth: number } };
declare const window: { innerWidth: number };


/** The chart legend's latest rate of a target cluster (0 when not listed). */
async function rate(page: Page, target: string): Promise<number> {
  const row = page.locator(`figure.chart table.legend tr[data-target="${target}"]`);
  return (await row.count()) === 0 ? 0 : Number(await row.getAttribute('data-rate'));
}

/** Fills and checks the form, confirms, and waits for the outcome line of the request. */
async function act(page: Page, fields: Record<string, string>): Promise<string> {
  for (const [id, value] of Object.entries(fields)) {
    if (id === 'f-action') await page.selectOption('#f-action', value);
    else await page.fill(`#${id}`, value);
  }
  await page.click('#check');
  await page.locator('#confirm:visible').waitFor({ timeout: 10_000 });
  await page.click('#confirm');
  const line = page.locator('#followed li').first();
  await line.waitFor();
  return (await line.getAttribute('data-request'))!;
}

describe('the console in a browser, on the local stack', () => {
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const dialogs: string[] = [];
  const shots = screenshotDir();

  beforeAll(async () => {
    stack = await LocalStack.start({ rate: 50, consolePort: 0 });
    browser = await launchBrowser();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(stack.console.url);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 60_000);

  it('fails out from the form: the outcome is followed, the chart shows the traffic on the peers within 2 s, the card shows the window and its stop alarm\'s state', async () => {
    // Prepare: traffic on the home cluster first
    await page.waitForFunction(() => document.querySelector('figure.chart tr[data-target="greetings-lor1"]') !== null, undefined, { timeout: 10_000 });

    // Act
    const requestId = await act(page, { 'f-action': 'failout', 'f-cluster': 'greetings-lor1', 'f-peers': 'greetings-lva1:2, greetings-ltx1', 'f-for': '30m', 'f-alarms': STOP_ALARM, 'f-reason': XSS });
    const outcome = page.locator(`#followed li[data-request="${requestId}"].outcome-applied`);
    await outcome.waitFor({ timeout: 20_000 });
    const appliedAt = Date.now();
    await page.waitForFunction(
      () => ['greetings-lva1', 'greetings-ltx1'].every((c) => Number(document.querySelector(`figure.chart tr[data-target="${c}"]`)?.getAttribute('data-rate') ?? 0) > 0),
      undefined,
      { timeout: 2_000 },
    );
    const movedWithinMs = Date.now() - appliedAt;
    const card = page.locator('article.card[data-cluster="greetings-lor1"]');
    await card.locator('.badge[data-state="failed-out"]').waitFor({ timeout: 2_000 });
    // npm start's console reads the local evaluator's states (FAILOUT_ALARMS_URL), once a second.
    const alarmState = card.locator(`.alarm-state[data-alarm="${STOP_ALARM}"]`);
    await alarmState.waitFor({ timeout: 7_000 });
    await page.screenshot({ path: join(shots, 'failed-out-1280x800.png'), fullPage: true });
    // Assess
    expect(movedWithinMs).toBeLessThan(2_000);
    // The chart's y-axis starts at 0 (issue 24, item 8): a dip must not look like traffic vanishing.
    expect(await page.locator('figure.chart').first().getAttribute('data-y-min')).toBe('0');
    expect(await outcome.textContent()).toContain(`Request ${requestId} (failout greetings-lor1): applied`);
    expect(await card.locator('.windows time[data-until]').count()).toBe(1);
    expect(await card.locator('.share').textContent()).toBe('100% moved');
    expect(await alarmState.textContent()).toBe('OK');
    expect(await card.locator('.peers').textContent()).toContain('greetings-lva1 ×2 (67%)');
    // The reason is shown as the text it is: no element made of it, no script run.
    expect(await card.locator('.reason').textContent()).toBe(XSS);
    expect(await page.locator('main img').count()).toBe(0);
    expect(await page.locator(`#history-rows tr[data-request="${requestId}"]`).count()).toBe(1);
    expect(dialogs).toEqual([]);
  }, 60_000);

  it('extends the window from the card: the countdown moves to the new end', async () => {
    // Prepare
    const card = page.locator('article.card[data-cluster="greetings-lor1"]');
    const before = Number(await card.locator('.windows time[data-until]').getAttribute('data-until'));
    await card.locator('button[data-act="extend"]').click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-for');

    // Act
    await page.fill('#f-for', '2h');
    await page.click('#check');
    await page.locator('#confirm:visible').waitFor({ timeout: 10_000 });
    const judgement = await page.locator('#judgement-text').textContent();
    await page.click('#confirm');
    await page.locator('#followed li.outcome-applied', { hasText: 'extend greetings-lor1' }).waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      (old) => Number(document.querySelector('article.card[data-cluster="greetings-lor1"] .windows time[data-until]')?.getAttribute('data-until') ?? 0) > old + 60 * 60_000,
      before,
      { timeout: 5_000 },
    );

    // Assess: the dry run showed the new end before sending; the card counts down from about 2 h
    expect(judgement).toContain('greetings-lor1 would then be:');
    expect(await card.locator('.windows time[data-until]').textContent()).toMatch(/^1h 5\dm$|^2h 0m$/);
  }, 60_000);

  it('restores from the card by keyboard: traffic goes back to the home cluster', async () => {
    // Prepare: the card's Restore button, reached and pressed by keyboard
    const restore = page.locator('article.card[data-cluster="greetings-lor1"] button[data-act="restore"]');
    await restore.focus();
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('f-reason');

    // Act
    await page.keyboard.type('INC-4711 resolved');
    await page.keyboard.press('Enter');
    await page.locator('#confirm:visible').waitFor({ timeout: 10_000 });
    await page.locator('#confirm').press('Enter');
    const line = page.locator('#followed li.outcome-applied').first();
    await line.waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () => {
        const rate = (c: string): number => Number(document.querySelector(`figure.chart tr[data-target="${c}"]`)?.getAttribute('data-rate') ?? 0);
        return rate('greetings-lva1') === 0 && rate('greetings-lor1') > 0;
      },
      undefined,
      { timeout: 5_000 },
    );

    // Assess
    expect(await line.textContent()).toContain('(restore greetings-lor1): applied');
    expect(await page.locator('article.card[data-cluster="greetings-lor1"] .badge').getAttribute('data-state')).toMatch(/^(serving|ended)$/);
    expect(await rate(page, 'greetings-lor1')).toBeGreaterThan(0);
  }, 60_000);

  it('filters the history by cluster, requester and outcome', async () => {
    // Prepare
    const visible = (): Promise<number> => page.locator('#history-rows tr[data-request]:visible').count();
    const all = await page.locator('#history-rows tr[data-request]').count();
    const rows = (selector: string): Promise<number> => page.locator(`#history-rows tr[data-request]${selector}`).count();
    const expected = { lor1: await rows('[data-cluster="greetings-lor1"]'), lva1: await rows('[data-cluster="greetings-lva1"]'), rejected: await rows('[data-outcome="rejected"]'), applied: await rows('[data-outcome="applied"]') };

    // Act
    await page.fill('#h-cluster', 'greetings-lor1');
    const byCluster = await visible();
    await page.fill('#h-cluster', 'greetings-lva1');
    const otherCluster = await visible();
    await page.fill('#h-cluster', '');
    await page.fill('#h-by', 'nobody-like-this');
    const byRequester = await visible();
    await page.fill('#h-by', '');
    await page.selectOption('#h-outcome', 'rejected');
    const rejected = await visible();
    await page.selectOption('#h-outcome', 'applied');
    const applied = await visible();
    await page.selectOption('#h-outcome', '');

    // Assess: the failout, extend and restore sent above (at least), each filter showing exactly its rows
    expect(all).toBeGreaterThanOrEqual(3);
    expect(expected.lor1).toBeGreaterThanOrEqual(3);
    expect({ byCluster, otherCluster, byRequester, rejected, applied }).toEqual({ byCluster: expected.lor1, otherCluster: expected.lva1, byRequester: 0, rejected: expected.rejected, applied: expected.applied });
  }, 30_000);

  it('shows the reason when a peer is unknown, and sends nothing', async () => {
    // Act
    await page.selectOption('#f-action', 'failout');
    await page.fill('#f-cluster', 'greetings-lor1');
    await page.fill('#f-peers', 'greetings-nope9');
    await page.fill('#f-for', '10m');
    await page.click('#check');
    const head = page.locator('#judgement-head');
    await page.locator('#judgement.rejected').waitFor({ timeout: 10_000 });

    // Assess
    expect(await head.textContent()).toContain('REJECTED (unknownPeer)');
    expect(await page.locator('#judgement-text').textContent()).toContain('greetings-nope9');
    expect(await page.locator('#confirm').isHidden()).toBe(true);
  }, 30_000);

  it('refuses an action without the CSRF token, with a wrong one, and from another origin', async () => {
    // Prepare
    const url = `${stack!.console.url}api/send`;
    const data = { action: 'restore', fields: { cluster: 'greetings-lor1' }, requestId: '0194f3b2-0000-7000-8000-000000000000' };
    const token = await page.locator('meta[name="csrf-token"]').getAttribute('content');

    // Act
    const without = await page.request.post(url, { data });
    const wrong = await page.request.post(url, { data, headers: { 'x-csrf-token': 'not-the-token' } });
    const crossOrigin = await page.request.post(url, { data, headers: { 'x-csrf-token': token!, origin: 'http://evil.example' } });

    // Assess
    expect([without.status(), wrong.status(), crossOrigin.status()]).toEqual([403, 403, 403]);
    expect([(await without.json()).reason, (await wrong.json()).reason, (await crossOrigin.json()).reason]).toEqual(['missingToken', 'wrongToken', 'crossOrigin']);
  }, 30_000);

  it('fits a narrow screen without sideways scrolling', async () => {
    // Act
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(shots, 'narrow-390.png'), fullPage: true });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    await page.setViewportSize({ width: 1280, height: 800 });

    // Assess
    expect(overflow).toBeLessThanOrEqual(0);
  }, 30_000);

  it('says when ZooKeeper is stopped, and recovers when it returns', async () => {
    // Act
    await stack!.zk.halt();
    const down = page.locator('#status p.alert[data-zk]');
    await down.waitFor({ timeout: 15_000 });
    const downText = await down.textContent();
    await page.screenshot({ path: join(shots, 'zookeeper-down.png'), fullPage: true });
    await stack!.zk.start();
    await page.locator('#status p[data-zk="connected"]').waitFor({ timeout: 30_000 });

    // Assess
    expect(downText).toContain('is not reachable');
    expect(await page.locator('article.card[data-cluster="greetings-lor1"]').count()).toBe(1);
  }, 60_000);
});
