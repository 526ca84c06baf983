import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Page } from 'playwright-core';
import type { ZkSession } from '../../../lib/zk';
import { loseFirstAnswer, useConsolePage } from '../../helpers/console-browser';
import { putService, putUri, serviceDoc } from '../../helpers/d2';
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
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/fabric/send'));
    await page.click('#e-confirm');
    const first = await refused;
    await page.locator('#fabric-judgement.changed').waitFor({ timeout: 10_000 });
    const head = await page.locator('#fj-head').textContent();
    const rowsShownAgain = await plannedRows(page);
    const depthAfterFirst = await queueDepth(fx.sqs.client, queueUrl);
    const sentResponse = page.waitForResponse((r) => r.url().endsWith('/api/fabric/send'));
    await page.click('#e-confirm');
    const second = await sentResponse;

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
});
