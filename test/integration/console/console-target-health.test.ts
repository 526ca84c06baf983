import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { HttpSources } from '../../../lib/console/sources';

// Issue 24, health per target: the console's scrape of a service's instances gives, per target
// cluster, requests/s, the failed share and p99 from the D2 clients' request metrics. Real HTTP
// servers on loopback serving Prometheus text; the counts move between scrapes as a service's would.

/** One service instance: its counters grow by `perScrape` requests to each target each time it is read. */
class Instance {
  private reads = 0;
  private readonly server: Server;

  constructor(private readonly perScrape: Record<string, { ok: number; failed: number }>) {
    this.server = createServer((_req, res) => {
      this.reads++;
      const lines: string[] = [];
      for (const [cluster, n] of Object.entries(this.perScrape)) {
        lines.push(`d2_client_requests_total{cluster="${cluster}",outcome="2xx"} ${n.ok * this.reads}`);
        lines.push(`d2_client_requests_total{cluster="${cluster}",outcome="5xx"} ${n.failed * this.reads}`);
        const count = (n.ok + n.failed) * this.reads;
        lines.push(`d2_client_request_duration_seconds_bucket{cluster="${cluster}",le="0.005"} ${count}`);
        lines.push(`d2_client_request_duration_seconds_bucket{cluster="${cluster}",le="+Inf"} ${count}`);
      }
      res.setHeader('content-type', 'text/plain; version=0.0.4');
      res.end(`${lines.join('\n')}\n`);
    });
  }

  async start(): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/metrics`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe("the console's scrape gives each target cluster's health", () => {
  const instances: Instance[] = [];
  let sources: HttpSources | undefined;

  afterEach(async () => {
    sources?.close();
    sources = undefined;
    await Promise.all(instances.splice(0).map((i) => i.close()));
  });

  it('sums the instances of a service and marks a target answering 500s as failing', async () => {
    // Prepare: two instances of greetings; lva1 answers half of its requests with 500
    const a = new Instance({ 'greetings-lor1': { ok: 10, failed: 0 }, 'greetings-lva1': { ok: 5, failed: 5 } });
    const b = new Instance({ 'greetings-lor1': { ok: 10, failed: 0 } });
    instances.push(a, b);
    const urls = [await a.start(), await b.start()];
    let scrapes = 0;
    sources = new HttpSources({ bridgeUrls: [], metricsUrls: new Map([['greetings', urls]]), metricsPeriodMs: 100, logger: pino({ level: 'silent' }), onBridges: () => undefined, onTraffic: () => void scrapes++ });

    // Act
    sources.start();
    while (scrapes < 3) await new Promise((r) => setTimeout(r, 20));
    const health = sources.services()[0]!.health;

    // Assess
    expect(health.get('greetings-lor1')).toMatchObject({ errorPct: 0, p99Ms: expect.any(Number) as number });
    expect(health.get('greetings-lor1')!.rps).toBeGreaterThan(0);
    expect(health.get('greetings-lva1')).toMatchObject({ errorPct: 50 });
    expect(health.get('greetings-lva1')!.p99Ms).toBeLessThanOrEqual(5);
  });

  it('says why the health is unknown: an instance down, no D2 request metrics, a slow service delaying only itself', async () => {
    // Prepare: greetings has one instance up and one refusing; hello answers without the D2 metrics; hola hangs
    const up = new Instance({ 'greetings-lor1': { ok: 10, failed: 0 } });
    instances.push(up);
    const refused = createServer();
    await new Promise<void>((resolve) => refused.listen(0, '127.0.0.1', resolve));
    const refusedUrl = `http://127.0.0.1:${(refused.address() as AddressInfo).port}/metrics`;
    await new Promise((resolve) => refused.close(resolve));
    const plain = createServer((_req, res) => res.end('failout_local_requests_total{cluster="hello-lor1"} 5\n'));
    const hanging = createServer(() => undefined);
    for (const server of [plain, hanging]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    const scrapes = new Map<string, number>();
    sources = new HttpSources({
      bridgeUrls: [],
      metricsUrls: new Map([['greetings', [await up.start(), refusedUrl]], ['hello', [url(plain)]], ['hola', [url(hanging)]]]),
      metricsPeriodMs: 100,
      logger: pino({ level: 'silent' }),
      onBridges: () => undefined,
      onTraffic: (service) => void scrapes.set(service, (scrapes.get(service) ?? 0) + 1),
    });

    try {
      // Act
      sources.start();
      while ((scrapes.get('hello') ?? 0) < 3) await new Promise((r) => setTimeout(r, 20));
      const before = sources.services().find((t) => t.service === 'hola')!.healthProblem;
      const problems = Object.fromEntries(sources.services().map((t) => [t.service, t.healthProblem]));

      // Assess: hello and greetings were scraped while hola's first scrape still waits for its timeout
      expect(problems.greetings).toMatch(/^1 of 2 metrics endpoints not answering: http:\/\/127\.0\.0\.1:\d+\/metrics: fetch failed/);
      expect(problems.hello).toBe('no d2_client_requests_total in its metrics (a D2 client built with a registry exports it)');
      expect(before).toBe('not scraped yet');
      while (scrapes.get('hola') === undefined) await new Promise((r) => setTimeout(r, 50));
      expect(sources.services().find((t) => t.service === 'hola')!.healthProblem).toMatch(/^metrics not answering: .*: timed out$/);
    } finally {
      for (const server of [plain, hanging]) {
        server.closeAllConnections();
        server.close();
      }
    }
  });
});
