/**
 * Issue 16, capacity guard from request rates: `failout out --dry-run --metrics service=url` against
 * real ZooKeeper and a real loopback Prometheus endpoint. The dry run shows the projection from the
 * measured rates and the worker's from host counts, and says the worker judges by host counts; an
 * endpoint out of reach or with credentials falls back to host counts with a warning.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import type { FifoQueuePair } from '../../../lib/local/sqs';
import { runCli, type CliResult } from '../../helpers/cli';
import { startMetricsServer, type MetricsServer } from '../../helpers/metrics-server';
import { announceHosts, cliEnvFor, queueDepth, seedClusters, useQueueFixture } from '../../helpers/requests-queue';

const METRIC = 'greetings_requests_total';
let queue: FifoQueuePair;
let env: Record<string, string>;
let metrics: MetricsServer;

function cli(...argv: string[]): Promise<CliResult> {
  return runCli(env, ...argv);
}

// One host each: by host counts all of lor1 onto lva1 doubles it (×2, at the limit, allowed).
const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);
});
beforeEach(async () => {
  queue = await fx.sqs.createFifoQueuePair();
  env = cliEnvFor(fx, queue.queueUrl);
  // lor1 serves 200 req/s, lva1 only 100 (its host is half as busy): by rates all of lor1 triples it.
  metrics = await startMetricsServer(METRIC, { 'greetings-lor1': 200, 'greetings-lva1': 100, 'greetings-ltx1': 400 });
});
afterEach(() => metrics.close());

const OUT = ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--dry-run'];

describe('failout out --dry-run --metrics', () => {
  it('prints the projection from request rates and from host counts, and says the worker judges by host counts', async () => {
    // Act
    const out = await cli(...OUT, '--metrics', `greetings=${metrics.url}`, '--traffic-metric', METRIC);

    // Assess: rates ×3 (over), host counts ×2 (within): the worker would apply it.
    expect(out.code).toBe(0);
    const shown = /projection from request rates \(2 scrapes of 1 endpoint, 1\.0 s apart; ([\d.]+) req\/s of greetings-lor1's ([\d.]+) req\/s move, limit ×2\):\n {2}greetings-lva1: 1 hosts, ([\d.]+) req\/s, \+([\d.]+) req\/s → ×([\d.]+) OVER THE LIMIT\n/.exec(out.stdout);
    const [moved, of, peerRate, added, factor] = (shown?.slice(1) ?? []).map(Number);
    expect({ moved, of, peerRate, added, factor }).toEqual({
      moved: expect.closeTo(200, -1),
      of: moved,
      peerRate: expect.closeTo(100, -1),
      added: moved,
      factor: expect.closeTo(3, 1),
    });
    expect(out.stdout).toContain("the worker judges by host counts (it cannot see request rates): peer load projection (from host counts; 1 hosts' load moves, limit ×2):\n  greetings-lva1: 1 hosts, +1 hosts' load → ×2\n");
    expect(metrics.hits).toBe(2);
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
  });

  it('shows the projection from request rates also when the host counts reject the failout', async () => {
    // Prepare: lor1 has 3 hosts, ltx1 one: by host counts ×4 (rejected); ltx1 serves 400 req/s, lor1 200: by rates ×1.5
    await announceHosts(fx.session, fx.paths, 'greetings-lor1', 3);

    // Act
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-ltx1', '--for', '2h', '--dry-run', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', METRIC);

    // Assess
    expect(out.code).toBe(1);
    expect(out.stdout).toContain('dry run: request would be REJECTED: insufficientPeerCapacity');
    const byRates = /projection from request rates [^\n]*\n {2}greetings-ltx1: [^\n]*→ ×([\d.]+)\n/.exec(out.stdout);
    expect(Number(byRates?.[1])).toBeCloseTo(1.5, 1);
    expect(out.stdout).toContain('the worker judges by host counts (it cannot see request rates)');
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(0);
  });

  it('carries both projections in --json, from FAILOUT_METRICS_URLS and FAILOUT_TRAFFIC_METRIC', async () => {
    env = { ...env, FAILOUT_METRICS_URLS: `greetings=${metrics.url}`, FAILOUT_TRAFFIC_METRIC: METRIC };

    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--peer', 'greetings-ltx1', '--for', '2h', '--dry-run', '--json');

    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as Record<string, unknown>;
    expect(json).toMatchObject({
      dryRun: true,
      ok: true,
      judgedBy: 'hostCounts',
      capacity: { basis: 'hostCounts', peers: [{ cluster: 'greetings-lva1', loadFactor: 1.5 }, { cluster: 'greetings-ltx1', loadFactor: 1.5 }] },
      capacityByRates: {
        basis: 'requestRates',
        ratesSource: '2 scrapes of 1 endpoint, 1.0 s apart',
        peers: [
          { cluster: 'greetings-lva1', loadFactor: expect.closeTo(2, 1) },
          { cluster: 'greetings-ltx1', loadFactor: expect.closeTo(1.25, 1) },
        ],
      },
      rates: { source: '2 scrapes of 1 endpoint, 1.0 s apart', byCluster: { 'greetings-lor1': expect.any(Number), 'greetings-lva1': expect.any(Number) }, warnings: [] },
    });
    expect(json).not.toHaveProperty('capacity.input');
  });

  it('falls back to host counts with a warning when the endpoint does not answer', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const dead = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    await new Promise<void>((resolve) => server.close(() => resolve()));

    const out = await cli(...OUT, '--metrics', `greetings=${dead}`, '--traffic-metric', METRIC);

    expect(out.code).toBe(0);
    expect(out.stderr).toContain(`warning: request rates not measured: greetings=${dead}: `);
    expect(out.stderr).toContain('the projection is from host counts');
    expect(out.stdout).toContain("peer load projection (from host counts; 1 hosts' load moves, limit ×2):");
    expect(out.stdout).not.toContain('request rates');
  });

  it('refuses a metrics URL with credentials: warned without them, never read, host counts', async () => {
    const secret = metrics.url.replace('http://', 'http://scraper:hunter2-secret@');

    const out = await cli(...OUT, '--metrics', `greetings=${secret}`, '--traffic-metric', METRIC);

    expect(out.code).toBe(0);
    expect(out.stderr).toContain('put no credentials in a metrics URL');
    expect(out.stdout + out.stderr).not.toMatch(/hunter2|scraper:/);
    expect(out.stdout).toContain('peer load projection (from host counts;');
    expect(metrics.hits).toBe(0);
  });

  it('says why the rates were not used when a peer has no rate', async () => {
    metrics.setRates({ 'greetings-lor1': 200 });
    metrics.setText(`${METRIC}{cluster="greetings-lor1"} 5\n`);

    const out = await cli(...OUT, '--metrics', `greetings=${metrics.url}`, '--traffic-metric', METRIC);

    expect(out.code).toBe(0);
    expect(out.stdout).toContain('request rates not used (no request rate above 0 for "greetings-lva1"): peer load projection (from host counts;');
  });

  it("does not project from rates while X is failed out: its measured rate lacks what it sends away, and its peer's holds it", async () => {
    // Prepare: lor1 is all on lva1 now, so lor1 measures nothing and lva1 its own 100 plus lor1's 200
    const path = `${fx.paths.d2Base}/clusters/greetings-lor1`;
    const node = await fx.session.read(path);
    const props = parseClusterProperties(node.exists ? node.data.toString('utf8') : '{}');
    const window = { bucketOfflineRange: { from: 0, to: 99 }, offlineAt: Date.now() - 60_000, onlineAt: Date.now() + 3_600_000, requestId: 'r-earlier' };
    await fx.session.set(path, Buffer.from(serializeClusterProperties({ ...props, failoutProperties: { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [window] } })));
    metrics.setRates({ 'greetings-lor1': 0, 'greetings-lva1': 300, 'greetings-ltx1': 400 });

    // Act: the same failout again (a new window)
    const out = await cli(...OUT, '--metrics', `greetings=${metrics.url}`, '--traffic-metric', METRIC);

    // Assess: not "×1 by rates" (0 req/s moved onto a peer already carrying them): host counts, saying why
    expect(out.code).toBe(0);
    expect(out.stdout).not.toContain('projection from request rates');
    expect(out.stdout).toContain('request rates not used ("greetings-lor1" is failed out now for 100% of its traffic: its measured rate lacks what it sends away, and its peers\' rates hold it): peer load projection (from host counts;');
  });

  it.each([
    [['--metrics', 'http://127.0.0.1:1/metrics'], 'is not service=url'],
    [['--metrics', 'http://ops:hunter2@127.0.0.1:1/m?a=b'], 'is not service=url: the URL does not parse'],
    [['--metrics', 'greetings=not a url'], 'the URL does not parse'],
    [['--metrics', 'greetings=ftp://ops:hunter2@127.0.0.1/metrics'], 'not an http(s) URL'],
  ])('rejects the malformed %j with exit 2, sending nothing and showing no credentials', async (flags, message) => {
    const out = await cli(...OUT, ...flags);

    expect(out.code).toBe(2);
    expect(out.stderr).toContain(message);
    expect(out.stderr).not.toContain('hunter2');
    expect(metrics.hits).toBe(0);
  });

  it('before sending, shows the projection from rates and warns that the worker judges by host counts, then sends', async () => {
    const out = await cli('out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h', '--json', '--metrics', `greetings=${metrics.url}`, '--traffic-metric', METRIC);

    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ sent: true });
    expect(out.stderr).toMatch(/projection from request rates \(2 scrapes of 1 endpoint/);
    expect(out.stderr).toContain('warning: by request rates greetings-lva1 would pass ×2; the worker judges by host counts and will apply it (see --dry-run)');
    expect(await queueDepth(fx.sqs.client, queue.queueUrl)).toBe(1);
  });
});
