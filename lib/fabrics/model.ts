/**
 * The fabric model: plain data, no runtime. A fabric is a named set of clusters (a data center that
 * runs a full copy of the stack: `greetings-lor1`, `greetings-lva1`, `greetings-ltx1` are service
 * `greetings` in fabrics `lor1`, `lva1`, `ltx1`; ../shared/reference/fabric-evacuation.md).
 */

/** Where a cluster's fabric comes from: the naming rule (`<service>-<fabric>`) or an explicit map. */
export type FabricSource = 'rule' | 'map';

/** One cluster an explicit map places in its fabric. */
export interface FabricMapEntry {
  /** The D2 cluster (a child of `/d2/clusters`). */
  readonly cluster: string;
  /** The service it serves (the map says it; it need not be a child of `/d2/services`). */
  readonly service: string;
  /** Its tier (`frontend`, `storage`, …): what evacuation stages will be made of. */
  readonly tier?: string;
}

/** The explicit map of one fabric, as its node `/failout/fabrics/<fabric>` holds it. */
export interface FabricMap {
  /** The fabric (the node's name). */
  readonly fabric: string;
  /** The clusters it places in the fabric; a cluster appears at most once. */
  readonly clusters: readonly FabricMapEntry[];
}

/** One cluster of a fabric, and why it is there. */
export interface FabricMember {
  readonly cluster: string;
  readonly service: string;
  /** Only from a map (the rule knows no tiers). */
  readonly tier?: string;
  readonly source: FabricSource;
}

/** A fabric: its clusters (sorted by name) and the services they serve (sorted, each once). */
export interface Fabric {
  readonly name: string;
  readonly clusters: readonly FabricMember[];
  readonly services: readonly string[];
}

/** What fabrics are derived from: D2's service and cluster names, and the maps that read cleanly. */
export interface FabricInputs {
  /** Children of `/d2/services`. */
  readonly services: readonly string[];
  /** Children of `/d2/clusters`. */
  readonly clusters: readonly string[];
  /** Explicit maps (a broken map node is left out by its reader, so the rule applies to its clusters). */
  readonly maps: readonly FabricMap[];
}

/** A cluster that several maps name: it stays in the first fabric by name (`kept`). */
export interface FabricMapConflict {
  readonly cluster: string;
  /** Every fabric whose map names it, sorted. */
  readonly fabrics: readonly string[];
  /** The fabric it is placed in: the first of `fabrics`. */
  readonly kept: string;
}

/** A map entry naming a cluster D2 does not have: not placed anywhere, reported. */
export interface MissingMappedCluster {
  readonly fabric: string;
  readonly cluster: string;
}

/** Fabrics as derived from D2 and the maps. Every input cluster is in exactly one fabric or in `unassigned`. */
export interface DerivedFabrics {
  /** Sorted by name. A fabric that only a map defines is listed even when none of its clusters exists. */
  readonly fabrics: readonly Fabric[];
  /** Clusters that no service name prefixes (as `<service>-<fabric>`) and no map names; sorted. */
  readonly unassigned: readonly string[];
  /** Clusters named by more than one map. */
  readonly conflicts: readonly FabricMapConflict[];
  /** Map entries naming clusters that are not in D2. */
  readonly missing: readonly MissingMappedCluster[];
}

/** A candidate target of a cluster: the same service's cluster in another fabric. */
export interface FabricTarget {
  readonly cluster: string;
  readonly fabric: string;
  readonly service: string;
}
