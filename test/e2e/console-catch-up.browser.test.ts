import { get, type IncomingMessage } from 'node:http';
import type { Page } from 'playwright-core';
import type { FailoutProperties } from '../../lib/d2';
import { ConsoleWorld } from '../helpers/console-world';
import { clusterDoc, putCluster, putService, serviceDoc } from '../helpers/d2';

// A page that stops reading its event stream for a while (issue 24, item 1): once its socket's buffers
// are full the server writes nothing more to it, and when it reads again it gets one patch of what
// changed meanwhile, each card as it is now (two changes of one card: one upsert), never the whole
// state; after it the page's sections are those of a page loaded fresh. The lagging page is a real
// Chromium page running the console's script, fed (through a stand-in EventSource) exactly the frames
// a Node client that stopped reading received.

const SERVICES = 6;
const FABRICS = ['lor1', 'lva1', 'ltx1'];
/** The cluster changed twice while the client does not read (never before). */
const TWICE = 's3-ltx1';
/** A long reason makes each patch some 30 KB, so a client that does not read fills its buffers within seconds. */
const LONG = 'r'.repeat(3000);

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { getElementById(id: string): { innerHTML: string } | null; querySelector(selector: string): { getAttribute(name: string): string | null } | null };
declare const window: Record<string, unknown>;

function failout(reason: string): FailoutProperties {
  const now = Date.now();
  return { redirects: [{ peer: 's0-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'oncall@example.com', reason, requestId: 'r-1' }] };
}

/** A page whose EventSource only delivers what the test hands it (`window.feed(event, data)`). */
async function heldPage(page: Page, url: string): Promise<Page> {
  const held = await page.context().browser()!.newPage();
  await held.addInitScript(() => {
    const listeners: Record<string, ((e: { data: string }) => void)[]> = {};
    window.EventSource = class {
      addEventListener(type: string, listener: (e: { data: string }) => void): void {
        (listeners[type] ??= []).push(listener);
      }
      close(): void {}
    };
    window.feed = (type: string, data: string): void => {
      for (const listener of listeners[type] ?? []) listener({ data });
    };
  });
  await held.goto(url);
  return held;
}

/** The live sections of a page, countdown texts left out (they follow the clock). */
async function sections(page: Page): Promise<Record<string, string>> {
  const html = await page.evaluate(() => Object.fromEntries(['clusters', 'fabrics', 'drills', 'planes'].map((id) => [id, document.getElementById(id)?.innerHTML ?? ''])));
  return Object.fromEntries(Object.entries(html).map(([id, text]) => [id, text.replace(/(<time [^>]*>)[^<]*(<\/time>)/g, '$1$2')]));
}

/** Whole SSE frames (`event` and `data`) in `text`. */
function frames(text: string): { event: string; data: string }[] {
  return text
    .split('\n\n')
    .map((frame) => ({ event: /^event: (.*)$/m.exec(frame)?.[1] ?? '', data: /^data: (.*)$/m.exec(frame)?.[1] ?? '' }))
    .filter((f) => f.event === 'patch' || f.event === 'sections');
}

describe('a page that stops reading its event stream', () => {
  const world = new ConsoleWorld();
  const base = '/console-catch-up/d2';
  let page: Page;

  beforeAll(async () => {
    await world.start();
    for (let s = 0; s < SERVICES; s++) {
      await putService(world.session, base, serviceDoc(`s${s}`, `s${s}-lor1`));
      for (const fabric of FABRICS) await putCluster(world.session, base, clusterDoc(`s${s}-${fabric}`));
    }
    page = await world.open(base, '/console-catch-up/requests', `s${SERVICES - 1}-ltx1`);
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(() => world.close(), 60_000);

  it('gets one patch of the latest of each piece when it reads again, and then shows what a fresh page shows', async () => {
    // Prepare: a page held at the version it was served with, and a client of its stream that does not read
    const server = world.server;
    const lagging = await heldPage(page, server.url);
    const version = await lagging.evaluate(() => document.querySelector('meta[name="console-version"]')?.getAttribute('content') ?? '');
    const response = await new Promise<IncomingMessage>((resolve) => get(`${server.url}events?v=${encodeURIComponent(version)}`, resolve));
    response.pause();

    // Act: changes (never of TWICE) until the server pauses the client; then TWICE twice; then it reads
    let round = 0;
    const until = Date.now() + 30_000;
    while (!server.eventStreams().clients.some((c) => c.pausedSince !== undefined) && Date.now() < until) {
      round++;
      await Promise.all(['s1-lor1', 's2-lva1', 's4-ltx1', 's5-lor1'].map((name) => putCluster(world.session, base, clusterDoc(name, { failoutProperties: failout(`INC-${round} ${LONG}`) }))));
      await new Promise((r) => setTimeout(r, 20));
    }
    const paused = server.eventStreams().clients.some((c) => c.pausedSince !== undefined);
    await putCluster(world.session, base, clusterDoc(TWICE, { failoutProperties: failout('INC-twice first') }));
    await new Promise((r) => setTimeout(r, 300));
    await putCluster(world.session, base, clusterDoc(TWICE, { failoutProperties: failout('INC-twice second') }));
    await new Promise((r) => setTimeout(r, 300));
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.resume();
    const deadline = Date.now() + 15_000;
    while ((!text.includes('INC-twice second') || server.eventStreams().clients.some((c) => c.pausedSince !== undefined)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    response.destroy();
    const received = frames(text.slice(0, text.lastIndexOf('\n\n') + 2));
    await lagging.evaluate((list) => {
      const feed = window.feed as (type: string, data: string) => void;
      for (const f of list) feed(f.event, f.data);
    }, received);
    const fresh = await heldPage(page, server.url);

    // Assess: paused, caught up by a patch (no whole state) carrying TWICE once, as it is now
    expect(paused).toBe(true);
    expect(received.filter((f) => f.event === 'sections')).toEqual([]);
    const withTwice = received.filter((f) => f.data.includes(`"id":"${TWICE}"`));
    expect(withTwice).toHaveLength(1);
    expect(withTwice[0]!.data).toContain('INC-twice second');
    expect(withTwice[0]!.data).not.toContain('INC-twice first');
    expect(await sections(lagging)).toEqual(await sections(fresh));
  }, 90_000);
});
