import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import type { FailoutProperties } from '../../lib/d2';
import { HEALTH_WINDOW_MS } from '../../lib/console/sources';
import { ConsoleWorld } from '../helpers/console-world';
import { clusterDoc, putCluster, putService, serviceDoc } from '../helpers/d2';

// Issue 24, health per target, in Chromium: a real console over a real ZooKeeper scrapes real HTTP
// metrics endpoints. greetings-lor1 is failed out onto greetings-lva1, which answers every request with
// a 500: both cards say so in words. greetings-ltx1's latency histogram is garbage: only its p99 is
// `—`, with the reason. Service hello's endpoint hangs and service hola's answers garbage: their cards'
// numbers are `—` with the reason, the others still show. A metrics label that is markup is shown as
// text. Steady traffic sends no patch.

const HOSTILE = '<img src=x onerror=window.__pwned=1>';
const MIN = 60_000;

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { querySelectorAll(selector: string): ArrayLike<unknown> };
declare const window: { __pwned?: number; failoutConsole: { stats: { patches: number } } };

/** Metrics endpoints: `/greetings` (counters growing with time), `/hello` (never answers), `/hola` (garbage). */
async function startEndpoints(): Promise<{ url: (path: string) => string; close: () => Promise<void> }> {
  const since = Date.now();
  const server: Server = createServer((req, res) => {
    if (req.url === '/hello') return; // hangs: the console's scrape times out
    if (req.url === '/hola') return void res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>502 Bad Gateway</body></html>\n');
    const n = (perSecond: number): number => Math.floor(((Date.now() - since) / 1000) * perSecond);
    const lines = [
      `d2_client_requests_total{cluster="greetings-lva1",outcome="5xx"} ${n(20)}`,
      `d2_client_request_duration_seconds_bucket{cluster="greetings-lva1",le="0.005"} ${n(20)}`,
      `d2_client_request_duration_seconds_bucket{cluster="greetings-lva1",le="+Inf"} ${n(20)}`,
      `d2_client_requests_total{cluster="greetings-ltx1",outcome="2xx"} ${n(10)}`,
      'd2_client_request_duration_seconds_bucket{cluster="greetings-ltx1",le="soon"} many',
      `d2_client_requests_total{cluster="${HOSTILE.replace(/"/g, '\\"')}",outcome="2xx"} ${n(5)}`,
    ];
    res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(`${lines.join('\n')}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function failout(peer: string, offlineAt: number): FailoutProperties {
  return { redirects: [{ peer, weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt, onlineAt: offlineAt + 60 * MIN, requestedBy: 'oncall@example.com', reason: 'INC-24 health', requestId: '0194f3b2-aaaa-7000-8000-00000000e4e1' }] };
}

const card = (page: Page, cluster: string) => page.locator(`article.card[data-cluster="${cluster}"]`);

describe('the console shows each target cluster’s health', () => {
  const world = new ConsoleWorld();
  let endpoints: Awaited<ReturnType<typeof startEndpoints>>;
  let page: Page;
  let openedAt = 0;
  const base = '/console-health/d2';

  beforeAll(async () => {
    endpoints = await startEndpoints();
    await world.start();
    const session = world.session;
    await putService(session, base, serviceDoc('greetings', 'greetings-lor1'));
    await putService(session, base, serviceDoc('hello', 'hello-lor1'));
    await putService(session, base, serviceDoc('hola', 'hola-lor1'));
    await putCluster(session, base, clusterDoc('greetings-lor1', { failoutProperties: failout('greetings-lva1', Date.now() - MIN) }));
    for (const name of ['greetings-lva1', 'greetings-ltx1', 'hello-lor1', 'hola-lor1']) await putCluster(session, base, clusterDoc(name));
    const metrics = `greetings=${endpoints.url('/greetings')},hello=${endpoints.url('/hello')},hola=${endpoints.url('/hola')}`;
    openedAt = Date.now();
    page = await world.open(base, '/console-health/requests', 'hola-lor1', { FAILOUT_METRICS_URLS: metrics });
    await page.locator('#live.ok').waitFor({ timeout: 10_000 });
  }, 120_000);

  afterAll(async () => {
    await world.close();
    await endpoints.close();
  }, 60_000);

  it('marks a peer answering 500s unhealthy, in words, on its own card and on the failed-out card', async () => {
    // Act: the health comes with a patch once two scrapes were made
    const peer = card(page, 'greetings-lor1').locator('ul.peer-health li[data-peer="greetings-lva1"][data-health="unhealthy"]');
    await peer.waitFor({ timeout: 15_000 });
    const own = card(page, 'greetings-lva1').locator('p.health[data-health="unhealthy"]');
    await own.waitFor({ timeout: 5_000 });

    // Assess
    expect(await peer.textContent()).toMatch(/greetings-lva1: \d+ req\/s, 100 % errors, p99 [\d.]+ ms unhealthy/);
    expect(await own.locator('strong.unhealthy').textContent()).toBe('unhealthy');
    expect(await card(page, 'greetings-lva1').locator('p.health [data-metric="errors"]').textContent()).toBe('100 % errors');
  }, 30_000);

  it('shows — with the reason for the one number it could not measure, and the others', async () => {
    // Prepare
    const ltx1 = card(page, 'greetings-ltx1').locator('p.health');
    await ltx1.locator('[data-metric="rps"]:not(.unknown)').waitFor({ timeout: 15_000 });
    await card(page, 'hello-lor1').locator('p.health[data-health="unknown"] [data-metric="rps"][title*="timed out"]').waitFor({ timeout: 15_000 });

    // Act
    const p99 = ltx1.locator('[data-metric="p99"]');
    const hello = card(page, 'hello-lor1').locator('p.health [data-metric]');
    const hola = card(page, 'hola-lor1').locator('p.health [data-metric="rps"]');
    await hola.and(page.locator('[title*="no Prometheus sample"]')).waitFor({ timeout: 15_000 });

    // Assess: ltx1's rate and failed share are shown; its p99 is — with the reason, for eyes and ears
    expect(await ltx1.locator('[data-metric="rps"]').textContent()).toMatch(/^\d+(\.\d)? req\/s$/);
    expect(await ltx1.locator('[data-metric="errors"]').textContent()).toBe('0 % errors');
    expect(await p99.getAttribute('class')).toContain('unknown');
    expect(await p99.getAttribute('title')).toBe('no d2_client_request_duration_seconds histogram for this cluster');
    expect(await p99.textContent()).toBe('p99 — (unknown: no d2_client_request_duration_seconds histogram for this cluster)');
    expect(await p99.locator('.vh').textContent()).toBe(' (unknown: no d2_client_request_duration_seconds histogram for this cluster)');
    // hello's endpoint hangs: each of its numbers is — with the reason; hola's answers garbage
    expect(await hello.evaluateAll((els) => els.map((el) => (el as unknown as { textContent: string }).textContent.split(' (')[0]))).toEqual(['— req/s', '— errors', 'p99 —']);
    expect(await hola.getAttribute('title')).toContain('answered no Prometheus sample');
    // and greetings' numbers still show beside them
    expect(await card(page, 'greetings-lva1').locator('p.health [data-metric="rps"]').getAttribute('class')).toBe('metric');
  }, 60_000);

  it("shows the health in the chart's legend, a label that is markup as text", async () => {
    // Prepare
    const legend = page.locator('figure.chart[data-service="greetings"] table.legend');
    await legend.locator('td.health[data-health="unhealthy"]').first().waitFor({ timeout: 15_000 });

    // Act
    const rows = await legend.locator('tbody tr').evaluateAll((els) => els.map((el) => (el as unknown as { dataset: { target: string } }).dataset.target));
    const lva1 = legend.locator('tbody tr').filter({ has: page.locator('th', { hasText: 'greetings-lva1' }) });

    // Assess
    expect(rows).toEqual(expect.arrayContaining([HOSTILE, 'greetings-lva1', 'greetings-ltx1']));
    expect(await legend.locator('tbody th').filter({ hasText: HOSTILE }).textContent()).toBe(HOSTILE);
    expect(await lva1.locator('td.health').textContent()).toMatch(/100 % errors.*unhealthy/);
    expect(await page.evaluate(() => ({ images: document.querySelectorAll('img').length, pwned: window.__pwned }))).toEqual({ images: 0, pwned: undefined });
  }, 30_000);

  it('sends no patch while the traffic is steady', async () => {
    // Prepare: the health window filled (its first seconds measure over shorter, noisier intervals)
    await new Promise((r) => setTimeout(r, Math.max(0, openedAt + HEALTH_WINDOW_MS + 2000 - Date.now())));
    const before = await page.evaluate(() => window.failoutConsole.stats.patches);

    // Act: five scrapes of the same rates
    await new Promise((r) => setTimeout(r, 5000));

    // Assess
    expect(await page.evaluate(() => window.failoutConsole.stats.patches)).toBe(before);
  }, 60_000);
});
