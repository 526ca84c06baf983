/**
 * RouteConfiguration (RDS): decode/validate and build.
 *
 * Public names (stable):
 * - `RouteConfiguration`, `VirtualHost`, `Route`, `RouteMatch`, `RouteAction`, `WeightedCluster` — decoded shapes.
 * - `routeConfigurationType: XdsResourceType<'routeConfiguration', RouteConfiguration>`.
 * - `validateRouteConfiguration(raw)` — also used for a Listener's inline route_config.
 * - `RouteConfigurationInput` — `{ cluster }` shorthand (one vhost `*`, prefix '' → cluster) or `{ virtualHosts }`.
 * - `buildRouteConfiguration(name, input): AnyMessage`, `routeConfigurationObject(name, input)` (unpacked form).
 *
 * gRPC's rules (gRFC A28): a route matches by `prefix` or `path` (safe_regex is not supported here), and
 * forwards to `cluster` or `weighted_clusters` (total weight > 0); anything else is a validation error.
 */
import { packAny, type AnyMessage } from '../protos';
import { decodeWith, deepEqual, invalid, list, rec, str, u32, type XdsResourceType } from './resource-type';
import { RDS_TYPE_URL } from './type-urls';

/** How a route matches the request path. */
export type RouteMatch =
  | {
      /** Matches paths starting with `prefix`. */
      readonly kind: 'prefix';
      /** `match.prefix`; '' matches every path. */
      readonly prefix: string;
    }
  | {
      /** Matches one exact path. */
      readonly kind: 'path';
      /** `match.path`: the full path, e.g. `/package.Service/Method`. */
      readonly path: string;
    };

/** One entry of `weighted_clusters`. */
export interface WeightedCluster {
  /** The cluster (CDS resource) name. */
  readonly name: string;
  /** Relative weight; 0 when unset. The total over the route must be > 0. */
  readonly weight: number;
}

/** Where a route sends the request. */
export type RouteAction =
  | {
      /** Forward to one cluster (`route.cluster`). */
      readonly kind: 'cluster';
      /** The cluster (CDS resource) name; never empty. */
      readonly cluster: string;
    }
  | {
      /** Split across clusters by weight (`route.weighted_clusters`). */
      readonly kind: 'weightedClusters';
      /** The clusters and their weights; total weight > 0. */
      readonly clusters: readonly WeightedCluster[];
    };

/** One route of a virtual host. */
export interface Route {
  /** How the route matches the request path. */
  readonly match: RouteMatch;
  /** `match.case_sensitive`, default true. */
  readonly caseSensitive: boolean;
  /** Where matching requests go. */
  readonly action: RouteAction;
}

/** A virtual host: domains and ordered routes. */
export interface VirtualHost {
  /** The virtual host's name; '' when unset. */
  readonly name: string;
  /** Domains this virtual host serves (e.g. `*`); never empty. */
  readonly domains: readonly string[];
  /** Routes in order; the first match wins. */
  readonly routes: readonly Route[];
}

/** A decoded, validated RouteConfiguration. */
export interface RouteConfiguration {
  /** The route configuration (RDS resource) name. */
  readonly name: string;
  /** `virtual_hosts`, in order. */
  readonly virtualHosts: readonly VirtualHost[];
}

function validateMatch(match: Record<string, unknown> | undefined): RouteMatch {
  const specifier = str(match, 'path_specifier');
  if (specifier === 'prefix') return { kind: 'prefix', prefix: str(match, 'prefix') };
  if (specifier === 'path') return { kind: 'path', path: str(match, 'path') };
  return invalid(specifier ? `unsupported path specifier ${specifier}` : 'route match has no prefix or path');
}

function validateAction(action: Record<string, unknown> | undefined): RouteAction {
  if (!action) return invalid('route has no route action');
  const specifier = str(action, 'cluster_specifier');
  if (specifier === 'cluster') {
    const cluster = str(action, 'cluster');
    return cluster ? { kind: 'cluster', cluster } : invalid('route action has an empty cluster');
  }
  if (specifier === 'weighted_clusters') {
    const clusters = list(rec(action, 'weighted_clusters'), 'clusters').map((c) => ({
      name: str(c, 'name') || invalid('weighted cluster without a name'),
      weight: u32(c, 'weight', 0),
    }));
    if (clusters.reduce((sum, c) => sum + c.weight, 0) <= 0) invalid('weighted_clusters total weight is 0');
    return { kind: 'weightedClusters', clusters };
  }
  return invalid(specifier ? `unsupported cluster specifier ${specifier}` : 'route action has no cluster');
}

function validateVirtualHost(vh: Record<string, unknown>, index: number): VirtualHost {
  const domains = (vh.domains as string[] | undefined) ?? [];
  if (domains.length === 0) invalid(`virtual_hosts[${index}] has no domains`);
  const routes = list(vh, 'routes').map((r, i) => {
    try {
      const match = rec(r, 'match');
      const caseSensitive = rec(match, 'case_sensitive');
      return {
        match: validateMatch(match),
        caseSensitive: caseSensitive ? caseSensitive.value !== false : true,
        action: validateAction(rec(r, 'route')),
      };
    } catch (e) {
      return invalid(`virtual_hosts[${index}].routes[${i}]: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
  return { name: str(vh, 'name'), domains: [...domains], routes };
}

/** Validates a decoded RouteConfiguration message (also a Listener's inline `route_config`). */
export function validateRouteConfiguration(raw: Record<string, unknown>): RouteConfiguration {
  return { name: str(raw, 'name'), virtualHosts: list(raw, 'virtual_hosts').map(validateVirtualHost) };
}

/** The RDS resource type. Absence from a SotW response means nothing for RDS. */
export const routeConfigurationType: XdsResourceType<'routeConfiguration', RouteConfiguration> = {
  kind: 'routeConfiguration',
  typeUrl: RDS_TYPE_URL,
  decode: (any) => decodeWith(RDS_TYPE_URL, any, (raw) => str(raw, 'name'), validateRouteConfiguration),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: false,
};

/** A route for the builders: a prefix (default '') or an exact path, to a cluster or weighted clusters. */
export interface RouteInput {
  /** Path prefix to match; default ''. Ignored when `path` is set. */
  prefix?: string;
  /** Exact path to match; takes precedence over `prefix`. */
  path?: string;
  /** Cluster to forward to; ignored when `weightedClusters` is set. */
  cluster?: string;
  /** Clusters to split across by weight; takes precedence over `cluster`. */
  weightedClusters?: readonly WeightedCluster[];
}

/** Builder input: `{ cluster }` (one vhost `*`, prefix '' → cluster) or explicit virtual hosts. */
export type RouteConfigurationInput =
  | {
      /** Send everything to this cluster: one virtual host `*` with one route, prefix '' → cluster. */
      cluster: string;
    }
  | {
      /** Explicit virtual hosts, in order. */
      virtualHosts: ReadonlyArray<{
        /** The virtual host's name; default `vh-<index>`. */
        name?: string;
        /** Domains this virtual host serves. */
        domains: readonly string[];
        /** Routes in order. */
        routes: readonly RouteInput[];
      }>;
    };

function routeObject(r: RouteInput): object {
  const match = r.path !== undefined ? { path: r.path } : { prefix: r.prefix ?? '' };
  const route = r.weightedClusters
    ? { weighted_clusters: { clusters: r.weightedClusters.map((c) => ({ name: c.name, weight: { value: c.weight } })) } }
    : { cluster: r.cluster ?? '' };
  return { match, route };
}

/** The RouteConfiguration as a plain object for `packAny` (also used inline by `buildListener`). */
export function routeConfigurationObject(name: string, input: RouteConfigurationInput): object {
  const hosts = 'cluster' in input ? [{ name: 'default', domains: ['*'], routes: [{ cluster: input.cluster }] }] : input.virtualHosts;
  return {
    name,
    virtual_hosts: hosts.map((vh, i) => ({ name: vh.name ?? `vh-${i}`, domains: [...vh.domains], routes: vh.routes.map(routeObject) })),
  };
}

/** Builds an Any-packed RouteConfiguration, as the management server sends it. */
export function buildRouteConfiguration(name: string, input: RouteConfigurationInput): AnyMessage {
  return packAny(RDS_TYPE_URL, routeConfigurationObject(name, input));
}
