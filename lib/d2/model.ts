/**
 * The D2 data model as rest.li keeps it in ZooKeeper (`/d2/clusters`, `/d2/services`, `/d2/uris`).
 *
 * Field names follow the JSON keys (`ClusterPropertiesJsonSerializer`, `ServicePropertiesJsonSerializer`,
 * `UriPropertiesJsonSerializer` in rest.li). Every object type that the codecs parse carries `extra`: the
 * keys the reader did not interpret, kept verbatim, so that parse → modify → serialize loses nothing.
 * `extra` is optional so that code building a model from scratch may leave it out.
 *
 * Maps whose values rest.li does not check (property maps, dark clusters, canary sub-maps) are typed
 * `Record<string, unknown>`: their values are "normally strings", and whoever consumes them converts them.
 */

/** Keys of one JSON object that the codecs do not interpret, kept verbatim for the writer. */
export type UnknownKeys = Record<string, unknown>;

/** `partitionProperties.partitionType`; read case-insensitively, written upper case. */
export type PartitionType = 'NONE' | 'RANGE' | 'HASH' | 'CUSTOM';

/** `partitionProperties.hashAlgorithm` of a HASH cluster; read case-insensitively, written upper case. */
export type HashAlgorithm = 'MODULO' | 'MD5' | 'XXHASH';

/** No partitioning: every request goes to partition 0. Also what an absent `partitionProperties` means. */
export interface NonePartitionProperties {
  /** Discriminator: no partitioning. */
  partitionType: 'NONE';
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** Partition = (key − keyRangeStart) / partitionSize, for the last capture group of the regex. */
export interface RangePartitionProperties {
  /** Discriminator: range partitioning. */
  partitionType: 'RANGE';
  /** Applied with `find()` to the full request URI; the last capture group is the partition key. Required. */
  partitionKeyRegex: string;
  /** A Java long, truncated towards zero on read as `Number.longValue()` does. */
  keyRangeStart: number;
  /** A Java long, truncated towards zero on read. */
  partitionSize: number;
  /** A Java int, truncated towards zero on read. */
  partitionCount: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** Partition = hash(key) mod partitionCount, for the last capture group of the regex. */
export interface HashPartitionProperties {
  /** Discriminator: hash partitioning. */
  partitionType: 'HASH';
  /** Applied with `find()` to the full request URI; the last capture group is the partition key. Required. */
  partitionKeyRegex: string;
  /** A Java int, truncated towards zero on read. */
  partitionCount: number;
  /** How the key is hashed. Required, no default. */
  hashAlgorithm: HashAlgorithm;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** Partitioning done by named custom accessors. */
export interface CustomPartitionProperties {
  /** Discriminator: custom partition accessors. */
  partitionType: 'CUSTOM';
  /** Defaults to 0. */
  partitionCount: number;
  /** Defaults to `[]`. */
  partitionAccessorList: string[];
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** `partitionProperties` of a cluster, discriminated by `partitionType`. */
export type PartitionProperties =
  | NonePartitionProperties
  | RangePartitionProperties
  | HashPartitionProperties
  | CustomPartitionProperties;

/** `slowStartProperties` of a cluster. The two doubles are written with a decimal point (`1.0`). */
export interface SlowStartProperties {
  /** True turns slow start off. Required. */
  disabled: boolean;
  /** Length of the slow-start window, in seconds (a Java int). Required. */
  windowDurationSeconds: number;
  /** How aggressively weight ramps up over the window (a Java double, e.g. `1.0`). Required. */
  aggression: number;
  /** The minimum weight while slow-starting (a Java double, e.g. `0.5`). Required. */
  minWeightPercent: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** `connectionOptions` of a cluster. */
export interface ConnectionOptions {
  /** A Java int, truncated towards zero on read. */
  connectionJitterSeconds: number;
  /** A Java float; written like a double (`0.5`, `1.0`). */
  maxDelayedConnectionRatio: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** `canaryDistributionStrategy`, shared by clusters and services. The sub-maps are opaque. */
export interface CanaryDistributionStrategy {
  /** `percentage`, `targetHosts`, `targetApplications`, `disabled` (the default), kept verbatim. */
  strategy: string;
  /** Conventionally `{scope: number}`. */
  percentageStrategyProperties: Record<string, unknown>;
  /** Conventionally `{targetHosts: string[]}`. */
  targetHostsStrategyProperties: Record<string, unknown>;
  /** Conventionally `{targetApplications: string[], scope: number}`. */
  targetApplicationsStrategyProperties: Record<string, unknown>;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/**
 * Canary configuration: present only when the document has both a non-empty `canaryConfigs` and a
 * non-empty `canaryDistributionStrategy` (rest.li ignores either one alone).
 */
export interface Canary<T> {
  /** The `canaryConfigs` object: a full configuration of the same schema (without its own canary). */
  configs: T;
  /** The `canaryDistributionStrategy` object: which clients use the canary configuration. */
  distributionStrategy: CanaryDistributionStrategy;
}

/**
 * How a `failoutRedirectConfigs` entry names its peer: `peer` (what this project writes), `fabric`
 * (rest.li's serializer tests and its abandoned typed model), or both keys with the same value.
 */
export type FailoutPeerKey = 'peer' | 'fabric' | 'both';

/**
 * One `failoutRedirectConfigs` entry: a peer that takes a failed-out cluster's traffic.
 * rest.li keeps entries as opaque maps; the codec reads the keys ARCHITECTURE "Failout properties" gives
 * them, and writes an entry back with the keys it was read with (absent stays absent).
 */
export interface FailoutRedirectConfig {
  /** The peer cluster: a non-empty string, unique within the list. */
  peer: string;
  /** The key(s) the entry names the peer with, so the writer spells it back the same way. Absent: `peer`. */
  peerKey?: FailoutPeerKey;
  /** Relative share of the redirected traffic: a positive integer. Absent means 1 (`DEFAULT_WEIGHT`). */
  weight?: number;
  /** Keys of this entry the codec did not interpret, kept verbatim for the writer; absent when none. */
  extra?: UnknownKeys;
}

/** An inclusive range of the 100 request buckets, `0 <= from <= to <= 99`. */
export interface FailoutBucketRange {
  /** First bucket of the range (an integer, 0–99). */
  from: number;
  /** Last bucket of the range (an integer, `from`–99). */
  to: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer; absent when none. */
  extra?: UnknownKeys;
}

/**
 * One `failoutBucketConfigs` entry: an offline window. Buckets in the range are redirected from
 * `offlineAt` until `onlineAt` (epoch ms). Every key is optional, as in rest.li's serializer tests
 * (`{"partition":"main"}`, `{}`); an absent key keeps its meaning through the documented default and is
 * written back absent. Read the effective values through `failoutBucketWindow`.
 */
export interface FailoutBucketConfig {
  /** A non-empty partition name. Absent means `main` (`DEFAULT_PARTITION`); it does not narrow routing. */
  partition?: string;
  /** The redirected buckets. Absent means all of them, 0–99 (`ALL_BUCKETS`). */
  bucketOfflineRange?: FailoutBucketRange;
  /** When the window starts (epoch ms, finite, >= 0). Absent means 0: offline since always. */
  offlineAt?: number;
  /** When the window ends (epoch ms, later than the effective `offlineAt`). Absent: until removed. */
  onlineAt?: number;
  /** Id of the change request that wrote the entry (metadata). */
  requestId?: string;
  /** Who asked for the failout (metadata). */
  requestedBy?: string;
  /** Why the cluster was failed out (metadata). */
  reason?: string;
  /** Names of the alarms that end this window (a safety stop condition). */
  stopAlarms?: string[];
  /** The drill this window belongs to, when a drill wrote it. */
  drill?: string;
  /**
   * Present when the request that wrote the window had `force`: the checks `force` overrode
   * (`peerState`, `capacity`, `stranding`; empty when it overrode none). An audit trail (issue 21).
   */
  forced?: string[];
  /** The fabric whose evacuation wrote this window (issue 23); its `requestId` is the evacuation's. */
  evacuation?: string;
  /** Keys of this entry the codec did not interpret, kept verbatim for the writer; absent when none. */
  extra?: UnknownKeys;
}

/**
 * A cluster's `failoutProperties`, typed and validated by `lib/d2/codecs/failout.ts` (the one codec of
 * the format: ARCHITECTURE "Failout properties"). An absent, `null` or `{}` value means "no failout" and
 * is modelled as `null`, not as this type; this type with two empty lists is a failout that is never
 * active (rest.li vector 18).
 */
export interface FailoutProperties {
  /** `failoutRedirectConfigs` without its `{}` entries, in order. Defaults to `[]`. */
  redirects: FailoutRedirectConfig[];
  /**
   * How many `failoutRedirectConfigs` entries were the empty map `{}` (rest.li's serializer tests write
   * `[{}]`). They name no peer, so routing ignores them; the writer puts them back after `redirects`.
   */
  ignoredRedirectEntries: number;
  /** `failoutBucketConfigs`, in order. Defaults to `[]`. */
  buckets: FailoutBucketConfig[];
  /**
   * `rampHold`: the ramp steps a `rampHold` request took off the schedule (issue 24), absent when the
   * ramp is not held. Readers route only on `buckets`, so held steps never start.
   */
  rampHold?: FailoutRampHold;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer; absent when none. */
  extra?: UnknownKeys;
}

/**
 * A held ramp (issue 24, `rampHold`): the bucket entries of the steps that had not started when the
 * ramp was held, as they were (their `offlineAt` the start they had then), and when it was held. A
 * `rampResume` puts them back shifted by the time held; readers that do not know the key ignore it,
 * so nothing routes on a held step.
 */
export interface FailoutRampHold {
  /** When the ramp was held (epoch ms). */
  heldAt: number;
  /** `failoutBucketConfigs` of the held steps, in order (the rules of a bucket entry). */
  buckets: FailoutBucketConfig[];
  /** Id of the `rampHold` request (metadata). */
  requestId?: string;
  /** Who held the ramp (metadata). */
  requestedBy?: string;
  /** Why (metadata). */
  reason?: string;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer; absent when none. */
  extra?: UnknownKeys;
}

/** The keys of one cluster configuration: the stable one, or the one inside `canaryConfigs`. */
export interface ClusterConfig {
  /** Required. */
  clusterName: string;
  /** Deprecated at cluster level. Defaults to `[]`. */
  prioritizedSchemes: string[];
  /** Conventionally string → string (`coloVariants`, `masterColo`, `clusterVariants`). Defaults to `{}`. */
  properties: Record<string, unknown>;
  /** URIs that must not receive traffic; each is a valid `java.net.URI`. Defaults to `[]`. */
  bannedUris: string[];
  /** Defaults to NONE. */
  partitionProperties: PartitionProperties;
  /** Defaults to `[]`. */
  sslSessionValidationStrings: string[];
  /** Dark cluster name → config object (string-valued fields). Defaults to `{}`. */
  darkClusters: Record<string, unknown>;
  /** Defaults to `false`. */
  delegated: boolean;
  /** `null` when absent. */
  slowStartProperties: SlowStartProperties | null;
  /** `null` when absent. */
  connectionOptions: ConnectionOptions | null;
  /** Opaque. */
  outlierDetectionConfig: Record<string, unknown> | null;
  /** Opaque list. */
  loadBalancingPolicies: unknown[] | null;
  /** Defaults to `false`. */
  enableClusterSubsetting: boolean;
  /** Defaults to `-1`. */
  minClusterSubsetSize: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** A `/d2/clusters/<cluster>` document (rest.li `ClusterStoreProperties`). */
export interface ClusterProperties extends ClusterConfig {
  /** `null` unless both `canaryConfigs` and `canaryDistributionStrategy` are non-empty (see {@link Canary}). */
  canary: Canary<ClusterConfig> | null;
  /** Typed failout properties; `null` when absent, `null` or `{}` (no failout). See {@link FailoutProperties}. */
  failoutProperties: FailoutProperties | null;
}

/** One entry of a method-level override's `names`. */
export interface MethodName {
  /** Required. */
  service: string;
  /** `null` means every method of the service. */
  method: string | null;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** One entry of `methodLevelProperties`: overrides for the listed gRPC services/methods. */
export interface MethodLevelProperties {
  /** Required. */
  names: MethodName[];
  /** Defaults to `{}`. */
  transportClientProperties: Record<string, unknown>;
  /** Defaults to `{}`. */
  serviceMetadataProperties: Record<string, unknown>;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** The keys of one service configuration: the stable one, or the one inside `canaryConfigs`. */
export interface ServiceConfig {
  /** Required (may be empty). */
  serviceName: string;
  /** Required (may be empty): the cluster that serves this service. */
  clusterName: string;
  /** Required (may be empty): prepended to the request path. */
  path: string;
  /** Required and non-empty; the first name with a registered strategy wins. */
  loadBalancerStrategyList: string[];
  /** Defaults to `{}`. */
  loadBalancerStrategyProperties: Record<string, unknown>;
  /** Defaults to `{}`. */
  transportClientProperties: Record<string, unknown>;
  /** Conventionally string → string (`degrader.*`). Defaults to `{}`. */
  degraderProperties: Record<string, unknown>;
  /** Defaults to `{}`. */
  relativeStrategyProperties: Record<string, unknown>;
  /** Defaults to `[]`; if empty the service cannot be used. */
  prioritizedSchemes: string[];
  /**
   * Read from `bannedUris`, written as `banned` (rest.li quirk): a service's bans never survive a
   * write-then-read, and they have no effect in rest.li anyway. Defaults to `[]`.
   */
  bannedUris: string[];
  /** With top-level `isDefaultService` / `defaultRoutingToMaster` folded in on read. Defaults to `{}`. */
  serviceMetadataProperties: Record<string, unknown>;
  /** Opaque list. Defaults to `[]`. */
  backupRequests: unknown[];
  /** Defaults to `[]`. */
  methodLevelProperties: MethodLevelProperties[];
  /** Defaults to `false`. */
  enableClusterSubsetting: boolean;
  /** Defaults to `-1`. */
  minClusterSubsetSize: number;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** A `/d2/services/<service>` document (rest.li `ServiceStoreProperties`). */
export interface ServiceProperties extends ServiceConfig {
  /** `null` unless both `canaryConfigs` and `canaryDistributionStrategy` are non-empty (see {@link Canary}). */
  canary: Canary<ServiceConfig> | null;
}

/** Partition id → weight of one URI (`PartitionData`). */
export type PartitionWeights = Record<number, number>;

/**
 * The largest host weight (issue 14): 2^32 − 1, the range of xDS's `load_balancing_weight`, so every
 * weight the bridge copies from a control plane fits. rest.li takes any double; two hosts announced
 * with 1.7e308 made the balancer's sum Infinity and skewed its split to 39:1. The URI codec refuses a
 * weight outside [0, MAX_HOST_WEIGHT] (the child is malformed, the store keeps its last good), and
 * {@link mergeUriProperties} clamps weights of models built in code. Any sum of such weights stays
 * finite and exact enough (2^32 × 2^20 hosts < 2^53).
 */
export const MAX_HOST_WEIGHT = 4_294_967_295;

/** One `/d2/uris/<cluster>/<child>` announcement (normally one URI). */
export interface UriProperties {
  /** Required; the merged view uses the ZooKeeper node name instead. */
  clusterName: string;
  /** URI → partition id → weight. */
  partitionDesc: Record<string, PartitionWeights>;
  /** URI → opaque properties (`doNotSlowStart`, `doNotLoadBalance`, application keys). */
  uriSpecificProperties: Record<string, Record<string, unknown>>;
  /** Keys of this object the codec did not interpret, kept verbatim for the writer. */
  extra?: UnknownKeys;
}

/** One announced host of a merged URI view. */
export interface UriHost {
  /** The announced URI, e.g. `http://10.0.0.7:8080`. */
  uri: string;
  /**
   * The weight of partition 0 when the host serves it, else the weight of the lowest partition id it
   * serves, else 0 (a host announced with no partition), clamped into [0, {@link MAX_HOST_WEIGHT}].
   * Partition-aware code should read `partitions` (as announced).
   */
  weight: number;
  /** Partition id → weight. */
  partitions: PartitionWeights;
  /** The host's `uriSpecificProperties`, `{}` if none. */
  properties: Record<string, unknown>;
}

/** All announcements of one cluster, merged as rest.li's `UriPropertiesMerger` does. */
export interface MergedUriProperties {
  /** The ZooKeeper node name, not the `clusterName` inside the children. */
  clusterName: string;
  /** URI → partition id → weight, unioned over the children (a later child wins for the same URI). */
  partitionDesc: Record<string, PartitionWeights>;
  /** URI → opaque properties, unioned over the children (a later child wins for the same URI). */
  uriSpecificProperties: Record<string, Record<string, unknown>>;
  /** One entry per URI, in order of first appearance. */
  hosts: UriHost[];
}

/**
 * Merges the announcements under `/d2/uris/<clusterName>`. `partitionDesc` and `uriSpecificProperties`
 * are unioned by URI; when two children carry the same URI, the later child in `children` wins (rest.li:
 * the later one in HashMap order). A child without properties for a URI leaves earlier ones in place.
 * @param clusterName - the ZooKeeper node name, which becomes the merged `clusterName`.
 * @param children - the parsed children, in the order they should override each other.
 */
export function mergeUriProperties(clusterName: string, children: readonly UriProperties[]): MergedUriProperties {
  // Maps, not objects: a URI such as "__proto__" must stay an ordinary key.
  const partitionDesc = new Map<string, PartitionWeights>();
  const uriSpecificProperties = new Map<string, Record<string, unknown>>();
  for (const child of children) {
    for (const [uri, partitions] of Object.entries(child.partitionDesc)) {
      partitionDesc.set(uri, partitions);
    }
    for (const [uri, properties] of Object.entries(child.uriSpecificProperties)) {
      uriSpecificProperties.set(uri, properties);
    }
  }
  const hosts = [...partitionDesc].map(([uri, partitions]) => ({
    uri,
    weight: hostWeight(partitions),
    partitions,
    properties: uriSpecificProperties.get(uri) ?? {},
  }));
  return {
    clusterName,
    partitionDesc: Object.fromEntries(partitionDesc),
    uriSpecificProperties: Object.fromEntries(uriSpecificProperties),
    hosts,
  };
}

/**
 * Partition 0's weight, else the lowest partition's, else 0; see {@link UriHost.weight}. Clamped into
 * [0, {@link MAX_HOST_WEIGHT}] (NaN counts as 0): the codec bounds what it reads, but a model built in
 * code reaches the balancer through here too.
 */
function hostWeight(partitions: PartitionWeights): number {
  if (Object.hasOwn(partitions, 0)) {
    return clampWeight(partitions[0]);
  }
  const ids = Object.keys(partitions).map(Number);
  if (ids.length === 0) {
    return 0;
  }
  return clampWeight(partitions[Math.min(...ids)]);
}

function clampWeight(weight: number | undefined): number {
  // `>= 0` is false for NaN, and undefined (a sparse model) reads as no weight.
  if (weight === undefined || !(weight >= 0)) {
    return 0;
  }
  return Math.min(weight, MAX_HOST_WEIGHT);
}
