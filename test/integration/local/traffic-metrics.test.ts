/**
 * Issue 24, health per target, in the local stack: the traffic generator's per-service metrics
 * endpoint (`/metrics/<service>`, what `npm start`'s console scrapes) carries the D2 client request
 * metrics of that service's requests, so the console's cards show a cluster answering 500s as
 * failing. Its own ZooKeeper (lib/local's; the generator reads the default `/d2`), a real backend
 * answering 500 on loopback, the production client stack.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { TrafficGenerator } from '../../../lib/local/traffic';
import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { D2_REQUESTS_METRIC, parsePrometheusText, TargetHealthSeries } from '../../../lib/metrics';
import { ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';

describe("the local traffic generator's per-service metrics", () => {
  let zk: ZooKeeperServer;
  let session: ZkSession;
  let backend: Server;
  let traffic: TrafficGenerator | undefined;

  beforeAll(async () => {
    zk = await startZooKeeper();
    session = new ZkSession({ connectString: zk.connectString, sessionTimeoutMs: 10_000, logger: pino({ level: 'silent' }) });
    await session.start();
    backend = createServer((req, res) => {
      req.resume();
      res.writeHead(500, { 'content-type': 'text/plain' }).end('broken on purpose\n');
    });
    await new Promise<void>((resolve) => backend.listen(0, '127.0.0.1', resolve));
    await putService(session, '/d2', serviceDoc('greetings', 'greetings-lor1', '/hello'));
    await putCluster(session, '/d2', clusterDoc('greetings-lor1'));
    await putUri(session, '/d2', 'greetings-lor1', 'h1', `http://127.0.0.1:${(backend.address() as AddressInfo).port}`);
  }, 120_000);

  afterAll(async () => {
    await traffic?.close();
    backend.closeAllConnections();
    await new Promise((resolve) => backend.close(resolve));
    await session.close();
    await zk.close();
  }, 60_000);

  it("carry the D2 request metrics of that service's requests: a cluster answering 500s fails them all", async () => {
    // Prepare
    traffic = await TrafficGenerator.start({ connectString: zk.connectString, services: ['greetings'], rate: 20, logger: pino({ level: 'silent' }) });
    const url = traffic.metricsUrlOf('greetings');
    const series = new TargetHealthSeries();

    // Act: two scrapes a second apart, once requests have been answered
    const read = async () => parsePrometheusText(await (await fetch(url)).text());
    const deadline = Date.now() + 20_000;
    while (!(await read()).some((s) => s.name === D2_REQUESTS_METRIC) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    series.add(Date.now(), await read());
    await new Promise((r) => setTimeout(r, 1000));
    const health = series.add(Date.now(), await read());

    // Assess
    expect(health?.get('greetings-lor1')).toMatchObject({ errorPct: 100, p99Ms: expect.any(Number) as number });
    expect(health?.get('greetings-lor1')?.rps).toBeGreaterThan(5);
  }, 60_000);
});
