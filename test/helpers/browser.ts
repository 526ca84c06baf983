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
