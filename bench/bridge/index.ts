// bridge: the xDS → ZooKeeper bridge at scale. Starts its own ZooKeeper and management server.
// 1. Full sync of N clusters × M endpoints from a cold ZooKeeper: time and znode writes.
// 2. Takeover: a warm standby becomes leader over the populated ZooKeeper: time and writes (expect 0).
// 3. One endpoint's weight changes, K times: writes per change (target ≤ 2) and xDS push → visible in
//    ZooKeeper (a data watch on the changed child), p50/p99.
import { parseBridgeConfig, uriChildName, XdsBridge, type BridgeConfig } from '../../lib/bridge';
import { urisPath } from '../../lib/d2/data';
import { startZooKeeper } from '../../lib/local';
import type { AnyMessage } from '../../lib/xds/envoy-protos';
import { XdsManagementServer, buildCluster, buildClusterLoadAssignment, buildListener, buildRouteConfiguration, type EndpointInput } from '../../lib/xds/server';
import { connectSession, type ZkSession } from '../../lib/zk';
import { parseIntOptions } from '../lib/args';
import { percentile, printTable, round, writeResults, type Row } from '../lib/report';

interface World {
  listeners: AnyMessage[];
  routes: AnyMessage[];
  clusters: AnyMessage[];
  endpoints: AnyMessage[];
  /** Endpoints per cluster, as built (mutated by the change phase). */
  hosts: EndpointInput[][];
}

function buildWorld(clusters: number, endpoints: number): World {
  const world: World = { listeners: [], routes: [], clusters: [], endpoints: [], hosts: [] };
  for (let c = 0; c < clusters; c++) {
    const name = `svc-${c}`;
    const hosts = Array.from({ length: endpoints }, (_, e) => ({ address: `10.${(c >> 8) & 255}.${c & 255}.${e + 1}`, port: 8080, weight: 1 }));
    world.listeners.push(buildListener(name, { routeConfigName: `${name}-route` }));
    world.routes.push(buildRouteConfiguration(`${name}-route`, { cluster: `${name}-cluster` }));
    world.clusters.push(buildCluster(`${name}-cluster`, { edsServiceName: `${name}-eds` }));
    world.endpoints.push(buildClusterLoadAssignment(`${name}-eds`, hosts));
    world.hosts.push(hosts);
  }
  return world;
}

function config(server: string, zk: string, clusters: number, replicaId: string, rate: number): BridgeConfig {
  return parseBridgeConfig({
    replicaId,
    bootstrap: { xds_servers: [{ server_uri: server, channel_creds: [{ type: 'insecure' }] }], node: { id: 'bench' } },
    services: Array.from({ length: clusters }, (_, c) => `svc-${c}`),
    // As deployed: a bridge identity, so nodes get the policy's ACLs and the start-up check walks the tree.
    zookeeper: { connectString: zk, basePath: '/d2', sessionTimeoutMs: 10_000, credentials: [{ user: 'bench-bridge', password: 'bench' }] },
    writeBudget: { maxOpsPerMulti: 500, maxBytesPerMulti: 900_000, maxOpsPerSecond: rate },
    admin: { host: '127.0.0.1', port: 0 },
  });
}

async function until(what: string, predicate: () => boolean, timeoutMs = 300_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resolves when `path`'s data contains `needle` (a data watch, as clients see it). */
async function visible(session: ZkSession, path: string, needle: string): Promise<() => Promise<number>> {
  let seenAt: number | undefined;
  const watch = session.watchData(path, (state) => {
    if (state.exists && state.data.toString('utf8').includes(needle)) seenAt ??= performance.now();
  });
  await watch.ready;
  return async () => {
    await until(`${path} shows ${needle}`, () => seenAt !== undefined, 30_000);
    watch.close();
    return seenAt!;
  };
}

async function changePhase(p: Record<'changes' | 'clusters', number>, xds: XdsManagementServer, world: World, bridge: XdsBridge, reader: ZkSession): Promise<{ latencies: number[]; writes: number[] }> {
  const latencies: number[] = [];
  const writes: number[] = [];
  for (let i = 0; i < p.changes; i++) {
    const c = (i * 7919) % p.clusters;
    const host = world.hosts[c]![0]!;
    host.weight = (host.weight ?? 1) === 1 + (i % 9) ? 11 + (i % 9) : 1 + (i % 9);
    world.endpoints[c] = buildClusterLoadAssignment(`svc-${c}-eds`, world.hosts[c]!);
    const path = `${urisPath('/d2', `svc-${c}-cluster`)}/${uriChildName(host.address, host.port)}`;
    const seen = await visible(reader, path, `:${host.weight}.0}`);
    const before = bridge.syncStats().writes;
    const start = performance.now();
    xds.setSnapshot('*', { version: `v${i + 2}`, listeners: world.listeners, routes: world.routes, clusters: world.clusters, endpoints: world.endpoints });
    latencies.push((await seen()) - start);
    await bridge.whenSynced();
    writes.push(bridge.syncStats().writes - before);
  }
  return { latencies, writes };
}

/** Default export for `npm run bench -- bridge [--clusters 1000] [--endpoints 10] [--changes 100] [--rate 100000]`. */
export default async function bridgeBench(args: string[]): Promise<void> {
  const p = parseIntOptions(args, {
    clusters: { default: 1000, min: 1 },
    endpoints: { default: 10, min: 1 },
    changes: { default: 100, min: 1 },
    rate: { default: 100_000, min: 1 },
  });
  const zk = await startZooKeeper();
  const xds = await XdsManagementServer.start({ recordResourceNames: false });
  const bridges: XdsBridge[] = [];
  let reader: ZkSession | undefined;
  try {
    reader = await connectSession({ connectString: zk.connectString });
    const world = buildWorld(p.clusters, p.endpoints);
    xds.setSnapshot('*', { version: 'v1', listeners: world.listeners, routes: world.routes, clusters: world.clusters, endpoints: world.endpoints });

    // 1. Full sync from a cold ZooKeeper.
    const t0 = performance.now();
    const leader = await XdsBridge.start({ config: config(xds.uri, zk.connectString, p.clusters, 'bench-a', p.rate) });
    bridges.push(leader);
    await until('full sync', () => leader.ready);
    await leader.whenSynced();
    const fullMs = performance.now() - t0;
    const full = leader.syncStats();

    // 2. Takeover by a warm standby over the populated ZooKeeper.
    const standby = await XdsBridge.start({ config: config(xds.uri, zk.connectString, p.clusters, 'bench-b', p.rate) });
    bridges.push(standby);
    await until('standby warm', () => standby.ready);
    const t1 = performance.now();
    await leader.close();
    await until('takeover', () => standby.role === 'leader' && standby.ready);
    await standby.whenSynced();
    const takeoverMs = performance.now() - t1;
    const takeoverWrites = standby.syncStats().writes;

    // 3. One endpoint change at a time.
    const { latencies, writes } = await changePhase(p, xds, world, standby, reader);

    const rows: Row[] = [
      { phase: 'full sync (cold ZooKeeper)', clusters: p.clusters, endpoints: p.clusters * p.endpoints, 'time ms': round(fullMs, 0), 'znode writes': full.writes, multis: full.batches },
      { phase: 'takeover full sync (warm standby)', clusters: p.clusters, endpoints: p.clusters * p.endpoints, 'time ms': round(takeoverMs, 0), 'znode writes': takeoverWrites },
      {
        phase: `one endpoint change ×${p.changes}`,
        'writes/change max': Math.max(...writes),
        'writes/change p50': percentile(writes, 50),
        'push→visible p50 ms': round(percentile(latencies, 50), 1),
        'push→visible p99 ms': round(percentile(latencies, 99), 1),
      },
    ];
    printTable(`bridge: ${p.clusters} clusters × ${p.endpoints} endpoints`, rows);
    writeResults('bridge', { parameters: { ...p }, rows, latenciesMs: latencies.map((l) => round(l, 2)), writesPerChange: writes });
  } finally {
    for (const b of bridges) await b.close();
    await reader?.close();
    await xds.close();
    await zk.close();
  }
}
