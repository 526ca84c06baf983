import type { Page } from 'playwright-core';
import { useConsolePage } from '../../helpers/console-browser';
import { checkForm, fillForm } from '../../helpers/console-page';
import { putService, serviceDoc } from '../../helpers/d2';
import { failoutBody, realHandler, seedClusters, startPollers, useQueueFixture } from '../../helpers/requests-queue';

// A request the page sent after a Check that passed can still be rejected by the worker: something
// else reached the queue first. The line following the request must then give the worker's reason
// (the history row's reason cell), not repeat the outcome ("REJECTED — rejected"), which it did while
// it read the row's sixth cell after the "why" column had been added before it. Chromium on a real
// console server, real ZooKeeper, fauxqs and the real handler behind a poller.

const HOME = 'greetings-lor1';
const PEER = 'greetings-lva1';

describe('the line following a request the worker rejected', () => {
  const fx = useQueueFixture(async (session, paths) => {
    await putService(session, paths.d2Base, serviceDoc('greetings', HOME));
    await seedClusters(session, paths, [HOME, PEER, 'greetings-ltx1']);
  });
  const ui = useConsolePage(fx);
  let page: Page;

  beforeEach(async () => {
    page = ui.page;
    // Before the page's request, the worker applies a failout of its peer (sent by another operator
    // meanwhile): the page's failout onto that peer is then refused (peerFailedOut).
    let peerFailedOut = false;
    const handler = () =>
      realHandler(fx.session, fx.paths, undefined, async (body, meta, next) => {
        if (!peerFailedOut) {
          peerFailedOut = true;
          await next(JSON.stringify(failoutBody(PEER, ['greetings-ltx1'])), { messageId: 'other-operator' });
        }
        return next(body, meta);
      });
    startPollers(1, { client: fx.sqs.client, queueUrl: ui.queueUrl, handler });
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    await page.locator(`article.card[data-cluster="${HOME}"]`).waitFor({ timeout: 10_000 });
  }, 30_000);

  it('gives the worker\'s reason', async () => {
    // Prepare
    await fillForm(page, { 'f-action': 'failout', 'f-cluster': HOME, 'f-peers': PEER, 'f-for': '30m', 'f-reason': 'INC-4712' });
    expect(await checkForm(page)).toMatchObject({ kind: 'ready' });

    // Act
    await page.click('#confirm');
    const line = page.locator('#followed li.outcome-rejected');
    await line.waitFor({ timeout: 20_000 });

    // Assess
    const requestId = await line.getAttribute('data-request');
    const reason = (await page.locator(`#history-rows tr[data-request="${requestId}"] .reason`).textContent()) ?? '';
    expect(reason).toBe('peerFailedOut');
    expect(await line.textContent()).toMatch(new RegExp(`\\): REJECTED — peerFailedOut — .*${PEER}`));
  });
});
