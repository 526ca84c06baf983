/**
 * Listener (LDS) as gRPC clients use it: an `api_listener` holding an HttpConnectionManager.
 *
 * Public names (stable):
 * - `Listener` — `{ name, routeConfig: { source: 'rds', routeConfigName } | { source: 'inline', routeConfiguration },
 *   httpFilters }` (the typed_config type URLs, in order).
 * - `listenerType: XdsResourceType<'listener', Listener>` — `allResourcesRequiredInSotW: true`.
 * - `ListenerInput` — `{ routeConfigName }` or `{ inlineRoute: RouteConfigurationInput, inlineRouteName? }`.
 * - `buildListener(name, input): AnyMessage`.
 *
 * Validation (gRFC A27/A39): api_listener must be an HttpConnectionManager; it has either `rds` (its
 * config_source `ads` or `self`, and a non-empty route_config_name) or an inline `route_config`; the
 * last HTTP filter must be the router. Other filters are passed through by type URL, not validated.
 */
import { packAny, decodeAnyForClient, type AnyMessage } from '../protos';
import { decodeWith, deepEqual, invalid, list, rec, str, type XdsResourceType } from './resource-type';
import {
  routeConfigurationObject,
  validateRouteConfiguration,
  type RouteConfiguration,
  type RouteConfigurationInput,
} from './route-configuration';
import { HCM_TYPE_URL, LDS_TYPE_URL, ROUTER_TYPE_URL } from './type-urls';

/** Where the listener's routes come from. */
export type ListenerRouteConfig =
  | {
      /** The HCM names a RouteConfiguration to fetch over RDS (`rds`). */
      readonly source: 'rds';
      /** `rds.route_config_name`: the RDS resource to watch; never empty. */
      readonly routeConfigName: string;
    }
  | {
      /** The HCM carries the routes inline (`route_config`). */
      readonly source: 'inline';
      /** The validated inline `route_config`. */
      readonly routeConfiguration: RouteConfiguration;
    };

/** A decoded, validated Listener. */
export interface Listener {
  /** The listener (LDS resource) name. */
  readonly name: string;
  /** Where the HttpConnectionManager's routes come from. */
  readonly routeConfig: ListenerRouteConfig;
  /** Type URLs of the HTTP filters' typed_config, in order; the last is the router. */
  readonly httpFilters: readonly string[];
}

function validateConfigSource(source: Record<string, unknown> | undefined): void {
  const specifier = str(source, 'config_source_specifier');
  if (specifier !== 'ads' && specifier !== 'self') invalid(`rds.config_source must be ads or self, got ${specifier || 'none'}`);
}

function validateHcm(hcmAny: Record<string, unknown> | undefined): Omit<Listener, 'name'> {
  if (!hcmAny || str(hcmAny, 'type_url') !== HCM_TYPE_URL) {
    return invalid(`api_listener is not an HttpConnectionManager (${str(hcmAny, 'type_url') || 'missing'})`);
  }
  const hcm = decodeAnyForClient(hcmAny as unknown as AnyMessage);
  const httpFilters = list(hcm, 'http_filters').map((f) => str(rec(f, 'typed_config'), 'type_url'));
  if (httpFilters[httpFilters.length - 1] !== ROUTER_TYPE_URL) invalid('the last http filter is not the router');
  const specifier = str(hcm, 'route_specifier');
  if (specifier === 'rds') {
    const rds = rec(hcm, 'rds');
    validateConfigSource(rec(rds, 'config_source'));
    const routeConfigName = str(rds, 'route_config_name') || invalid('rds.route_config_name is empty');
    return { routeConfig: { source: 'rds', routeConfigName }, httpFilters };
  }
  if (specifier === 'route_config') {
    const routeConfiguration = validateRouteConfiguration(rec(hcm, 'route_config') ?? {});
    return { routeConfig: { source: 'inline', routeConfiguration }, httpFilters };
  }
  return invalid(specifier ? `unsupported route specifier ${specifier}` : 'HttpConnectionManager has neither rds nor route_config');
}

function validateListener(raw: Record<string, unknown>): Listener {
  const apiListener = rec(raw, 'api_listener') ?? invalid('no api_listener');
  return { name: str(raw, 'name'), ...validateHcm(rec(apiListener, 'api_listener')) };
}

/** The LDS resource type. SotW: a listener absent from a response has been deleted. */
export const listenerType: XdsResourceType<'listener', Listener> = {
  kind: 'listener',
  typeUrl: LDS_TYPE_URL,
  decode: (any) => decodeWith(LDS_TYPE_URL, any, (raw) => str(raw, 'name'), validateListener),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: true,
};

/** Builder input: an RDS name, or an inline route configuration. */
export type ListenerInput =
  | {
      /** The RDS resource name to reference (config_source `ads`). */
      routeConfigName: string;
    }
  | {
      /** The route configuration to embed as the HCM's `route_config`. */
      inlineRoute: RouteConfigurationInput;
      /** Name of the inline route configuration; default `<listener name>-route`. */
      inlineRouteName?: string;
    };

/** Builds an Any-packed Listener with an api_listener HCM ending in the router filter. */
export function buildListener(name: string, input: ListenerInput): AnyMessage {
  const routeSpecifier =
    'routeConfigName' in input
      ? { rds: { config_source: { ads: {} }, route_config_name: input.routeConfigName } }
      : { route_config: routeConfigurationObject(input.inlineRouteName ?? `${name}-route`, input.inlineRoute) };
  const hcm = packAny(HCM_TYPE_URL, {
    ...routeSpecifier,
    http_filters: [{ name: 'router', typed_config: packAny(ROUTER_TYPE_URL, {}) }],
  });
  return packAny(LDS_TYPE_URL, { name, api_listener: { api_listener: hcm } });
}
