/**
 * Conformance: @grpc/grpc-js-xds, an independent xDS client, resolves `xds:///<service>` through our
 * management server and a gRPC call reaches the backend (issue 4, "Management server"). This test
 * stays in the suite: it proves the server speaks ADS the way a real gRPC client expects.
 */
import * as grpc from '@grpc/grpc-js';
import { XdsManagementServer } from '../../../lib/xds/server/management-server';
import { bootstrapFor, callEcho, EchoClient, serviceSnapshot, startBackend, type TestBackend } from '../../helpers/xds';

// register() loads grpc-js-xds's protos (~0.75 s) and installs the xds: resolver; idempotent.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const grpcJsXds = require('@grpc/grpc-js-xds') as { register(): void };

describe('@grpc/grpc-js-xds against our management server', () => {
  let server: XdsManagementServer;
  const backends: TestBackend[] = [];
  const clients: grpc.Client[] = [];

  beforeAll(() => grpcJsXds.register());

  beforeEach(async () => {
    server = await XdsManagementServer.start();
  });

  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await server.close();
    await Promise.all(backends.splice(0).map((b) => b.close()));
  });

  function xdsClient(service: string, uris: readonly string[]): grpc.Client {
    const client = new EchoClient(`xds:///${service}`, grpc.credentials.createInsecure(), {
      'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config': JSON.stringify(bootstrapFor(uris)),
    });
    clients.push(client);
    return client;
  }

  it('resolves xds:///<service> and a unary call reaches the backend', async () => {
    const backend = await startBackend('backend-1');
    backends.push(backend);
    server.setSnapshot('*', serviceSnapshot('conformance-svc', [backend.port]));

    const reply = await callEcho(xdsClient('conformance-svc', [server.uri]), 10_000);

    expect(reply).toBe('backend-1');
    const acked = new Set(server.recorder.acks.map((r) => r.typeUrl.split('.').pop()));
    expect(acked).toEqual(new Set(['Listener', 'RouteConfiguration', 'Cluster', 'ClusterLoadAssignment']));
    expect(server.recorder.nacks).toEqual([]);
  });

  it('follows a snapshot update to a new backend', async () => {
    const [first, second] = await Promise.all([startBackend('first'), startBackend('second')]);
    backends.push(first, second);
    server.setSnapshot('*', serviceSnapshot('moving-svc', [first.port], '1'));
    const client = xdsClient('moving-svc', [server.uri]);
    expect(await callEcho(client, 10_000)).toBe('first');

    server.setSnapshot('*', serviceSnapshot('moving-svc', [second.port], '2'));
    await server.recorder.waitFor(() => server.recorder.acks.some((r) => r.versionInfo === '2' && r.typeUrl.endsWith('ClusterLoadAssignment')));

    await expect(waitForReply(client, 'second')).resolves.toBe('second');
  });

  it('opens an LRS stream to the same server when the cluster sets lrs_server self', async () => {
    const backend = await startBackend('lrs-backend');
    backends.push(backend);
    server.lrs.setReportInterval(200);
    server.setSnapshot('*', serviceSnapshot('lrs-svc', [backend.port], '1', { lrs: true }));
    const client = xdsClient('lrs-svc', [server.uri]);

    expect(await callEcho(client, 10_000)).toBe('lrs-backend');

    const report = await server.recorder.waitFor(
      () => server.recorder.loadReports.find((r) => r.clusterStats.some((c) => c.cluster_name === 'lrs-svc-cluster')),
      10_000,
    );
    expect(report.nodeId).toBe('test-node');
  });
});

/** Calls until the reply is `expected` (the data plane applies an update asynchronously). */
async function waitForReply(client: grpc.Client, expected: string, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const reply = await callEcho(client).catch(() => '');
    if (reply === expected || Date.now() > deadline) return reply;
    await new Promise((r) => setTimeout(r, 50));
  }
}
