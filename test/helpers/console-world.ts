import type { Browser, Page } from 'playwright-core';
import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../lib/console';
import { startZooKeeper, type ZooKeeperServer } from '../../lib/local/zookeeper';
import { ZkSession } from '../../lib/zk';
import { launchBrowser } from './browser';

/**
 * A console over its own ZooKeeper (lib/local's) without the whole local stack, for the browser tests
 * that seed exactly the clusters they need: start, seed through `session`, then `open` the page.
 */
export class ConsoleWorld {
  private zk: ZooKeeperServer | undefined;
  private sessionValue: ZkSession | undefined;
  private serverValue: ConsoleServer | undefined;
  private browser: Browser | undefined;

  /** The writer's session (valid after {@link start}). */
  get session(): ZkSession {
    return this.sessionValue!;
  }

  /** The console server (valid after {@link open}). */
  get server(): ConsoleServer {
    return this.serverValue!;
  }

  /** Starts ZooKeeper and a session to seed it. */
  async start(): Promise<void> {
    this.zk = await startZooKeeper();
    this.sessionValue = new ZkSession({ connectString: this.zk.connectString, sessionTimeoutMs: 10_000, logger: pino({ level: 'silent' }) });
    await this.sessionValue.start();
  }

  /**
   * Starts the console on `d2Base` and `requestsBase`, waits until its view shows `lastCluster`'s card
   * (it reads ZooKeeper in the background), and opens the page at 1280 × 800. `env`: more of the
   * console's environment (a queue, the drills path, an alarm source). `timezoneId`: the browser's
   * local zone (an IANA name; default the machine's).
   */
  async open(d2Base: string, requestsBase: string, lastCluster: string, env: Readonly<Record<string, string>> = {}, timezoneId?: string): Promise<Page> {
    const consoleEnv = { ZK_CONNECT: this.zk!.connectString, D2_BASE_PATH: d2Base, FAILOUT_REQUESTS_PATH: requestsBase, FAILOUT_USER: 'tester', ...env };
    this.serverValue = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, consoleEnv, pino({ level: 'silent' })), queueProbeMs: 60_000 });
    this.browser = await launchBrowser();
    const page = await this.browser.newPage({ viewport: { width: 1280, height: 800 }, ...(timezoneId === undefined ? {} : { timezoneId }) });
    const deadline = Date.now() + 20_000;
    while (!(await (await fetch(this.serverValue.url)).text()).includes(`data-cluster="${lastCluster}"`) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    await page.goto(this.serverValue.url);
    return page;
  }

  /** Closes the browser, the console, the session and ZooKeeper (what was started). */
  async close(): Promise<void> {
    await this.browser?.close();
    await this.serverValue?.close();
    await this.sessionValue?.close();
    await this.zk?.close();
  }
}
