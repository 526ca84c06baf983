/**
 * lib/d2/data: the pure half of lib/d2. The D2 model, its rest.li-compatible JSON codecs, the
 * ZooKeeper paths where D2 keeps it, the cluster-name grammar, and D2's errors. No ZooKeeper session,
 * no undici: import this face, not `lib/d2`, from code that only reads or writes D2 data (the bridge's
 * mapping, change requests, the CLI), so it does not load the HTTP client. `lib/d2` re-exports the documents' types, paths and codecs a
 * service needs; the format's finer rules (buckets, windows) are only here.
 */
export { D2Error, assertIsError, isMalformed, type D2ErrorKind, type D2MalformedError } from '../errors';
// The documents D2 keeps (the types of their parts stay in model.ts).
export { MAX_HOST_WEIGHT, mergeUriProperties } from '../model';
export type {
  ClusterProperties,
  FailoutBucketConfig,
  FailoutBucketRange,
  FailoutProperties,
  FailoutRedirectConfig,
  MergedUriProperties,
  PartitionWeights,
  ServiceProperties,
  UnknownKeys,
  UriProperties,
} from '../model';
export { D2_DIRECTORIES, DEFAULT_BASE_PATH, assertNodeName, clusterPath, servicePath, urisPath } from '../paths';
// The grants of the URI nodes D2 creates (the access table's `uri` row).
export { URI_NODE_GRANTS } from '../acl-grants';
export { MAX_CLUSTER_NAME_LENGTH, clusterNameProblem, znodeNameProblem } from '../names';
// What a `$` symlink name is (rest.li SymlinkUtil), so the observer and the client agree.
export { followLinks, isSymlinkName } from '../symlinks';
export { parseClusterProperties, parseClusterPropertiesWithoutFailout, serializeClusterProperties } from '../codecs/cluster';
export {
  ALL_BUCKETS,
  BUCKETS,
  DEFAULT_PARTITION,
  effectiveBucket,
  isBucketConfigActiveAt,
  isBucketFailedOutAt,
  isFailedOutAt,
  parseFailoutProperties,
  redirectWeight,
  serializeFailoutProperties,
} from '../codecs/failout';
export { parseServiceProperties, serializeServiceProperties } from '../codecs/service';
export { parseUriProperties, serializeUriProperties } from '../codecs/uri';
// Pure (model only): the worker's capacity guard counts hosts by the rule D2 clients send by.
export { eligibleHosts } from '../eligible-hosts';
export type { Host } from '../eligible-hosts';
