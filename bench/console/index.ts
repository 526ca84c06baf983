// bench/console (issue 24, item 1): the failout console at scale, in Chromium.
// World: S services × 3 fabrics (default 1,000 → 3,000 clusters, 3 hosts each), 50 clusters failed
// out with a window ending in an hour (countdowns run), 5,000 request records; written into a real
// ZooKeeper with the project's codecs (world.ts). The console server runs alone in a child process
// (console-worker.ts), started as `failout console` starts it. Measured, each against its target:
// - first paint and fully loaded of a fresh page (page-probe.ts defines both);
// - one change → its card shows it in each of P open pages, over C changes (p50/p95);
// - an idle page's received bytes per second while countdowns run and nothing is written;
// - the console server's CPU with 20 pages open and a change every 2 s for 30 s;
// - at 600 clusters (its own world and console): a text selection in a card surviving 10 s of
//   countdowns and a change every 2 s elsewhere.
// The page is read through its DOM attributes only, never the event stream's format (which issue 24
// changes). `npm run bench -- console [--services 1000] [--pages 5] [--changes 20] [--quick] …`
// (parameters.ts has every option).
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { chromium } from 'playwright-core';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local';
import { createLogger } from '../../lib/logging';
import { connectSession, type ZkSession } from '../../lib/zk';
import { round } from '../lib/report';
import { clock, spawnWorker, type BenchWorker } from '../lib/workers';
import { closePages, measureChanges, measureCpu, measureIdle, measureLoads, measureSelection, openConsolePage, type ConsolePage } from './measurements';
import { waitForWorld } from './page-probe';
import { parameters, type Parameters } from './parameters';
import type { FromConsoleWorker, ToConsoleWorker } from './protocol';
import { reportConsole } from './results';
import { ChangeWriter, seedWorld, type WorldPaths, type WorldPlan } from './world';

/** Debian's Chromium, as the browser tests use it (test/helpers/browser.ts). */
const CHROMIUM = process.env.FAILOUT_CHROMIUM ?? '/usr/bin/chromium';
/** How long a console may take to show its whole world after it starts. */
const WORLD_TIMEOUT_MS = 300_000;

type ConsoleWorker = BenchWorker<ToConsoleWorker, FromConsoleWorker>;

/** Where one world lives in ZooKeeper. */
function worldPaths(name: string): WorldPaths {
  return { d2Base: `/bench-console/${name}/d2`, requestsBase: `/bench-console/${name}/requests` };
}

const progress = (started: number, text: string): void => void process.stdout.write(`[${round((clock() - started) / 1000, 1)} s] ${text}\n`);

/** Forks the console worker and starts the console on `paths`; returns it and the console's URL. */
async function startConsoleWorker(connectString: string, paths: WorldPaths, consoleRoot: string): Promise<{ worker: ConsoleWorker; url: string }> {
  const worker = spawnWorker<ToConsoleWorker, FromConsoleWorker>(join(__dirname, 'console-worker.ts'), 0, 1, 'tsx');
  try {
    const started = await worker.request({ type: 'start', connectString, ...paths, consoleRoot }, 'started', 60_000);
    return { worker, url: started.url };
  } catch (err) {
    await worker.close();
    throw err;
  }
}

/** Seeds a world, starts its console and waits (in a throwaway page) until the console shows all of it. */
async function prepareWorld(session: ZkSession, zk: ZooKeeperServer, browser: Browser, name: string, plan: WorldPlan, consoleRoot: string, setupMs: Record<string, number>) {
  const paths = worldPaths(name);
  let t = clock();
  const seeded = await seedWorld(session, paths, plan);
  setupMs[`${name}Seed`] = round(clock() - t);
  t = clock();
  const { worker, url } = await startConsoleWorker(zk.connectString, paths, consoleRoot);
  try {
    const warm = await openConsolePage(browser, url);
    try {
      await waitForWorld(warm.page, plan.services * 3, WORLD_TIMEOUT_MS);
    } finally {
      await closePages([warm]);
    }
  } catch (err) {
    await worker.close();
    throw err;
  }
  setupMs[`${name}ConsoleReady`] = round(clock() - t);
  return { paths, seeded, worker, url, writer: new ChangeWriter(session, paths.d2Base, plan.services) };
}

const plan = (p: Parameters, services: number): WorldPlan => ({ services, hosts: p.hosts, failedOut: p.failedOut, records: p.records });

export default async function consoleBench(args: string[]): Promise<void> {
  const p = parameters(args);
  const started = clock();
  const log = createLogger('bench-console');
  if (!process.env.FAILOUT_LOG_LEVEL) log.level = 'warn';
  process.stdout.write(
    `console${p.quick ? ' (--quick)' : ''}: ${p.services} services × 3 fabrics, ${p.failedOut} failed out, ${p.records} records; ` +
      `${p.loads} loads, ${p.pages} pages × ${p.changes} changes, idle ${p.idleS} s, CPU ${p.cpuPages} pages ${p.cpuS} s, ` +
      `selection at ${p.selectionServices * 3} clusters ${p.selectionS} s; console from ${p.consoleRoot}\n`,
  );
  const setupMs: Record<string, number> = {};
  let zk: ZooKeeperServer | undefined;
  let session: ZkSession | undefined;
  let browser: Browser | undefined;
  const workers: ConsoleWorker[] = [];
  let pages: ConsolePage[] = [];
  try {
    zk = await startZooKeeper();
    session = await connectSession({ connectString: zk.connectString, sessionTimeoutMs: 30_000, logger: log });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });

    const main = await prepareWorld(session, zk, browser, 'main', plan(p, p.services), p.consoleRoot, setupMs);
    workers.push(main.worker);
    progress(started, `main world seeded (${main.seeded.nodes} nodes) and shown by the console at ${main.url}`);
    const loads = await measureLoads(browser, main.url, p.loads);
    progress(started, `loads: fully loaded ${loads.map((l) => round(l.fullyLoadedMs)).join(', ')} ms`);
    for (let i = 0; i < p.pages; i++) pages.push(await openConsolePage(browser, main.url));
    progress(started, `${p.pages} pages open`);
    const changes = await measureChanges(pages, main.writer, { changes: p.changes, gapMs: p.gapMs, timeoutMs: p.changeTimeoutMs, progress: (text) => progress(started, text) });
    progress(started, `changes: ${changes.latenciesMs.length} samples, ${changes.missed} missed`);
    const idle = await measureIdle(browser, main.url, p.idleS);
    progress(started, `idle: ${idle.encodedBytes} bytes in ${p.idleS} s`);
    const cpu = await measureCpu(main.worker, browser, main.url, pages, main.writer, { pages: p.cpuPages, seconds: p.cpuS, everyMs: p.everyMs, progress: (text) => progress(started, text) });
    progress(started, `cpu: ${round(cpu.percent, 1)} % with ${cpu.pages} pages`);
    await closePages(pages);
    pages = [];
    await main.worker.close();

    const small = await prepareWorld(session, zk, browser, 'selection', plan(p, p.selectionServices), p.consoleRoot, setupMs);
    workers.push(small.worker);
    const page = await openConsolePage(browser, small.url);
    pages.push(page);
    const selection = await measureSelection(page.page, small.seeded.failedOut[0]!.cluster, small.writer, { clusters: p.selectionServices * 3, seconds: p.selectionS, everyMs: p.everyMs });
    progress(started, `selection: ${selection.after === selection.selected && selection.selected !== '' ? 'survived' : 'lost'}`);

    reportConsole({ loads, changes, idle, cpu, selection }, p, { setupMs, elapsedMs: round(clock() - started) });
  } finally {
    await closePages(pages);
    await browser?.close().catch(() => undefined);
    await Promise.all(workers.map((w) => w.close()));
    await session?.close().catch(() => undefined);
    await zk?.close();
    process.stdout.write(`elapsed ${round((clock() - started) / 1000, 1)} s\n`);
  }
}
