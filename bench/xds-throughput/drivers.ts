// The two clients under test behind one small interface. Each is loaded only in the worker that
// drives it (dynamic require), so neither process pays for the other's modules in its RSS.

/** Callbacks a driver reports to; `index` is the resource number (0 … N-1). */
export interface WatchEvents {
  cluster(index: number): void;
  endpoints(index: number): void;
  doesNotExist(): void;
  error(): void;
}

/** One client, built against one server. */
export interface ClientDriver {
  /** Watches `cluster-<i>` (CDS) and `cluster-<i>` (EDS) for i < n. */
  watchAll(n: number, events: WatchEvents): void;
}

/** Resource names shared with the parent's snapshot. */
export const resourceName = (i: number): string => `cluster-${i}`;

/** Our XdsClient (lib/xds), default timers (does-not-exist 15 s). */
export function oursDriver(serverUri: string): ClientDriver {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in this worker
  const xds = require('../../lib/xds') as typeof import('../../lib/xds');
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in this worker
  (require('../../lib/xds/envoy-protos') as typeof import('../../lib/xds/envoy-protos')).loadXdsProtos();
  const client = xds.createXdsClient({
    bootstrap: xds.parseBootstrap({ xds_servers: [{ server_uri: serverUri, channel_creds: [{ type: 'insecure' }] }], node: { id: 'bench-node', locality: {} } }),
  });
  return {
    watchAll(n, events) {
      const watcher = (onUpdate: () => void): import('../../lib/xds').XdsWatcher<unknown> => ({
        onUpdate: (_value, done) => {
          onUpdate();
          done();
        },
        onResourceDoesNotExist: (done) => {
          events.doesNotExist();
          done();
        },
        onError: (_error, _info, done) => {
          events.error();
          done();
        },
      });
      for (let i = 0; i < n; i++) {
        client.watch('cluster', resourceName(i), watcher(() => events.cluster(i)));
        client.watch('clusterLoadAssignment', resourceName(i), watcher(() => events.endpoints(i)));
      }
    },
  };
}

/* eslint-disable @typescript-eslint/no-require-imports -- deep imports of @grpc/grpc-js-xds 1.14.1 (no exports map; see shared/reference/grpc-js-xds-peer.md) */
/** @grpc/grpc-js-xds 1.14.1's internal XdsClient, driven through its resource types. */
export function grpcJsXdsDriver(serverUri: string): ClientDriver {
  const root = '@grpc/grpc-js-xds/build/src';
  (require('@grpc/grpc-js-xds') as { register(): void }).register(); // CDS validation reads the LB-policy registry
  const { XdsClient, Watcher } = require(`${root}/xds-client`) as typeof import('@grpc/grpc-js-xds/build/src/xds-client');
  const { validateBootstrapConfig } = require(`${root}/xds-bootstrap`) as typeof import('@grpc/grpc-js-xds/build/src/xds-bootstrap');
  const { ClusterResourceType } = require(`${root}/xds-resource-type/cluster-resource-type`) as typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/cluster-resource-type');
  const { EndpointResourceType } = require(`${root}/xds-resource-type/endpoint-resource-type`) as typeof import('@grpc/grpc-js-xds/build/src/xds-resource-type/endpoint-resource-type');
  const client = new XdsClient(
    validateBootstrapConfig({
      xds_servers: [{ server_uri: serverUri, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] }],
      node: { id: 'bench-node', locality: {} },
    }),
  );
  return {
    watchAll(n, events) {
      const watcher = <T>(onUpdate: () => void): InstanceType<typeof Watcher<T>> =>
        new Watcher<T>({ onResourceChanged: onUpdate, onError: () => events.error(), onResourceDoesNotExist: () => events.doesNotExist() });
      for (let i = 0; i < n; i++) {
        ClusterResourceType.startWatch(client, resourceName(i), watcher(() => events.cluster(i)));
        EndpointResourceType.startWatch(client, resourceName(i), watcher(() => events.endpoints(i)));
      }
    },
  };
}
/* eslint-enable @typescript-eslint/no-require-imports */
