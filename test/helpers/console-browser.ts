import type { Page } from 'playwright-core';
import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../lib/console';
import { useBrowser } from './browser';
import { cliEnvFor, type QueueFixture } from './requests-queue';

/** What {@link useConsolePage} provides; read it inside tests and hooks, where it is set. */
export interface ConsolePage {
  /** This test's page, on the console. */
  readonly page: Page;
  /** This test's queue (FIFO, fresh): what a Confirm sent is there. */
  readonly queueUrl: string;
}

/**
 * A real console server over a queue fixture (its ZooKeeper paths and a fresh queue) and a Chromium
 * page open on it, for each test, as jest hooks; the browser is launched once for the file. Call it
 * after {@link useQueueFixture} (its hooks run first). `env` adds to the CLI's environment (the
 * fabric paths…), from the fixture.
 */
export function useConsolePage(fx: QueueFixture, env: (fx: QueueFixture) => Record<string, string> = () => ({})): ConsolePage {
  const chromium = useBrowser();
  let server: ConsoleServer | undefined;
  let page: Page | undefined;
  let queueUrl: string | undefined;
  beforeEach(async () => {
    queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, { ...cliEnvFor(fx, queueUrl), ...env(fx) }, pino({ level: 'silent' })), queueProbeMs: 60_000 });
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(server.url);
  }, 30_000);
  afterEach(async () => {
    await page?.close();
    await server?.close();
    page = undefined;
    server = undefined;
  });
  const set = <T>(value: T | undefined, name: string): T => {
    if (value === undefined) throw new Error(`useConsolePage: ${name} is read outside a test or hook`);
    return value;
  };
  return {
    get page() {
      return set(page, 'page');
    },
    get queueUrl() {
      return set(queueUrl, 'queueUrl');
    },
  };
}

/**
 * Makes the first POST to `path` (a glob, e.g. `**\/api/send`) reach the console while its answer
 * never reaches the page (the connection reset after the server answered), and lets the next ones
 * through. Returns the bodies the page posted there, as they come.
 */
export async function loseFirstAnswer(page: Page, path: string): Promise<string[]> {
  const bodies: string[] = [];
  await page.route(path, async (route) => {
    bodies.push(route.request().postData() ?? '');
    if (bodies.length === 1) {
      await route.fetch();
      await route.abort('connectionreset');
    } else await route.continue();
  });
  return bodies;
}
