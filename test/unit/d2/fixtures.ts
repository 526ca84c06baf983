/**
 * Test vectors from `shared/reference/d2-json-formats.md` §1.4 and §3, and helpers to compare JSON.
 *
 * Vectors are kept as JSON *text*: building them from JS objects would turn `1.0` into `1`, which the
 * readers must tell apart.
 */

import { D2Error, type D2Entity } from '../../../lib/d2/errors';

/** Raw JSON text per key, in writing order. */
export type Members = Record<string, string>;

/** Builds a JSON object from raw member texts: later sets replace earlier keys, new keys are appended. */
export function jsonDoc(...sets: Members[]): string {
  const merged = new Map<string, string>();
  for (const set of sets) {
    for (const [key, value] of Object.entries(set)) {
      merged.set(key, value);
    }
  }
  return `{${[...merged].map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
}

/** Base B: what `ClusterStoreProperties("test")` writes (CPT `testClusterPropertiesSerializer`). */
export const CLUSTER_BASE: Members = {
  properties: '{}',
  bannedUris: '[]',
  clusterName: '"test"',
  prioritizedSchemes: '[]',
  partitionProperties: '{"partitionType":"NONE"}',
  sslSessionValidationStrings: '[]',
  darkClusters: '{}',
  delegated: 'false',
  enableClusterSubsetting: 'false',
  minClusterSubsetSize: '-1',
};

/** The explicit nulls a bare `ClusterProperties` writes (for example inside `canaryConfigs`). */
export const CLUSTER_NULLS: Members = {
  slowStartProperties: 'null',
  connectionOptions: 'null',
  outlierDetectionConfig: 'null',
  loadBalancingPolicies: 'null',
};

/** Vector 16's `canaryConfigs`: B with explicit nulls, two validation strings, no dark clusters. */
export const CLUSTER_CANARY_CONFIGS = jsonDoc(CLUSTER_BASE, CLUSTER_NULLS, {
  sslSessionValidationStrings: '["principal1","principal2"]',
});

/** Vector 16's percentage strategy. */
export const PERCENTAGE_STRATEGY =
  '{"strategy":"percentage","percentageStrategyProperties":{"scope":0.1},' +
  '"targetHostsStrategyProperties":{},"targetApplicationsStrategyProperties":{}}';

/** Vector 17's strategy: an unknown strategy name with empty sub-maps. */
export const EMPTY_STRATEGY =
  '{"strategy":"distributionStrategy","percentageStrategyProperties":{},' +
  '"targetHostsStrategyProperties":{},"targetApplicationsStrategyProperties":{}}';

/** Vector 21: `ServiceProperties("serviceName","clusterName","/foo",["rr"])`. */
export const SERVICE_BASE: Members = {
  path: '"/foo"',
  loadBalancerStrategyList: '["rr"]',
  serviceName: '"serviceName"',
  loadBalancerStrategyProperties: '{}',
  degraderProperties: '{}',
  relativeStrategyProperties: '{}',
  transportClientProperties: '{}',
  backupRequests: '[]',
  banned: '[]',
  serviceMetadataProperties: '{}',
  methodLevelProperties: '[]',
  clusterName: '"clusterName"',
  prioritizedSchemes: '[]',
  enableClusterSubsetting: 'false',
  minClusterSubsetSize: '-1',
};

/** Vector 23's relative strategy properties. */
export const RELATIVE_STRATEGY_PROPERTIES =
  '{"highErrorRate":"0.2","lowErrorRate":"0.1","downStep":"0.1","relativeLatencyLowThresholdFactor":"1.2",' +
  '"updateIntervalMs":"5000","relativeLatencyHighThresholdFactor":"1.5","slowStartThreshold":"0.32",' +
  '"quarantineProperties":{"healthCheckPath":"","quarantineMaxPercent":"0.1","healthCheckMethod":"OPTIONS"},' +
  '"minCallCount":"1000","initialHealthScore":"0.0","errorStatusFilter":[{"upperBound":"599","lowerBound":"500"}],' +
  '"ringProperties":{"consistentHashAlgorithm":"pointBased"},"upStep":"0.2"}';

/** §1.4: the quick-start documents, as D2Config writes them. */
export const QUICKSTART = {
  cluster:
    '{"properties":{},"clusterName":"RecommendationService","bannedUris":[],"prioritizedSchemes":[],' +
    '"partitionProperties":{"partitionType":"NONE"},"sslSessionValidationStrings":[],"darkClusters":{},' +
    '"delegated":false,"enableClusterSubsetting":false,"minClusterSubsetSize":-1}',
  rangeCluster:
    '{"properties":{},"clusterName":"ProfileService","bannedUris":["http://badhost.example.com:8080/"],' +
    '"prioritizedSchemes":[],"partitionProperties":{"partitionType":"RANGE","partitionKeyRegex":"profiles/(\\\\d+)",' +
    '"keyRangeStart":0,"partitionSize":1000000,"partitionCount":10},"sslSessionValidationStrings":[],' +
    '"darkClusters":{},"delegated":false,"enableClusterSubsetting":false,"minClusterSubsetSize":-1}',
  service:
    '{"path":"/articleRecommendation","clusterName":"RecommendationService","prioritizedSchemes":["http"],' +
    '"enableClusterSubsetting":false,"minClusterSubsetSize":-1,"loadBalancerStrategyList":["degraderV3","degraderV2"],' +
    '"serviceName":"articleRecommendation","loadBalancerStrategyProperties":{"http.loadBalancer.pointsPerWeight":"100",' +
    '"http.loadBalancer.updateIntervalMs":"5000"},"degraderProperties":{"degrader.minCallCount":"10",' +
    '"degrader.highErrorRate":"0.1","degrader.lowErrorRate":"0.01"},"relativeStrategyProperties":{},' +
    '"transportClientProperties":{"http.requestTimeout":"10000"},"backupRequests":[],"banned":[],' +
    '"serviceMetadataProperties":{},"methodLevelProperties":[]}',
  uri:
    '{"weights":{"http://localhost:39901":1.0},"clusterName":"RecommendationService",' +
    '"partitionDesc":{"http://localhost:39901":{"0":{"weight":1.0}}},"uriSpecificProperties":{},' +
    '"urisBySchemeAndPartition":{"http":{"0":["http://localhost:39901"]}}}',
  partitionedUri:
    '{"clusterName":"ProfileService","partitionDesc":{"http://host7.example.com:8080/profile-war":' +
    '{"2":{"weight":1.0},"3":{"weight":0.5}}},"uriSpecificProperties":{},"urisBySchemeAndPartition":' +
    '{"http":{"2":["http://host7.example.com:8080/profile-war"],"3":["http://host7.example.com:8080/profile-war"]}}}',
} as const;

/**
 * Parses JSON text for a semantic comparison. The URI lists of `urisBySchemeAndPartition` come from Java
 * HashSets, so their order is not meaningful: they are sorted.
 */
export function semantic(text: string): unknown {
  const value = JSON.parse(text) as Record<string, unknown>;
  const byScheme = value.urisBySchemeAndPartition as Record<string, Record<string, string[]>> | undefined;
  for (const partitions of Object.values(byScheme ?? {})) {
    for (const uris of Object.values(partitions)) {
      uris.sort();
    }
  }
  return value;
}

/** Runs `act` and returns the D2Error it throws; fails the test if it throws anything else or nothing. */
export function catchD2Error(act: () => unknown): D2Error {
  try {
    act();
  } catch (e) {
    if (e instanceof D2Error) {
      return e;
    }
    throw new Error(`expected a D2Error, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected a D2Error, but nothing was thrown');
}

/** The three document types with their codecs' names, for tables. */
export const ENTITIES: readonly D2Entity[] = ['cluster', 'service', 'uri'];
