/**
 * lib/d2/data: the pure half of lib/d2. The D2 model, its rest.li-compatible JSON codecs, the
 * ZooKeeper paths where D2 keeps it, the cluster-name grammar, and D2's errors. No ZooKeeper session,
 * no undici: import this face, not `lib/d2`, from code that only reads or writes D2 data (the bridge's
 * mapping, change requests, the CLI), so it does not load the HTTP client. `lib/d2` re-exports all of it.
 */
export * from '../errors';
export * from '../model';
export * from '../paths';
export * from '../names';
export { parseClusterProperties, serializeClusterProperties } from '../codecs/cluster';
export {
  ALL_BUCKETS,
  BUCKETS,
  DEFAULT_PARTITION,
  DEFAULT_WEIGHT,
  effectiveBucket,
  isBucketConfigActiveAt,
  isBucketFailedOutAt,
  isFailedOutAt,
  parseFailoutProperties,
  redirectWeight,
  serializeFailoutProperties,
} from '../codecs/failout';
export type { EffectiveFailoutBucket } from '../codecs/failout';
export { parseServiceProperties, serializeServiceProperties } from '../codecs/service';
export { parseUriProperties, serializeUriProperties, urisBySchemeAndPartition } from '../codecs/uri';
export { rewriteD2Uri } from '../codecs/uri-rewrite';
// Pure (model only): the worker's capacity guard counts hosts by the rule D2 clients send by.
export { eligibleHosts } from '../eligible-hosts';
export type { Host } from '../eligible-hosts';
