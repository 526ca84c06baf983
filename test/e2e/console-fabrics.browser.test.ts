import type { Browser, Page } from 'playwright-core';
import { LocalStack } from '../../lib/local/stack';
import { errorAlarmName } from '../../lib/local';
import { buildPutFabricBody, OperatorConnections, resolveSettings, sendChangeRequest, waitForOutcome } from '../../lib/operator';
import { newRequestId } from '../../lib/requests';
import { openConsole } from '../helpers/console-page';

// The console's fabric view (issue 23, item 6) in Chromium on the whole local stack (real ZooKeeper,
// fauxqs, the request worker, bridges and traffic): the fabrics × services table with each fabric's
// share of the traffic, an evacuation of lor1 checked (the worker's judged plan shown) and confirmed,
// followed on the page to the end, restored with a confirm, and a hostile fabric map in ZooKeeper shown
// as text. The steps run in order on one stack.

const MINUTE = 60_000;
/** A fabric name and a cluster name that would be markup as HTML (no space or slash: valid znode names). */
const HOSTILE_FABRIC = 'x"><b>fab<i>\'&';
const HOSTILE_CLUSTER = 'greetings-"><b>clu<i>';

// The little of the DOM used in page functions (this project compiles without the DOM's types).
interface PageElement {
  getAttribute(name: string): string | null;
  textContent: string | null;
}
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): ArrayLike<PageElement> };

/** A cell's state in the fabric table: the row of `service`, the column of `fabric`. */
async function cellState(page: Page, service: string, cluster: string): Promise<string | null> {
  return page.locator(`#fabric-table tr[data-service="${service}"] li[data-cluster="${cluster}"]`).getAttribute('data-state');
}

/** A fabric's share of a service's traffic in the table (0–1). */
async function share(page: Page, service: string, fabric: string): Promise<number> {
  return Number(await page.locator(`#fabric-table tr[data-service="${service}"] td[data-fabric="${fabric}"] .share`).getAttribute('data-share'));
}

/** Checks the fabric form and waits for its answer; returns the answer as the server sent it. */
async function checkFabric(page: Page): Promise<{ kind: string; requestId: string; reason?: string }> {
  const answer = page.waitForResponse((r) => r.url().endsWith('/api/fabric/check'));
  await page.click('#e-check');
  const json = (await (await answer).json()) as { kind: string; requestId: string; reason?: string };
  await page.locator('#fabric-judgement:not(.busy)').waitFor({ timeout: 10_000 });
  return json;
}

/** Confirms the checked fabric request; returns what `/api/fabric/send` was sent, and waits for the worker's outcome. */
async function confirmApplied(page: Page): Promise<Record<string, unknown>> {
  const request = page.waitForRequest((r) => r.url().endsWith('/api/fabric/send'));
  await page.click('#e-confirm');
  const sent = JSON.parse((await request).postData() ?? 'null') as Record<string, unknown>;
  await page.locator(`#fabric-followed li[data-request="${String(sent.requestId)}"].outcome-applied`).waitFor({ timeout: 20_000 });
  return sent;
}

describe('the console evacuates a fabric', () => {
  let stack: LocalStack | undefined;
  let browser: Browser | undefined;
  let page: Page;
  const dialogs: string[] = [];

  beforeAll(async () => {
    stack = await LocalStack.start({ rate: 20, consolePort: 0 });
    ({ browser, page } = await openConsole(stack));
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.close();
  }, 60_000);

  it("shows fabrics × services: every service serving in lor1, lva1 and ltx1, with each fabric's share of its traffic from the request rates", async () => {
    // Act: the shares come from the scrapes once traffic has flowed
    await page.locator('#fabrics [data-share-source="rates"]').waitFor({ timeout: 15_000 });
    const fabrics = await page.locator('#fabric-table thead th[data-fabric]').evaluateAll((cells) => cells.map((c) => (c as unknown as PageElement).getAttribute('data-fabric')));
    const services = await page.locator('#fabric-table tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as PageElement).getAttribute('data-service')));

    // Assess: all the traffic is served in the local fabric
    expect(fabrics).toEqual(['lor1', 'ltx1', 'lva1']);
    expect(services).toEqual(['greetings', 'hello']);
    expect(await cellState(page, 'greetings', 'greetings-lor1')).toBe('serving');
    expect(await cellState(page, 'hello', 'hello-lva1')).toBe('serving');
    expect(await share(page, 'greetings', 'lor1')).toBeGreaterThan(0.9);
    expect(await page.locator('article.card.fabric[data-fabric="lor1"] button[data-fabric-act="evacuate"]').count()).toBe(1);
  }, 30_000);

  it("evacuates lor1: Check shows the worker's plan, Confirm sends that request by its id, and the page follows the evacuation", async () => {
    // Prepare
    await page.locator('article.card.fabric[data-fabric="lor1"] button[data-fabric-act="evacuate"]').click();
    await page.fill('#e-for', '45m');
    await page.fill('#e-alarms', errorAlarmName('greetings-lor1'));
    await page.fill('#e-reason', 'INC-23 <b>drill</b>');

    // Act: a Check of 45m taken back by an edit to 30m; Check again, read the plan, Confirm
    await checkFabric(page);
    await page.fill('#e-for', '30m');
    const staleConfirm = await page.locator('#e-confirm').isDisabled();
    const staleHead = await page.locator('#fj-head').textContent();
    const check = await checkFabric(page);
    const planned = await page.locator('#fj-clusters tbody tr').evaluateAll((rows) => rows.map((r) => (r as unknown as PageElement).textContent));
    const receivers = await page.locator('#fj-receivers tbody tr').evaluateAll((rows) => rows.map((r) => [(r as unknown as PageElement).getAttribute('data-cluster'), Number((r as unknown as PageElement).getAttribute('data-after'))] as const));
    const head = await page.locator('#fj-head').textContent();
    const sentAt = Date.now();
    const sent = await confirmApplied(page);
    const evacuation = page.locator(`article.card.fabric[data-fabric="lor1"] .evacuation[data-request="${check.requestId}"]`);
    await evacuation.waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('#fabric-table li[data-cluster="greetings-lor1"]')?.getAttribute('data-state') === 'evacuated', undefined, { timeout: 10_000 });
    const ends = Number(await evacuation.locator('.ends time[data-until]').getAttribute('data-until'));
    const stage = await evacuation.locator('.stage').textContent();
    // The traffic leaves lor1 for the other fabrics
    await page.waitForFunction(() => Number(document.querySelector('#fabric-table tr[data-service="greetings"] td[data-fabric="lor1"] .share')?.getAttribute('data-share') ?? 1) < 0.05, undefined, { timeout: 15_000 });

    // Assess: the first Check could not be confirmed once the form changed
    expect(staleConfirm).toBe(true);
    expect(staleHead).toContain('check again');
    // The plan moved both services' lor1 clusters to their peers in lva1 and ltx1, by their hosts
    expect(check.kind).toBe('ready');
    expect(head).toContain('The worker would apply this plan now');
    expect([...planned].sort()).toEqual([expect.stringMatching(/^greetings-lor1greetings.*greetings-l(va|tx)1 \(\d+\), greetings-l(va|tx)1 \(\d+\)$/), expect.stringMatching(/^hello-lor1hello.*hello-l(va|tx)1 \(\d+\), hello-l(va|tx)1 \(\d+\)$/)]);
    expect(receivers.map(([cluster]) => cluster).sort()).toEqual(['greetings-ltx1', 'greetings-lva1', 'hello-ltx1', 'hello-lva1']);
    expect(receivers.every(([, after]) => after > 1 && after <= 2)).toBe(true);
    // Confirm sent the request id only: the server sent the body it had checked
    expect(sent).toEqual({ requestId: check.requestId });
    expect(stage).toMatch(/^stage 1 of 1/);
    expect(Math.abs(ends - (sentAt + 30 * MINUTE))).toBeLessThan(MINUTE);
    expect(await page.locator('article.card.fabric[data-fabric="lor1"] button[data-fabric-act="restoreFabric"]').count()).toBe(1);
    expect(await page.locator('article.card[data-cluster="greetings-lor1"] .badge[data-state="failed-out"]').count()).toBe(1);
  }, 60_000);

  it('restores lor1 with a confirm: the evacuation ends and its clusters serve again', async () => {
    // Prepare
    await page.locator('article.card.fabric[data-fabric="lor1"] button[data-fabric-act="restoreFabric"]').click();
    await page.fill('#e-reason', 'INC-23 over');

    // Act
    const check = await checkFabric(page);
    const judgement = await page.locator('#fj-text').textContent();
    await confirmApplied(page);
    await page.locator('article.card.fabric[data-fabric="lor1"] .last-evacuation[data-status="restored"]').waitFor({ timeout: 10_000 });
    await page.waitForFunction(() => document.querySelector('#fabric-table li[data-cluster="greetings-lor1"]')?.getAttribute('data-state') === 'serving', undefined, { timeout: 10_000 });

    // Assess
    expect(check.kind).toBe('ready');
    expect(judgement).toContain('ends the evacuation of lor1 OPEN');
    expect(await page.locator('article.card.fabric[data-fabric="lor1"] .evacuation').count()).toBe(0);
    expect(await page.locator('article.card.fabric[data-fabric="lor1"] button[data-fabric-act="evacuate"]').count()).toBe(1);
    expect(await cellState(page, 'hello', 'hello-lor1')).toBe('serving');
  }, 60_000);

  it('shows a fabric map with hostile names, written through the worker, as text', async () => {
    // Prepare: a map for fabric `x"><b>fab<i>'&` naming a cluster D2 does not have
    const env: Record<string, string | undefined> = { ...stack!.env() };
    const settings = resolveSettings({}, env);
    const connections = new OperatorConnections(settings);
    try {
      const body = buildPutFabricBody(HOSTILE_FABRIC, { cluster: [`${HOSTILE_CLUSTER}=greetings`] }, { requestId: newRequestId(Date.now()), requestedBy: 'e2e' });
      const messageId = await sendChangeRequest(connections, env, body);
      const record = await waitForOutcome(connections, settings, { requestId: body.requestId, messageId }, 20_000);
      expect(record?.status).toBe('applied');
    } finally {
      await connections.close();
    }

    // Act
    const card = page.locator('article.card.fabric').filter({ has: page.locator('h3', { hasText: HOSTILE_FABRIC }) });
    await card.waitFor({ timeout: 10_000 });
    const heading = await card.locator('h3').textContent();
    const attribute = await card.getAttribute('data-fabric');
    const missing = await page.locator('#fabrics .fabric-problems').textContent();

    // Assess: the names are text, in text and in attributes; no element came of them and no script ran
    expect(heading).toBe(`Fabric ${HOSTILE_FABRIC}`);
    expect(attribute).toBe(HOSTILE_FABRIC);
    expect(missing).toContain(`names ${HOSTILE_CLUSTER}, which D2 does not have`);
    expect(await page.locator('#fabrics b, #fabrics i, #fabric-act b, #fabric-act i').count()).toBe(0);
    expect(dialogs).toEqual([]);
  }, 60_000);
});
