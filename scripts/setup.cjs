#!/usr/bin/env node
// Dependency-free set-up step run first by `npm start` and `npm test`.
// It must work on a fresh clone with nothing installed, so it uses only Node built-ins.
// 1. npm dependencies: `npm ci` when node_modules is missing or older than package-lock.json.
// 2. ZooKeeper: the Debian package (or ZOOKEEPER_HOME); installed with apt-get when missing and root.
// 3. Chromium for the console's browser tests: Debian's package, installed when missing and root.
// 4. The CLI bundle (package.json "bin", so `npx failout`): rebuilt when a source is newer than it.
// `--deps-only` does step 1 only.
// A second run finds both in place and returns in well under a second.
'use strict';

const { createHash } = require('node:crypto');
const { existsSync, readdirSync, readFileSync, statSync, writeFileSync } = require('node:fs');
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

/** Whether any file under `paths` (folders walked, node_modules skipped) changed after `since` (ms). */
function changedSince(since, paths) {
  for (const path of paths) {
    const stat = statSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (!stat.isDirectory()) {
      if (stat.mtimeMs > since) return true;
      continue;
    }
    const entries = readdirSync(path).filter((name) => name !== 'node_modules').map((name) => join(path, name));
    if (changedSince(since, entries)) return true;
  }
  return false;
}

// `npx failout` in the repository runs dist/cli/failout.cjs; `npm ci` builds it (prepare), and after a
// pull or an edit it would run yesterday's code: rebuild it here (about a second) when it is older
// than a source. A failed build only warns (scripts/build.cjs --if-possible).
function ensureCliBundle() {
  const bundle = statSync(join(root, 'dist', 'cli', 'failout.cjs'), { throwIfNoEntry: false });
  const sources = ['lib', 'functions', 'package.json', 'package-lock.json'].map((p) => join(root, p));
  if (bundle && !changedSince(bundle.mtimeMs, sources)) return;
  log(bundle ? 'the failout CLI bundle is older than its sources: rebuilding it (npx failout)…' : 'bundling the failout CLI (npx failout)…');
  run(process.execPath, [join(root, 'scripts', 'build.cjs'), '--cli', '--if-possible']);
}

try {
  ensureDependencies();
  if (!depsOnly) {
    ensureZooKeeper(log);
    ensureChromium(log);
    ensureCliBundle();
  }
} catch (err) {
  log(err instanceof Error ? err.message : String(err));
  process.exit(1);
}
