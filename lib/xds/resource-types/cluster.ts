/**
 * Cluster (CDS), EDS clusters only.
 *
 * Public names (stable):
 * - `Cluster` — `{ name, discoveryType: 'EDS', edsServiceName, lbPolicy, lrs: 'self' | 'none' }`.
 * - `ClusterLbPolicy` — 'ROUND_ROBIN' | 'LEAST_REQUEST' | 'RING_HASH'.
 * - `clusterType: XdsResourceType<'cluster', Cluster>` — `allResourcesRequiredInSotW: true`.
 * - `ClusterInput` — `{ edsServiceName?, lrs?: boolean, lbPolicy? }`.
 * - `buildCluster(name, input): AnyMessage`.
 *
 * Validation (gRFC A27, A47): `type` must be EDS; `eds_config` must be `ads` or `self`;
 * `edsServiceName` is `service_name`, or the cluster name when empty; `lrs_server`, when present, must
 * be `self` — LRS then goes to the server that delivered this CDS resource (the client tracks that).
 */
import { enumName, packAny, type AnyMessage } from '../protos';
import { decodeWith, deepEqual, invalid, rec, str, type XdsResourceType } from './resource-type';
import { CDS_TYPE_URL } from './type-urls';

/** LB policies accepted in `lb_policy`. */
export type ClusterLbPolicy = 'ROUND_ROBIN' | 'LEAST_REQUEST' | 'RING_HASH';
const LB_POLICIES: readonly string[] = ['ROUND_ROBIN', 'LEAST_REQUEST', 'RING_HASH'];

/** A decoded, validated EDS Cluster. */
export interface Cluster {
  /** The cluster (CDS resource) name. */
  readonly name: string;
  /** The cluster discovery type; only EDS clusters are accepted. */
  readonly discoveryType: 'EDS';
  /** The EDS resource name to watch: `service_name`, or the cluster name when empty. */
  readonly edsServiceName: string;
  /** `lb_policy`. */
  readonly lbPolicy: ClusterLbPolicy;
  /** `self`: report load to the server that delivered this resource; `none`: no LRS. */
  readonly lrs: 'self' | 'none';
}

function validateCluster(raw: Record<string, unknown>): Cluster {
  const name = str(raw, 'name');
  const type = enumName(raw, 'type');
  if (str(raw, 'cluster_discovery_type') !== 'type' || type !== 'EDS') invalid(`unsupported cluster type ${type || 'custom'}`);
  const eds = rec(raw, 'eds_cluster_config') ?? {};
  const edsSource = str(rec(eds, 'eds_config'), 'config_source_specifier');
  if (edsSource !== 'ads' && edsSource !== 'self') invalid(`eds_config must be ads or self, got ${edsSource || 'none'}`);
  const lbPolicy = enumName(raw, 'lb_policy');
  if (!LB_POLICIES.includes(lbPolicy)) invalid(`unsupported lb_policy ${lbPolicy}`);
  const lrsServer = rec(raw, 'lrs_server');
  if (lrsServer && str(lrsServer, 'config_source_specifier') !== 'self') invalid('lrs_server must be self');
  return {
    name,
    discoveryType: 'EDS',
    edsServiceName: str(eds, 'service_name') || name,
    lbPolicy: lbPolicy as ClusterLbPolicy,
    lrs: lrsServer ? 'self' : 'none',
  };
}

/** The CDS resource type. SotW: a cluster absent from a response has been deleted. */
export const clusterType: XdsResourceType<'cluster', Cluster> = {
  kind: 'cluster',
  typeUrl: CDS_TYPE_URL,
  decode: (any) => decodeWith(CDS_TYPE_URL, any, (raw) => str(raw, 'name'), validateCluster),
  isEqual: (a, b) => deepEqual(a, b),
  allResourcesRequiredInSotW: true,
};

/** Builder input for {@link buildCluster}. */
export interface ClusterInput {
  /** EDS service name; the cluster name when omitted. */
  edsServiceName?: string;
  /** Sets `lrs_server: { self: {} }`. */
  lrs?: boolean;
  /** `lb_policy`; default 'ROUND_ROBIN'. */
  lbPolicy?: ClusterLbPolicy;
}

/** Builds an Any-packed EDS Cluster (eds_config via ADS). */
export function buildCluster(name: string, input: ClusterInput = {}): AnyMessage {
  return packAny(CDS_TYPE_URL, {
    name,
    type: 'EDS',
    lb_policy: input.lbPolicy ?? 'ROUND_ROBIN',
    eds_cluster_config: { eds_config: { ads: {} }, service_name: input.edsServiceName ?? name },
    ...(input.lrs ? { lrs_server: { self: {} } } : {}),
  });
}
