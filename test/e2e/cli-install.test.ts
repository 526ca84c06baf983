import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { LocalStack } from '../../lib/local/stack';

// Issue 22: the CLI an operator installs, not the repository's. `npm pack` (prepack builds dist/, the
// CLI bundle included), `npm install -g` of the tarball into an empty prefix (its dependencies from
// the npm registry, no devDependency), then the installed `failout` run from a folder outside the
// repository against the local stack (real ZooKeeper, fauxqs, the request worker): --version, --help,
// a failout that waits for its outcome, status, restore, and the console's static files. The stack
// starts while npm packs and installs.

const REPO = join(__dirname, '../..');
const PACKAGE = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { name: string; version: string; devDependencies: Record<string, string> };
const CLUSTER = 'greetings-lor1';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly ms: number;
}

/** Runs a command to its end (asynchronously: the stack keeps running in this process meanwhile). */
function exec(command: string, args: readonly string[], options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<Run> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr, ms: performance.now() - started });
    });
  });
}

/** `npm pack` of the repository, then `npm install -g --prefix <prefix>` of the tarball; the installed bin. */
async function packAndInstall(temp: string): Promise<{ prefix: string; tarball: string }> {
  const npmEnv = { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  const packed = await exec('npm', ['pack', '--json', '--pack-destination', temp], { cwd: REPO, env: npmEnv, timeoutMs: 240_000 });
  if (packed.code !== 0) throw new Error(`npm pack exited ${packed.code}\n${packed.stderr}`);
  const [{ filename }] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as [{ filename: string }];
  const prefix = join(temp, 'prefix');
  mkdirSync(prefix);
  const installed = await exec('npm', ['install', '--global', '--prefix', prefix, join(temp, filename)], { cwd: temp, env: npmEnv, timeoutMs: 240_000 });
  if (installed.code !== 0) throw new Error(`npm install -g exited ${installed.code}\n${installed.stderr}`);
  return { prefix, tarball: join(temp, filename) };
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

describe('the installed failout CLI (npm pack, npm install -g, run outside the repository)', () => {
  let temp: string;
  let prefix: string;
  let work: string;
  let stack: LocalStack | undefined;

  /** Runs the installed `failout` with only its bin folder and node on PATH, in a folder outside the repository. */
  const failout = (...args: string[]): Promise<Run> =>
    exec('failout', args, {
      cwd: work,
      env: { PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: temp, FAILOUT_USER: 'cli-install@test', ...(stack ? stack.env() : {}) },
      timeoutMs: 90_000,
    });

  beforeAll(async () => {
    temp = realpathSync(mkdtempSync(join(tmpdir(), 'failout-cli-install-')));
    work = join(temp, 'work');
    mkdirSync(work);
    const [installed, started] = await Promise.allSettled([packAndInstall(temp), LocalStack.start({ rate: 20, consolePort: 0 })]);
    if (started.status === 'fulfilled') stack = started.value;
    if (installed.status === 'rejected') throw installed.reason;
    if (started.status === 'rejected') throw started.reason;
    prefix = installed.value.prefix;
  }, 420_000);

  afterAll(async () => {
    await stack?.close();
    if (temp) rmSync(temp, { recursive: true, force: true });
  }, 60_000);

  it('installs one bundled bin and the runtime dependencies only: no devDependency (types aside), no sources', () => {
    // Prepare
    const installedAt = join(prefix, 'lib', 'node_modules', PACKAGE.name);
    const bin = realpathSync(join(prefix, 'bin', 'failout'));

    // Assess
    expect(bin).toBe(join(installedAt, 'dist', 'cli', 'failout.cjs'));
    expect(readFileSync(bin, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(existsSync(join(installedAt, 'dist', 'cli', 'public', 'console.js'))).toBe(true);
    // (@types/node arrives with @types/node-zookeeper-client, a dependency for the library's types.)
    const devOnly = Object.keys(PACKAGE.devDependencies).filter((name) => !name.startsWith('@types/') && existsSync(join(installedAt, 'node_modules', name)));
    expect(devOnly).toEqual([]);
    expect(existsSync(join(installedAt, 'lib'))).toBe(false);
    expect(existsSync(join(installedAt, 'functions'))).toBe(false);
  });

  it('prints its version and its help (cold start: the median of 5 `failout --help`)', async () => {
    // Act
    const version = await failout('--version');
    const helps: Run[] = [];
    for (let i = 0; i < 5; i++) helps.push(await failout('--help'));

    // Assess
    expect(version).toMatchObject({ code: 0, stdout: `${PACKAGE.version}\n`, stderr: '' });
    for (const help of helps) expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(helps[0]?.stdout).toMatch(/^Usage: failout \[options\] \[command\]/);
    for (const command of ['out', 'extend', 'restore', 'status', 'request', 'zk', 'console', 'drill', 'completion']) expect(helps[0]?.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const ms = median(helps.map((h) => h.ms));
    console.info(`installed failout --help: median ${ms.toFixed(0)} ms of ${helps.map((h) => h.ms.toFixed(0)).join(', ')}`);
    expect(ms).toBeLessThan(5_000);
  }, 90_000);

  it('prints a completion script that bash accepts', async () => {
    // Act
    const script = await failout('completion', 'bash');
    const syntax = await new Promise<number | null>((resolve) => {
      const bash = spawn('bash', ['-n'], { stdio: ['pipe', 'ignore', 'ignore'] });
      bash.once('close', resolve);
      bash.stdin.end(script.stdout);
    });

    // Assess
    expect(script.code).toBe(0);
    expect(script.stdout).toContain('complete -F _failout_completion failout');
    expect(syntax).toBe(0);
  });

  it('fails a cluster out and waits for the outcome, shows it in status, then restores it', async () => {
    // Act
    const out = await failout('out', CLUSTER, '--peer', 'greetings-lva1:2', '--peer', 'greetings-ltx1:1', '--for', '10m', '--reason', 'cli-install test', '--wait');
    const during = await failout('status', CLUSTER, '--json');
    const restore = await failout('restore', CLUSTER, '--wait');
    const after = await failout('status', CLUSTER, '--json');

    // Assess
    expect({ code: out.code, stderr: out.stderr }).toEqual({ code: 0, stderr: expect.any(String) as string });
    expect(out.stdout).toMatch(/: applied \(failout /);
    expect(during.code).toBe(0);
    expect((JSON.parse(during.stdout) as { clusters: { cluster: string; state: string }[] }).clusters).toEqual([expect.objectContaining({ cluster: CLUSTER, state: 'failed-out' })]);
    expect({ code: restore.code, stdout: restore.stdout }).toEqual({ code: 0, stdout: expect.stringMatching(/: applied \(restore /) as string });
    const state = (JSON.parse(after.stdout) as { clusters: { state: string }[] }).clusters[0]?.state;
    expect(['serving', 'ended']).toContain(state);
  }, 120_000);

  it("serves the console with its page's static files from the installed package (its own and uPlot's)", async () => {
    // Prepare
    const child = spawn('failout', ['console', '--port', '0'], {
      cwd: work,
      env: { PATH: `${join(prefix, 'bin')}:${dirname(process.execPath)}:/usr/bin:/bin`, HOME: temp, ...(stack ? stack.env() : {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no console URL within 30 s: ${output}`)), 30_000);
        void exited.then((code) => reject(new Error(`failout console exited ${code} before serving: ${output}`)));
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const found = /failout console: (http:\/\/\S+)/.exec(output);
          if (found?.[1]) {
            clearTimeout(timer);
            resolve(found[1]);
          }
        });
      });

      // Act
      const page = await fetch(url);
      const statics = await Promise.all(['static/console.js', 'static/console.css', 'static/uplot/uPlot.iife.min.js', 'static/uplot/uPlot.min.css'].map(async (path) => [path, (await fetch(new URL(path, url))).status]));

      // Assess
      expect(page.status).toBe(200);
      expect(statics).toEqual([
        ['static/console.js', 200],
        ['static/console.css', 200],
        ['static/uplot/uPlot.iife.min.js', 200],
        ['static/uplot/uPlot.min.css', 200],
      ]);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited).toBe(0);
  }, 60_000);
});
