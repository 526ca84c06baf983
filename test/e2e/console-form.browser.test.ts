import type { Browser, Page } from 'playwright-core';
import { LocalStack } from '../../lib/local/stack';
import { checkForm, confirmApplied, fillForm as fill, openConsole } from '../helpers/console-page';

// The console sends what the operator sees (issue 21, item 7), in Chromium on the whole local stack
// (real ZooKeeper, fauxqs, the request worker): an edit after Check takes the judgement back until
// the next Check, a card's button starts a fresh form for its cluster, and the confirm step says what
// the request changes against the failout in place. The steps run in order on one stack.

const HOUR = 3_600_000;

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null };

/** Checks the form and waits for a Confirm that can be pressed. */
async function check(page: Page): Promise<void> {
  await checkForm(page);
  await page.locator('#confirm:visible:enabled').waitFor({ timeout: 10_000 });
}

/** The end of the card's active window (epoch ms), as the page counts down to it. */
async function windowEnd(page: Page, cluster: string): Promise<number> {
  return Number(await page.locator(`article.card[data-cluster="${cluster}"] .windows time[data-until]`).first().getAttribute('data-until'));
}

describe('the console sends what the operator sees', () => {
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  let page: Page;

  beforeAll(async () => {
    stack = await LocalStack.start({ rate: 20, consolePort: 0 });
    ({ browser, page } = await openConsole(stack));
    // A 2 h failout to start from, sent from the form
    await fill(page, { 'f-action': 'failout', 'f-cluster': 'greetings-lor1', 'f-peers': 'greetings-lva1:2, greetings-ltx1', 'f-for': '2h', 'f-reason': 'INC-21' });
    await check(page);
    await confirmApplied(page);
    await page.locator('article.card[data-cluster="greetings-lor1"] .badge[data-state="failed-out"]').waitFor({ timeout: 5_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 60_000);

  it('takes the judgement back when the form changes after Check: extend checked for 45m, For changed to 3h, 3h is sent after the next Check', async () => {
    // Prepare: an extend for 45m, checked
    await page.locator('article.card[data-cluster="greetings-lor1"] button[data-act="extend"]').click();
    await fill(page, { 'f-for': '45m' });
    await check(page);

    // Act: the operator changes For
    await page.fill('#f-for', '3h');
    const confirmDisabled = await page.locator('#confirm').isDisabled();
    const stale = await page.locator('#judgement.stale').count();
    const head = await page.locator('#judgement-head').textContent();
    await check(page);
    const sentAt = Date.now();
    await confirmApplied(page);
    await page.waitForFunction((min) => Number(document.querySelector('article.card[data-cluster="greetings-lor1"] .windows time[data-until]')?.getAttribute('data-until') ?? 0) > min, sentAt + 2 * HOUR, { timeout: 5_000 });

    // Assess: Confirm could not send the 45m judgement; the window now ends about 3 h from the send
    expect(confirmDisabled).toBe(true);
    expect(stale).toBe(1);
    expect(head).toContain('check again');
    expect(Math.abs((await windowEnd(page, 'greetings-lor1')) - (sentAt + 3 * HOUR))).toBeLessThan(60_000);
  }, 60_000);

  it('takes the judgement back when the form changes while the Check is on its way', async () => {
    // Act: Check, and change the share before the answer arrives
    await page.locator('article.card[data-cluster="greetings-lor1"] button[data-act="failout"]').click();
    await fill(page, { 'f-peers': 'greetings-lva1', 'f-for': '30m' });
    await page.click('#check');
    await page.fill('#f-share', '50');
    await page.locator('#judgement:not(.busy)').waitFor({ timeout: 10_000 });

    // Assess
    expect(await page.locator('#judgement.stale').count()).toBe(1);
    expect(await page.locator('#confirm').isDisabled()).toBe(true);
  }, 30_000);

  it("resets the form to the card's cluster: nothing from the previous request survives, force unticked", async () => {
    // Prepare: a request typed in full, force ticked
    const requester = await page.locator('#f-by').getAttribute('value');
    await fill(page, {
      'f-action': 'failout',
      'f-cluster': 'greetings-lor1',
      'f-peers': 'greetings-ltx1:3',
      'f-for': '4h',
      'f-at': '+5m',
      'f-share': '30',
      'f-ramp': '10%:1m,100%',
      'f-alarms': 'greetings-lva1-errors',
      'f-reason': 'INC-old',
      'f-by': 'someone-else@example.com',
    });
    await page.check('#f-force');
    await check(page);

    // Act
    await page.locator('article.card[data-cluster="greetings-lva1"] button[data-act="failout"]').click();
    const values = await Promise.all(['f-cluster', 'f-peers', 'f-for', 'f-until', 'f-at', 'f-share', 'f-buckets', 'f-ramp', 'f-alarms', 'f-reason', 'f-by'].map((id) => page.inputValue(`#${id}`)));

    // Assess
    expect(await page.inputValue('#f-action')).toBe('failout');
    expect(values).toEqual(['greetings-lva1', '', '', '', '', '', '', '', '', '', requester]);
    expect(await page.isChecked('#f-force')).toBe(false);
    expect(await page.locator('#judgement').isHidden()).toBe(true);
  }, 30_000);

  it('shows in the confirm step what the request changes against the active failout', async () => {
    // Prepare: lor1 is failed out for about 3 h to lva1 ×2 and ltx1 ×1
    await page.locator('article.card[data-cluster="greetings-lor1"] button[data-act="failout"]').click();
    await fill(page, { 'f-peers': 'greetings-lva1', 'f-for': '30m', 'f-share': '50' });

    // Act
    await check(page);
    const changes = await page.locator('#judgement-changes li').allTextContents();
    await page.click('#cancel');

    // Assess
    expect(changes).toEqual([
      expect.stringMatching(/^replaces the active 3h window \(\d+h \d+m left\) → 30m \(ends \S+Z\)$/),
      'peers: greetings-lva1 ×2, greetings-ltx1 ×1 → greetings-lva1 ×1',
      'share: 100% → 50%',
    ]);
  }, 30_000);
});
