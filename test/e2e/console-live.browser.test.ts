import type { Page } from 'playwright-core';
import { clusterPath, type FailoutProperties } from '../../lib/d2';
import { ConsoleWorld } from '../helpers/console-world';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../helpers/d2';

// The console's live updates in Chromium (issue 24, item 1) over a real ZooKeeper (lib/local's, the
// one the local stack runs) and a console server: an operator's text selection in a card survives the
// countdowns and other cards' changes; with nothing changing, the event stream is silent (no
// per-second re-render); a failout written to ZooKeeper replaces that card's element only. The steps
// run in order on one server.

const MIN = 60_000;
const HOME = 'greetings-lor1';
const COUNTING = 'greetings-lva1';
const OTHER = 'greetings-ltx1';
/** A cluster name with dots (a valid znode name): its card must be found by name, not by an id built from it. */
const DOTTED = 'greetings-lva1.canary';
const REQUEST_ID = '0194f3b2-aaaa-7000-8000-00000000e2e1';
/** A cluster created during the test, its name between HOME's and OTHER's. */
const NEW = 'greetings-lsg1';

// The little of the DOM used in page functions (this project compiles without the DOM's types).
interface PageNode {
  textContent: string | null;
  getAttribute(name: string): string | null;
  querySelector(selector: string): PageNode | null;
}
interface PageRange {
  selectNodeContents(node: PageNode): void;
}
declare const document: {
  querySelector(selector: string): PageNode | null;
  querySelectorAll(selector: string): ArrayLike<PageNode & Record<string, unknown>>;
  createRange(): PageRange;
};
declare const window: {
  getSelection(): { removeAllRanges(): void; addRange(range: PageRange): void; toString(): string } | null;
  failoutConsole: { stats: { sections: number; patches: number; patchBytes: number } };
};

function failout(requestId: string, reason: string, offlineAt: number, onlineAt: number): FailoutProperties {
  return { redirects: [{ peer: OTHER, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt, requestedBy: 'oncall@example.com', reason, requestId }] };
}

/** The text of a card's first countdown. */
async function countdown(page: Page, cluster: string): Promise<string> {
  return (await page.locator(`article.card[data-cluster="${cluster}"] time[data-until]`).first().textContent()) ?? '';
}

describe('the console updates cards in place', () => {
  const world = new ConsoleWorld();
  let page: Page;
  const base = '/console-live/d2';

  beforeAll(async () => {
    await world.start();
    const session = world.session;
    const now = Date.now();
    await putService(session, base, serviceDoc('greetings', HOME));
    await putCluster(session, base, clusterDoc(HOME, { failoutProperties: failout(REQUEST_ID, 'INC-24 selection', now - MIN, now + 30 * MIN) }));
    await putCluster(session, base, clusterDoc(COUNTING, { failoutProperties: failout('0194f3b2-aaaa-7000-8000-00000000e2e2', 'INC-24 countdown', now + 20 * MIN, now + 50 * MIN) }));
    await putCluster(session, base, clusterDoc(OTHER));
    await putCluster(session, base, clusterDoc(DOTTED));
    await putUri(session, base, OTHER, 'h1', 'http://ltx1-1:8080');
    // The view reads ZooKeeper in the background: load once every card is there.
    page = await world.open(base, '/console-live/requests', DOTTED);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(() => world.close(), 60_000);

  it("keeps a selected request id selected for 10 s of countdowns and another cluster's changes", async () => {
    // Prepare: the home card's request id selected, as an operator would to copy it
    const selected = await page.evaluate(() => {
      const range = document.createRange();
      range.selectNodeContents(document.querySelector('article.card[data-cluster="greetings-lor1"] .rid')!);
      const selection = window.getSelection()!;
      selection.removeAllRanges();
      selection.addRange(range);
      return selection.toString();
    });
    const countingBefore = await countdown(page, COUNTING);

    // Act: another cluster changes twice while both countdowns run
    const now = Date.now();
    await new Promise((r) => setTimeout(r, 3_000));
    await putCluster(world.session, base, clusterDoc(OTHER, { failoutProperties: failout('0194f3b2-aaaa-7000-8000-00000000e2e3', 'INC-24 other', now - MIN, now + 10 * MIN) }));
    await page.locator(`article.card[data-cluster="${OTHER}"] .badge[data-state="failed-out"]`).waitFor({ timeout: 5_000 });
    await new Promise((r) => setTimeout(r, 3_000));
    await putCluster(world.session, base, clusterDoc(OTHER));
    await page.locator(`article.card[data-cluster="${OTHER}"] .badge[data-state="serving"]`).waitFor({ timeout: 5_000 });
    await new Promise((r) => setTimeout(r, Math.max(0, now + 10_000 - Date.now())));
    const after = await page.evaluate(() => window.getSelection()!.toString());

    // Assess
    expect(selected).toBe(`request ${REQUEST_ID}`);
    expect(after).toBe(selected);
    expect(await countdown(page, COUNTING)).not.toBe(countingBefore);
  }, 60_000);

  it('sends nothing on the event stream for 5 s while a countdown runs and nothing changes', async () => {
    // Prepare: a second stream, read on the server's side of the browser
    const stream = await fetch(`${world.server.url}events`);
    const reader = stream.body!.getReader();
    const decoder = new TextDecoder();
    const first = decoder.decode((await reader.read()).value);
    let later = '';
    const reading = (async () => {
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        later += decoder.decode(value, { stream: true });
      }
    })();
    const before = await page.evaluate(() => ({ ...window.failoutConsole.stats }));
    const countdownBefore = await countdown(page, HOME);

    // Act
    await new Promise((r) => setTimeout(r, 5_000));
    const after = await page.evaluate(() => ({ ...window.failoutConsole.stats }));
    await reader.cancel();
    await reading;

    // Assess: the page counted down by itself; not one byte of a patch (nor anything else) came
    expect(first).toContain('event: sections');
    expect(later).toBe('');
    expect(after).toEqual(before);
    expect(await countdown(page, HOME)).not.toBe(countdownBefore);
  }, 30_000);

  it("replaces only the changed card's element when a failout is written to ZooKeeper, found by its dotted name", async () => {
    // Prepare: every card and group element marked
    const marked = await page.evaluate(() => {
      const all = Array.from(document.querySelectorAll('#clusters article.card, #clusters section.group'));
      all.forEach((el, i) => (el.failoutMark = i));
      return all.length;
    });

    // Act
    const now = Date.now();
    await putCluster(world.session, base, clusterDoc(DOTTED, { failoutProperties: failout('0194f3b2-aaaa-7000-8000-00000000e2e4', 'INC-24 <b>dotted</b>', now - MIN, now + 5 * MIN) }));
    await page.locator(`article.card[data-cluster="${DOTTED}"] .badge[data-state="failed-out"]`).waitFor({ timeout: 5_000 });
    const kept = await page.evaluate(() =>
      Array.from(document.querySelectorAll('#clusters article.card, #clusters section.group')).map((el) => ({ cluster: el.getAttribute('data-cluster') ?? `group ${el.getAttribute('data-service') ?? ''}`, marked: el.failoutMark !== undefined })),
    );

    // Assess
    expect(marked).toBe(5);
    expect(kept).toEqual([
      { cluster: 'group greetings', marked: true },
      { cluster: HOME, marked: true },
      { cluster: OTHER, marked: true },
      { cluster: COUNTING, marked: true },
      { cluster: DOTTED, marked: false },
    ]);
    expect(await page.locator(`article.card[data-cluster="${DOTTED}"] .reason`).textContent()).toBe('INC-24 <b>dotted</b>');
    expect(await page.locator('article.card[data-cluster] b').count()).toBe(0);
  }, 30_000);

  it("puts a new cluster's card in its place among the others without moving them, and takes a removed one out", async () => {
    // Prepare: every card marked
    await page.evaluate(() => Array.from(document.querySelectorAll('#clusters article.card')).forEach((el) => (el.failoutMark = true)));
    const cards = (): Promise<{ cluster: string | null; marked: boolean }[]> =>
      page.evaluate(() => Array.from(document.querySelectorAll('#clusters article.card')).map((el) => ({ cluster: el.getAttribute('data-cluster'), marked: el.failoutMark === true })));

    // Act: a cluster whose name sorts between lor1 and ltx1, then its node removed
    await putCluster(world.session, base, clusterDoc(NEW));
    await page.locator(`article.card[data-cluster="${NEW}"]`).waitFor({ timeout: 5_000 });
    const withNew = await cards();
    await world.session.removeRecursive(clusterPath(base, NEW));
    await page.locator(`article.card[data-cluster="${NEW}"]`).waitFor({ state: 'detached', timeout: 5_000 });
    const without = await cards();

    // Assess
    expect(withNew).toEqual([
      { cluster: HOME, marked: true },
      { cluster: NEW, marked: false },
      { cluster: OTHER, marked: true },
      { cluster: COUNTING, marked: true },
      { cluster: DOTTED, marked: true },
    ]);
    expect(without.map((c) => c.cluster)).toEqual([HOME, OTHER, COUNTING, DOTTED]);
    expect(without.every((c) => c.marked)).toBe(true);
  }, 30_000);
});
