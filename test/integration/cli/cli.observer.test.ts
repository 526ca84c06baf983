/**
 * `failout observer` through the real binary path (functions/failout-cli/main.ts, the composition root
 * that wires lib/observer into the CLI) against the harness's ZooKeeper: it serves the D2 tree over
 * ADS on loopback, answers its admin endpoints, keeps its admin token out of every output, stops on
 * SIGTERM and SIGINT with exit 0, and refuses bad settings as usage errors before connecting.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runFailout } from '../../../functions/failout-cli/cli';
import type { CliIo } from '../../../lib/cli';
import { indis } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { runCli, type CliResult } from '../../helpers/cli';
import { clusterDoc, putCluster } from '../../helpers/d2';
import { nodesOf, RawAdsStream } from '../../helpers/observer';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

const MAIN = join(__dirname, '../../../functions/failout-cli/main.ts');
const TOKEN = 'observer-admin-token-0123456789abcdef';

/** A `failout observer` process and what it printed so far. */
interface ObserverProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly output: { stdout: string; stderr: string };
  readonly exited: Promise<number | null>;
}

function startObserver(env: Record<string, string>, ...argv: string[]): ObserverProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'observer', ...argv], { env: { ...process.env, ...env } });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (c: Buffer) => (output.stdout += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output.stderr += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output, exited };
}

/** The ADS and admin addresses from the start line. */
async function addresses(p: ObserverProcess): Promise<{ grpc: string; admin: string }> {
  await eventually(() => /ADS on \S+/.test(p.output.stdout) || p.child.exitCode !== null, 60_000, 'the start line');
  const match = /ADS on (\S+) .*admin (http:\/\/\S+)\//.exec(p.output.stdout);
  if (!match) throw new Error(`no start line: ${p.output.stdout} ${p.output.stderr}`);
  return { grpc: match[1]!, admin: match[2]! };
}

describe('failout observer', () => {
  let base: string;
  let writer: ZkSession;
  let dir: string;
  const env = (): Record<string, string> => ({ ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: base, FAILOUT_LOG_LEVEL: 'warn' });

  beforeEach(async () => {
    base = uniqueBase('cli-observer');
    writer = await openSession();
    dir = mkdtempSync(join(tmpdir(), 'cli-observer-'));
  });

  afterEach(async () => {
    await closeSessions();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a cluster node over ADS and /readyz on loopback, and stops on SIGTERM with exit 0', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const observer = startObserver(env(), '--port', '0', '--admin-port', '0');
    let stream: RawAdsStream | undefined;
    try {
      const { grpc, admin } = await addresses(observer);

      // Act
      await eventually(async () => (await fetch(`${admin}/readyz`)).status === 200, 15_000, 'ready');
      stream = new RawAdsStream(grpc);
      stream.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
      const response = await stream.next(15_000);
      stream.close();
      observer.child.kill('SIGTERM');
      const code = await observer.exited;

      // Assess
      expect(grpc).toMatch(/^127\.0\.0\.1:\d+$/);
      expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(nodesOf(response).map((n) => n.name)).toEqual([path]);
      expect(code).toBe(0);
      expect(observer.output.stdout).toContain('failout observer: stopped');
    } finally {
      stream?.close();
      observer.child.kill('SIGKILL');
    }
  }, 90_000);

  it('asks for the token from --admin-token-file on every admin path but /healthz, never prints it, and stops on SIGINT', async () => {
    // Prepare
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\n`, { mode: 0o600 });
    const observer = startObserver({ ...env(), FAILOUT_LOG_LEVEL: 'info' }, '--port', '0', '--admin-port', '0', '--admin-token-file', tokenFile);
    try {
      const { admin } = await addresses(observer);

      // Act
      const statuses = [
        (await fetch(`${admin}/healthz`)).status,
        (await fetch(`${admin}/metrics`)).status,
        (await fetch(`${admin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })).status,
      ];
      observer.child.kill('SIGINT');
      const code = await observer.exited;

      // Assess
      expect(statuses).toEqual([200, 401, 200]);
      expect(code).toBe(0);
      expect(observer.output.stdout).toContain('(token bearer)');
      expect(observer.output.stderr).toContain('d2-observer started');
      expect(`${observer.output.stdout}${observer.output.stderr}`).not.toContain(TOKEN);
    } finally {
      observer.child.kill('SIGKILL');
    }
  }, 90_000);

  /** One in-process run through the composition root (the real launcher), capturing output. */
  async function runWired(runEnv: Record<string, string>, ...argv: string[]): Promise<CliResult> {
    let stdout = '';
    let stderr = '';
    const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env: runEnv, now: () => Date.now() };
    const code = await runFailout(argv, io);
    return { code, stdout, stderr };
  }

  it.each([
    ['a certificate without its key', ['--tls-cert', '/nonexistent/cert.pem'], {}, 'OBSERVER_GRPC_TLS_CERT'],
    ['a non-loopback admin address without a token', ['--admin-listen', '0.0.0.0'], {}, 'OBSERVER_ADMIN_TOKEN'],
    ['an admin token shorter than 32 characters', [], { OBSERVER_ADMIN_TOKEN: 'short-secret-xyz' }, 'at least 32 characters'],
    ['a bad port', ['--port', '70000'], {}, 'OBSERVER_GRPC_PORT'],
    ['no ZooKeeper connect string', [], { ZK_CONNECT: '' }, 'ZK_CONNECT'],
  ])('refuses %s as a usage error (exit 2) naming the setting, never a secret', async (_name, argv, extra, named) => {
    // Act
    const result = await runWired({ ...env(), ...extra }, 'observer', ...argv);

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(named);
    expect(result.stderr).not.toContain('short-secret-xyz');
    expect(result.stdout).toBe('');
  });

  it('refuses an unreadable --admin-token-file naming the file, not its content', async () => {
    // Act
    const result = await runWired(env(), 'observer', '--admin-token-file', join(dir, 'missing'));

    // Assess
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--admin-token-file: cannot read');
    expect(result.stderr).toContain('ENOENT');
  });

  it('documents its flags, defaults and variables in --help, and the overview lists it', async () => {
    // Act
    const help = await runCli({}, 'observer', '--help');
    const overview = await runCli({}, '--help');

    // Assess
    expect(help.code).toBe(0);
    for (const text of ['--listen <address>', '--port <port>', '--admin-port <port>', '--admin-token-file <file>', '--tls-cert <file>', '--tls-key <file>', '--zk <connect>', '127.0.0.1', '32123', 'OBSERVER_ADMIN_TOKEN', 'docs/observer.md']) {
      expect(help.stdout).toContain(text);
    }
    expect(help.stdout).not.toContain('--queue-url');
    expect(overview.stdout).toContain('failout observer');
  });
});
