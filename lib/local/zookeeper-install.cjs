// Finding and installing the ZooKeeper server. Plain CommonJS with Node built-ins only, because
// scripts/setup.cjs runs it before npm dependencies exist; lib/local/zookeeper.ts uses it too.
'use strict';

const { existsSync } = require('node:fs');
const { join } = require('node:path');
const { spawnSync } = require('node:child_process');

const DEBIAN_HOME = '/usr/share/zookeeper';
const INSTALL_COMMAND = 'apt-get update && apt-get install -y zookeeper';

/**
 * Locates a ZooKeeper installation: ZOOKEEPER_HOME first (a release tarball or the Debian layout),
 * then the Debian package. Returns the java classpath that runs its server, or undefined.
 */
function findZooKeeper(env = process.env) {
  const homes = [env.ZOOKEEPER_HOME, DEBIAN_HOME].filter(Boolean);
  for (const home of homes) {
    if (!existsSync(join(home, 'bin', 'zkServer.sh'))) continue;
    if (home === DEBIAN_HOME || existsSync('/usr/share/java/zookeeper.jar')) {
      // Debian: the jar's manifest carries the classpath of its dependencies.
      return { home, classpath: ['/etc/zookeeper/conf', '/usr/share/java/zookeeper.jar'].join(':') };
    }
    return { home, classpath: [join(home, 'conf'), join(home, 'lib', '*'), join(home, '*')].join(':') };
  }
  return undefined;
}

/**
 * Returns the installation, installing the Debian package first when it is missing and we are root.
 * Throws an Error whose message gives the exact command to run otherwise.
 */
function ensureZooKeeper(log = (m) => process.stderr.write(`[setup] ${m}\n`)) {
  const found = findZooKeeper();
  if (found) return found;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    throw new Error(
      `ZooKeeper is not installed. Install it as root with:\n\n    sudo sh -c '${INSTALL_COMMAND}'\n\n` +
        'or set ZOOKEEPER_HOME to a ZooKeeper 3.8 installation.',
    );
  }
  log('installing ZooKeeper (apt-get install zookeeper)…');
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update', '-qq'], ['install', '-y', '-qq', 'zookeeper']]) {
    const result = spawnSync('apt-get', args, { stdio: ['ignore', 'inherit', 'inherit'], env });
    if (result.status !== 0) {
      throw new Error(`apt-get ${args.join(' ')} failed (exit ${result.status}); run: ${INSTALL_COMMAND}`);
    }
  }
  const installed = findZooKeeper();
  if (!installed) throw new Error(`apt-get finished but ${DEBIAN_HOME}/bin/zkServer.sh is still missing`);
  return installed;
}

module.exports = { findZooKeeper, ensureZooKeeper, INSTALL_COMMAND };
