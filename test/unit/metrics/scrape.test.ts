/**
 * lib/metrics `measureRates`: two scrapes of real loopback HTTP endpoints serving Prometheus text, the
 * counter's increase over the time between them, summed over endpoints; all or nothing, with warnings
 * that never carry a URL's credentials.
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { hasCredentials, measureRates, redactUrl } from '../../../lib/metrics';
import { startMetricsServer, type MetricsServer } from '../../helpers/metrics-server';

const METRIC = 'svc_requests_total';
const servers: MetricsServer[] = [];

async function serve(rates: Record<string, number>): Promise<MetricsServer> {
  const server = await startMetricsServer(METRIC, rates);
  servers.push(server);
  return server;
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('measureRates', () => {
  it('measures each cluster’s requests/s over two scrapes and sums instances and services', async () => {
    // Prepare: two instances of one service and another service calling one of the same clusters.
    const a1 = await serve({ x: 100, p: 40 });
    const a2 = await serve({ x: 100, p: 40 });
    const b = await serve({ p: 20 });

    // Act: at the default interval (1 s). Each reading is stamped when it arrives, so a scheduling
    // delay of one reading on a loaded machine skews the rate by delay ÷ interval: 70 ms once made a
    // 0.5 s measurement read 175 of 200/s in CI; the tolerance below stays what it was.
    const measured = await measureRates({ urls: new Map([['a', [a1.url, a2.url]], ['b', [b.url]]]), trafficMetric: METRIC });

    // Assess
    expect(measured.warnings).toEqual([]);
    expect(measured.source).toBe('2 scrapes of 3 endpoints, 1.0 s apart');
    expect(measured.byCluster?.get('x')).toBeGreaterThan(180);
    expect(measured.byCluster?.get('x')).toBeLessThan(220);
    expect(measured.byCluster?.get('p')).toBeGreaterThan(90);
    expect(measured.byCluster?.get('p')).toBeLessThan(110);
    expect([a1.hits, a2.hits, b.hits]).toEqual([2, 2, 2]);
  });

  it('counts a counter that went down (a restart) from zero', async () => {
    const server = await serve({});
    server.setText(`${METRIC}{cluster="x"} 1000\n`);
    const done = measureRates({ urls: new Map([['a', [server.url]]]), trafficMetric: METRIC, intervalMs: 400 });
    await new Promise((r) => setTimeout(r, 150));
    server.setText(`${METRIC}{cluster="x"} 40\n`);

    const measured = await done;

    expect(measured.byCluster?.get('x')).toBeGreaterThan(80);
    expect(measured.byCluster?.get('x')).toBeLessThanOrEqual(100);
  });

  it('gives no rates when an endpoint does not answer, naming it', async () => {
    const good = await serve({ x: 10 });
    const dead = `http://127.0.0.1:${await closedPort()}/metrics`;

    const measured = await measureRates({ urls: new Map([['a', [good.url]], ['b', [dead]]]), trafficMetric: METRIC, intervalMs: 100 });

    expect(measured.byCluster).toBeUndefined();
    expect(measured.warnings).toEqual([expect.stringContaining(`b=${dead}: `)]);
  });

  it('gives no rates when an endpoint answers an error status', async () => {
    const server = await serve({ x: 10 });
    server.status = 503;

    const measured = await measureRates({ urls: new Map([['a', [server.url]]]), trafficMetric: METRIC, intervalMs: 100 });

    expect(measured).toMatchObject({ byCluster: undefined, warnings: [`a=${server.url}: HTTP 503`] });
  });

  it('refuses a URL with credentials without reading it or showing them', async () => {
    const server = await serve({ x: 10 });
    const withSecret = server.url.replace('http://', 'http://ops:s3cret-pw@');

    const measured = await measureRates({ urls: new Map([['a', [withSecret]]]), trafficMetric: METRIC, intervalMs: 100 });

    expect(measured.byCluster).toBeUndefined();
    expect(measured.warnings).toEqual([expect.stringContaining('put no credentials in a metrics URL')]);
    expect(measured.warnings.join(' ')).not.toMatch(/s3cret|ops:/);
    expect(server.hits).toBe(0);
  });

  it('gives no rates when the endpoint lacks the traffic counter (the redirect counter cannot say how busy a peer is)', async () => {
    const server = await serve({});
    server.setText('failout_client_redirected_total{cluster="x",peer="p"} 5\n');

    const measured = await measureRates({ urls: new Map([['a', [server.url]]]), trafficMetric: METRIC, intervalMs: 100 });

    expect(measured).toMatchObject({ byCluster: undefined, warnings: [`a=${server.url}: no ${METRIC} samples with a cluster label`] });
  });

  it('asks for a traffic metric when none is named, reading nothing', async () => {
    const server = await serve({ x: 10 });

    const measured = await measureRates({ urls: new Map([['a', [server.url]]]), trafficMetric: undefined });

    expect(measured.byCluster).toBeUndefined();
    expect(measured.warnings).toEqual([expect.stringContaining('--traffic-metric')]);
    expect(server.hits).toBe(0);
  });
});

describe('URL credentials', () => {
  it.each([
    ['http://u:p@127.0.0.1:9/metrics', true, 'http://***@127.0.0.1:9/metrics'],
    ['http://u@127.0.0.1:9/metrics', true, 'http://***@127.0.0.1:9/metrics'],
    ['http://127.0.0.1:9/metrics', false, 'http://127.0.0.1:9/metrics'],
  ])('%s: credentials %p, shown as %s', (text, has, shown) => {
    expect(hasCredentials(new URL(text))).toBe(has);
    expect(redactUrl(text)).toBe(shown);
  });

  it('does not show text that is not a URL', () => {
    expect(redactUrl('not a url')).toBe('(not a URL)');
  });
});
