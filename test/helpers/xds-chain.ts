/**
 * A mini xDS resolver for integration tests: follows LDS → RDS (or inline route) → CDS → EDS as
 * gRPC's resolver does and exposes the first endpoint as the "backend an RPC would reach".
 * Also builds the resource chains and the bootstraps the fallback tests use.
 */
import { parseBootstrap, type Bootstrap } from '../../lib/xds/bootstrap';
import type { XdsClient } from '../../lib/xds/client';
import type { XdsError } from '../../lib/xds/errors';
import {
  buildCluster,
  buildClusterLoadAssignment,
  buildListener,
  buildRouteConfiguration,
  type RouteConfiguration,
} from '../../lib/xds/resource-types';
import { XdsManagementServer, type ManagementServerOptions, type SnapshotInput } from '../../lib/xds/server';
import type { XdsWatcher } from '../../lib/xds/watcher';

/** A snapshot: listener → route `<tag>-route` → cluster `<cluster>` → endpoints 127.0.0.1:<port>. */
export function chainSnapshot(version: string, listener: string, cluster: string, port: number, tag = cluster): SnapshotInput {
  return {
    version,
    listeners: [buildListener(listener, { routeConfigName: `${tag}-route` })],
    routes: [buildRouteConfiguration(`${tag}-route`, { cluster })],
    clusters: [buildCluster(cluster)],
    endpoints: [buildClusterLoadAssignment(cluster, [{ address: '127.0.0.1', port }])],
  };
}

/** A bootstrap listing `uris` in priority order (insecure), with our extensions. */
export function fallbackBootstrap(uris: string[], failout: Record<string, unknown> = {}): Bootstrap {
  return parseBootstrap({
    xds_servers: uris.map((u) => ({ server_uri: u, channel_creds: [{ type: 'insecure' }] })),
    node: { id: 'test-node', locality: {} },
    failout,
  });
}

function watcher<T>(onUpdate: (value: T) => void, errors: XdsError[]): XdsWatcher<T> {
  return {
    onUpdate: (value, done) => {
      onUpdate(value);
      done();
    },
    onResourceDoesNotExist: (done) => done(),
    onError: (error, _info, done) => {
      errors.push(error);
      done();
    },
  };
}

/** Follows the chain of one listener and records the backend and every error. */
export class ChainResolver {
  /** `address:port` of the first endpoint, once resolved. */
  backend: string | undefined;
  readonly errors: XdsError[] = [];
  private readonly cancels = new Map<string, { name: string; cancel: () => void }>();

  constructor(
    private readonly client: XdsClient,
    listener: string,
  ) {
    this.client.watch('listener', listener, watcher((l) => {
      if (l.routeConfig.source === 'inline') this.onRoute(l.routeConfig.routeConfiguration);
      else this.follow('rds', l.routeConfig.routeConfigName, (n) => this.client.watch('routeConfiguration', n, watcher((r) => this.onRoute(r), this.errors)));
    }, this.errors));
  }

  /** Resolves when the backend is `expected`; rejects after `timeoutMs`. */
  async waitForBackend(expected: string, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.backend !== expected) {
      if (Date.now() > deadline) throw new Error(`backend is ${this.backend ?? 'unresolved'}, expected ${expected}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  private onRoute(route: RouteConfiguration): void {
    const action = route.virtualHosts[0]?.routes[0]?.action;
    if (action?.kind !== 'cluster') return;
    this.follow('cds', action.cluster, (n) =>
      this.client.watch('cluster', n, watcher((c) => {
        this.follow('eds', c.edsServiceName, (e) =>
          this.client.watch('clusterLoadAssignment', e, watcher((cla) => {
            const endpoint = cla.localities[0]?.endpoints[0];
            this.backend = endpoint ? `${endpoint.address}:${endpoint.port}` : undefined;
          }, this.errors)),
        );
      }, this.errors)),
    );
  }

  /** Watches `name` at `level`, replacing a watch of another name there (the resolver's behaviour). */
  private follow(level: string, name: string, start: (name: string) => () => void): void {
    const current = this.cancels.get(level);
    if (current?.name === name) return;
    current?.cancel();
    this.cancels.set(level, { name, cancel: start(name) });
  }
}

/** Sleeps (for "must not happen" checks). */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls `predicate` until true; rejects after `timeoutMs` with `what`. */
export async function eventually(what: string, predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for: ${what}`);
    await sleep(20);
  }
}

/**
 * Starts a management server that can be stopped and restarted on its port: the server's default
 * port choice (below the ephemeral range, see lib/xds/server/restart-safe-port.ts) guarantees it.
 */
export function startXdsServer(options: Omit<ManagementServerOptions, 'port'> = {}): Promise<XdsManagementServer> {
  return XdsManagementServer.start(options);
}
