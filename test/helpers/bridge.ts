/**
 * Factories for bridge tests: an xDS world (services → clusters → endpoints) as a management-server
 * snapshot, a bridge configuration pointing at given servers, started bridges tracked for cleanup,
 * and readers of what the bridge wrote to ZooKeeper.
 */
import { parseBridgeConfig, XdsBridge, type BridgeConfig } from '../../lib/bridge';
import { clusterPath, servicePath, urisPath } from '../../lib/d2/paths';
import { buildCluster, buildClusterLoadAssignment, buildListener, buildRouteConfiguration, type EndpointInput } from '../../lib/xds/resource-types';
import type { ClusterLbPolicy } from '../../lib/xds/resource-types';
import type { SnapshotInput, XdsManagementServer } from '../../lib/xds/server';
import type { ZkSession } from '../../lib/zk';
import { startXdsServer } from './xds-chain';
import { closeSessions, openSession, uniqueBase } from './zk';

/** One service of a world: its route's clusters with weights. */
export interface WorldService {
  readonly name: string;
  readonly clusters: readonly { readonly name: string; readonly weight: number }[];
}

/** One cluster of a world. */
export interface WorldCluster {
  readonly name: string;
  readonly endpoints: readonly EndpointInput[];
  readonly lbPolicy?: ClusterLbPolicy;
}

/** An xDS world. */
export interface World {
  readonly services: readonly WorldService[];
  readonly clusters: readonly WorldCluster[];
}

/** LDS `<service>` → RDS `<service>-route` (vhost `<service>`) → CDS `<cluster>` → EDS `<cluster>-eds`. */
export function worldSnapshot(version: string, world: World): SnapshotInput {
  return {
    version,
    listeners: world.services.map((s) => buildListener(s.name, { routeConfigName: `${s.name}-route` })),
    routes: world.services.map((s) =>
      buildRouteConfiguration(`${s.name}-route`, {
        virtualHosts: [{ name: s.name, domains: [s.name], routes: [s.clusters.length === 1 ? { prefix: '', cluster: s.clusters[0]!.name } : { prefix: '', weightedClusters: s.clusters }] }],
      }),
    ),
    clusters: world.clusters.map((c) => buildCluster(c.name, { edsServiceName: `${c.name}-eds`, lbPolicy: c.lbPolicy ?? 'ROUND_ROBIN' })),
    endpoints: world.clusters.map((c) => buildClusterLoadAssignment(`${c.name}-eds`, c.endpoints)),
  };
}

/**
 * A bridge configuration for `services`, xDS `serverUris` in priority order, D2 under `base`. By
 * default the bridge runs without credentials and with `allowOpenAcl`, so it creates open nodes that
 * the tests' unauthenticated sessions may change (they play the request worker, operators, servers);
 * access-control tests pass `zookeeper.credentials`, `acl` and `allowOpenAcl: false` as overrides.
 */
export function bridgeConfig(serverUris: readonly string[], services: readonly string[], base: string, overrides: Record<string, unknown> = {}): BridgeConfig {
  return parseBridgeConfig({
    replicaId: `replica-${Math.random().toString(36).slice(2, 8)}`,
    bootstrap: { xds_servers: serverUris.map((uri) => ({ server_uri: uri, channel_creds: [{ type: 'insecure' }] })), node: { id: 'bridge-test' } },
    services,
    zookeeper: { connectString: 'unused:1', basePath: base, electionPath: `${base}-election`, sessionTimeoutMs: 4000 },
    admin: { host: '127.0.0.1', port: 0, grpcPort: 0 },
    deletionGraceMs: 1000,
    fallbackProbeCapMs: 500,
    allowOpenAcl: true,
    ...overrides,
  });
}

const running = new Set<XdsBridge>();

/** Starts a bridge on a session of its own (through a proxy, so tests can expire it). */
export async function startBridge(config: BridgeConfig, session?: ZkSession): Promise<{ bridge: XdsBridge; session: ZkSession }> {
  const own = session ?? (await openSession({ sessionTimeoutMs: config.zookeeper.sessionTimeoutMs }));
  const bridge = await XdsBridge.start({ config, session: own });
  running.add(bridge);
  return { bridge, session: own };
}

/** Stops every bridge {@link startBridge} started. */
export async function stopBridges(): Promise<void> {
  await Promise.all([...running].map((b) => b.close()));
  running.clear();
}

/** The bridge-written URI children of a cluster: name → data (empty when the directory is missing). */
export async function readUris(session: ZkSession, base: string, cluster: string): Promise<Map<string, { data: string; mzxid: bigint; ephemeral: boolean }>> {
  const out = new Map<string, { data: string; mzxid: bigint; ephemeral: boolean }>();
  const state = await session.read(urisPath(base, cluster));
  if (!state.exists) return out;
  for (const name of (await session.children(urisPath(base, cluster))).children) {
    const child = await session.read(`${urisPath(base, cluster)}/${name}`);
    if (child.exists) out.set(name, { data: child.data.toString('utf8'), mzxid: child.stat.mzxid, ephemeral: child.stat.ephemeralOwner !== 0n });
  }
  return out;
}

/** A node's text and mzxid, or undefined. */
export async function readNode(session: ZkSession, path: string): Promise<{ data: string; mzxid: bigint; version: number } | undefined> {
  const state = await session.read(path);
  return state.exists ? { data: state.data.toString('utf8'), mzxid: state.stat.mzxid, version: state.stat.version } : undefined;
}

/** `<base>/clusters/<name>` and `<base>/services/<name>` paths. */
export const paths = {
  cluster: (base: string, name: string): string => clusterPath(base, name),
  service: (base: string, name: string): string => servicePath(base, name),
  uris: (base: string, name: string): string => urisPath(base, name),
};

/** What {@link useBridgeFixture} sets up before each test: a management server, a reader session, a base path. */
export interface BridgeFixture {
  xds: XdsManagementServer;
  reader: ZkSession;
  base: string;
}

/**
 * Registers the beforeEach/afterEach pair most bridge tests share: a fresh management server, a reader
 * session and a unique D2 base path before each test; every bridge, the server, the base path's nodes
 * and the sessions gone after it. The returned object's fields are valid inside tests and hooks.
 */
export function useBridgeFixture(): BridgeFixture {
  const fixture = {} as BridgeFixture;
  beforeEach(async () => {
    fixture.xds = await startXdsServer();
    fixture.reader = await openSession();
    fixture.base = uniqueBase('bridge');
  });
  afterEach(async () => {
    await stopBridges();
    await fixture.xds.close();
    await fixture.reader.removeRecursive(fixture.base).catch(() => undefined);
    await closeSessions();
  });
  return fixture;
}
