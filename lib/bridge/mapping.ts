/**
 * xDS → D2 JSON (`../shared/reference/d2-json-formats.md` §1, §2). Pure functions: the sync calls
 * them with what ZooKeeper holds now and writes the result only when it differs.
 *
 * Ownership: the bridge owns `serviceName`, `clusterName`, `path`, `loadBalancerStrategyList` and
 * `prioritizedSchemes` of a service node; `clusterName` and the `xds.*` entries of `properties` of a
 * cluster node; and the persistent URI children whose name starts with {@link URI_CHILD_PREFIX}.
 * Every other key — `failoutProperties` above all — is carried over untouched.
 */
import { assertNodeName, parseClusterProperties, parseServiceProperties, serializeClusterProperties, serializeServiceProperties, serializeUriProperties } from '../d2/data';
import type { ClusterLoadAssignment, Endpoint } from '../xds';
import { BridgeError } from './errors';

/** Marks the URI children the bridge created (servers' own announcements never carry it). */
export const URI_CHILD_PREFIX = 'xds-bridge-';

/** The bridge-owned keys of a cluster's `properties` map. */
export const CLUSTER_PROPERTY_KEYS = ['xds.cluster', 'xds.edsServiceName', 'xds.lbPolicy'] as const;

/** What the bridge writes into a service node. */
export interface ServiceTarget {
  readonly serviceName: string;
  readonly clusterName: string;
  readonly path: string;
  readonly loadBalancerStrategyList: readonly string[];
  readonly scheme: 'http' | 'https';
}

/** What the bridge writes into a cluster node. */
export interface ClusterTarget {
  readonly clusterName: string;
  readonly xdsCluster: string;
  readonly edsServiceName: string;
  readonly lbPolicy: string;
}

/**
 * The D2 name of an xDS cluster: the name itself, or the last path segment of an `xdstp://` name
 * (slashes cannot appear in a znode name).
 * @throws BridgeError `mapping` when the result is no valid znode name.
 */
export function d2ClusterName(xdsName: string): string {
  const name = xdsName.includes('/') ? xdsName.slice(xdsName.lastIndexOf('/') + 1) : xdsName;
  try {
    assertNodeName(name, 'cluster name');
  } catch (err) {
    throw new BridgeError('mapping', `xDS cluster ${JSON.stringify(xdsName)} has no valid D2 name`, { cause: err });
  }
  return name;
}

/** True for a child name the bridge created. */
export function isBridgeChildName(name: string): boolean {
  return name.startsWith(URI_CHILD_PREFIX);
}

/** `scheme://address:port`, IPv6 addresses in brackets. */
export function endpointUri(scheme: string, address: string, port: number): string {
  return `${scheme}://${address.includes(':') ? `[${address}]` : address}:${port}`;
}

/** The child name of an endpoint: the marker, then the address and port with unsafe characters as `_`. */
export function uriChildName(address: string, port: number): string {
  return `${URI_CHILD_PREFIX}${address.replace(/[^A-Za-z0-9.-]/g, '_')}-${port}`;
}

/** HEALTHY and UNKNOWN endpoints are used, as gRPC does; UNHEALTHY, DRAINING, TIMEOUT, DEGRADED are not. */
export function isUsable(endpoint: Endpoint): boolean {
  return endpoint.healthStatus === 'HEALTHY' || endpoint.healthStatus === 'UNKNOWN';
}

/**
 * The endpoints to announce: the usable ones of the highest-priority (lowest number) priority that has
 * any, as gRPC's priority policy would route (gRFC A37). The first of duplicate addresses wins.
 */
export function usableEndpoints(cla: ClusterLoadAssignment): Endpoint[] {
  const priorities = [...new Set(cla.localities.map((l) => l.priority))].sort((a, b) => a - b);
  for (const priority of priorities) {
    const seen = new Set<string>();
    const chosen: Endpoint[] = [];
    for (const locality of cla.localities.filter((l) => l.priority === priority)) {
      for (const e of locality.endpoints.filter(isUsable)) {
        const key = `${e.address}:${e.port}`;
        if (!seen.has(key)) chosen.push(e);
        seen.add(key);
      }
    }
    if (chosen.length > 0) return chosen;
  }
  return [];
}

/** Child name → URI properties JSON, one child per endpoint (rest.li: one URI per announcement). */
export function uriChildren(clusterName: string, endpoints: readonly Endpoint[], scheme: string): Map<string, string> {
  const children = new Map<string, string>();
  for (const e of endpoints) {
    const uri = endpointUri(scheme, e.address, e.port);
    const data = serializeUriProperties({ clusterName, partitionDesc: { [uri]: { 0: e.weight } }, uriSpecificProperties: {} });
    children.set(uriChildName(e.address, e.port), data);
  }
  return children;
}

/**
 * The service document: `existing` with the bridge-owned keys replaced, or a fresh document with
 * rest.li's defaults. Undefined when `existing` cannot be parsed (it is then left alone).
 */
export function renderService(existing: string | undefined, target: ServiceTarget): string | undefined {
  let base;
  try {
    base = existing === undefined ? undefined : parseServiceProperties(Buffer.from(existing, 'utf8'));
  } catch {
    return undefined;
  }
  base ??= parseServiceProperties({ serviceName: target.serviceName, clusterName: target.clusterName, path: target.path, loadBalancerStrategyList: [...target.loadBalancerStrategyList] });
  return serializeServiceProperties({
    ...base,
    serviceName: target.serviceName,
    clusterName: target.clusterName,
    path: target.path,
    loadBalancerStrategyList: [...target.loadBalancerStrategyList],
    prioritizedSchemes: [target.scheme],
  });
}

/**
 * The cluster document: `existing` with `clusterName` and the `xds.*` properties replaced — its
 * `failoutProperties`, canary, unknown keys and other properties carried over as they are — or a fresh
 * document. Undefined when `existing` cannot be parsed: then the bridge must not write it, or it would
 * drop what it could not read.
 */
export function renderCluster(existing: string | undefined, target: ClusterTarget): string | undefined {
  let base;
  try {
    base = parseClusterProperties(existing === undefined ? { clusterName: target.clusterName } : Buffer.from(existing, 'utf8'));
  } catch {
    return undefined;
  }
  const owned: Record<(typeof CLUSTER_PROPERTY_KEYS)[number], string> = {
    'xds.cluster': target.xdsCluster,
    'xds.edsServiceName': target.edsServiceName,
    'xds.lbPolicy': target.lbPolicy,
  };
  return serializeClusterProperties({ ...base, clusterName: target.clusterName, properties: { ...base.properties, ...owned } });
}
