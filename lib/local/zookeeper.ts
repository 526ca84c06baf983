import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureZooKeeper, type ZooKeeperInstallation } from './zookeeper-install.cjs';
import { fourLetterWord, onFreePorts, PortInUseError, portTaken } from './net';
import { killOnExit } from './child-processes';

/** Session timeout bounds the server grants; short ones let tests expire sessions quickly. */
export interface SessionTimeouts {
  minMs: number;
  maxMs: number;
}

/** Options for {@link startZooKeeper}. */
export interface ZooKeeperOptions {
  /** Client port; a free one is chosen when absent. */
  port?: number;
  /** Session timeout bounds; ZooKeeper's defaults (2×, 20× tickTime) when absent. */
  sessionTimeouts?: SessionTimeouts;
  /** Milliseconds to wait for `imok`. Default 30 s (the first JVM start on a cold machine is slow). */
  readyTimeoutMs?: number;
  /** Also serve TLS on a second port (`secureClientPort`); the plain port stays for `ruok` and plain clients. */
  tls?: ZooKeeperTlsOptions;
}

/**
 * TLS for a local server: ZooKeeper 3.8's Netty connection factory with PEM key and trust stores
 * (`ssl.keyStore.type=PEM`), so tests need openssl only, no keytool.
 */
export interface ZooKeeperTlsOptions {
  /** PEM file: the server's PKCS#8 private key followed by its certificate (chain). */
  keyStoreFile: string;
  /** PEM file: the CA certificates that client certificates must chain to. */
  trustStoreFile: string;
  /** Require a client certificate (`ssl.clientAuth=need`); default false (`none`). */
  requireClientCert?: boolean;
}

/** A standalone ZooKeeper server on 127.0.0.1. */
export interface ZooKeeperServer {
  /** `127.0.0.1:<port>`. */
  readonly connectString: string;
  readonly port: number;
  /** `127.0.0.1:<securePort>` when started with `tls`, else undefined. */
  readonly secureConnectString: string | undefined;
  /** Pid of the running JVM, or undefined while stopped. */
  readonly pid: number | undefined;
  /** Stops the JVM, keeping the data directory; `start()` brings the same server back. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and data. */
  start(): Promise<void>;
  /** Stops the JVM and deletes the data directory. Safe to call twice. */
  close(): Promise<void>;
}

/** A 3-member (or n-member) ensemble on 127.0.0.1. */
export interface ZooKeeperEnsemble {
  /** Comma-separated client addresses of every member. */
  readonly connectString: string;
  readonly members: readonly ZooKeeperServer[];
  close(): Promise<void>;
}

const TICK_MS = 2000;

interface MemberSpec {
  dir: string;
  clientPort: number;
  securePort?: number;
  config: string;
  install: ZooKeeperInstallation;
  readyTimeoutMs: number;
}

function configText(dataDir: string, clientPort: number, options: ZooKeeperOptions, extra: string[] = []): string {
  const lines = [
    `tickTime=${TICK_MS}`,
    `dataDir=${dataDir}`,
    `clientPort=${clientPort}`,
    'clientPortAddress=127.0.0.1',
    'admin.enableServer=false',
    '4lw.commands.whitelist=ruok,stat,srvr,mntr,cons,conf',
    // Benchmarks and tests open hundreds of sessions from one address.
    'maxClientCnxns=0',
    'initLimit=10',
    'syncLimit=5',
  ];
  if (options.sessionTimeouts) {
    lines.push(`minSessionTimeout=${options.sessionTimeouts.minMs}`, `maxSessionTimeout=${options.sessionTimeouts.maxMs}`);
  }
  return [...lines, ...extra].join('\n') + '\n';
}

/** zoo.cfg lines for `secureClientPort` (only the Netty factory serves TLS). */
function tlsConfigLines(securePort: number, tls: ZooKeeperTlsOptions): string[] {
  return [
    `secureClientPort=${securePort}`,
    'secureClientPortAddress=127.0.0.1',
    'serverCnxnFactory=org.apache.zookeeper.server.NettyServerCnxnFactory',
    `ssl.keyStore.location=${tls.keyStoreFile}`,
    'ssl.keyStore.type=PEM',
    `ssl.trustStore.location=${tls.trustStoreFile}`,
    'ssl.trustStore.type=PEM',
    `ssl.clientAuth=${tls.requireClientCert ? 'need' : 'none'}`,
  ];
}

/**
 * The Netty factory needs netty-codec and netty-resolver, which Debian's zookeeper.jar manifest does
 * not list (it names only buffer, common, handler, transport); a release tarball's lib/* has them.
 */
function tlsClasspath(install: ZooKeeperInstallation): string {
  return `${install.classpath}:/usr/share/java/netty-codec.jar:/usr/share/java/netty-resolver.jar`;
}

/** One server process; halt/start keep its port and data, close removes them. */
class ZooKeeperProcess implements ZooKeeperServer {
  private child: ChildProcess | undefined;
  private removed = false;

  constructor(private readonly spec: MemberSpec) {}

  get connectString(): string {
    return `127.0.0.1:${this.spec.clientPort}`;
  }

  get port(): number {
    return this.spec.clientPort;
  }

  get secureConnectString(): string | undefined {
    return this.spec.securePort === undefined ? undefined : `127.0.0.1:${this.spec.securePort}`;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Spawns the JVM; `waitReady` is false for ensemble members, which answer only once a quorum forms. */
  async start(waitReady = true): Promise<void> {
    if (this.child) return;
    if (this.removed) throw new Error('ZooKeeper server was closed and its data removed');
    const log = openSync(join(this.spec.dir, 'zookeeper.out'), 'a');
    const child = spawn(
      'java',
      [
        `-Dzookeeper.log.dir=${this.spec.dir}`,
        '-Dzookeeper.root.logger=WARN,CONSOLE',
        '-Dzookeeper.jmx.log4j.disable=true',
        '-Xmx256m',
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-cp',
        this.spec.install.classpath,
        'org.apache.zookeeper.server.quorum.QuorumPeerMain',
        this.spec.config,
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
    this.child = child;
    killOnExit(child);
    child.once('exit', () => {
      if (this.child === child) this.child = undefined;
    });
    if (waitReady) await this.waitReady();
  }

  async waitReady(): Promise<void> {
    const deadline = Date.now() + this.spec.readyTimeoutMs;
    for (;;) {
      if (!this.child) throw await this.exitError();
      const answer = await fourLetterWord(this.spec.clientPort, 'ruok').catch(() => '');
      if (answer === 'imok') {
        // `imok` only says the process runs; `srvr` fails until the server actually serves. `conf`
        // names the data directory: a server of another test that took the port is not this one.
        const srvr = await fourLetterWord(this.spec.clientPort, 'srvr').catch(() => '');
        if (srvr.includes('Mode:') && (await this.answersForItself())) return;
      }
      if (Date.now() > deadline) throw new Error(`ZooKeeper on port ${this.port} not ready after ${this.spec.readyTimeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  private async answersForItself(): Promise<boolean> {
    const conf = await fourLetterWord(this.spec.clientPort, 'conf').catch(() => '');
    return conf.includes(`dataDir=${this.spec.dir}/`);
  }

  /**
   * Why the process is gone; `code` `EADDRINUSE` when its port is bound by someone else now (a free
   * port is free only until someone binds it; the JVM logs nothing here that would say so).
   */
  private async exitError(): Promise<Error> {
    const err = new Error(`ZooKeeper on port ${this.port} exited; see ${join(this.spec.dir, 'zookeeper.out')}`);
    const ports = [this.spec.clientPort, ...(this.spec.securePort === undefined ? [] : [this.spec.securePort])];
    for (const port of ports) if (await portTaken(port)) return new PortInUseError(err.message, err);
    return err;
  }

  async halt(): Promise<void> {
    const child = this.child;
    if (!child) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  }

  async close(): Promise<void> {
    await this.halt();
    if (!this.removed) {
      this.removed = true;
      rmSync(this.spec.dir, { recursive: true, force: true });
    }
  }
}

/**
 * Starts a standalone ZooKeeper on 127.0.0.1 with a temp data directory, resolving once `ruok`
 * answers `imok` and the server serves. Installs the Debian package first when missing (as root).
 */
export async function startZooKeeper(options: ZooKeeperOptions = {}): Promise<ZooKeeperServer> {
  const install = ensureZooKeeper();
  const startOn = async (clientPort: number, securePort: number | undefined): Promise<ZooKeeperServer> => {
    const dir = mkdtempSync(join(tmpdir(), 'failout-zk-'));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    const config = join(dir, 'zoo.cfg');
    const tlsLines = options.tls && securePort !== undefined ? tlsConfigLines(securePort, options.tls) : [];
    writeFileSync(config, configText(dataDir, clientPort, options, tlsLines));
    const classpath = options.tls ? tlsClasspath(install) : install.classpath;
    const server = new ZooKeeperProcess({ dir, clientPort, securePort, config, install: { ...install, classpath }, readyTimeoutMs: options.readyTimeoutMs ?? 30_000 });
    try {
      await server.start();
    } catch (err) {
      await server.close();
      throw err;
    }
    return server;
  };
  const port = options.port;
  if (port !== undefined) return options.tls ? onFreePorts(1, ([secure]) => startOn(port, secure)) : startOn(port, undefined);
  // Free ports may be taken by another process before the JVM binds them: pick others then.
  return onFreePorts(options.tls ? 2 : 1, ([client, secure]) => startOn(client!, secure));
}

/** Starts an ensemble of `size` members (3 for fault tests) and waits until every member serves. */
export async function startEnsemble(size = 3, options: Omit<ZooKeeperOptions, 'port' | 'tls'> = {}): Promise<ZooKeeperEnsemble> {
  const install = ensureZooKeeper();
  return onFreePorts(size * 3, (picked) => startEnsembleOn(install, options, Array.from({ length: size }, (_, i) => ({ client: picked[3 * i]!, peer: picked[3 * i + 1]!, election: picked[3 * i + 2]! }))));
}

async function startEnsembleOn(install: ZooKeeperInstallation, options: Omit<ZooKeeperOptions, 'port' | 'tls'>, ports: readonly { client: number; peer: number; election: number }[]): Promise<ZooKeeperEnsemble> {
  const serverLines = ports.map((p, i) => `server.${i + 1}=127.0.0.1:${p.peer}:${p.election}`);
  const members = ports.map((p, i) => {
    const dir = mkdtempSync(join(tmpdir(), `failout-zk${i + 1}-`));
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'myid'), `${i + 1}\n`);
    const config = join(dir, 'zoo.cfg');
    writeFileSync(config, configText(dataDir, p.client, options, serverLines));
    return new ZooKeeperProcess({ dir, clientPort: p.client, config, install, readyTimeoutMs: options.readyTimeoutMs ?? 60_000 });
  });
  const closeAll = async (): Promise<void> => {
    await Promise.all(members.map((m) => m.close()));
  };
  try {
    await Promise.all(members.map((m) => m.start(false)));
    await Promise.all(members.map((m) => m.waitReady()));
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { connectString: members.map((m) => m.connectString).join(','), members, close: closeAll };
}
