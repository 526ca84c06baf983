/**
 * Issue 16, capacity guard from request rates in the console: when the console's own scrapes give
 * every cluster's rate (a counter of every request by cluster, `--traffic-metric`), its check of a
 * failout shows the projection from request rates, names the basis, and says the worker judges by
 * host counts. Real ZooKeeper, a real loopback Prometheus endpoint; no queue (nothing is sent).
 */
import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { startMetricsServer, type MetricsServer } from '../../helpers/metrics-server';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { consoleServerOptions } from '../../../lib/console';

const METRIC = 'greetings_requests_total';

describe('the console judges a failout from request rates when its metrics give them', () => {
  let server: ConsoleServer | undefined;
  let metrics: MetricsServer;
  let env: Record<string, string>;

  beforeEach(async () => {
    const base = uniqueBase('console-rates');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
    await putUri(session, `${base}/d2`, 'greetings-lor1', 'h1', 'http://lor1-1:8080');
    await putUri(session, `${base}/d2`, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
    // One host each (host counts: ×2, allowed); lva1 serves half of lor1's rate (rates: ×3).
    metrics = await startMetricsServer(METRIC, { 'greetings-lor1': 200, 'greetings-lva1': 100 });
    env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await metrics.close();
    await closeSessions();
  });

  /** Checks a failout of lor1 onto lva1 until `done` accepts the judgement (the rates need two scrapes). */
  async function judgement(done: (text: string) => boolean): Promise<string> {
    const token = /name="csrf-token" content="([^"]+)"/.exec(await (await fetch(server!.url)).text())![1]!;
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await fetch(`${server!.url}api/check`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-csrf-token': token },
        body: JSON.stringify({ action: 'failout', fields: { cluster: 'greetings-lor1', peers: 'greetings-lva1', for: '10m' } }),
      });
      const result = (await response.json()) as { kind: string; judged?: boolean; judgement?: string };
      const text = result.kind === 'ready' && result.judged === true ? (result.judgement ?? '') : '';
      if (done(text) || Date.now() > deadline) return text;
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  it('shows the projection from request rates, named, and the worker\'s from host counts', async () => {
    // Prepare
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0', metrics: [`greetings=${metrics.url}`], trafficMetric: METRIC }, env, pino({ level: 'silent' })), queueProbeMs: 60_000 });

    // Act
    const text = await judgement((t) => t.includes('projection from request rates'));

    // Assess
    expect(text).toMatch(/projection from request rates \(the console's last scrape of 1 endpoint; [\d.]+ req\/s of greetings-lor1's [\d.]+ req\/s move, limit ×2\):\n {2}greetings-lva1: 1 hosts, [\d.]+ req\/s, \+[\d.]+ req\/s → ×(2\.[89]\d*|3|3\.[01]\d*) OVER THE LIMIT\n/);
    expect(text).toContain("the worker judges by host counts (it cannot see request rates): peer load projection (from host counts; 1 hosts' load moves, limit ×2):\n  greetings-lva1: 1 hosts, +1 hosts' load → ×2");
  });

  it('shows host counts only when the metrics lack the traffic counter', async () => {
    // Prepare: no traffic metric named: only FailoutClient's redirect counter would be read.
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0', metrics: [`greetings=${metrics.url}`] }, env, pino({ level: 'silent' })), queueProbeMs: 60_000 });
    await new Promise((r) => setTimeout(r, 2500));

    // Act
    const text = await judgement((t) => t !== '');

    // Assess
    expect(text).toContain("peer load projection (from host counts; 1 hosts' load moves, limit ×2):");
    expect(text).not.toContain('request rates');
  });
});
