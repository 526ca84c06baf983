import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';
import { CLUSTER_BASE, CLUSTER_CANARY_CONFIGS, PERCENTAGE_STRATEGY, catchD2Error, jsonDoc, type Members } from './fixtures';

const SLOW_START = { disabled: 'false', windowDurationSeconds: '30', aggression: '1.0', minWeightPercent: '0.5' };

function clusterWith(...members: Members[]): string {
  return jsonDoc(CLUSTER_BASE, ...members);
}

function slowStart(overrides: Members): Members {
  return { slowStartProperties: jsonDoc(SLOW_START, overrides) };
}

describe('cluster codec: rejections (§1.1, §3.5)', () => {
  it.each<[string, string, string]>([
    ['an empty object', '{}', 'clusterName'],
    ['a null clusterName', '{"clusterName":null}', 'clusterName'],
    ['a numeric clusterName', '{"clusterName":5}', 'clusterName'],
    ['a RANGE field given as a string', clusterWith({ partitionProperties: '{"partitionType":"RANGE","partitionKeyRegex":"r","keyRangeStart":"0","partitionSize":1,"partitionCount":1}' }), 'partitionProperties.keyRangeStart'],
    ['RANGE without partitionKeyRegex', clusterWith({ partitionProperties: '{"partitionType":"RANGE","keyRangeStart":0,"partitionSize":1,"partitionCount":1}' }), 'partitionProperties.partitionKeyRegex'],
    ['RANGE without partitionSize', clusterWith({ partitionProperties: '{"partitionType":"RANGE","partitionKeyRegex":"r","keyRangeStart":0,"partitionCount":1}' }), 'partitionProperties.partitionSize'],
    ['HASH without hashAlgorithm', clusterWith({ partitionProperties: '{"partitionType":"HASH","partitionKeyRegex":"r","partitionCount":2}' }), 'partitionProperties.hashAlgorithm'],
    ['HASH without partitionCount', clusterWith({ partitionProperties: '{"partitionType":"HASH","partitionKeyRegex":"r","hashAlgorithm":"MD5"}' }), 'partitionProperties.partitionCount'],
    ['an unknown hash algorithm', clusterWith({ partitionProperties: '{"partitionType":"HASH","partitionKeyRegex":"r","partitionCount":2,"hashAlgorithm":"SHA1"}' }), 'partitionProperties.hashAlgorithm'],
    ['an unknown partition type', clusterWith({ partitionProperties: '{"partitionType":"ROUND"}' }), 'partitionProperties.partitionType'],
    ['a partition object without type', clusterWith({ partitionProperties: '{}' }), 'partitionProperties.partitionType'],
    ['a partition type that is not a string', clusterWith({ partitionProperties: '{"partitionType":1}' }), 'partitionProperties.partitionType'],
    ['partitionProperties that is a string', clusterWith({ partitionProperties: '"NONE"' }), 'partitionProperties'],
    ['slow-start "aggression":1', clusterWith(slowStart({ aggression: '1' })), 'slowStartProperties.aggression'],
    ['slow-start "minWeightPercent":0', clusterWith(slowStart({ minWeightPercent: '0' })), 'slowStartProperties.minWeightPercent'],
    ['slow-start "windowDurationSeconds":30.0', clusterWith(slowStart({ windowDurationSeconds: '30.0' })), 'slowStartProperties.windowDurationSeconds'],
    ['slow-start without disabled', clusterWith(slowStart({ disabled: 'null' })), 'slowStartProperties.disabled'],
    ['slow-start "disabled":"false"', clusterWith(slowStart({ disabled: '"false"' })), 'slowStartProperties.disabled'],
    ['"delegated":"true"', clusterWith({ delegated: '"true"' }), 'delegated'],
    ['"enableClusterSubsetting":"true"', clusterWith({ enableClusterSubsetting: '"true"' }), 'enableClusterSubsetting'],
    ['"minClusterSubsetSize":5.0', clusterWith({ minClusterSubsetSize: '5.0' }), 'minClusterSubsetSize'],
    ['"minClusterSubsetSize":5e0', clusterWith({ minClusterSubsetSize: '5e0' }), 'minClusterSubsetSize'],
    ['"minClusterSubsetSize":"5"', clusterWith({ minClusterSubsetSize: '"5"' }), 'minClusterSubsetSize'],
    ['a minClusterSubsetSize beyond 32 bits', clusterWith({ minClusterSubsetSize: '3000000000' }), 'minClusterSubsetSize'],
    ['connection options without a ratio', clusterWith({ connectionOptions: '{"connectionJitterSeconds":10}' }), 'connectionOptions.maxDelayedConnectionRatio'],
    ['a string connection jitter', clusterWith({ connectionOptions: '{"connectionJitterSeconds":"10","maxDelayedConnectionRatio":0.5}' }), 'connectionOptions.connectionJitterSeconds'],
    ['an invalid banned URI', clusterWith({ bannedUris: '["http://ok:1/","http://bad host/"]' }), 'bannedUris[1]'],
    ['a banned URI that is not a string', clusterWith({ bannedUris: '[5]' }), 'bannedUris[0]'],
    ['bannedUris that is not a list', clusterWith({ bannedUris: '"http://h:1"' }), 'bannedUris'],
    ['properties that is a list', clusterWith({ properties: '[]' }), 'properties'],
    ['an outlier config that is a string', clusterWith({ outlierDetectionConfig: '"x"' }), 'outlierDetectionConfig'],
    ['load balancing policies that are an object', clusterWith({ loadBalancingPolicies: '{}' }), 'loadBalancingPolicies'],
    ['canaryConfigs that is a string, even alone', clusterWith({ canaryConfigs: '"x"' }), 'canaryConfigs'],
    ['a canary strategy that is not a string', clusterWith({ canaryConfigs: CLUSTER_CANARY_CONFIGS, canaryDistributionStrategy: '{"strategy":5}' }), 'canaryDistributionStrategy.strategy'],
    ['a canary configuration without clusterName', clusterWith({ canaryConfigs: '{"delegated":false}', canaryDistributionStrategy: PERCENTAGE_STRATEGY }), 'canaryConfigs.clusterName'],
    ['failoutProperties that is a list', clusterWith({ failoutProperties: '[]' }), 'failoutProperties'],
    ['failout redirect configs that are an object', clusterWith({ failoutProperties: '{"failoutRedirectConfigs":{}}' }), 'failoutProperties.failoutRedirectConfigs'],
    ['text that is not JSON', 'clusterName: test', ''],
    ['empty text', '', ''],
    ['a JSON array', '[]', ''],
    ['JSON null', 'null', ''],
    ['trailing data after the object', '{"clusterName":"test"} x', ''],
    ['a trailing comma', '{"clusterName":"test",}', ''],
  ])('rejects %s, naming the field', (_name, input, field) => {
    // Act
    const error = catchD2Error(() => parseClusterProperties(input));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
  });
});

describe('cluster codec: lenient cases (§1.1, §3.5)', () => {
  it.each([
    ['hash', 'modulo', 'HASH', 'MODULO'],
    ['Hash', 'Md5', 'HASH', 'MD5'],
    ['HASH', 'xxhash', 'HASH', 'XXHASH'],
  ])('accepts partition type %s with algorithm %s and writes them upper case', (type, algorithm, upperType, upperAlgorithm) => {
    // Prepare
    const input = clusterWith({
      partitionProperties: `{"partitionType":"${type}","partitionKeyRegex":"r","partitionCount":4,"hashAlgorithm":"${algorithm}"}`,
    });

    // Act
    const props = parseClusterProperties(input);
    const written = JSON.parse(serializeClusterProperties(props));

    // Assess
    expect(props.partitionProperties).toMatchObject({ partitionType: upperType, hashAlgorithm: upperAlgorithm });
    expect(written.partitionProperties).toEqual({
      partitionType: upperType,
      hashAlgorithm: upperAlgorithm,
      partitionKeyRegex: 'r',
      partitionCount: 4,
    });
  });

  it('reads CUSTOM partitioning with defaults for count and accessors', () => {
    // Act
    const props = parseClusterProperties(clusterWith({ partitionProperties: '{"partitionType":"custom"}' }));

    // Assess
    expect(props.partitionProperties).toEqual({
      partitionType: 'CUSTOM',
      partitionCount: 0,
      partitionAccessorList: [],
      extra: {},
    });
  });

  it('accepts any JSON number for RANGE fields and truncates them as Number.longValue() does', () => {
    // Prepare
    const input = clusterWith({
      partitionProperties:
        '{"partitionType":"range","partitionKeyRegex":"r","keyRangeStart":0.0,"partitionSize":1.5e3,"partitionCount":10.9}',
    });

    // Act
    const props = parseClusterProperties(input);

    // Assess
    expect(props.partitionProperties).toMatchObject({ keyRangeStart: 0, partitionSize: 1500, partitionCount: 10 });
  });

  it('accepts an exponent as the decimal form of a slow-start double', () => {
    // Act
    const props = parseClusterProperties(clusterWith(slowStart({ aggression: '1e0', minWeightPercent: '5E-1' })));

    // Assess
    expect(props.slowStartProperties).toMatchObject({ aggression: 1, minWeightPercent: 0.5 });
  });

  it.each([
    'prioritizedSchemes',
    'properties',
    'bannedUris',
    'partitionProperties',
    'sslSessionValidationStrings',
    'darkClusters',
    'delegated',
    'slowStartProperties',
    'connectionOptions',
    'outlierDetectionConfig',
    'loadBalancingPolicies',
    'enableClusterSubsetting',
    'minClusterSubsetSize',
    'canaryConfigs',
    'canaryDistributionStrategy',
    'failoutProperties',
  ])('accepts an explicit null for optional key %s and uses its default', (key) => {
    // Prepare
    const defaults = parseClusterProperties(clusterWith());

    // Act
    const props = parseClusterProperties(clusterWith({ [key]: 'null' }));

    // Assess
    expect(props).toEqual(defaults);
  });

  it.each([
    ['{}', '{}'],
    ['null', 'null'],
  ])('reads "failoutProperties":%s as no failout and writes no failout key', (failout) => {
    // Act
    const props = parseClusterProperties(clusterWith({ failoutProperties: failout }));

    // Assess
    expect(props.failoutProperties).toBeNull();
    expect(JSON.parse(serializeClusterProperties(props))).not.toHaveProperty('failoutProperties');
  });

  it('defaults a missing failout list to []', () => {
    // Act
    const props = parseClusterProperties(clusterWith({ failoutProperties: '{"failoutBucketConfigs":[{"partition":"main"}]}' }));

    // Assess
    expect(props.failoutProperties).toEqual({ redirects: [], ignoredRedirectEntries: 0, buckets: [{ partition: 'main' }] });
  });

  it('keeps unknown keys at every level and writes them back, decimal literals included', () => {
    // Prepare
    const input = clusterWith({
      version: '7',
      futureKey: '{"nested":[1.0,2]}',
      ratio: '1.0',
      partitionProperties: '{"partitionType":"NONE","hint":"x"}',
      slowStartProperties: jsonDoc(SLOW_START, { rampShape: '"linear"' }),
      connectionOptions: '{"connectionJitterSeconds":10,"maxDelayedConnectionRatio":1.0,"note":2.50}',
      canaryConfigs: jsonDoc(CLUSTER_BASE, { canaryOnly: 'true' }),
      canaryDistributionStrategy: '{"strategy":"percentage","percentageStrategyProperties":{"scope":1.0},"owner":"me"}',
      failoutProperties: '{"failoutRedirectConfigs":[{"peer":"p","weight":2,"share":2.0}],"failoutBucketConfigs":[],"v":1}',
    });

    // Act
    const props = parseClusterProperties(input);
    const written = serializeClusterProperties(props);

    // Assess
    expect(props.extra).toEqual({ version: 7, futureKey: { nested: [1, 2] }, ratio: 1 });
    expect(props.partitionProperties.extra).toEqual({ hint: 'x' });
    expect(props.canary?.configs.extra).toEqual({ canaryOnly: true });
    expect(JSON.parse(written)).toMatchObject(JSON.parse(input));
    for (const literal of ['"nested":[1.0,2]', '"ratio":1.0', '"scope":1.0', '"share":2.0', '"note":2.5', '"maxDelayedConnectionRatio":1.0']) {
      expect(written).toContain(literal);
    }
  });

  it('accepts an already-parsed object and treats an integral double as a double there', () => {
    // Prepare
    const input = {
      clusterName: 'test',
      slowStartProperties: { disabled: true, windowDurationSeconds: 30, aggression: 1, minWeightPercent: 0.5 },
      minClusterSubsetSize: 5,
      ignored: undefined,
    };

    // Act
    const props = parseClusterProperties(input);

    // Assess
    expect(props.slowStartProperties).toMatchObject({ aggression: 1, minWeightPercent: 0.5 });
    expect(props.minClusterSubsetSize).toBe(5);
    expect(props.extra).toEqual({});
  });

  it.each([
    ['a non-integral minClusterSubsetSize', { clusterName: 't', minClusterSubsetSize: 5.5 }, 'minClusterSubsetSize'],
    ['NaN', { clusterName: 't', outlierDetectionConfig: { x: Number.NaN } }, 'outlierDetectionConfig.x'],
    ['a function', { clusterName: 't', properties: { f: () => 1 } }, 'properties.f'],
    ['a Date', { clusterName: 't', properties: { d: new Date(0) } }, 'properties.d'],
    ['Infinity in a list, after good members', { clusterName: 't', properties: { a: 1, b: [1, 'x', Number.POSITIVE_INFINITY], c: Number.NaN } }, 'properties.b[2]'],
    ['undefined in a list', { clusterName: 't', loadBalancingPolicies: [1, undefined] }, 'loadBalancingPolicies[1]'],
    ['nesting deeper than 1,000', { clusterName: 't', properties: { deep: nested(1_000) } }, `properties.deep${'.a'.repeat(998)}`],
  ])('rejects an already-parsed object holding %s', (_name, input, field) => {
    // Act
    const error = catchD2Error(() => parseClusterProperties(input));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
  });

  it('copies an already-parsed object: no member shared, undefined members dropped, holes kept', () => {
    // Prepare
    const list = [1, 2, 3];
    delete list[1];
    const input = { clusterName: 't', properties: { a: { b: [1, { c: 'x' }] }, gone: undefined }, loadBalancingPolicies: list };

    // Act
    const props = parseClusterProperties(input);

    // Assess
    expect(props.properties).toEqual({ a: { b: [1, { c: 'x' }] } });
    expect(props.properties).not.toBe(input.properties);
    expect((props.properties.a as { b: unknown[] }).b).not.toBe(input.properties.a.b);
    expect('gone' in props.properties).toBe(false);
    expect(props.loadBalancingPolicies).toHaveLength(3);
    expect(1 in props.loadBalancingPolicies!).toBe(false);
  });
});

/** `{ a: { a: … } }`, `levels` objects deep. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < levels; i++) value = { a: value };
  return value;
}
