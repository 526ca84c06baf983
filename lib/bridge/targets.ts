/**
 * What each ZooKeeper entity should hold, from what the resolver knows: the bridge's policy in one
 * place. Unknown means leave alone; does-not-exist means remove, but only once it has lasted the grace
 * period; cluster nodes are never removed (they carry `failoutProperties`).
 */
import type { BridgeConfig } from './config';
import { renderCluster, renderService, uriChildren } from './mapping';
import type { EntityKey, EntityTarget } from './model';
import type { ClusterView, XdsResolver } from './resolver';

const KEEP: EntityTarget = { kind: 'keep' };
const NO_CHILDREN: EntityTarget = { kind: 'uris', children: new Map() };

/** Removal once `since + grace` has passed; until then, keep and look again at that time. */
function afterGrace(since: number, graceMs: number, now: number, removal: EntityTarget): EntityTarget {
  return now >= since + graceMs ? removal : { kind: 'keep', recheckAt: since + graceMs };
}

function serviceTarget(name: string, resolver: XdsResolver, config: BridgeConfig, now: number): EntityTarget {
  const view = resolver.service(name);
  if (!view) return KEEP;
  const route = view.route;
  if (route.state === 'doesNotExist') return afterGrace(route.since, config.deletionGraceMs, now, { kind: 'absent' });
  if (route.state !== 'resolved') return KEEP;
  // The applied route (gRFC A74): a new route's cluster is named only once its CDS and EDS are in.
  const served = view.served ?? route.value;
  const target = {
    serviceName: name,
    clusterName: served.primary,
    path: view.config.path,
    loadBalancerStrategyList: view.config.loadBalancerStrategyList,
    scheme: config.uriScheme,
  };
  return { kind: 'node', render: (existing) => renderService(existing, target) };
}

function clusterTarget(cluster: ClusterView | undefined): EntityTarget {
  if (cluster?.cds.state !== 'resolved') return KEEP;
  const target = { clusterName: cluster.d2Name, xdsCluster: cluster.xdsName, edsServiceName: cluster.cds.value.edsServiceName, lbPolicy: cluster.cds.value.lbPolicy };
  return { kind: 'node', render: (existing) => renderCluster(existing, target) };
}

/** When every service referencing the cluster does not exist: the latest of their `since`. */
function servicesGoneSince(cluster: ClusterView, resolver: XdsResolver): number | undefined {
  let latest = 0;
  for (const name of cluster.services) {
    const route = resolver.service(name)?.route;
    if (route?.state !== 'doesNotExist') return undefined;
    latest = Math.max(latest, route.since);
  }
  return cluster.services.length > 0 ? latest : undefined;
}

function urisTarget(cluster: ClusterView | undefined, resolver: XdsResolver, config: BridgeConfig, now: number): EntityTarget {
  // No service references the cluster any more (the route moved): its endpoints are not ours to announce.
  if (!cluster) return NO_CHILDREN;
  const gone = servicesGoneSince(cluster, resolver);
  if (gone !== undefined) return afterGrace(gone, config.deletionGraceMs, now, NO_CHILDREN);
  if (cluster.cds.state === 'doesNotExist') return afterGrace(cluster.cds.since, config.deletionGraceMs, now, NO_CHILDREN);
  if (cluster.eds.state === 'doesNotExist') return afterGrace(cluster.eds.since, config.deletionGraceMs, now, NO_CHILDREN);
  if (cluster.eds.state !== 'resolved') return KEEP;
  return { kind: 'uris', children: uriChildren(cluster.d2Name, cluster.eds.value, config.uriScheme) };
}

/** The target of one entity now. */
export function entityTarget(key: EntityKey, resolver: XdsResolver, config: BridgeConfig, now = Date.now()): EntityTarget {
  const colon = key.indexOf(':');
  const kind = key.slice(0, colon);
  const name = key.slice(colon + 1);
  if (kind === 'service') return serviceTarget(name, resolver, config, now);
  const cluster = resolver.clusterByD2Name(name);
  return kind === 'cluster' ? clusterTarget(cluster) : urisTarget(cluster, resolver, config, now);
}
