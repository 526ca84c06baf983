#!/usr/bin/env node
// Dependency-free set-up step run first by `npm start` and `npm test`.
// It must work on a fresh clone with nothing installed, so it uses only Node built-ins.
// 1. npm dependencies: `npm ci` when node_modules is missing or older than package-lock.json.
// 2. ZooKeeper: the Debian package (or ZOOKEEPER_HOME); installed with apt-get when missing and root.
// 3. Chromium for the console's browser tests: Debian's package, installed when missing and root.
// `--deps-only` does step 1 only.
// A second run finds both in place and returns in well under a second.
'use strict';

const { createHash } = require('node:crypto');
const { existsSync, readFileSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const root = join(__dirname, '..');
const { ensureZooKeeper } = require('../lib/local/zookeeper-install.cjs');
const { ensureChromium } = require('../lib/console/chromium-install.cjs');
const stampPath = join(root, 'node_modules', '.failout-setup-stamp');
const depsOnly = process.argv.includes('--deps-only');

function log(msg) {
  process.stderr.write(`[setup] ${msg}\n`);
}

function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: root, stdio: 'inherit' });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(`${cmd} ${args.join(' ')} exited with ${result.status}`);
  }
}

function lockDigest() {
  const lock = readFileSync(join(root, 'package-lock.json'));
  return createHash('sha256').update(lock).digest('hex');
}

function ensureDependencies() {
  const digest = lockDigest();
  if (existsSync(stampPath) && readFileSync(stampPath, 'utf8').trim() === digest) return;
  log('installing npm dependencies (npm ci)…');
  run('npm', ['ci', '--no-audit', '--no-fund']);
  writeFileSync(stampPath, digest + '\n');
}

try {
  ensureDependencies();
  if (!depsOnly) {
    ensureZooKeeper(log);
    ensureChromium(log);
  }
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
