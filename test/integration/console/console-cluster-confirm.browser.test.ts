import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { Page } from 'playwright-core';
import type { ZkSession } from '../../../lib/zk';
import { loseFirstAnswer, useConsolePage } from '../../helpers/console-browser';
import { putService, putUri, serviceDoc } from '../../helpers/d2';
import { announceHosts, queueDepth, seedClusters, useQueueFixture, type TestPaths } from '../../helpers/requests-queue';

// The console's cluster Confirm sends the judgement the operator saw (the house rule: a judgement
// shown is the one applied, or it is shown again), as the fabric Confirm does, in Chromium on a real
// console server, real ZooKeeper and a real queue (fauxqs); no worker: the queue says what was sent.
// A failout's judgement projects the load on its peer from the peer's hosts, which the Confirm's
// state fingerprint leaves out: a host announced or gone between Check and Confirm changes the
// projection, so the Confirm sends nothing and shows the judgement now; confirming that one sends it.

/** Service greetings: greetings-lor1 with two hosts, greetings-lva1 (its peer) with four. */
async function seedGreetings(session: ZkSession, paths: TestPaths): Promise<void> {
  await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
  await seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1']);
  await announceHosts(session, paths, 'greetings-lor1', 2);
  await announceHosts(session, paths, 'greetings-lva1', 4);
}

describe('the console sends the failout judgement the operator saw', () => {
  const fx = useQueueFixture(seedGreetings);
  const ui = useConsolePage(fx);
  let page: Page;
  let queueUrl: string;

  beforeEach(async () => {
    ({ page, queueUrl } = ui);
    // The console's view has both clusters (what a Confirm's state is compared against).
    await page.locator('article.card[data-cluster="greetings-lva1"]').waitFor({ timeout: 10_000 });
    await page.locator('article.card[data-cluster="greetings-lor1"]').waitFor({ timeout: 10_000 });
  }, 30_000);

  it.each([
    ['announced in', (): Promise<unknown> => putUri(fx.session, fx.paths.d2Base, 'greetings-lva1', 'host-5', 'http://127.0.0.5:1/greetings-lva1'), '5 hosts', '×1.4'],
    ['gone from', (): Promise<unknown> => fx.session.remove(`${fx.paths.d2Base}/uris/greetings-lva1/host-4`), '3 hosts', '×1.67'],
  ] as const)('sends nothing when a host was %s the peer between Check and Confirm, shows the projection now, and sends on its Confirm', async (_case, changeHosts, hostsNow, factorNow) => {
    // Prepare: fail out lor1 onto lva1 for 30m, checked while lva1 has four hosts (×1.5)
    await page.selectOption('#f-action', 'failout');
    await page.fill('#f-cluster', 'greetings-lor1');
    await page.fill('#f-peers', 'greetings-lva1');
    await page.fill('#f-for', '30m');
    await page.fill('#f-reason', 'INC-42');
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/check'));
    await page.click('#check');
    const check = (await (await checked).json()) as { kind: string; body: { requestId: string } };
    await page.locator('#judgement.ready:not(.busy)').waitFor({ timeout: 10_000 });
    const textAtCheck = await page.locator('#judgement-text').textContent();
    await changeHosts();

    // Act: Confirm once (judged again, otherwise), then Confirm the judgement shown again
    const refused = page.waitForResponse((r) => r.url().endsWith('/api/send'));
    await page.click('#confirm');
    const first = await refused;
    await page.locator('#judgement.changed').waitFor({ timeout: 10_000 });
    const head = await page.locator('#judgement-head').textContent();
    const textShownAgain = await page.locator('#judgement-text').textContent();
    const depthAfterFirst = await queueDepth(fx.sqs.client, queueUrl);
    const sentResponse = page.waitForResponse((r) => r.url().endsWith('/api/send'));
    await page.click('#confirm');
    const second = await sentResponse;

    // Assess: the Check projected lva1 at four hosts; the first Confirm sent nothing and showed it now
    expect(check.kind).toBe('ready');
    expect(textAtCheck).toContain("greetings-lva1: 4 hosts, +2 hosts' load → ×1.5");
    expect(first.status()).toBe(409);
    expect(head).toContain('Not sent: the judgement changed since the check');
    expect(textShownAgain).toContain(`greetings-lva1: ${hostsNow}, +2 hosts' load → ${factorNow}`);
    expect(depthAfterFirst).toBe(0);
    // The second Confirm sent the checked request, once
    expect(second.status()).toBe(202);
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => JSON.parse(m.Body!) as { requestId: string; action: string; cluster: string })).toEqual([expect.objectContaining({ requestId: check.body.requestId, action: 'failout', cluster: 'greetings-lor1' })]);
  }, 60_000);

  it('after a Confirm whose answer was lost on the way (the request reached the queue), offers to send the same request again, and that follows it: one request, one id', async () => {
    // Prepare: a checked failout; the first Confirm reaches the server, its answer never reaches the page
    await page.selectOption('#f-action', 'failout');
    await page.fill('#f-cluster', 'greetings-lor1');
    await page.fill('#f-peers', 'greetings-lva1');
    await page.fill('#f-for', '30m');
    await page.fill('#f-reason', 'INC-43');
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/check'));
    await page.click('#check');
    const check = (await (await checked).json()) as { kind: string; body: { requestId: string } };
    await page.locator('#judgement.ready:not(.busy)').waitFor({ timeout: 10_000 });
    const sends = await loseFirstAnswer(page, '**/api/send');

    // Act: Confirm (lost), then the button the page offers
    await page.click('#confirm');
    const again = page.locator('#confirm:not([hidden])');
    await again.waitFor({ timeout: 10_000 });
    const label = await again.textContent();
    await again.click();
    const line = page.locator('#followed li', { hasText: check.body.requestId });
    await line.waitFor({ timeout: 10_000 });

    // Assess: the same request id both times, sent once, followed
    expect(label).toBe(`Send again (same request ${check.body.requestId})`);
    expect(sends.map((body) => (JSON.parse(body) as { requestId: string }).requestId)).toEqual([check.body.requestId, check.body.requestId]);
    expect(await line.textContent()).toContain('sent; waiting for the worker');
    expect(await page.locator('#judgement').isHidden()).toBe(true);
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => (JSON.parse(m.Body!) as { requestId: string }).requestId)).toEqual([check.body.requestId]);
  }, 60_000);
});
