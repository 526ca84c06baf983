/** Helpers for xDS tests: a tiny gRPC backend, a full LDS→RDS→CDS→EDS snapshot, bootstrap objects. */
import * as grpc from '@grpc/grpc-js';
import {
  buildCluster,
  buildClusterLoadAssignment,
  buildListener,
  buildRouteConfiguration,
} from '../../lib/xds/resource-types';
import type { SnapshotInput } from '../../lib/xds/server/snapshot-cache';

/** The generic unary method every test backend serves. */
export const ECHO_METHOD = '/failout.test.Echo/Call';

const identity = {
  serialize: (b: Buffer): Buffer => b,
  deserialize: (b: Buffer): Buffer => b,
};

/** A unary gRPC backend on 127.0.0.1 answering with its own name. */
export interface TestBackend {
  readonly name: string;
  readonly port: number;
  close(): Promise<void>;
}

/** Starts a backend that replies `name` to {@link ECHO_METHOD}. */
export async function startBackend(name: string): Promise<TestBackend> {
  const server = new grpc.Server();
  server.addService(
    { Call: { path: ECHO_METHOD, requestStream: false, responseStream: false, requestSerialize: identity.serialize, requestDeserialize: identity.deserialize, responseSerialize: identity.serialize, responseDeserialize: identity.deserialize } },
    { Call: (_call: grpc.ServerUnaryCall<Buffer, Buffer>, cb: grpc.sendUnaryData<Buffer>) => cb(null, Buffer.from(name)) },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return {
    name,
    port,
    close: () => new Promise<void>((resolve) => server.tryShutdown(() => resolve())),
  };
}

/** A generic client constructor for {@link ECHO_METHOD} (no .proto needed). */
export const EchoClient = grpc.makeGenericClientConstructor(
  { Call: { path: ECHO_METHOD, requestStream: false, responseStream: false, requestSerialize: identity.serialize, requestDeserialize: identity.deserialize, responseSerialize: identity.serialize, responseDeserialize: identity.deserialize, originalName: 'Call' } },
  'Echo',
);

/** Calls {@link ECHO_METHOD} and resolves with the backend's name. */
export function callEcho(client: grpc.Client, deadlineMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    client.makeUnaryRequest(ECHO_METHOD, identity.serialize, identity.deserialize, Buffer.alloc(0), { deadline: Date.now() + deadlineMs }, (err, res) =>
      err ? reject(err) : resolve((res as Buffer).toString()),
    );
  });
}

/** A complete config for `xds:///<service>` ending at `ports` (names derived from `service`). */
export function serviceSnapshot(service: string, ports: readonly number[], version = '1', options: { lrs?: boolean } = {}): SnapshotInput {
  const route = `${service}-route`;
  const cluster = `${service}-cluster`;
  const eds = `${service}-eds`;
  return {
    version,
    listeners: [buildListener(service, { routeConfigName: route })],
    routes: [buildRouteConfiguration(route, { cluster })],
    clusters: [buildCluster(cluster, { edsServiceName: eds, lrs: options.lrs ?? false })],
    endpoints: [buildClusterLoadAssignment(eds, ports.map((port) => ({ address: '127.0.0.1', port })))],
  };
}

/** A gRPC bootstrap object pointing at `serverUris` (priority order). */
export function bootstrapFor(serverUris: readonly string[], nodeId = 'test-node'): Record<string, unknown> {
  return {
    xds_servers: serverUris.map((uri) => ({ server_uri: uri, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] })),
    node: { id: nodeId, locality: {} },
  };
}
