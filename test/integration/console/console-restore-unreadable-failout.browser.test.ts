import type { Page } from 'playwright-core';
import { clusterPath } from '../../../lib/d2';
import { useConsolePage } from '../../helpers/console-browser';
import { checkForm, confirmApplied, fillForm } from '../../helpers/console-page';
import { put, putService, serviceDoc } from '../../helpers/d2';
import { realHandler, seedClusters, startPollers, useQueueFixture } from '../../helpers/requests-queue';

// A restore the operator sends from the console, of a cluster whose failoutProperties another tool
// wrote unreadable, is applied by the worker and recorded with `unreadableFailout` (the codec's error,
// which quotes the bad peer name). Before, the console's history showed such a record as a plain
// "applied", and the line following the request said only "applied.": the operator never learnt that
// a failout nobody could read was removed (`failout request <id>` said it). Now both say it, the error
// as text, its markup inert and its control and bidi characters as visible escapes. Chromium on a real
// console server, real ZooKeeper, fauxqs and the real handler behind a poller.

const CLUSTER = 'greetings-lor1';
// A peer name no reader accepts (U+202E and ESC are not znode name characters): the codec's error quotes it.
const HOSTILE_PEER = '<img src=x onerror=alert(1)>\\u202e\\u001b[31m';
const BAD = `{"clusterName":"${CLUSTER}","failoutProperties":{"failoutRedirectConfigs":[{"peer":"${HOSTILE_PEER}","weight":1}],"failoutBucketConfigs":[{"offlineAt":1}]}}`;
// How the page shows the quoted name: as text, U+202E and ESC as visible escapes.
const SHOWN_PEER = '"<img src=x onerror=alert(1)>\\u202e\\u001b[31m"';

describe('the console says a restore removed an unreadable failout', () => {
  const fx = useQueueFixture(async (session, paths) => {
    await putService(session, paths.d2Base, serviceDoc('greetings', CLUSTER));
    await seedClusters(session, paths, ['greetings-lva1']);
    await put(session, clusterPath(paths.d2Base, CLUSTER), BAD);
  });
  const ui = useConsolePage(fx);
  let page: Page;

  beforeEach(async () => {
    page = ui.page;
    startPollers(1, { client: fx.sqs.client, queueUrl: ui.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    await page.locator(`article.card[data-cluster="${CLUSTER}"]`).waitFor({ timeout: 10_000 });
  }, 30_000);

  it('in the line following the request and in its history row, the error as text', async () => {
    // Prepare
    await fillForm(page, { 'f-action': 'restore', 'f-cluster': CLUSTER, 'f-reason': 'INC-4711' });
    expect(await checkForm(page)).toMatchObject({ kind: 'ready' });

    // Act
    const requestId = await confirmApplied(page);

    // Assess
    const followed = await page.locator(`#followed li[data-request="${requestId}"]`).textContent();
    expect(followed).toContain(`: applied — removed an unreadable failout (malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].peer must be a cluster name, but ${SHOWN_PEER}`);
    const note = page.locator(`#history-rows tr[data-request="${requestId}"] .unreadable`);
    await note.waitFor({ timeout: 10_000 });
    expect(await note.textContent()).toContain(`removed an unreadable failout (malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].peer must be a cluster name, but ${SHOWN_PEER}`);
    expect(await page.locator('#history-rows img, #followed img').count()).toBe(0);
    const shown = (await page.locator('#history-rows').textContent()) ?? '';
    expect([shown.includes('\u202e'), shown.includes('\u001b')]).toEqual([false, false]);
  });
});
