import * as grpc from '@grpc/grpc-js';
import { AdminGrpcServer } from '../../../lib/bridge/admin-grpc-server';
import { parseBridgeConfig } from '../../../lib/bridge/config';
import type { XdsClientDump } from '../../../lib/xds';
import { CsdsTestClient } from '../../helpers/csds-client';

// Issue 15 with issue 14's rules: who may call the bridge's gRPC admin port (CSDS). Loopback by
// default; on any other address only with the admin bearer token, as gRPC metadata. Real gRPC servers
// on loopback, called by a client built from envoy's csds.proto.

const TOKEN = 'k3Qv9TzP0aLr8WmX2cYb7NsD4eFh6GjU1iKo5pRq';
const bootstrap = { xds_servers: [{ server_uri: 'localhost:18000', channel_creds: [{ type: 'insecure' }] }], node: { id: 'bridge' } };

/** One client whose dump has one ACKED-less, requested cluster: enough to tell an answer from a refusal. */
const dump: XdsClientDump = {
  clientScope: '#server',
  node: { id: 'bridge', user_agent_name: 'failout' },
  authorities: [
    {
      authority: '',
      topLevel: true,
      activeServer: 'localhost:18000',
      servers: [],
      resources: [{ typeUrl: 'type.googleapis.com/envoy.config.cluster.v3.Cluster', name: 'c1', status: 'requested', version: '', source: undefined, watchers: 1, error: undefined, raw: undefined, lastUpdated: undefined, rejected: undefined }],
    },
  ],
};

const servers: AdminGrpcServer[] = [];
const clients: CsdsTestClient[] = [];
async function start(options: Omit<Parameters<typeof AdminGrpcServer.start>[0], 'clients'>): Promise<AdminGrpcServer> {
  const server = await AdminGrpcServer.start({ ...options, clients: () => [{ dump: () => dump }] });
  servers.push(server);
  return server;
}
function connect(server: AdminGrpcServer, authorization?: string): CsdsTestClient {
  const client = new CsdsTestClient(server.port, authorization);
  clients.push(client);
  return client;
}
afterEach(() => {
  clients.splice(0).forEach((c) => c.close());
  servers.splice(0).forEach((s) => s.close());
});

describe('gRPC admin server binding', () => {
  it('defaults to loopback and port 9902, and serves CSDS on loopback without a token', async () => {
    // Prepare
    const { admin } = parseBridgeConfig({ bootstrap, services: ['greetings'], zookeeper: { connectString: '127.0.0.1:2181' } });

    // Act
    const server = await start({ host: admin.host, port: 0, token: admin.token });
    const response = await connect(server).fetch();

    // Assess
    expect([admin.host, admin.grpcPort]).toEqual(['127.0.0.1', 9902]);
    expect(response.config[0]!.generic_xds_configs.map((g) => [g.name, g.client_status])).toEqual([['c1', 'REQUESTED']]);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5'])('refuses to bind %s without a token', async (host) => {
    await expect(start({ host, port: 0 })).rejects.toMatchObject({ name: 'BridgeError', kind: 'config', field: 'admin.token' });
    expect(servers).toHaveLength(0);
  });

  it('refuses a token shorter than 32 characters', async () => {
    await expect(start({ host: '0.0.0.0', port: 0, token: 'short' })).rejects.toMatchObject({ kind: 'config', field: 'admin.token' });
  });
});

describe('gRPC admin server bearer token (bound as in the Fargate task: 0.0.0.0 with a token)', () => {
  let server: AdminGrpcServer;
  beforeEach(async () => {
    server = await start({ host: '0.0.0.0', port: 0, token: TOKEN });
  });

  it.each<[string, string | undefined]>([
    ['no authorization metadata', undefined],
    ['a wrong token of the same length', `Bearer ${TOKEN.slice(1)}x`],
    ['a token that is a prefix of the right one', `Bearer ${TOKEN.slice(0, 20)}`],
    ['the right token with extra characters', `Bearer ${TOKEN}x`],
    ['the right token under another scheme', `Basic ${TOKEN}`],
    ['an empty bearer token', 'Bearer '],
  ])('ends FetchClientStatus and StreamClientStatus UNAUTHENTICATED for %s, without echoing the token', async (_name, authorization) => {
    // Prepare
    const client = connect(server, authorization);

    // Act
    const fetched = await client.fetch().then(
      () => undefined,
      (err: grpc.ServiceError) => err,
    );
    const stream = client.stream();
    const streamed = await new Promise<grpc.StatusObject>((resolve) => {
      stream.on('status', resolve);
      stream.on('error', () => undefined); // the status carries it
      stream.write({});
    });

    // Assess
    expect(fetched?.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(fetched?.details).not.toContain(TOKEN.slice(0, 8));
    expect(streamed.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it.each([`Bearer ${TOKEN}`, `bearer ${TOKEN}`])('answers with the right token (%#: the scheme in any case)', async (authorization) => {
    const response = await connect(server, authorization).fetch();
    expect(response.config[0]!.node?.id).toBe('bridge');
  });
});
