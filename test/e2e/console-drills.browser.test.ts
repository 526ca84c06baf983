import type { Page } from 'playwright-core';
import { startLocalSqs, type LocalSqs } from '../../lib/local/sqs';
import type { RequestRecord } from '../../lib/requests';
import { ConsoleWorld } from '../helpers/console-world';
import { loseFirstAnswer } from '../helpers/console-browser';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../helpers/d2';
import { clusterDrillDefinition, fabricDrillDefinition, failedRun, skippedRun, weeklyBlockedWindow, writeDrillNode } from '../helpers/drill-nodes';
import { drillHandler, startAlarmServer, type AlarmServer, type DrillPaths } from '../helpers/drills';
import { seedRecords } from '../helpers/history-records';
import { startPollers, stopPollers } from '../helpers/requests-queue';
import { OPEN_ACL } from '../../lib/zk';

// The console's drills in Chromium (issue 24, item 7) over a real ZooKeeper, a real queue (fauxqs) and
// the REAL request handler polling it: a cluster drill and a drain test listed with their next run and
// last outcome; "Run now" shows exactly the request the drill runner would send; Confirm sends it by
// its id only; the worker applies it, and the drill's new outcome reaches the page by a live patch
// (no reload).

const MIN = 60_000;
const DAY = 24 * 60 * MIN;
const PATHS: DrillPaths = { d2Base: '/console-drills/d2', requestsPath: '/console-drills/requests', drillsPath: '/console-drills/drills' };

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null };

function record(requestId: string, appliedAt: number, overrides: Partial<RequestRecord>): RequestRecord {
  return { requestId, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt, clusterVersion: 1, requestedBy: 'failout-drills', ...overrides };
}

describe('the console runs a drill now', () => {
  const world = new ConsoleWorld();
  let sqs: LocalSqs | undefined;
  let alarms: AlarmServer | undefined;
  let page: Page;
  const now = Date.now();

  beforeAll(async () => {
    await world.start();
    sqs = await startLocalSqs();
    alarms = await startAlarmServer();
    for (const name of ['greetings-lor1-errors', 'lor1-drain-errors', 'deploys-in-progress']) alarms.set(name, 'OK');
    const { queueUrl } = await sqs.createFifoQueuePair();
    const session = world.session;
    await putService(session, PATHS.d2Base, serviceDoc('greetings', 'greetings-lor1'));
    for (const cluster of ['greetings-lor1', 'greetings-ltx1', 'greetings-lva1']) {
      await putCluster(session, PATHS.d2Base, clusterDoc(cluster));
      await putUri(session, PATHS.d2Base, cluster, 'h1', `http://${cluster}-1:8080`);
    }
    await session.ensurePath(PATHS.drillsPath, OPEN_ACL);
    const failed = failedRun(now - 8 * DAY);
    const skipped = skippedRun(now - 2 * DAY);
    await writeDrillNode(session, PATHS.drillsPath, clusterDrillDefinition(now), [failed], now);
    await writeDrillNode(session, PATHS.drillsPath, fabricDrillDefinition(now), [skipped], now);
    await seedRecords(session, PATHS.requestsPath, [
      record(failed.runId, failed.at, {}),
      record(`${failed.runId}-stop`, failed.at + 4 * MIN, { action: 'restore' }),
      record(skipped.runId, skipped.at, { cluster: null, fabric: 'lor1', action: 'skipDrill', clusterVersion: null }),
    ]);
    startPollers(1, { client: sqs.client, queueUrl, handler: () => drillHandler(session, PATHS) });
    page = await world.open(PATHS.d2Base, PATHS.requestsPath, 'greetings-lva1', { FAILOUT_QUEUE_URL: queueUrl, SQS_ENDPOINT: sqs.endpoint, FAILOUT_DRILLS_PATH: PATHS.drillsPath, FAILOUT_ALARMS_URL: alarms.url });
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
    await page.locator('article.drill[data-drill="drain-lor1"]').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await stopPollers();
    await world.close();
    await alarms?.close();
    await sqs?.close();
  }, 60_000);

  it('lists the cluster drill and the drain test with their next run and last outcome', async () => {
    // Act
    const weekly = page.locator('article.drill[data-drill="weekly-lor1"]');
    const drain = page.locator('article.drill[data-drill="drain-lor1"]');
    const weeklyNext = Number(await weekly.locator('.next-run').getAttribute('data-next'));
    const drainNext = Number(await drain.locator('.next-run').getAttribute('data-next'));

    // Assess
    expect(await weekly.getAttribute('data-target-kind')).toBe('cluster');
    expect(await drain.getAttribute('data-target-kind')).toBe('fabric');
    expect(weeklyNext).toBeGreaterThan(now + 7 * DAY - MIN);
    expect(await weekly.locator('.next-run time[data-until]').count()).toBe(1);
    expect(drainNext).toBeGreaterThan(now);
    expect(await weekly.locator('.last .outcome').getAttribute('data-status')).toBe('failed');
    expect(await weekly.locator('.last .outcome-alarms').textContent()).toBe('alarm: greetings-lor1-errors');
    expect(await drain.locator('.last .outcome').getAttribute('data-status')).toBe('skipped');
    expect(await weekly.locator('.blocked-windows').textContent()).toBe(`${weeklyBlockedWindow(now)} (UTC)`);
  });

  it('Run now: a Confirm after a blocking alarm fired sends nothing, shows the run the runner decides now (a skip) with its own Confirm, and that sends it', async () => {
    // Prepare: the drain test checked while every alarm is OK (the runner would start it)
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/drill/check'));
    await page.locator('button[data-drill-run="drain-lor1"]').click();
    const answer = (await (await checked).json()) as { requestId: string; decision: string };
    await page.locator('#dc-confirm:not([hidden])').waitFor({ timeout: 10_000 });
    alarms!.set('deploys-in-progress', 'ALARM');
    try {
      // Act: Confirm (decided otherwise now), then the Confirm of what is shown now
      const refused = page.waitForResponse((r) => r.url().endsWith('/api/drill/send'));
      await page.click('#dc-confirm');
      const first = await refused;
      await page.locator('#drill-confirm.changed #dc-confirm:not([hidden])').waitFor({ timeout: 10_000 });
      const head = await page.locator('#dc-head').textContent();
      const shownNow = JSON.parse((await page.locator('#dc-body').textContent()) ?? 'null') as Record<string, unknown>;
      const sentResponse = page.waitForResponse((r) => r.url().endsWith('/api/drill/send'));
      await page.click('#dc-confirm');
      const second = await sentResponse;
      // Its record on the page (the worker's patches settle before the next test opens a history)
      await page.locator(`#drill-followed li[data-request="${answer.requestId}"]:not(.following)`).waitFor({ timeout: 20_000 });

      // Assess
      expect(answer.decision).toBe('started');
      expect(first.status()).toBe(409);
      expect(head).toContain('Not sent: the runner decides this run otherwise now');
      expect(head).toContain('The runner would NOT start it now (blockingAlarm');
      expect(shownNow).toEqual(expect.objectContaining({ requestId: answer.requestId, action: 'skipDrill', skipReason: 'blockingAlarm' }));
      expect(second.status()).toBe(202);
    } finally {
      alarms!.set('deploys-in-progress', 'OK');
    }
  }, 60_000);

  it('Run now: the confirm shows exactly what will be sent, Confirm sends it by its id, and the outcome arrives live', async () => {
    // Prepare: no reload may happen from here on
    const marker = await page.evaluate(() => ((window as unknown as { marker: number }).marker = Math.random()));
    const history = page.locator('article.drill[data-drill="weekly-lor1"] details.drill-history');
    await history.locator('summary').click();

    // Act: Run now, read the confirm, Confirm
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/drill/check'));
    await page.locator('button[data-drill-run="weekly-lor1"]').click();
    const answer = (await (await checked).json()) as { requestId: string; body: string };
    await page.locator('#dc-confirm:not([hidden])').waitFor({ timeout: 10_000 });
    const shown = JSON.parse((await page.locator('#dc-body').textContent()) ?? 'null') as Record<string, unknown>;
    const head = await page.locator('#dc-head').textContent();
    const sendRequest = page.waitForRequest((r) => r.url().endsWith('/api/drill/send'));
    await page.click('#dc-confirm');
    const sent = JSON.parse((await sendRequest).postData() ?? 'null') as Record<string, unknown>;
    // The worker applies the drill's failout; the run and its record reach the page by patches
    await page.locator(`#drill-followed li[data-request="${answer.requestId}"].outcome-applied`).waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => document.querySelector('article.drill[data-drill="weekly-lor1"] .last .outcome')?.getAttribute('data-status') === 'running', undefined, { timeout: 10_000 });
    const lastRun = await page.locator('article.drill[data-drill="weekly-lor1"] .last .outcome').getAttribute('data-run');
    const stillOpen = await history.evaluate((el) => (el as unknown as { open: boolean }).open);
    const sameDocument = await page.evaluate(() => (window as unknown as { marker: number }).marker);

    // Assess: what was shown is the runner's failout of the drill, and what Confirm sent is its id only
    expect(shown).toEqual(expect.objectContaining({ requestId: answer.requestId, action: 'failout', cluster: 'greetings-lor1', drill: 'weekly-lor1', peers: [{ cluster: 'greetings-lva1', weight: 2 }], stopAlarms: ['greetings-lor1-errors', 'deploys-in-progress'] }));
    expect(shown).toEqual(JSON.parse(answer.body));
    expect(head).toContain('The runner would start it now');
    expect(sent).toEqual({ requestId: answer.requestId });
    expect(lastRun).toBe(answer.requestId);
    expect(await page.locator(`article.drill[data-drill="weekly-lor1"] tr[data-request="${answer.requestId}"]`).count()).toBe(1);
    expect(stillOpen).toBe(true);
    expect(sameDocument).toBe(marker);
  }, 60_000);

  it("keeps a drill's history open when a patch replaces the drills section between the click that opens it and its toggle event", async () => {
    // Act: open drain-lor1's history, and before its toggle event is dispatched, the section's markup as the server sends it (closed)
    const openAfter = await page.evaluate(`new Promise((resolve) => {
      const section = document.getElementById('drills');
      const markup = section.innerHTML;
      const history = () => section.querySelector('article.drill[data-drill="drain-lor1"] details.drill-history');
      history().querySelector('summary').click();
      section.innerHTML = markup;
      setTimeout(() => resolve(history().open), 200);
    })`);

    // Assess
    expect(openAfter).toBe(true);
  });

  it('Run now: after a Confirm whose answer was lost on the way (the message reached the queue), Confirm again sends the same id, and the page follows it as sent', async () => {
    // Prepare: a run of the drain test checked; the first Confirm reaches the server, its answer never reaches the page
    const checked = page.waitForResponse((r) => r.url().endsWith('/api/drill/check'));
    await page.locator('button[data-drill-run="drain-lor1"]').click();
    const answer = (await (await checked).json()) as { requestId: string };
    await page.locator('#dc-confirm:not([hidden])').waitFor({ timeout: 10_000 });
    const sends = await loseFirstAnswer(page, '**/api/drill/send');

    // Act: Confirm (lost), then Confirm again
    await page.click('#dc-confirm');
    const again = page.locator('#dc-confirm:not([hidden])', { hasText: 'same request' });
    await again.waitFor({ timeout: 10_000 });
    const label = await again.textContent();
    const secondAnswer = page.waitForResponse((r) => r.url().endsWith('/api/drill/send'));
    await again.click();
    const second = (await (await secondAnswer).json()) as { alreadySent?: boolean };
    const line = page.locator(`#drill-followed li[data-request="${answer.requestId}"]`);
    await line.waitFor({ timeout: 10_000 });

    // Assess: the same id both times; the server had sent it and said so; the page follows it
    expect(label).toBe(`Confirm again (same request ${answer.requestId})`);
    expect(sends.map((body) => JSON.parse(body) as unknown)).toEqual([{ requestId: answer.requestId }, { requestId: answer.requestId }]);
    expect(second.alreadySent).toBe(true);
    expect(await page.locator('#drill-confirm').isHidden()).toBe(true);
    await page.unroute('**/api/drill/send');
  }, 60_000);
});

declare const window: unknown;
