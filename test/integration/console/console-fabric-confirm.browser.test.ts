import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Page, Response } from 'playwright-core';
import type { ZkSession } from '../../../lib/zk';
import { loseFirstAnswer, useConsolePage } from '../../helpers/console-browser';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { announceHosts, queueDepth, seedClusters, useQueueFixture, type TestPaths } from '../../helpers/requests-queue';

// The console's fabric Confirm sends the plan the operator saw (the house rule: a judgement shown is
// the one applied, or it is shown again), in Chromium on a real console server, real ZooKeeper and a
// real queue (fauxqs); no worker: the queue says what was sent. An evacuation to capacity weighs each
// peer by its hosts: a host announced between Check and Confirm changes the plan, so the Confirm
// sends nothing and shows the plan as judged now; confirming that one sends the request.

/** Service greetings in fabrics lor1, lva1 and ltx1 (by the naming rule), two hosts each. */
async function seedFabrics(session: ZkSession, paths: TestPaths): Promise<void> {
  await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
  await seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);
  for (const name of ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']) await announceHosts(session, paths, name, 2);
}

/** The rows of the plan's cluster → peers table, as text. */
async function plannedRows(page: Page): Promise<string[]> {
  return page.locator('#fj-clusters tbody tr').allTextContents();
}

/**
 * Confirms a checked plan the server then refuses and shows again (`.changed`), reads what it shows,
 * and confirms that one: both answers, the head and rows shown again, and the queue's depth between.
 */
async function confirmTwice(page: Page, depth: () => Promise<number>): Promise<{ first: Response; head: string | null; rowsShownAgain: string[]; depthAfterFirst: number; second: Response }> {
  const refused = page.waitForResponse((r) => r.url().endsWith('/api/fabric/send'));
  await page.click('#e-confirm');
  const first = await refused;
  await page.locator('#fabric-judgement.changed').waitFor({ timeout: 10_000 });
  const head = await page.locator('#fj-head').textContent();
  const rowsShownAgain = await plannedRows(page);
  const depthAfterFirst = await depth();
  const sentResponse = page.waitForResponse((r) => r.url().endsWith('/api/fabric/send'));
  await page.click('#e-confirm');
  return { first, head, rowsShownAgain, depthAfterFirst, second: await sentResponse };
}

describe('the console sends the fabric plan the operator saw', () => {
  const fx = useQueueFixture(seedFabrics);
  const ui = useConsolePage(fx, (f) => {
    const root = f.paths.d2Base.replace(/\/d2$/, '');
    return { FAILOUT_FABRICS_PATH: `${root}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${root}/evacuations` };
  });
  let page: Page;
  let queueUrl: string;

  beforeEach(() => {
    ({ page, queueUrl } = ui);
  });

  it('sends nothing when hosts came between Check and Confirm, shows the plan judged now, and sends on its Confirm', async () => {
    // Prepare: evacuate lor1 for 30m, checked while lva1 and ltx1 have two hosts each
    await page.selectOption('#e-action', 'evacuate');
    await page.fill('#e-fabric', 'lor1');
    await page.fill('#e-for', '30m');
    await page.fill('#e-reason', 'INC-42');
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/fabric/check'));
    await page.click('#e-check');
    const check = (await (await checked).json()) as { kind: string; requestId: string };
    await page.locator('#fabric-judgement.ready:not(.busy)').waitFor({ timeout: 10_000 });
    const rowsAtCheck = await plannedRows(page);
    // A host more in lva1 by the Confirm: its weight by capacity goes from 2 to 3
    await putUri(fx.session, fx.paths.d2Base, 'greetings-lva1', 'host-3', 'http://127.0.0.3:1/greetings-lva1');

    // Act: Confirm once (judged again, otherwise), then Confirm the plan shown again
    const { first, head, rowsShownAgain, depthAfterFirst, second } = await confirmTwice(page, () => queueDepth(fx.sqs.client, queueUrl));

    // Assess: the Check's plan weighed lva1 and ltx1 alike; the first Confirm sent nothing and showed lva1 at 3
    expect(check.kind).toBe('ready');
    expect(rowsAtCheck).toEqual([expect.stringContaining('greetings-ltx1 (2), greetings-lva1 (2)')]);
    expect(first.status()).toBe(409);
    expect(head).toContain('Not sent: the judgement changed since the check');
    expect(rowsShownAgain).toEqual([expect.stringContaining('greetings-ltx1 (2), greetings-lva1 (3)')]);
    expect(depthAfterFirst).toBe(0);
    // The second Confirm sent the checked request, once
    expect(second.status()).toBe(202);
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => JSON.parse(m.Body!) as { requestId: string; action: string; fabric: string })).toEqual([expect.objectContaining({ requestId: check.requestId, action: 'evacuate', fabric: 'lor1' })]);
  }, 60_000);

  it('after a Confirm whose answer was lost on the way (the request reached the queue), offers to send the same request again, and that follows it: one evacuation, one id', async () => {
    // Prepare: a checked evacuation; the first Confirm reaches the server, its answer never reaches the page
    await page.selectOption('#e-action', 'evacuate');
    await page.fill('#e-fabric', 'lor1');
    await page.fill('#e-for', '30m');
    await page.fill('#e-reason', 'INC-44');
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/fabric/check'));
    await page.click('#e-check');
    const check = (await (await checked).json()) as { kind: string; requestId: string };
    await page.locator('#fabric-judgement.ready:not(.busy)').waitFor({ timeout: 10_000 });
    const sends = await loseFirstAnswer(page, '**/api/fabric/send');

    // Act: Confirm (lost), then the button the page offers
    await page.click('#e-confirm');
    const again = page.locator('#e-confirm:not([hidden])');
    await again.waitFor({ timeout: 10_000 });
    const label = await again.textContent();
    await again.click();
    const line = page.locator('#fabric-followed li', { hasText: check.requestId });
    await line.waitFor({ timeout: 10_000 });

    // Assess: the same request id both times, sent once, followed
    expect(label).toBe(`Send again (same request ${check.requestId})`);
    expect(sends.map((body) => (JSON.parse(body) as { requestId: string }).requestId)).toEqual([check.requestId, check.requestId]);
    expect(await line.textContent()).toContain('sent; waiting for the worker');
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => (JSON.parse(m.Body!) as { requestId: string }).requestId)).toEqual([check.requestId]);
  }, 60_000);

  it('sends nothing when a failout was written in the fabrics between Check and Confirm, shows the plan judged now, and sends it on its Confirm', async () => {
    // Prepare: evacuate lor1, checked while lva1 (six hosts) and ltx1 both serve; then greetings-ltx1 is failed out onto greetings-lva1
    for (let i = 3; i <= 6; i++) await putUri(fx.session, fx.paths.d2Base, 'greetings-lva1', `host-${i}`, `http://127.0.0.${i}:1/greetings-lva1`);
    await page.locator('article.card[data-cluster="greetings-lva1"]', { hasText: '6 hosts' }).waitFor({ timeout: 10_000 });
    await page.selectOption('#e-action', 'evacuate');
    await page.fill('#e-fabric', 'lor1');
    await page.fill('#e-for', '30m');
    await page.fill('#e-reason', 'INC-45');
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/fabric/check'));
    await page.click('#e-check');
    const check = (await (await checked).json()) as { kind: string; requestId: string };
    await page.locator('#fabric-judgement.ready:not(.busy)').waitFor({ timeout: 10_000 });
    const rowsAtCheck = await plannedRows(page);
    const now = Date.now();
    const ltx1Out = { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'oncall@example.com', reason: 'INC-46 ltx1', requestId: 'r-ltx1' }] };
    await putCluster(fx.session, fx.paths.d2Base, clusterDoc('greetings-ltx1', { failoutProperties: ltx1Out }));
    await page.locator('article.card[data-cluster="greetings-ltx1"]', { hasText: 'INC-46 ltx1' }).waitFor({ timeout: 10_000 });

    // Act: Confirm once (the fabric changed), then Confirm the plan shown again
    const { first, rowsShownAgain, depthAfterFirst, second } = await confirmTwice(page, () => queueDepth(fx.sqs.client, queueUrl));
    const firstAnswer = (await first.json()) as { reason?: string; message?: string };

    // Assess: the Check's plan sent lor1 to ltx1 and lva1; the plan shown again leaves ltx1 (failed out) out
    expect(check.kind).toBe('ready');
    expect(rowsAtCheck).toEqual([expect.stringContaining('greetings-ltx1 (2), greetings-lva1 (6)')]);
    expect(first.status()).toBe(409);
    expect(firstAnswer).toEqual(expect.objectContaining({ reason: 'fabricChanged', message: expect.stringContaining('what the check judged changed since') }));
    expect(rowsShownAgain).toEqual([expect.stringContaining('greetings-lva1 (6)')]);
    expect(rowsShownAgain).not.toEqual([expect.stringContaining('greetings-ltx1')]);
    expect(depthAfterFirst).toBe(0);
    expect(second.status()).toBe(202);
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => (JSON.parse(m.Body!) as { requestId: string }).requestId)).toEqual([check.requestId]);
  }, 60_000);
});
