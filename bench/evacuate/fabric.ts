// bench/evacuate: the world the benchmark builds. S services `svcNNNN`, each with one cluster per
// fabric (`svcNNNN-lor1|lva1|ltx1`, the fabric rule of lib/fabrics) and H hosts announced under each
// cluster's uris; the service maps to its lor1 cluster, so the clients are lor1's callers and the
// evacuation of lor1 sends every one of their services to lva1 and ltx1. Which services a client
// follows, the change request bodies and the seeding (in multis, thousands of nodes) live here.
import { clusterPath, parseClusterProperties, parseServiceProperties, serializeClusterProperties, serializeServiceProperties, serializeUriProperties, servicePath, urisPath } from '../../lib/d2/data';
import { newRequestId } from '../../lib/requests';
import { OPEN_ACL, type MultiOp, type ZkWriter } from '../../lib/zk';

/** The fabrics every service runs in; the first is the one evacuated. */
export const FABRICS = ['lor1', 'lva1', 'ltx1'] as const;
/** The evacuated fabric (the clients' own: each followed service maps to its cluster there). */
export const EVACUATED = FABRICS[0];
/** The FIFO group of fabric-wide requests (the contract: the same as putFabric/deleteFabric). */
export const FABRIC_GROUP = 'failout/fabrics';

/** Service `i` (0-based), zero-padded so that no service name prefixes another's cluster. */
export function serviceName(i: number): string {
  return `svc${String(i).padStart(4, '0')}`;
}

/** A service's cluster in `fabric`: the default fabric rule (`<service>-<fabric>`). */
export function clusterName(service: string, fabric: string): string {
  return `${service}-${fabric}`;
}

/** The evacuated cluster of service `i`: the one its callers route to and the evacuation moves. */
export function evacuatedCluster(i: number): string {
  return clusterName(serviceName(i), EVACUATED);
}

/**
 * The services (indices) client `client` follows: `follow` distinct ones spaced `⌊services/follow⌋`
 * apart from `client mod services`, so consecutive clients follow different sets and, with
 * `clients` a multiple of `services`, every service has the same number of followers.
 */
export function followedServices(client: number, services: number, follow: number): number[] {
  const count = Math.min(follow, services);
  const stride = Math.floor(services / count);
  return Array.from({ length: count }, (_, k) => (client + k * stride) % services);
}

/** Host `h` of a cluster, as the bridge announces it (one URI, weight 1, partition 0). */
function uriDocument(cluster: string, h: number): string {
  return serializeUriProperties({ clusterName: cluster, partitionDesc: { [`http://${cluster}-${h}.bench:8080`]: { 0: 1 } }, uriSpecificProperties: {} });
}

/** Service `service` mapped to its lor1 cluster, http only (what a D2 client resolves `d2://service`). */
function serviceDocument(service: string): string {
  return serializeServiceProperties(
    parseServiceProperties({ serviceName: service, clusterName: clusterName(service, EVACUATED), path: `/${service}`, loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] }),
  );
}

/** Runs `ops` in multis of at most `batch` operations (one ZooKeeper request each, far below jute.maxbuffer). */
export async function inMultis(session: Pick<ZkWriter, 'multi'>, ops: readonly MultiOp[], batch = 500): Promise<void> {
  for (let i = 0; i < ops.length; i += batch) await session.multi(ops.slice(i, i + batch));
}

/**
 * Writes the D2 tree under `basePath` (which must not hold it yet): every service, its three clusters
 * without failout, and `hosts` hosts under each cluster's uris. Returns the number of nodes created.
 */
export async function seedFabrics(session: ZkWriter, basePath: string, services: number, hosts: number): Promise<number> {
  for (const dir of [clusterPath(basePath), servicePath(basePath), urisPath(basePath)]) await session.ensurePath(dir, OPEN_ACL);
  const ops: MultiOp[] = [];
  const create = (path: string, text?: string): void => void ops.push({ op: 'create', path, ...(text === undefined ? {} : { data: Buffer.from(text, 'utf8') }), acl: OPEN_ACL });
  for (let i = 0; i < services; i++) {
    const service = serviceName(i);
    create(servicePath(basePath, service), serviceDocument(service));
    for (const fabric of FABRICS) {
      const cluster = clusterName(service, fabric);
      create(clusterPath(basePath, cluster), serializeClusterProperties(parseClusterProperties({ clusterName: cluster })));
      create(urisPath(basePath, cluster));
      for (let h = 1; h <= hosts; h++) create(`${urisPath(basePath, cluster)}/${cluster}-${h}`, uriDocument(cluster, h));
    }
  }
  await inMultis(session, ops);
  return ops.length;
}

/** A floor node's value: `token`, padded with spaces to `size` bytes (the size of the cluster document it stands for). */
export function floorValue(token: string, size: number): Buffer {
  const buffer = Buffer.alloc(Math.max(size, Buffer.byteLength(token)), 0x20);
  buffer.write(token, 0, 'utf8');
  return buffer;
}

/** A change request as sent on the queue: its id and its body. */
export interface BenchRequest {
  readonly requestId: string;
  readonly body: string;
}

/**
 * `evacuate lor1` for an hour, no targets (every other fabric, each cluster's peers weighted by
 * their host counts: "by capacity"), no stages, ramp or alarms: every cluster out at once, in one write.
 */
export function evacuateRequest(tag: string): BenchRequest {
  const requestId = newRequestId();
  const body = { version: 1, requestId, action: 'evacuate', fabric: EVACUATED, duration: 'PT1H', requestedBy: 'bench@local', reason: `bench ${tag}` };
  return { requestId, body: JSON.stringify(body) };
}

/** `restore --fabric lor1`: every window of the open evacuation ends now (one stage: no restore gap). */
export function restoreRequest(tag: string): BenchRequest {
  const requestId = newRequestId();
  const body = { version: 1, requestId, action: 'restoreFabric', fabric: EVACUATED, requestedBy: 'bench@local', reason: `bench ${tag}` };
  return { requestId, body: JSON.stringify(body) };
}
