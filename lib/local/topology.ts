/**
 * The local stack's sample topology: two services in three fabrics (data centers). Service `greetings`
 * with clusters `greetings-lor1` (its local cluster), `greetings-lva1` and `greetings-ltx1`, and
 * service `hello` with `hello-lor1` (its local one), `hello-lva1` and `hello-ltx1`, three real HTTP
 * backends each, as an xDS snapshot the control planes serve (per service: LDS `<service>` → RDS
 * `<service>-route` → CDS `<cluster>` → EDS `<cluster>-eds-g<generation>`). The names follow the fabric
 * rule (docs/operators.md "Fabrics"): `<service>-<fabric>`, so fabric `lor1` holds `greetings-lor1`
 * and `hello-lor1`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildCluster, buildClusterLoadAssignment, buildListener, buildRouteConfiguration, type SnapshotInput } from '../xds/server';

/** The first service: every scenario step before issue 23's evacuation measures its traffic. */
export const SERVICE = 'greetings';
/** The second service (issue 23): its own clusters and backends in the same three fabrics. */
export const SECOND_SERVICE = 'hello';
/** Every service of the topology, in the order the view lists them. */
export const SERVICES = [SERVICE, SECOND_SERVICE] as const;
/** The fabrics, the local one first: every service has one cluster in each, named `<service>-<fabric>`. */
export const FABRICS = ['lor1', 'lva1', 'ltx1'] as const;
/** The fabric the services' own clusters are in (where their traffic goes while nothing is failed out). */
export const LOCAL_FABRIC = FABRICS[0];
/** `greetings-lor1`: a service's cluster in a fabric. */
export const clusterOf = (service: string, fabric: string): string => `${service}-${fabric}`;
/** The first service's own cluster: the heaviest in the route, so the bridge maps the D2 service to it. */
export const LOCAL_CLUSTER = 'greetings-lor1';
/** The first service's clusters (`greetings-*`), its own first. */
export const CLUSTERS = [LOCAL_CLUSTER, 'greetings-lva1', 'greetings-ltx1'] as const;
/** Every cluster of every service, service by service, each service's own cluster first. */
export const ALL_CLUSTERS: readonly string[] = SERVICES.flatMap((service) => FABRICS.map((fabric) => clusterOf(service, fabric)));
/**
 * Route weights: xDS needs positive ones; D2 sends a service's traffic to its `clusterName` only (the
 * heaviest: the local fabric's), and the peers are in the route so that the bridge writes their D2 data too.
 */
const routeWeight = (cluster: string): number => (cluster.endsWith(`-${LOCAL_FABRIC}`) ? 98 : 1);

/** A service's clusters, its own (local fabric) first. */
export function clustersOf(service: string): string[] {
  return FABRICS.map((fabric) => clusterOf(service, fabric));
}

/** One HTTP backend of a cluster. */
export interface Backend {
  /** `lor1-2` for greetings' clusters (as before issue 23), `hello-lor1-2` for the second service's. */
  readonly name: string;
  readonly cluster: string;
  readonly port: number;
  /** `http://127.0.0.1:<port>`: the URI the bridge writes to ZooKeeper. */
  readonly uri: string;
}

/**
 * Starts an HTTP server on 127.0.0.1 that answers every request with its cluster and name, or with a
 * 500 while `faulty()` says its cluster is broken (the fault switch of {@link SampleTopology.setFault}).
 */
async function startBackend(cluster: string, name: string, faulty: () => boolean, onFault: () => void): Promise<{ backend: Backend; server: Server }> {
  const server = createServer((req, res) => {
    req.resume();
    res.setHeader('content-type', 'text/plain');
    if (faulty()) {
      onFault();
      res.statusCode = 500;
      res.end(`${name} (${cluster}) is broken on purpose (fault switch)\n`);
      return;
    }
    res.end(`hello from ${name} (${cluster})\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return { backend: { name, cluster, port, uri: `http://127.0.0.1:${port}` }, server };
}

/**
 * The backends and the snapshot built from them. Changes (a backend added, a new EDS generation)
 * bump the version; the control planes publish {@link snapshot} after each.
 */
export class SampleTopology {
  private readonly servers: Server[] = [];
  private readonly byCluster = new Map<string, Backend[]>(ALL_CLUSTERS.map((c) => [c, []]));
  private version = 1;
  /** EDS resource names end in `-g<generation>`; a new generation makes the bridge subscribe anew. */
  private generation = 1;
  /** Clusters whose backends answer 500 (the fault switch). */
  private readonly broken = new Set<string>();
  private faultAnswerCount = 0;

  /** Starts `perCluster` backends in each cluster of each service. */
  static async start(perCluster = 3): Promise<SampleTopology> {
    const topology = new SampleTopology();
    try {
      for (const cluster of ALL_CLUSTERS) for (let i = 0; i < perCluster; i++) await topology.addBackend(cluster);
    } catch (err) {
      await topology.close();
      throw err;
    }
    topology.version = 1;
    return topology;
  }

  /** Every backend, cluster by cluster (greetings' clusters first). */
  backends(): Backend[] {
    return [...this.byCluster.values()].flat();
  }

  backendsOf(cluster: string): readonly Backend[] {
    return this.byCluster.get(cluster) ?? [];
  }

  /** The backend behind a URI (`http://127.0.0.1:<port>`), if it is ours. */
  backendByUri(uri: string): Backend | undefined {
    return this.backends().find((b) => b.uri === uri);
  }

  /** Starts one more backend in `cluster` and adds it to the snapshot. */
  async addBackend(cluster: string): Promise<Backend> {
    const list = this.byCluster.get(cluster);
    if (!list) throw new Error(`unknown cluster ${cluster}`);
    const { backend, server } = await startBackend(cluster, `${cluster.replace(/^greetings-/, '')}-${list.length + 1}`, () => this.broken.has(cluster), () => void this.faultAnswerCount++);
    this.servers.push(server);
    list.push(backend);
    this.version++;
    return backend;
  }

  /**
   * The fault switch: while on, every backend of `cluster` answers 500 (its hosts stay announced, as a
   * bad deploy would leave them), so the local alarm evaluator sees its error rate rise.
   */
  setFault(cluster: string, on: boolean): void {
    if (!this.byCluster.has(cluster)) throw new Error(`unknown cluster ${cluster}`);
    if (on) this.broken.add(cluster);
    else this.broken.delete(cluster);
  }

  /** How many requests the fault switch answered with a 500 since start: errors injected on purpose. */
  get faultAnswers(): number {
    return this.faultAnswerCount;
  }

  /** Whether `cluster`'s backends answer 500 now. */
  isFaulty(cluster: string): boolean {
    return this.broken.has(cluster);
  }

  /** Renames every EDS resource (a rollout): a bridge following the snapshot must subscribe to new names. */
  nextEdsGeneration(): string {
    this.generation++;
    this.version++;
    return this.edsName(LOCAL_CLUSTER);
  }

  /** The EDS resource name of a cluster in the current generation. */
  edsName(cluster: string): string {
    return `${cluster}-eds-g${this.generation}`;
  }

  /** The xDS resources of the current state: one listener and route per service, every cluster. */
  snapshot(): SnapshotInput {
    return {
      version: `v${this.version}`,
      listeners: SERVICES.map((service) => buildListener(service, { routeConfigName: `${service}-route` })),
      routes: SERVICES.map((service) =>
        buildRouteConfiguration(`${service}-route`, {
          virtualHosts: [{ name: service, domains: [service], routes: [{ prefix: '', weightedClusters: clustersOf(service).map((name) => ({ name, weight: routeWeight(name) })) }] }],
        }),
      ),
      clusters: ALL_CLUSTERS.map((c) => buildCluster(c, { edsServiceName: this.edsName(c) })),
      endpoints: ALL_CLUSTERS.map((c) => buildClusterLoadAssignment(this.edsName(c), this.backendsOf(c).map((b) => ({ address: '127.0.0.1', port: b.port })))),
    };
  }

  /** Stops every backend. */
  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.closeAllConnections();
            s.close(() => resolve());
          }),
      ),
    );
    this.servers.length = 0;
  }
}
