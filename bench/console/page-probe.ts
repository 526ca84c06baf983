// bench/console: what runs inside each Chromium page. A probe installed before the page's own scripts
// (an init script, so it sees the page from its first node) records, with a MutationObserver, the
// moments the benchmark's measurements are made of; everything it reads is the DOM's attributes as
// lib/console/page.ts renders them (`#live.ok`, `article.card[data-cluster] .badge[data-state]`,
// `.rid`), never the event stream's format. Times are absolute (performance.timeOrigin + now(), in
// ms since the epoch): the parent compares them with its own clock, offset measured per page.
import type { Page } from 'playwright-core';
import { clock } from '../lib/workers';

// The little of the DOM the page functions use (this project compiles without the DOM's types).
// Module-scoped: these declare nothing globally.
interface ProbeNode {
  readonly nodeType: number;
  readonly parentElement: ProbeElement | null;
}
interface ProbeElement extends ProbeNode {
  readonly isConnected: boolean;
  readonly classList: { contains(name: string): boolean };
  closest(selector: string): ProbeElement | null;
  querySelector(selector: string): ProbeElement | null;
}
interface ProbeRange {
  selectNodeContents(node: ProbeElement): void;
}
interface ProbeSelection {
  removeAllRanges(): void;
  addRange(range: ProbeRange): void;
  toString(): string;
  readonly rangeCount: number;
  readonly anchorNode: ProbeNode | null;
}
declare const performance: {
  readonly timeOrigin: number;
  now(): number;
  getEntriesByType(type: 'navigation'): { readonly loadEventEnd: number }[];
  getEntriesByName(name: string): { readonly startTime: number }[];
};
declare const document: ProbeElement & { getElementById(id: string): ProbeElement | null; createRange(): ProbeRange; querySelectorAll(selector: string): { readonly length: number } };
declare const window: { __consoleBench: ProbeState; getSelection(): ProbeSelection | null };
declare class MutationObserver {
  constructor(callback: (records: readonly { readonly target: ProbeNode }[]) => void);
  observe(target: unknown, options: Record<string, boolean>): void;
}

/** One awaited card state: set by {@link armChange}, `at` filled by the probe when the card shows it. */
interface CardWatch {
  readonly cluster: string;
  readonly state: string;
  at: number | null;
}

/** What the probe keeps in `window.__consoleBench`. */
interface ProbeState {
  /** When `#live` first had class `ok` (the page's event stream connected). */
  liveOkAt: number | null;
  /**
   * The first DOM change after that which is neither a countdown's text (inside a `<time>`) nor `#live`
   * itself: the page applying the state the stream brought. Nothing else changes the page then (the
   * world is not written during a load).
   */
  firstStateAt: number | null;
  watches: CardWatch[];
}

/**
 * The probe itself, run in the page as an init script (see {@link installProbe}). Self-contained: it
 * is sent as its source text.
 */
function probe(): void {
  const now = (): number => performance.timeOrigin + performance.now();
  const state: ProbeState = { liveOkAt: null, firstStateAt: null, watches: [] };
  window.__consoleBench = state;
  const observer = new MutationObserver((records) => {
    const at = now();
    if (state.liveOkAt === null) {
      const live = document.getElementById('live');
      if (live !== null && live.classList.contains('ok')) state.liveOkAt = at;
    } else if (state.firstStateAt === null) {
      for (const record of records) {
        const element = record.target.nodeType === 1 ? (record.target as ProbeElement) : record.target.parentElement;
        if (element !== null && element.closest('time, #live') === null) {
          state.firstStateAt = at;
          break;
        }
      }
    }
    for (const watch of state.watches) {
      if (watch.at === null && document.querySelector(`article.card[data-cluster="${watch.cluster}"] .badge[data-state="${watch.state}"]`) !== null) watch.at = at;
    }
  });
  observer.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
}

/**
 * Installs the probe in every document `page` loads from now on. The `__name` stub: under tsx every
 * function the benchmark hands to the page is compiled with esbuild's keepNames, which calls a
 * `__name` helper that exists only in Node; in the page it does nothing.
 */
export async function installProbe(page: Page): Promise<void> {
  await page.addInitScript({ content: `globalThis.__name = (f) => f;\n(${probe.toString()})();` });
}

/** Milliseconds since the page's navigation started, from {@link ProbeState} and the Navigation/Paint Timing entries. */
export interface LoadTimes {
  /** `first-contentful-paint`'s startTime; null when Chromium reported none. */
  readonly firstPaintMs: number | null;
  readonly loadEventEndMs: number;
  readonly liveOkMs: number;
  /** Null when no state was applied after the stream connected (see {@link ProbeState.firstStateAt}). */
  readonly firstStateMs: number | null;
  /**
   * Fully loaded: the latest of the load event's end, the event stream connected (`#live.ok`) and the
   * first state applied after it. Waited for up to `settleMs` after the stream connected; when no
   * state arrives by then, fully loaded is the later of the other two and `firstStateMs` is null.
   */
  readonly fullyLoadedMs: number;
}

/** Waits until `page` is fully loaded (see {@link LoadTimes}) and returns its times. */
export async function loadTimes(page: Page, timeoutMs: number, settleMs = 3000): Promise<LoadTimes> {
  await page.waitForFunction(() => window.__consoleBench.liveOkAt !== null, undefined, { timeout: timeoutMs, polling: 50 });
  await page
    .waitForFunction(() => window.__consoleBench.firstStateAt !== null, undefined, { timeout: settleMs, polling: 50 })
    .catch(() => undefined);
  await page.waitForFunction(() => performance.getEntriesByType('navigation').some((e) => e.loadEventEnd > 0), undefined, { timeout: timeoutMs, polling: 50 });
  const raw = await page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0]!;
    const paint = performance.getEntriesByName('first-contentful-paint')[0];
    const s = window.__consoleBench;
    return { origin: performance.timeOrigin, fcp: paint ? paint.startTime : null, loadEventEnd: nav.loadEventEnd, liveOkAt: s.liveOkAt!, firstStateAt: s.firstStateAt };
  });
  const liveOkMs = raw.liveOkAt - raw.origin;
  const firstStateMs = raw.firstStateAt === null ? null : raw.firstStateAt - raw.origin;
  return { firstPaintMs: raw.fcp, loadEventEndMs: raw.loadEventEnd, liveOkMs, firstStateMs, fullyLoadedMs: Math.max(raw.loadEventEnd, liveOkMs, firstStateMs ?? 0) };
}

/** The page's clock minus ours, from the evaluate round trip with the smallest time (±rtt/2). */
export async function pageClockOffset(page: Page, samples = 10): Promise<{ offsetMs: number; rttMs: number }> {
  let best = { offsetMs: 0, rttMs: Infinity };
  for (let i = 0; i < samples; i++) {
    const sent = clock();
    const at = await page.evaluate(() => performance.timeOrigin + performance.now());
    const received = clock();
    if (received - sent < best.rttMs) best = { offsetMs: at - (sent + received) / 2, rttMs: received - sent };
  }
  return best;
}

/** Starts watching for `cluster`'s card to show `state` (replacing any earlier watch). */
export async function armChange(page: Page, cluster: string, state: string): Promise<void> {
  await page.evaluate(([c, s]) => void (window.__consoleBench.watches = [{ cluster: c, state: s, at: null }]), [cluster, state] as const);
}

/** When (page clock) the armed card showed its state; null if it did not within `timeoutMs`. */
export async function changeShownAt(page: Page, timeoutMs: number): Promise<number | null> {
  try {
    await page.waitForFunction(() => window.__consoleBench.watches.every((w) => w.at !== null), undefined, { timeout: timeoutMs, polling: 20 });
  } catch {
    return null;
  }
  return page.evaluate(() => window.__consoleBench.watches[0]?.at ?? null);
}

/** Selects the request id text of `cluster`'s card (its first `.rid`) with a Range; returns the selected text. */
export async function selectRequestId(page: Page, cluster: string): Promise<string> {
  return page.evaluate((c) => {
    const rid = document.querySelector(`article.card[data-cluster="${c}"] .rid`);
    const selection = window.getSelection();
    if (rid === null || selection === null) return '';
    const range = document.createRange();
    range.selectNodeContents(rid);
    selection.removeAllRanges();
    selection.addRange(range);
    return selection.toString();
  }, cluster);
}

/** The page's selection now: its text and whether the node it starts in is still in the document. */
export async function currentSelection(page: Page): Promise<{ text: string; connected: boolean }> {
  return page.evaluate(() => {
    const selection = window.getSelection();
    const anchor = selection?.anchorNode ?? null;
    return { text: selection?.toString() ?? '', connected: anchor !== null && (anchor.nodeType === 1 ? (anchor as ProbeElement) : anchor.parentElement)?.isConnected === true };
  });
}

/**
 * Waits until the page shows the whole world: `clusters` cards, none still loading, and a history
 * that has stopped growing (the console reads its records one by one after connecting). Run once per
 * console before anything is measured, so no measurement sees a half-read world.
 */
export async function waitForWorld(page: Page, clusters: number, timeoutMs: number): Promise<void> {
  await page.waitForFunction(
    (n) => document.querySelectorAll('article.card[data-cluster]').length >= n && document.querySelector('article.card .badge[data-state="loading"]') === null,
    clusters,
    { timeout: timeoutMs, polling: 500 },
  );
  const deadline = clock() + timeoutMs;
  let last = -1;
  let steady = 0;
  while (steady < 4 && clock() < deadline) {
    const rows = await page.evaluate(() => document.querySelectorAll('#history-rows tr[data-request]').length);
    steady = rows === last ? steady + 1 : 0;
    last = rows;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
