/**
 * lib/fabrics: which clusters make up a fabric (a data center that runs a full copy of the stack), as
 * pure data (issue 23, "Fabrics"). The rule: a cluster `<service>-<fabric>` of a service `<service>`
 * (a child of `/d2/services`) belongs to fabric `<fabric>` (`greetings-lor1` → service `greetings`,
 * fabric `lor1`); the longest service name that prefixes a cluster name wins; the service's clusters
 * in other fabrics are the cluster's candidate targets. Clusters that follow no rule are listed as
 * unassigned. An explicit map per fabric (`/failout/fabrics/<fabric>`, one codec here) places the
 * clusters it names, over the rule. No ZooKeeper and no I/O: lib/operator reads the names and the map
 * nodes and calls {@link deriveFabrics}; it imports only lib/d2/data (the cluster-name grammar).
 */
export { FabricError, isFabricError, type FabricErrorKind } from './errors';
export type {
  DerivedFabrics,
  Fabric,
  FabricInputs,
  FabricMap,
  FabricMapConflict,
  FabricMapEntry,
  FabricMember,
  FabricSource,
  FabricTarget,
  MissingMappedCluster,
} from './model';
export { MAX_TIER_LENGTH, fabricNameProblem, tierProblem } from './names';
export { DEFAULT_FABRICS_PATH, MAX_FABRIC_MAP_BYTES, MAX_FABRIC_MAP_CLUSTERS, decodeFabricMap, encodeFabricMap, fabricMapPath } from './fabric-map';
export { deriveFabrics, ruleMatch, targetsOf } from './derive';
