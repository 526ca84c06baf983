import {
  parseClusterProperties,
  parseServiceProperties,
  serializeClusterProperties,
  serializeServiceProperties,
  serializeUriProperties,
  type ClusterProperties,
  type ServiceProperties,
} from '../../lib/d2';
import { clusterPath, servicePath, urisPath } from '../../lib/d2/paths';
import { OPEN_ACL, type AclSource, type ZkReader, type ZkWriter } from '../../lib/zk';

/** What the writers below need: a real ZkSession or the in-memory fake. */
type Writable = ZkReader & ZkWriter;

/** A cluster document with rest.li's defaults, plus `overrides`. */
export function clusterDoc(name: string, overrides: Partial<ClusterProperties> = {}): ClusterProperties {
  return { ...parseClusterProperties({ clusterName: name }), ...overrides };
}

/** A service document mapping `name` to `cluster`, served under `path`, http only. */
export function serviceDoc(name: string, cluster: string, path = `/${name}`, overrides: Partial<ServiceProperties> = {}): ServiceProperties {
  const base = parseServiceProperties({
    serviceName: name,
    clusterName: cluster,
    path,
    loadBalancerStrategyList: ['degraderV3'],
    prioritizedSchemes: ['http'],
  });
  return { ...base, ...overrides };
}

/**
 * Creates or overwrites a znode (parents included) with text. `acl` is the ACL of what it creates:
 * the open one unless given, because these helpers play an unconstrained writer that stands in for
 * the bridge and the request writer (tests about access control pass the policy's).
 */
export async function put(session: Writable, path: string, text: string, acl: AclSource = OPEN_ACL): Promise<void> {
  const data = Buffer.from(text, 'utf8');
  if (await session.exists(path)) await session.set(path, data);
  else await session.create(path, data, { parents: true, acl });
}

/** Writes a minimal cluster node for each of `clusters`, each announcing one host (`http://<cluster>-1:8080/`). */
export async function putClustersWithHost(session: Writable, base: string, clusters: readonly string[]): Promise<void> {
  for (const cluster of clusters) {
    await put(session, clusterPath(base, cluster), JSON.stringify({ clusterName: cluster }));
    await putUri(session, base, cluster, 'host-1', `http://${cluster}-1:8080/`);
  }
}

/** Writes `<base>/clusters/<name>`. */
export async function putCluster(session: Writable, base: string, props: ClusterProperties): Promise<void> {
  await put(session, clusterPath(base, props.clusterName), serializeClusterProperties(props));
}

/** Writes `<base>/services/<name>`. */
export async function putService(session: Writable, base: string, props: ServiceProperties): Promise<void> {
  await put(session, servicePath(base, props.serviceName), serializeServiceProperties(props));
}

/** Writes a persistent URI child `<base>/uris/<cluster>/<child>` announcing one URI (the bridge's way). */
export async function putUri(session: Writable, base: string, cluster: string, child: string, uri: string, weight = 1): Promise<string> {
  const path = `${urisPath(base, cluster)}/${child}`;
  await put(session, path, serializeUriProperties({ clusterName: cluster, partitionDesc: { [uri]: { 0: weight } }, uriSpecificProperties: {} }));
  return path;
}

/** Writes a persistent URI child announcing `uri` with these partition weights (partition id → weight). */
export async function putPartitionedUri(session: Writable, base: string, cluster: string, child: string, uri: string, partitions: Record<number, number>): Promise<void> {
  await put(session, `${urisPath(base, cluster)}/${child}`, serializeUriProperties({ clusterName: cluster, partitionDesc: { [uri]: partitions }, uriSpecificProperties: {} }));
}

/**
 * The quick-start's RANGE partitioned cluster `ProfileService` (`profiles/(\d+)`, a million ids per
 * partition, 10 partitions) and its service `profiles` (path `/profile-war`), no hosts.
 */
export async function putProfileService(session: Writable, base: string): Promise<void> {
  await putCluster(
    session,
    base,
    clusterDoc('ProfileService', {
      partitionProperties: { partitionType: 'RANGE', partitionKeyRegex: 'profiles/(\\d+)', keyRangeStart: 0, partitionSize: 1000000, partitionCount: 10 },
    }),
  );
  await putService(session, base, serviceDoc('profiles', 'ProfileService', '/profile-war'));
}

/**
 * Service `greetings` (path `/greetings`) on cluster `home`, and clusters `home` and `peer`, each with
 * one host `http://<cluster>-1:8080`: the smallest topology with somewhere to route to.
 */
export async function putHomeAndPeer(session: Writable, base: string): Promise<void> {
  await putService(session, base, serviceDoc('greetings', 'home', '/greetings'));
  for (const cluster of ['home', 'peer']) {
    await putCluster(session, base, clusterDoc(cluster));
    await putUri(session, base, cluster, 'h1', `http://${cluster}-1:8080`);
  }
}
