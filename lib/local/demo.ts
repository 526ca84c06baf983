import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  D2Client,
  LoadBalancerState,
  ZooKeeperAnnouncer,
  clusterPath,
  parseClusterProperties,
  parseServiceProperties,
  serializeClusterProperties,
  serializeServiceProperties,
  servicePath,
} from '../d2';
import { ZkSession } from '../zk';
import { startZooKeeper, type ZooKeeperServer } from './zookeeper';

/** Options of the `npm start` demo. */
export interface DemoOptions {
  /** Requests per phase. */
  requests: number;
  /** Keep sending (one table every 2 s) until the signal aborts, after the scripted phases. */
  keep: boolean;
  /** Where tables and progress go. */
  out: (line: string) => void;
  /** Aborts a `keep` run (Ctrl-C). */
  signal?: AbortSignal;
}

const SERVICE = 'greetings';
const CLUSTER = 'greetings-lor1';
const WEIGHTS = [1, 2, 1];

interface Backend {
  name: string;
  server: Server;
  uri: string;
  session: ZkSession;
  announcer: ZooKeeperAnnouncer;
}

/** Everything the demo started, stopped in reverse order. */
class Resources {
  readonly stops: (() => Promise<void>)[] = [];
  add(stop: () => Promise<void>): void {
    this.stops.push(stop);
  }
  async stopAll(): Promise<void> {
    for (const stop of this.stops.reverse()) await stop().catch(() => undefined);
  }
}

async function startBackend(name: string, weight: number, zk: ZooKeeperServer, resources: Resources): Promise<Backend> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'text/plain');
    res.end(`hello from ${name} (${req.url ?? '/'})\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  resources.add(() => new Promise((resolve) => server.close(() => resolve())));
  const uri = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Each backend is its own "process" in ZooKeeper's eyes: a session of its own.
  const session = new ZkSession({ connectString: zk.connectString, sessionTimeoutMs: 10_000 });
  await session.start();
  resources.add(() => session.close());
  const announcer = new ZooKeeperAnnouncer({ session, cluster: CLUSTER, uri, weight });
  await announcer.markUp();
  return { name, server, uri, session, announcer };
}

async function writeTopology(session: ZkSession): Promise<void> {
  const service = parseServiceProperties({ serviceName: SERVICE, clusterName: CLUSTER, path: '/greetings', loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] });
  const cluster = parseClusterProperties({ clusterName: CLUSTER });
  await session.create(servicePath(undefined, SERVICE), Buffer.from(serializeServiceProperties(service)), { parents: true });
  await session.create(clusterPath(undefined, CLUSTER), Buffer.from(serializeClusterProperties(cluster)), { parents: true });
}

/** Sends `count` requests through the client and tallies them by backend. */
async function sendAndTally(client: D2Client, backends: readonly Backend[], count: number): Promise<Map<string, number>> {
  const byUri = new Map(backends.map((b) => [b.uri, b.name]));
  const tally = new Map(backends.map((b) => [b.name, 0]));
  let failed = 0;
  for (let i = 0; i < count; i++) {
    try {
      const response = await client.request(`d2://${SERVICE}/hello?n=${i}`);
      await response.body.dump();
      const name = byUri.get(response.target.host) ?? response.target.host;
      tally.set(name, (tally.get(name) ?? 0) + 1);
    } catch {
      failed++;
    }
  }
  if (failed > 0) tally.set('failed', failed);
  return tally;
}

function table(title: string, tally: Map<string, number>, out: (line: string) => void): void {
  const total = [...tally.values()].reduce((a, b) => a + b, 0);
  out(`\n${title}`);
  out(`  ${'backend'.padEnd(10)} ${'requests'.padStart(8)} ${'share'.padStart(7)}`);
  for (const [name, n] of tally) out(`  ${name.padEnd(10)} ${String(n).padStart(8)} ${((100 * n) / Math.max(1, total)).toFixed(1).padStart(6)}%`);
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out waiting for discovery to catch up');
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * The `npm start` demo until the full local stack exists: a real ZooKeeper, three announced HTTP
 * backends, `d2://` requests through D2Client, a backend marked down, ZooKeeper restarted.
 */
export async function runDemo(options: DemoOptions): Promise<void> {
  const { out } = options;
  const resources = new Resources();
  try {
    out('starting ZooKeeper…');
    const zk = await startZooKeeper({ sessionTimeouts: { minMs: 1000, maxMs: 30_000 } });
    resources.add(() => zk.stop());
    out(`ZooKeeper on ${zk.connectString}`);

    const admin = new ZkSession({ connectString: zk.connectString });
    await admin.start();
    resources.add(() => admin.close());
    await writeTopology(admin);
    const backends: Backend[] = [];
    for (const [i, weight] of WEIGHTS.entries()) backends.push(await startBackend(`backend-${i + 1}`, weight, zk, resources));
    out(`service ${SERVICE} → cluster ${CLUSTER}: ${backends.map((b, i) => `${b.name} ${b.uri} weight ${WEIGHTS[i]}`).join(', ')}`);

    const clientSession = new ZkSession({ connectString: zk.connectString, sessionTimeoutMs: 10_000 });
    await clientSession.start();
    resources.add(() => clientSession.close());
    const state = new LoadBalancerState({ session: clientSession });
    resources.add(async () => state.shutdown());
    const client = new D2Client({ state });
    resources.add(() => client.close());
    await state.listenToService(SERVICE);

    table(`1. ${options.requests} requests to d2://${SERVICE}/hello, weights 1:2:1`, await sendAndTally(client, backends, options.requests), out);

    await backends[1]!.announcer.markDown();
    await waitFor(() => (state.getUris(CLUSTER)?.hosts.length ?? 0) === 2, 10_000);
    table(`2. ${backends[1]!.name} marked down: its ZooKeeper node is gone, traffic leaves it`, await sendAndTally(client, backends, options.requests), out);

    await zk.halt();
    table('3. ZooKeeper stopped: clients keep serving from the last known state', await sendAndTally(client, backends, options.requests), out);
    await zk.start();
    await waitFor(() => clientSession.state === 'connected', 15_000);
    await backends[1]!.announcer.markUp();
    await waitFor(() => (state.getUris(CLUSTER)?.hosts.length ?? 0) === 3, 10_000);
    table(`4. ZooKeeper back (same sessions), ${backends[1]!.name} up again`, await sendAndTally(client, backends, options.requests), out);

    while (options.keep && !options.signal?.aborted) {
      table(`live: ${new Date().toISOString()} (Ctrl-C to stop)`, await sendAndTally(client, backends, options.requests), out);
      await new Promise((r) => setTimeout(r, 2000));
    }
  } finally {
    out('\nstopping everything…');
    await resources.stopAll();
    out('done.');
  }
}
