// Finding and installing the Chromium the console's browser tests drive (playwright-core with the
// system browser; never Playwright's own download). Plain CommonJS with Node built-ins only, because
// scripts/setup.cjs runs it before npm dependencies exist — the same shape as ZooKeeper's installer.
'use strict';

const { existsSync } = require('node:fs');
const { spawnSync } = require('node:child_process');

const CHROMIUM = process.env.FAILOUT_CHROMIUM || '/usr/bin/chromium';
const INSTALL_COMMAND = 'apt-get update && apt-get install -y chromium';

/**
 * Returns the browser's path, installing Debian's chromium first when it is missing and we are root.
 * Not root and missing: a warning with the command (only the browser tests need it; `npm start` does not).
 */
function ensureChromium(log = (m) => process.stderr.write(`[setup] ${m}\n`)) {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    log(`Chromium is not installed (${CHROMIUM}); the console's browser tests need it. Install it as root with: sudo sh -c '${INSTALL_COMMAND}'`);
    return undefined;
  }
  log('installing Chromium for the console tests (apt-get install chromium)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (result.status !== 0) throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}); run: ${INSTALL_COMMAND}`);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get finished but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

module.exports = { ensureChromium, CHROMIUM, INSTALL_COMMAND };
