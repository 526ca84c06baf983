// bench/console: the five measurements, each over pages the caller opened on a running console. The
// DOM is read through page-probe.ts; the console server's CPU through its worker.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { clock, sleep, type BenchWorker } from '../lib/workers';
import { armChange, changeShownAt, currentSelection, installProbe, loadTimes, pageClockOffset, selectRequestId, type LoadTimes } from './page-probe';
import type { FromConsoleWorker, ToConsoleWorker } from './protocol';
import type { ChangeSamples, ConsoleMeasurements, CpuReading } from './results';
import { cpuPercent } from './results';
import { expectedState, type ChangeWriter } from './world';

/** How long a page may take to load and connect before the run fails. */
const LOAD_TIMEOUT_MS = 180_000;
/** Pause after a write before a window that must see no change starts (the change's render and delivery). */
const SETTLE_MS = 2000;

/** One open console page: its own browser context (so its own connection pool: one EventSource each). */
export interface ConsolePage {
  readonly context: BrowserContext;
  readonly page: Page;
  readonly load: LoadTimes;
  /** The page's clock minus ours. */
  readonly offsetMs: number;
}

/** Opens the console in a fresh context with the probe, waits until fully loaded and measures its clock. */
export async function openConsolePage(browser: Browser, url: string): Promise<ConsolePage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    await installProbe(page);
    await page.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    const load = await loadTimes(page, LOAD_TIMEOUT_MS);
    const { offsetMs } = await pageClockOffset(page);
    return { context, page, load, offsetMs };
  } catch (err) {
    await context.close().catch(() => undefined);
    throw err;
  }
}

/** Closes pages (their contexts), all at once. */
export async function closePages(pages: readonly ConsolePage[]): Promise<void> {
  await Promise.all(pages.map((p) => p.context.close().catch(() => undefined)));
}

/** `count` loads, one fresh page at a time, each closed before the next. */
export async function measureLoads(browser: Browser, url: string, count: number): Promise<LoadTimes[]> {
  const loads: LoadTimes[] = [];
  for (let i = 0; i < count; i++) {
    const opened = await openConsolePage(browser, url);
    loads.push(opened.load);
    await closePages([opened]);
  }
  return loads;
}

/** One change at a time, each timed in every page: from the write going out to the card showing its state. */
export async function measureChanges(
  pages: readonly ConsolePage[],
  writer: ChangeWriter,
  options: { changes: number; gapMs: number; timeoutMs: number; progress?: (text: string) => void },
): Promise<ChangeSamples> {
  const latenciesMs: number[] = [];
  let missed = 0;
  for (let k = 0; k < options.changes; k++) {
    const change = writer.prepare();
    await Promise.all(pages.map((p) => armChange(p.page, change.cluster, expectedState(change))));
    const sentAt = clock();
    await writer.write(change);
    const shown = await Promise.all(pages.map(async (p) => ({ p, at: await changeShownAt(p.page, options.timeoutMs) })));
    const times = shown.map(({ p, at }) => (at === null ? null : at - p.offsetMs - sentAt));
    for (const ms of times) {
      if (ms === null) missed++;
      else latenciesMs.push(ms);
    }
    options.progress?.(`change ${k + 1} (${change.cluster} → ${expectedState(change)}): ${times.map((ms) => (ms === null ? 'missed' : `${Math.round(ms)} ms`)).join(', ')}`);
    await sleep(options.gapMs);
  }
  return { latenciesMs, missed, timeoutMs: options.timeoutMs };
}

/**
 * A fresh page's received bytes over `seconds` once it is loaded, with nothing written (CDP's Network
 * domain, enabled before the page loads: it reports only requests it saw start, and the event stream
 * is one long request).
 */
export async function measureIdle(browser: Browser, url: string, seconds: number): Promise<ConsoleMeasurements['idle']> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    const totals = { encodedBytes: 0, dataBytes: 0, eventSourceBytes: 0, eventSourceMessages: 0 };
    let counting = false;
    cdp.on('Network.dataReceived', (e) => {
      if (!counting) return;
      totals.encodedBytes += e.encodedDataLength;
      totals.dataBytes += e.dataLength;
    });
    cdp.on('Network.eventSourceMessageReceived', (e) => {
      if (!counting) return;
      totals.eventSourceMessages++;
      totals.eventSourceBytes += Buffer.byteLength(e.data, 'utf8');
    });
    await cdp.send('Network.enable');
    await installProbe(page);
    await page.goto(url, { waitUntil: 'load', timeout: LOAD_TIMEOUT_MS });
    await loadTimes(page, LOAD_TIMEOUT_MS);
    await sleep(SETTLE_MS);
    counting = true;
    await sleep(seconds * 1000);
    counting = false;
    return { seconds, ...totals };
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** The console worker's CPU time now. */
async function cpuNow(worker: BenchWorker<ToConsoleWorker, FromConsoleWorker>, id: number): Promise<CpuReading> {
  const reply = await worker.request({ type: 'cpu', id }, 'cpu', 10_000, (m) => m.id === id);
  return { userUs: reply.userUs, systemUs: reply.systemUs, at: reply.at };
}

/**
 * The console server's CPU while `pages` pages are open (the ones given, plus more opened here and
 * closed at the end) and a change is written every `everyMs` for `seconds`.
 */
export async function measureCpu(
  worker: BenchWorker<ToConsoleWorker, FromConsoleWorker>,
  browser: Browser,
  url: string,
  open: readonly ConsolePage[],
  writer: ChangeWriter,
  options: { pages: number; seconds: number; everyMs: number; progress?: (text: string) => void },
): Promise<ConsoleMeasurements['cpu']> {
  const extra: ConsolePage[] = [];
  try {
    while (open.length + extra.length < options.pages) extra.push(await openConsolePage(browser, url));
    options.progress?.(`${open.length + extra.length} pages open for the CPU window`);
    await sleep(SETTLE_MS);
    const changes = await writeEvery(writer, options.seconds, options.everyMs, async () => cpuNow(worker, 1), async () => cpuNow(worker, 2));
    return { pages: open.length + extra.length, seconds: options.seconds, changes: changes.count, percent: cpuPercent(changes.before, changes.after) };
  } finally {
    await closePages(extra);
  }
}

/** Writes a change every `everyMs` for `seconds`, calling `before` at the start and `after` at the end. */
async function writeEvery<B, A>(writer: ChangeWriter, seconds: number, everyMs: number, before: () => Promise<B>, after: () => Promise<A>): Promise<{ before: B; after: A; count: number }> {
  const first = await before();
  const start = clock();
  const end = start + seconds * 1000;
  let count = 0;
  for (let next = start; next < end; next += everyMs) {
    if (clock() < next) await sleep(next - clock());
    await writer.write(writer.prepare());
    count++;
  }
  if (clock() < end) await sleep(end - clock());
  return { before: first, after: await after(), count };
}

/**
 * Selects the request id on `cluster`'s card, writes a change to other clusters every `everyMs` for
 * `seconds` (while the countdowns run), and reads the selection again.
 */
export async function measureSelection(page: Page, cluster: string, writer: ChangeWriter, options: { clusters: number; seconds: number; everyMs: number }): Promise<ConsoleMeasurements['selection']> {
  const selected = await selectRequestId(page, cluster);
  const run = await writeEvery(writer, options.seconds, options.everyMs, async () => undefined, async () => currentSelection(page));
  return { clusters: options.clusters, seconds: options.seconds, changes: run.count, selected, after: run.after.text, connected: run.after.connected };
}
