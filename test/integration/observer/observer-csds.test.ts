/**
 * CSDS on the D2 observer (issue 25), real ZooKeeper and real gRPC on loopback: what the observer
 * serves (per resource its version and last update) and, per connected stream (node id), what the
 * client subscribed to and which version it ACKed or NACKed; on the admin HTTP (`/config_dump`,
 * proto3 JSON) and as the gRPC `ClientStatusDiscoveryService` on the ADS port, both behind the admin
 * bearer token, which never shows in a log line or an error body.
 */
import * as grpc from '@grpc/grpc-js';
import { D2Observer } from '../../../lib/observer';
import { indis } from '../../../lib/xds';
import type { ZkSession } from '../../../lib/zk';
import { CsdsTestClient } from '../../helpers/csds-client';
import { clusterDoc, putCluster } from '../../helpers/d2';
import { capturingLogger } from '../../helpers/logging';
import { nodesOf, RawAdsStream } from '../../helpers/observer';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

interface JsonConfig {
  node?: { id?: string };
  client_scope?: string;
  generic_xds_configs?: Array<{ type_url: string; name: string; version_info?: string; client_status?: string; last_updated?: string; error_state?: { details?: string } }>;
}

const TOKEN = 'csds-token-'.padEnd(40, 'x');

describe('CSDS on the D2 observer', () => {
  let base: string;
  let writer: ZkSession;
  let session: ZkSession;
  let observer: D2Observer;
  let raw: RawAdsStream | undefined;
  let csds: CsdsTestClient | undefined;
  const captured = capturingLogger();

  beforeEach(async () => {
    base = uniqueBase('observer-csds');
    writer = await openSession();
    session = await openSession();
    observer = await D2Observer.start({ zk: session, basePath: base, admin: { host: '127.0.0.1', port: 0, token: TOKEN }, lingerMs: 100, logger: captured.logger });
  });

  afterEach(async () => {
    raw?.close();
    raw = undefined;
    csds?.close();
    csds = undefined;
    await observer.close();
    await closeSessions();
  });

  async function configDump(authorization?: string): Promise<Response> {
    return fetch(`http://127.0.0.1:${observer.adminPort}/config_dump`, authorization === undefined ? {} : { headers: { authorization } });
  }

  async function subscribedAndAcked(path: string): Promise<bigint> {
    raw = new RawAdsStream(`127.0.0.1:${observer.grpcPort}`);
    raw.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path] });
    const first = await raw.next();
    raw.ack(first!, [path]);
    return nodesOf(first)[0]!.stat.mzxid;
  }

  it('lists on /config_dump what it serves and the ACKed version of each connected client', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const mzxid = await subscribedAndAcked(path);

    // Act
    let configs: JsonConfig[] = [];
    await eventually(
      async () => {
        configs = ((await (await configDump(`Bearer ${TOKEN}`)).json()) as { config: JsonConfig[] }).config;
        return configs.some((c) => c.node?.id === 'raw-test' && c.generic_xds_configs?.[0]?.client_status === 'ACKED');
      },
      5000,
      'the ACK in CSDS',
    );

    // Assess
    const served = configs.find((c) => c.client_scope === '#observer');
    const client = configs.find((c) => c.node?.id === 'raw-test');
    expect(served?.generic_xds_configs).toEqual([expect.objectContaining({ type_url: indis.D2_NODE_TYPE_URL, name: path, version_info: String(mzxid), client_status: 'ACKED', last_updated: expect.any(String) })]);
    expect(client?.generic_xds_configs).toEqual([expect.objectContaining({ type_url: indis.D2_NODE_TYPE_URL, name: path, version_info: String(mzxid), client_status: 'ACKED' })]);
  });

  it('shows a NACK with its details while the served version stays', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const mzxid = await subscribedAndAcked(path);
    await putCluster(writer, base, clusterDoc('greetings-lor1', { properties: { v: '2' } }));
    const second = await raw!.next();

    // Act
    raw!.send({ type_url: indis.D2_NODE_TYPE_URL, resource_names: [path], response_nonce: second!.nonce, error_detail: { code: 3, message: 'test NACK' } });
    let client: JsonConfig | undefined;
    await eventually(
      async () => {
        const configs = ((await (await configDump(`Bearer ${TOKEN}`)).json()) as { config: JsonConfig[] }).config;
        client = configs.find((c) => c.node?.id === 'raw-test');
        return client?.generic_xds_configs?.[0]?.client_status === 'NACKED';
      },
      5000,
      'the NACK in CSDS',
    );

    // Assess
    expect(client?.generic_xds_configs?.[0]).toMatchObject({ version_info: String(mzxid), client_status: 'NACKED', error_state: { details: 'test NACK' } });
  });

  it('answers FetchClientStatus on the ADS port with the bearer token, UNAUTHENTICATED without it', async () => {
    // Prepare
    const path = `${base}/clusters/greetings-lor1`;
    await putCluster(writer, base, clusterDoc('greetings-lor1'));
    const mzxid = await subscribedAndAcked(path);
    csds = new CsdsTestClient(observer.grpcPort, `Bearer ${TOKEN}`);
    const anonymous = new CsdsTestClient(observer.grpcPort);
    const wrong = new CsdsTestClient(observer.grpcPort, `Bearer ${'w'.repeat(40)}`);

    try {
      // Act
      let response = await csds.fetch();
      await eventually(
        async () => {
          response = await csds!.fetch();
          return response.config.some((c) => c.node?.id === 'raw-test' && c.generic_xds_configs[0]?.client_status === 'ACKED');
        },
        5000,
        'the ACK over gRPC CSDS',
      );
      const refused = await anonymous.fetch().catch((err: grpc.ServiceError) => err);
      const refusedWrong = await wrong.fetch().catch((err: grpc.ServiceError) => err);

      // Assess
      const client = response.config.find((c) => c.node?.id === 'raw-test');
      expect(client?.generic_xds_configs.map((g) => [g.name, g.version_info, g.client_status])).toEqual([[path, String(mzxid), 'ACKED']]);
      expect(response.config.find((c) => c.client_scope === '#observer')?.generic_xds_configs.map((g) => g.name)).toEqual([path]);
      expect((refused as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
      expect((refusedWrong as grpc.ServiceError).code).toBe(grpc.status.UNAUTHENTICATED);
      expect((refusedWrong as grpc.ServiceError).details).not.toContain('w'.repeat(40));
    } finally {
      anonymous.close();
      wrong.close();
    }
  });

  it('ends a StreamClientStatus without the token UNAUTHENTICATED, and answers each request on one with it', async () => {
    // Prepare
    csds = new CsdsTestClient(observer.grpcPort, `Bearer ${TOKEN}`);
    const anonymous = new CsdsTestClient(observer.grpcPort);

    try {
      // Act
      const refused = await new Promise<grpc.ServiceError>((resolve) => {
        const stream = anonymous.stream();
        stream.on('data', () => undefined);
        stream.on('error', (err: grpc.ServiceError) => resolve(err));
        stream.write({});
      });
      const answered = await new Promise<string[]>((resolve, reject) => {
        const stream = csds!.stream();
        stream.on('data', (response: { config: Array<{ client_scope: string }> }) => {
          resolve(response.config.map((c) => c.client_scope));
          stream.end();
        });
        stream.on('error', reject);
        stream.write({});
      });

      // Assess
      expect(refused.code).toBe(grpc.status.UNAUTHENTICATED);
      expect(answered).toEqual(['#observer']);
    } finally {
      anonymous.close();
    }
  });

  it('answers 401 on /config_dump without the token or with a wrong one, and the token shows in no body and no log line', async () => {
    // Prepare
    const wrongToken = 'z'.repeat(40);

    // Act
    const none = await configDump();
    const wrong = await configDump(`Bearer ${wrongToken}`);
    const bodies = [await none.text(), await wrong.text()];
    const good = await configDump(`Bearer ${TOKEN}`);
    const goodBody = await good.text();

    // Assess
    expect([none.status, wrong.status, good.status]).toEqual([401, 401, 200]);
    for (const body of [...bodies, goodBody]) {
      expect(body).not.toContain(TOKEN);
      expect(body).not.toContain(wrongToken);
    }
    const logs = JSON.stringify(captured.lines);
    expect(logs).not.toContain(TOKEN);
    expect(logs).not.toContain(wrongToken);
  });
});
