import type { Browser, Page } from 'playwright-core';
import { LocalStack } from '../../lib/local/stack';
import { checkForm as check, confirmApplied, fillForm as fill, openConsole } from '../helpers/console-page';

// Issue 24, item 6, as an operator steers a ramp in Chromium on the whole local stack (real ZooKeeper,
// fauxqs, the request worker's bundle), while another failout sends traffic to the same peer: the
// buttons on the ramp's card fill the form, the Check judges the step against every open failout, and
// what was shown is what the worker applies (the card, the history). The steps run in order.
// Y, judged with X's whole ramp on the same peer, needs --force; the Check of the refusal must not
// call it forced.

const X = 'greetings-lor1';
const PEER = 'greetings-lva1';
const Y = 'greetings-ltx1';

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelector(selector: string): { textContent: string | null } | null };

describe('steering a ramp from its card while another failout shares its peer', () => {
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  let page: Page;

  const card = (cluster: string): string => `article.card[data-cluster="${cluster}"]`;

  /**
   * Clicks a card's button, fills the form, Check and Confirm; with `refusedAs`, the first Check must
   * refuse for that reason and the operator ticks force and checks again. Returns what the page showed
   * (the refusal, the final judgement) and the applied request's id.
   */
  async function steer(cluster: string, act: string, fields: Record<string, string> = {}, refusedAs?: string): Promise<{ refusal: string; head: string; requestId: string }> {
    await page.locator(`${card(cluster)} button[data-act="${act}"]`).click();
    await fill(page, fields);
    let answer = await check(page);
    let refusal = '';
    if (refusedAs !== undefined) {
      expect(answer).toEqual(expect.objectContaining({ kind: 'rejected', reason: refusedAs }));
      refusal = (await page.locator('#judgement-text').textContent()) ?? '';
      await page.check('#f-force');
      answer = await check(page);
    }
    expect([answer.kind, answer.reason, answer.kind === 'ready' ? '' : await page.locator('#judgement-text').textContent()]).toEqual(['ready', undefined, '']);
    const head = (await page.locator('#judgement-head').textContent()) ?? '';
    return { refusal, head, requestId: await confirmApplied(page) };
  }

  /** The history row of a request, once the page has it. */
  async function historyRow(requestId: string): Promise<string> {
    const row = page.locator(`#history-rows tr[data-request="${requestId}"]`);
    await row.waitFor({ timeout: 10_000 });
    return (await row.textContent()) ?? '';
  }

  beforeAll(async () => {
    stack = await LocalStack.start({ rate: 20, consolePort: 0 });
    ({ browser, page } = await openConsole(stack));
    // X ramps onto PEER (20 % now, 60 % in ten minutes, then 100 %); Y fails out onto the same PEER.
    await fill(page, { 'f-action': 'failout', 'f-cluster': X, 'f-peers': PEER, 'f-ramp': '20%:10m,60%:10m,100%', 'f-for': '2h', 'f-reason': 'INC-24 lor1 ramp' });
    expect((await check(page)).kind).toBe('ready');
    await confirmApplied(page);
    await page.locator(`${card(X)} .ramp progress`).waitFor({ timeout: 5_000 });
    await fill(page, { 'f-action': 'failout', 'f-cluster': Y, 'f-peers': PEER, 'f-for': '1h', 'f-reason': 'INC-24 ltx1', 'f-ramp': '' });
    // Judged with X's ramp (all of it, as scheduled) on the same peer, Y is over lva1's capacity: the
    // Check says so and offers nothing to send; the operator forces it.
    const refused = await check(page);
    const refusedText = (await page.locator('#judgement-text').textContent()) ?? '';
    expect(refused).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'insufficientPeerCapacity' }));
    expect(refusedText).toContain("+3 hosts' load from other failouts");
    expect(refusedText).not.toContain('(forced)');
    await page.check('#f-force');
    expect((await check(page)).kind).toBe('ready');
    await confirmApplied(page);
    await page.locator(`${card(Y)} .badge[data-state="failed-out"]`).waitFor({ timeout: 5_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 60_000);

  it('holds the ramp from its card: the card says held, by whom, and the history has the hold', async () => {
    // Act
    const { requestId } = await steer(X, 'rampHold', { 'f-reason': 'hold while ltx1 drains', 'f-by': 'oncall@example.com' });

    // Assess
    await page.locator(`${card(X)} .ramp-next[data-held="true"]`).waitFor({ timeout: 10_000 });
    const next = await page.locator(`${card(X)} .ramp-next`).textContent();
    expect(next).toMatch(/^held at 20% since .+ by oncall@example\.com — hold while ltx1 drains; 60 → 100% wait for Resume or Advance$/);
    expect(await page.locator(`${card(X)} button[data-act="rampResume"]`).count()).toBe(1);
    expect(await historyRow(requestId)).toMatch(/rampHold/);
    // Y's failout onto the same peer is untouched
    expect(await page.locator(`${card(Y)} .badge`).getAttribute('data-state')).toBe('failed-out');
  }, 60_000);

  it('advances the held ramp one step only with force, judged with Y on the same peer, and applies what the Check showed', async () => {
    // Act
    const { refusal, head, requestId } = await steer(X, 'rampAdvance', { 'f-reason': 'peer has room' }, 'insufficientPeerCapacity');

    // Assess: the first Check named both failouts on the peer and the load now; forced, it was applied
    // as shown: the card moved to 60 % and is still held at the rest
    expect(refusal).toMatch(/^peer "greetings-lva1" would carry [\d.]+× its load per host now \(as clients route it, with the traffic of "greetings-lor1", "greetings-ltx1"\), above maxPeerLoadFactor 2 \(force overrides\)$/);
    expect(head).toMatch(/The worker would apply it now/);
    await page.waitForFunction(() => /held at 60%/.test(document.querySelector('article.card[data-cluster="greetings-lor1"] .ramp-next')?.textContent ?? ''), undefined, { timeout: 10_000 });
    expect(await page.locator(`${card(X)} .ramp li[data-state="held"]`).allTextContents()).toEqual(['100%']);
    expect(await historyRow(requestId)).toMatch(/rampAdvance/);
    expect(await page.locator(`${card(Y)} .badge`).getAttribute('data-state')).toBe('failed-out');
  }, 60_000);

  it("adds a stop alarm to Y's running failout, and resumes X's ramp only with force, each card keeping the other's state", async () => {
    // Act: the amend moves no traffic; the resume schedules X's last step onto the peer Y fills
    const amend = await steer(Y, 'amend', { 'f-alarms': 'greetings-ltx1-errors', 'f-reason': 'guard the drain' });
    const resume = await steer(X, 'rampResume', { 'f-reason': 'done' }, 'insufficientPeerCapacity');

    // Assess
    expect(resume.refusal).toMatch(/^peer "greetings-lva1" would carry 3× its load per host at \d{4}-\d\d-\d\dT[^ ]+Z \(as clients route it, with the traffic of "greetings-lor1", "greetings-ltx1"\), above maxPeerLoadFactor 2 \(force overrides\)$/);
    await page.locator(`${card(Y)} .alarms`).filter({ hasText: 'greetings-ltx1-errors' }).waitFor({ timeout: 10_000 });
    await page.locator(`${card(X)} .ramp-next:not([data-held])`).waitFor({ timeout: 10_000 });
    expect(await historyRow(amend.requestId)).toMatch(/amend/);
    expect(await historyRow(resume.requestId)).toMatch(/rampResume/);
    expect(await page.locator(`${card(X)} .ramp li[data-state="next"]`).allTextContents()).toEqual(['100%']);
    expect(await page.locator(`${card(Y)} .badge`).getAttribute('data-state')).toBe('failed-out');
  }, 60_000);
});
