/**
 * The D2 observer's admin HTTP and endpoints, against a real ZooKeeper: ready once the session is up
 * and the base path was read, counters on /metrics, the bearer token on every path but /healthz,
 * and ADS over TLS.
 */
import * as grpc from '@grpc/grpc-js';
import { join } from 'node:path';
import { D2Observer } from '../../../lib/observer';
import { indis } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, putCluster } from '../../helpers/d2';
import { metric, metricsText, nodesOf, RawAdsStream } from '../../helpers/observer';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';
import { makeTestPki } from '../../helpers/zk-tls';

describe('the D2 observer admin HTTP and endpoints', () => {
  let base: string;
  let writer: ZkSession;
  let session: ZkSession;
  let observer: D2Observer;

  beforeEach(async () => {
    base = uniqueBase('observer');
    writer = await openSession();
    session = await openSession();
    observer = await D2Observer.start({ zk: session, basePath: base, admin: { host: '127.0.0.1', port: 0 } });
  });

  afterEach(async () => {
    await observer.close();
    await closeSessions();
  });

  it('says ready on /readyz once the session is up and the base path was read, and counts on /metrics', async () => {
    // Act
    await eventually(async () => (await fetch(`http://127.0.0.1:${observer.adminPort}/readyz`)).status === 200, 5000, 'ready');
    const health = await fetch(`http://127.0.0.1:${observer.adminPort}/healthz`);
    const text = await metricsText(observer.adminPort!);

    // Assess
    expect(health.status).toBe(200);
    expect(metric(text, 'd2_observer_zk_connected')).toBe(1);
    expect(text).toContain('d2_observer_encodes_total');
  });

  it('asks for the bearer token on every admin path but /healthz when one is set', async () => {
    // Prepare
    const token = 't'.repeat(40);
    const guarded = await D2Observer.start({ zk: session, basePath: base, admin: { host: '127.0.0.1', port: 0, token } });
    const url = (path: string): string => `http://127.0.0.1:${guarded.adminPort}${path}`;

    try {
      // Act
      const statuses = [
        (await fetch(url('/healthz'))).status,
        (await fetch(url('/metrics'))).status,
        (await fetch(url('/metrics'), { headers: { authorization: `Bearer ${token}` } })).status,
      ];

      // Assess
      expect(statuses).toEqual([200, 401, 200]);
    } finally {
      await guarded.close();
    }
  });

  it('serves ADS over TLS when given a certificate and key', async () => {
    // Prepare
    const pki = makeTestPki();
    const path = `${base}/clusters/greetings-ltx1`;
    await putCluster(writer, base, clusterDoc('greetings-ltx1'));
    const tls = { cert: pki.read(join(pki.dir, 'server.pem')), key: pki.read(join(pki.dir, 'server.key')) };
    const secure = await D2Observer.start({ zk: session, basePath: base, grpc: { tls } });
    const stream = new RawAdsStream(`localhost:${secure.grpcPort}`, grpc.credentials.createSsl(pki.read(pki.caFile)));

    try {
      // Act
      stream.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
      const response = await stream.next();

      // Assess
      expect(nodesOf(response).map((n) => n.name)).toEqual([path]);
    } finally {
      stream.close();
      await secure.close();
      pki.remove();
    }
  });
});
