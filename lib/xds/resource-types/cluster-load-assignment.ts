/**
 * ClusterLoadAssignment (EDS).
 *
 * Public names (stable):
 * - `ClusterLoadAssignment` — `{ name, localities: LocalityEndpoints[] }` (`name` is `cluster_name`).
 * - `LocalityEndpoints` — `{ locality: Locality, weight, priority, endpoints: Endpoint[] }`.
 * - `Endpoint` — `{ address, port, healthStatus: EndpointHealthStatus, weight }`.
 * - `Locality` — `{ region, zone, subZone }`. `EndpointHealthStatus` — envoy's HealthStatus names.
 * - `clusterLoadAssignmentType: XdsResourceType<'clusterLoadAssignment', ClusterLoadAssignment>`.
 * - `EndpointInput`, `ClusterLoadAssignmentInput` (endpoint list → one locality, or `{ localities }`).
 * - `buildClusterLoadAssignment(name, input): AnyMessage`.
 *
 * Validation (gRFC A27): localities with weight 0 / unset are ignored, as gRPC does; every lb_endpoint
 * needs a socket address with a non-empty address and a port in 1..65535; endpoint weight defaults to 1.
 */
import { enumName, packAny, type AnyMessage } from '../protos';
import { decodeWith, deepEqual, invalid, list, rec, str, u32, type XdsResourceType } from './resource-type';
import { EDS_TYPE_URL } from './type-urls';

/** envoy.config.core.v3.HealthStatus. */
export type EndpointHealthStatus = 'UNKNOWN' | 'HEALTHY' | 'UNHEALTHY' | 'DRAINING' | 'TIMEOUT' | 'DEGRADED';

/** envoy.config.core.v3.Locality. */
export interface Locality {
  /** `region`; '' when unset. */
  readonly region: string;
  /** `zone`; '' when unset. */
  readonly zone: string;
  /** `sub_zone`; '' when unset. */
  readonly subZone: string;
}

/** One backend. */
export interface Endpoint {
  /** The socket address (IP or hostname); never empty. */
  readonly address: string;
  /** The port, 1..65535. */
  readonly port: number;
  /** `health_status`; 'UNKNOWN' when unset. */
  readonly healthStatus: EndpointHealthStatus;
  /** `load_balancing_weight`; default 1. */
  readonly weight: number;
}

/** One locality's endpoints. */
export interface LocalityEndpoints {
  /** Where the endpoints run. */
  readonly locality: Locality;
  /** `load_balancing_weight`; always > 0 (localities with weight 0 or unset are dropped). */
  readonly weight: number;
  /** `priority`; 0 is the highest. */
  readonly priority: number;
  /** `lb_endpoints`, in order. */
  readonly endpoints: readonly Endpoint[];
}

/** A decoded, validated ClusterLoadAssignment. */
export interface ClusterLoadAssignment {
  /** `cluster_name` (the EDS resource name). */
  readonly name: string;
  /** `endpoints` (per-locality groups), without those of weight 0. */
  readonly localities: readonly LocalityEndpoints[];
}

function validateEndpoint(lb: Record<string, unknown>, where: string): Endpoint {
  const socket = rec(rec(rec(lb, 'endpoint'), 'address'), 'socket_address') ?? invalid(`${where} has no socket address`);
  const address = str(socket, 'address') || invalid(`${where} has an empty address`);
  const port = typeof socket.port_value === 'number' ? socket.port_value : 0;
  if (port < 1 || port > 65535) invalid(`${where} has invalid port ${port}`);
  return { address, port, healthStatus: (enumName(lb, 'health_status') || 'UNKNOWN') as EndpointHealthStatus, weight: u32(lb, 'load_balancing_weight', 1) };
}

function validateLocality(le: Record<string, unknown>, index: number): LocalityEndpoints {
  const l = rec(le, 'locality');
  return {
    locality: { region: str(l, 'region'), zone: str(l, 'zone'), subZone: str(l, 'sub_zone') },
    weight: u32(le, 'load_balancing_weight', 0),
    priority: typeof le.priority === 'number' ? le.priority : 0,
    endpoints: list(le, 'lb_endpoints').map((lb, i) => validateEndpoint(lb, `endpoints[${index}].lb_endpoints[${i}]`)),
  };
}

function validateAssignment(raw: Record<string, unknown>): ClusterLoadAssignment {
  const all = list(raw, 'endpoints').map(validateLocality);
  // filter() only when needed: its result reserves 17 slots, and the value lives as long as the cache.
  const localities = all.every((l) => l.weight > 0) ? all : all.filter((l) => l.weight > 0);
  return { name: str(raw, 'cluster_name'), localities };
}

/** The EDS resource type. Absence from a SotW response means nothing for EDS. */
export const clusterLoadAssignmentType: XdsResourceType<'clusterLoadAssignment', ClusterLoadAssignment> = {
  kind: 'clusterLoadAssignment',
  typeUrl: EDS_TYPE_URL,
  decode: (any) => decodeWith(EDS_TYPE_URL, any, (raw) => str(raw, 'cluster_name'), validateAssignment),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: false,
};

/** One endpoint for the builder. */
export interface EndpointInput {
  /** The socket address (IP or hostname). */
  address: string;
  /** The port. */
  port: number;
  /** `health_status`; default 'HEALTHY'. */
  healthStatus?: EndpointHealthStatus;
  /** `load_balancing_weight`; unset when omitted (decoded as 1). */
  weight?: number;
}

/** Builder input: endpoints in one locality (weight 1), or explicit localities. */
export type ClusterLoadAssignmentInput =
  | readonly EndpointInput[]
  | {
      /** The localities, in order. */
      localities: ReadonlyArray<{
        /** Where the endpoints run; missing parts are ''. */
        locality?: Partial<Locality>;
        /** `load_balancing_weight`; default 1. A locality of weight 0 is ignored by clients. */
        weight?: number;
        /** `priority`; default 0 (the highest). */
        priority?: number;
        /** The locality's endpoints. */
        endpoints: readonly EndpointInput[];
      }>;
    };

function endpointObject(e: EndpointInput): object {
  return {
    endpoint: { address: { socket_address: { address: e.address, port_value: e.port } } },
    health_status: e.healthStatus ?? 'HEALTHY',
    ...(e.weight !== undefined ? { load_balancing_weight: { value: e.weight } } : {}),
  };
}

/** Builds an Any-packed ClusterLoadAssignment. */
export function buildClusterLoadAssignment(name: string, input: ClusterLoadAssignmentInput): AnyMessage {
  const localities = 'localities' in input ? input.localities : [{ endpoints: input }];
  return packAny(EDS_TYPE_URL, {
    cluster_name: name,
    endpoints: localities.map((l) => ({
      locality: { region: l.locality?.region ?? '', zone: l.locality?.zone ?? '', sub_zone: l.locality?.subZone ?? '' },
      load_balancing_weight: { value: l.weight ?? 1 },
      priority: l.priority ?? 0,
      lb_endpoints: l.endpoints.map(endpointObject),
    })),
  });
}
