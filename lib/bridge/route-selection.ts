/**
 * From a RouteConfiguration to the clusters a service's requests go to, as gRPC's xDS resolver picks
 * them (gRFC A28): the virtual host whose domains best match the service name, then its default route.
 */
import type { Route, RouteConfiguration, VirtualHost } from '../xds';
import type { ServiceRoute } from './model';

/** How a domain pattern matches; lower is better (gRPC `findVirtualHostForDomain`). */
type MatchRank = 0 | 1 | 2 | 3;

function matchRank(pattern: string, host: string): { rank: MatchRank; length: number } | undefined {
  const p = pattern.toLowerCase();
  const h = host.toLowerCase();
  if (p === '*') return { rank: 3, length: 1 };
  if (!p.includes('*')) return p === h ? { rank: 0, length: p.length } : undefined;
  if (p.startsWith('*') && h.endsWith(p.slice(1))) return { rank: 1, length: p.length };
  if (p.endsWith('*') && h.startsWith(p.slice(0, -1))) return { rank: 2, length: p.length };
  return undefined;
}

/**
 * The virtual host for `host`: exact match, else the longest suffix wildcard (`*.foo`), else the
 * longest prefix wildcard (`foo.*`), else `*`. Undefined when none matches.
 */
export function findVirtualHost(virtualHosts: readonly VirtualHost[], host: string): VirtualHost | undefined {
  let best: { vh: VirtualHost; rank: MatchRank; length: number } | undefined;
  for (const vh of virtualHosts) {
    for (const domain of vh.domains) {
      const m = matchRank(domain, host);
      if (!m) continue;
      if (!best || m.rank < best.rank || (m.rank === best.rank && m.length > best.length)) best = { vh, ...m };
    }
  }
  return best?.vh;
}

/** The route every request reaches: the first catch-all prefix (`''` or `/`), else the first route. */
function defaultRoute(routes: readonly Route[]): Route | undefined {
  return routes.find((r) => r.match.kind === 'prefix' && (r.match.prefix === '' || r.match.prefix === '/')) ?? routes[0];
}

/**
 * The clusters of `service` in `config`; undefined when no virtual host or route applies (the
 * resolver then treats the service as unresolvable and leaves its D2 data alone).
 * @param toD2Name - maps an xDS cluster name to its D2 cluster name (for `primary`).
 */
export function selectServiceRoute(config: RouteConfiguration, service: string, toD2Name: (xdsName: string) => string): ServiceRoute | undefined {
  const vh = findVirtualHost(config.virtualHosts, service);
  const route = vh && defaultRoute(vh.routes);
  if (!route) return undefined;
  const clusters = route.action.kind === 'cluster' ? [{ name: route.action.cluster, weight: 1 }] : route.action.clusters.filter((c) => c.weight > 0);
  const heaviest = clusters.reduce((a, b) => (b.weight > a.weight ? b : a), clusters[0]!);
  return { primary: toD2Name(heaviest.name), clusters: clusters.map((c) => ({ name: c.name, weight: c.weight })) };
}
