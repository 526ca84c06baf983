import { GetQueueAttributesCommand } from '@aws-sdk/client-sqs';
import type { Browser, Page } from 'playwright-core';
import { LocalStack } from '../../lib/local/stack';
import { checkForm as check, confirmApplied, fillForm as fill, openConsole } from '../helpers/console-page';

// Failouts judged together, as an operator meets them in the console (issue 21, item 2), in Chromium
// on the whole local stack (real ZooKeeper, fauxqs, the request worker's bundle): with greetings-lor1
// failed out to greetings-lva1 (its only peer), a failout of lva1 would strand lor1's traffic. The
// Check says so and offers nothing to send; with force, the Check says what force overrides, and the
// card and the history of the applied failout say what it overrode. Judged alone, lva1 → ltx1 would
// simply be applied. The steps run in order on one stack.

const X = 'greetings-lor1';
const A = 'greetings-lva1';
const B = 'greetings-ltx1';

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null };
declare function fetch(url: string, init: Record<string, unknown>): Promise<{ status: number; json(): Promise<Record<string, unknown>> }>;

describe('the console judges a failout against every open failout', () => {
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  let page: Page;

  /** Messages the queue holds (visible or in flight) and records the worker was handed so far. */
  async function queueSeen(): Promise<{ waiting: number; handed: number }> {
    const out = await stack!.sqs.client.send(new GetQueueAttributesCommand({ QueueUrl: stack!.sqs.queueUrl, AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'] }));
    const waiting = Number(out.Attributes?.ApproximateNumberOfMessages ?? 0) + Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible ?? 0);
    return { waiting, handed: stack!.poller.stats().records };
  }

  beforeAll(async () => {
    stack = await LocalStack.start({ rate: 20, consolePort: 0 });
    ({ browser, page } = await openConsole(stack));
    // X failed out to A, its only peer, sent from the form
    await fill(page, { 'f-action': 'failout', 'f-cluster': X, 'f-peers': A, 'f-for': '2h', 'f-reason': 'INC-21 lor1' });
    await check(page);
    await confirmApplied(page);
    await page.locator(`article.card[data-cluster="${X}"] .badge[data-state="failed-out"]`).waitFor({ timeout: 5_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 60_000);

  it("rejects a failout of the only peer of X's failout (strandsFailout, naming X) and leaves nothing to send", async () => {
    // Prepare
    const before = await queueSeen();
    await page.locator(`article.card[data-cluster="${A}"] button[data-act="failout"]`).click();
    await fill(page, { 'f-peers': B, 'f-for': '1h', 'f-reason': 'INC-21 lva1' });

    // Act: Check, then try to send the rejected request anyway, as a script on the page could
    const answer = await check(page);
    const head = await page.locator('#judgement-head').textContent();
    const text = await page.locator('#judgement-text').textContent();
    const confirmHidden = await page.locator('#confirm').isHidden();
    const sendAnyway = await page.evaluate(
      async ([requestId, cluster, peers]) => {
        const csrf = document.querySelector('meta[name="csrf-token"]')!.getAttribute('content');
        const response = await fetch('/api/send', { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify({ action: 'failout', fields: { cluster, peers, for: '1h', force: false }, requestId }) });
        return { status: response.status, kind: (await response.json()).kind };
      },
      [answer.body!.requestId, A, B] as const,
    );
    const after = await queueSeen();

    // Assess: judged with X's failout, not alone; nothing reached the queue or the worker
    expect(answer).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'strandsFailout' }));
    expect(head).toBe('Would be REJECTED (strandsFailout): nothing was sent.');
    expect(text).toContain(`strands the failout of "${X}"`);
    expect(confirmHidden).toBe(true);
    expect(sendAnyway).toEqual({ status: 409, kind: 'stale' });
    expect(after).toEqual({ waiting: 0, handed: before.handed });
    expect(await page.locator(`#history-rows tr[data-cluster="${A}"]`).count()).toBe(0);
    expect(await page.locator(`article.card[data-cluster="${A}"] .badge`).getAttribute('data-state')).toBe('serving');
  }, 30_000);

  it('applies it with force, saying in the Check that force overrides stranding, and on the card and in the history that it overrode stranding', async () => {
    // Prepare: the same request, force ticked
    await page.check('#f-force');

    // Act
    const answer = await check(page);
    const changes = await page.locator('#judgement-changes li').allTextContents();
    const text = await page.locator('#judgement-text').textContent();
    const requestId = await confirmApplied(page);
    const card = page.locator(`article.card[data-cluster="${A}"]`);
    await card.locator('.badge[data-state="failed-out"]').waitFor({ timeout: 5_000 });
    const row = page.locator(`#history-rows tr[data-request="${requestId}"]`);

    // Assess
    expect(answer.kind).toBe('ready');
    expect(changes).toContain('force: overrides stranding');
    expect(text).toContain('force overrode stranding');
    expect(await card.locator('.forced').textContent()).toBe('forced: overrode stranding');
    expect(await row.getAttribute('data-outcome')).toBe('applied');
    expect(await row.locator('.forced').textContent()).toBe('forced: overrode stranding');
  }, 30_000);
});
