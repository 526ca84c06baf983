import { D2Error } from './errors';
import { znodeNameProblem } from './names';

/**
 * Where D2 keeps its data in ZooKeeper (rest.li `balancer/zkfs/ZKFSUtil.java`):
 * `<base>/clusters/<cluster>`, `<base>/services/<service>`, `<base>/uris/<cluster>/<child>`.
 */

/** The base path when none is configured (rest.li's `zkBasePath` default). */
export const DEFAULT_BASE_PATH = '/d2';

/** Directory names under the base path (ZKFSUtil's `CLUSTER_PATH`, `SERVICE_PATH`, `URI_PATH`). */
export const D2_DIRECTORIES = {
  /** Cluster properties, one znode per cluster. */
  clusters: 'clusters',
  /** Service properties, one znode per service. */
  services: 'services',
  /** Announced URIs: one directory per cluster, one ephemeral child per announced host. */
  uris: 'uris',
} as const;

/**
 * The base path with trailing slashes stripped, as ZKFSUtil does: `/d2/` and `/d2//` give `/d2`;
 * `/` and `''` give `''`, so the directories land at the root (`/clusters`). Undefined gives the default.
 */
export function normalizeBasePath(base: string = DEFAULT_BASE_PATH): string {
  let end = base.length;
  while (end > 0 && base.charCodeAt(end - 1) === 0x2f /* '/' */) end--;
  return base.slice(0, end);
}

/**
 * Rejects a name that would not be a single znode name: a slash would reach into another cluster's
 * subtree, and ZooKeeper refuses empty, `.` and `..` components, NUL and the other characters of
 * {@link znodeNameProblem}.
 */
export function assertNodeName(name: string, what: string): void {
  const problem = znodeNameProblem(name);
  if (problem !== undefined) {
    throw new D2Error('malformed', `${what} ${JSON.stringify(name)} is not a valid znode name: it ${problem}`);
  }
}

function directory(base: string | undefined, name: string): string {
  return `${normalizeBasePath(base)}/${name}`;
}

/**
 * `<base>/clusters`, or `<base>/clusters/<cluster>` with a cluster name (ZKFSUtil.clusterPath).
 * Vectors: `/d2`, `/d2/`, `/d2//` → `/d2/clusters`; `/` and `''` → `/clusters`.
 */
export function clusterPath(base?: string, cluster?: string): string {
  if (cluster === undefined) return directory(base, D2_DIRECTORIES.clusters);
  assertNodeName(cluster, 'cluster name');
  return `${directory(base, D2_DIRECTORIES.clusters)}/${cluster}`;
}

/** `<base>/services`, or `<base>/services/<service>` with a service name. */
export function servicePath(base?: string, service?: string): string {
  if (service === undefined) return directory(base, D2_DIRECTORIES.services);
  assertNodeName(service, 'service name');
  return `${directory(base, D2_DIRECTORIES.services)}/${service}`;
}

/**
 * The service directory under another name, ZKFSUtil's two-argument `servicePath(base, sp)` used for
 * service variants: `('/d2', undefined)` and `('/d2', '')` → `/d2/services`; `('', 'test')` → `/test`.
 */
export function serviceDirectoryPath(base?: string, directoryName?: string): string {
  if (directoryName === undefined || directoryName === '') return directory(base, D2_DIRECTORIES.services);
  assertNodeName(directoryName, 'service directory');
  return directory(base, directoryName);
}

/** `<base>/uris`, or `<base>/uris/<cluster>` (the parent of the cluster's announcement children). */
export function urisPath(base?: string, cluster?: string): string {
  if (cluster === undefined) return directory(base, D2_DIRECTORIES.uris);
  assertNodeName(cluster, 'cluster name');
  return `${directory(base, D2_DIRECTORIES.uris)}/${cluster}`;
}
