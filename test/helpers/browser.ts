import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';

/** Debian's Chromium (scripts/setup.cjs installs it when missing and root). */
export const CHROMIUM = process.env.FAILOUT_CHROMIUM ?? '/usr/bin/chromium';

/** Launches the system Chromium headless; fails with the command to run when it is missing. */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run npm test as root once (scripts/setup.cjs installs it) or: apt-get install -y chromium`);
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}

/** A fresh directory for a test's screenshots. */
export function screenshotDir(prefix = 'failout-console-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * The system Chromium for a test file, as jest hooks: launched before its tests, closed after them.
 * Read `browser` inside tests and hooks (registered after this call, they run after the launch).
 */
export function useBrowser(): { readonly browser: Browser } {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await launchBrowser();
  }, 30_000);
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser(): Browser {
      if (browser === undefined) throw new Error('useBrowser: the browser is read outside a test or hook, or did not launch');
      return browser;
    },
  };
}
