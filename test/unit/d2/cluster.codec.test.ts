import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';
import type { ClusterProperties } from '../../../lib/d2/model';
import {
  CLUSTER_BASE,
  CLUSTER_CANARY_CONFIGS,
  EMPTY_STRATEGY,
  PERCENTAGE_STRATEGY,
  QUICKSTART,
  jsonDoc,
  semantic,
  type Members,
} from './fixtures';

/** §3.2 vectors 8–18: B with keys replaced or added; each reads back equal to the input. */
const ROUND_TRIP_VECTORS: ReadonlyArray<[string, Members]> = [
  ['base B', {}],
  [
    '8: range partitioning plus bans',
    {
      properties: '{"foo":"bar"}',
      bannedUris: '["https://test2.linkedin.com:56789/test","https://test1.linkedin.com:12345/test"]',
      partitionProperties:
        '{"partitionType":"RANGE","partitionKeyRegex":"blah","keyRangeStart":0,"partitionSize":5000000,"partitionCount":100}',
    },
  ],
  [
    '9: hash partitioning',
    {
      partitionProperties: '{"partitionType":"HASH","hashAlgorithm":"MD5","partitionKeyRegex":"blah","partitionCount":150}',
    },
  ],
  [
    '10: dark clusters',
    {
      sslSessionValidationStrings: '["principal1","principal2"]',
      darkClusters:
        '{"foobar1dark":{"dispatcherBufferedRequestExpiryInSeconds":"10","multiplier":"1.5",' +
        '"dispatcherMaxRequestsToBuffer":"100","dispatcherOutboundTargetRate":"50.0"}}',
    },
  ],
  [
    '11: slow start',
    { slowStartProperties: '{"disabled":false,"windowDurationSeconds":30,"aggression":1.0,"minWeightPercent":0.5}' },
  ],
  ['12: connection options', { connectionOptions: '{"connectionJitterSeconds":10,"maxDelayedConnectionRatio":0.5}' }],
  ['13: outlier detection', { outlierDetectionConfig: '{"consecutive_5xx":5,"base_ejection_time":30,"interval":10}' }],
  [
    '14: load balancing policies',
    {
      loadBalancingPolicies:
        '[{"clientTypes":["ENVOY"],"config":{"ringHashLbConfig":{"hash_function":"MURMUR_HASH_2"}}}]',
    },
  ],
  ['15: cluster subsetting', { enableClusterSubsetting: 'true', minClusterSubsetSize: '10' }],
  [
    '16: percentage canary',
    { canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: PERCENTAGE_STRATEGY },
  ],
  [
    '16: target hosts canary',
    {
      canaryConfigs: CLUSTER_CANARY_CONFIGS,
      canaryDistributionStrategy:
        '{"strategy":"targetHosts","percentageStrategyProperties":{},' +
        '"targetHostsStrategyProperties":{"targetHosts":["hostA","hostB"]},"targetApplicationsStrategyProperties":{}}',
    },
  ],
  [
    '16: target applications canary',
    {
      canaryConfigs: CLUSTER_CANARY_CONFIGS,
      canaryDistributionStrategy:
        '{"strategy":"targetApplications","percentageStrategyProperties":{},"targetHostsStrategyProperties":{},' +
        '"targetApplicationsStrategyProperties":{"scope":0.1,"targetApplications":["appA","appB"]}}',
    },
  ],
  ...[
    '{"failoutRedirectConfigs":[{"fabric":"testfabric","weight":1}],"failoutBucketConfigs":[{"partition":"main"}]}',
    '{"failoutRedirectConfigs":[{"fabric":"testfabric","weight":1}],"failoutBucketConfigs":[{}]}',
    '{"failoutRedirectConfigs":[{}],"failoutBucketConfigs":[{"partition":"main"}]}',
    '{"failoutRedirectConfigs":[{}],"failoutBucketConfigs":[{}]}',
  ].map((failout, i): [string, Members] => [
    `17: failout case ${i + 1} with canary`,
    { canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: EMPTY_STRATEGY, failoutProperties: failout },
  ]),
  ['18: failout with two empty lists', { failoutProperties: '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}' }],
];

function clusterWith(...members: Members[]): string {
  return jsonDoc(CLUSTER_BASE, ...members);
}

describe('cluster codec: rest.li test vectors', () => {
  it.each(ROUND_TRIP_VECTORS)('reads and writes back vector %s unchanged', (_name, members) => {
    // Prepare
    const input = clusterWith(members);

    // Act
    const written = serializeClusterProperties(parseClusterProperties(input));

    // Assess
    expect(semantic(written)).toEqual(semantic(input));
  });

  it.each(Object.entries({ cluster: QUICKSTART.cluster, rangeCluster: QUICKSTART.rangeCluster }))(
    'reads and writes back the quick-start %s document unchanged',
    (_name, input) => {
      // Act
      const written = serializeClusterProperties(parseClusterProperties(input));

      // Assess
      expect(semantic(written)).toEqual(semantic(input));
    },
  );

  it('reads base B into the defaults', () => {
    // Act
    const props = parseClusterProperties(clusterWith());

    // Assess
    expect(props).toEqual<ClusterProperties>({
      clusterName: 'test',
      prioritizedSchemes: [],
      properties: {},
      bannedUris: [],
      partitionProperties: { partitionType: 'NONE', extra: {} },
      sslSessionValidationStrings: [],
      darkClusters: {},
      delegated: false,
      slowStartProperties: null,
      connectionOptions: null,
      outlierDetectionConfig: null,
      loadBalancingPolicies: null,
      enableClusterSubsetting: false,
      minClusterSubsetSize: -1,
      extra: {},
      canary: null,
      failoutProperties: null,
    });
  });

  it('reads a minimal document with only clusterName into the same defaults as base B', () => {
    // Act
    const minimal = parseClusterProperties('{"clusterName":"test"}');

    // Assess
    expect(semantic(serializeClusterProperties(minimal))).toEqual(semantic(clusterWith()));
  });

  it('reads the canary of vector 16 as a full configuration plus its strategy', () => {
    // Act
    const props = parseClusterProperties(
      clusterWith({ canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: PERCENTAGE_STRATEGY }),
    );

    // Assess
    expect(props.canary?.configs.sslSessionValidationStrings).toEqual(['principal1', 'principal2']);
    expect(props.canary?.configs.slowStartProperties).toBeNull();
    expect(props.canary?.distributionStrategy).toEqual({
      strategy: 'percentage',
      percentageStrategyProperties: { scope: 0.1 },
      targetHostsStrategyProperties: {},
      targetApplicationsStrategyProperties: {},
      extra: {},
    });
  });

  it('reads vector 18 failout as an object with two empty lists, not as null', () => {
    // Act
    const props = parseClusterProperties(
      clusterWith({ failoutProperties: '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}' }),
    );

    // Assess
    expect(props.failoutProperties).toEqual({ redirects: [], ignoredRedirectEntries: 0, buckets: [] });
  });

  it.each([
    ['canaryConfigs alone', { canaryConfigs: CLUSTER_CANARY_CONFIGS }],
    ['canaryDistributionStrategy alone', { canaryDistributionStrategy: PERCENTAGE_STRATEGY }],
    ['an empty canaryConfigs', { canaryConfigs: '{}', canaryDistributionStrategy: PERCENTAGE_STRATEGY }],
    ['an empty strategy', { canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: '{}' }],
  ])('vector 19: reads %s as no canary and writes no canary keys', (_name, members) => {
    // Act
    const props = parseClusterProperties(clusterWith(members));
    const written = JSON.parse(serializeClusterProperties(props)) as Record<string, unknown>;

    // Assess
    expect(props.canary).toBeNull();
    expect(written).not.toHaveProperty('canaryConfigs');
    expect(written).not.toHaveProperty('canaryDistributionStrategy');
  });

  it.each([
    ['no extras', {}, false, false],
    ['a canary', { canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: PERCENTAGE_STRATEGY }, true, false],
    ['a failout', { failoutProperties: '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}' }, false, true],
    [
      'canary and failout',
      {
        canaryConfigs: CLUSTER_CANARY_CONFIGS,
        canaryDistributionStrategy: PERCENTAGE_STRATEGY,
        failoutProperties: '{"failoutRedirectConfigs":[{}],"failoutBucketConfigs":[]}',
      },
      true,
      true,
    ],
  ])('vector 20: a cluster with %s writes exactly the matching optional keys', (_name, members, canary, failout) => {
    // Act
    const written = JSON.parse(serializeClusterProperties(parseClusterProperties(clusterWith(members))));

    // Assess
    expect(Object.hasOwn(written, 'canaryConfigs')).toBe(canary);
    expect(Object.hasOwn(written, 'canaryDistributionStrategy')).toBe(canary);
    expect(Object.hasOwn(written, 'failoutProperties')).toBe(failout);
  });

  it('writes the keys in the order of rest.li\'s getters (base B), extras last', () => {
    // Prepare
    const input = clusterWith({ zeta: '1', slowStartProperties: '{"disabled":true,"windowDurationSeconds":1,"aggression":1.0,"minWeightPercent":1.0}' });

    // Act
    const keys = Object.keys(JSON.parse(serializeClusterProperties(parseClusterProperties(input))));

    // Assess
    expect(keys).toEqual([
      'properties',
      'bannedUris',
      'clusterName',
      'prioritizedSchemes',
      'partitionProperties',
      'sslSessionValidationStrings',
      'darkClusters',
      'delegated',
      'slowStartProperties',
      'enableClusterSubsetting',
      'minClusterSubsetSize',
      'zeta',
    ]);
  });

  it('writes nothing for null optional objects, as ClusterStoreProperties (NON_NULL) does', () => {
    // Act
    const written = JSON.parse(serializeClusterProperties(parseClusterProperties(clusterWith()))) as object;

    // Assess
    for (const key of ['slowStartProperties', 'connectionOptions', 'outlierDetectionConfig', 'loadBalancingPolicies']) {
      expect(written).not.toHaveProperty(key);
    }
  });

  it('writes slow-start doubles with a decimal point even when the model holds integers', () => {
    // Prepare
    const props = parseClusterProperties(clusterWith());
    props.slowStartProperties = { disabled: false, windowDurationSeconds: 30, aggression: 1, minWeightPercent: 1e-4 };

    // Act
    const written = serializeClusterProperties(props);

    // Assess
    expect(written).toContain('"aggression":1.0');
    expect(written).toContain('"minWeightPercent":1.0E-4');
    expect(parseClusterProperties(written).slowStartProperties).toMatchObject({ aggression: 1, minWeightPercent: 1e-4 });
  });
});
