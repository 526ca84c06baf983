import { parseServiceProperties, serializeServiceProperties } from '../../../lib/d2/codecs/service';
import { SERVICE_BASE, catchD2Error, jsonDoc, type Members } from './fixtures';

function serviceWith(...members: Members[]): string {
  return jsonDoc(SERVICE_BASE, ...members);
}

/** The service document with `key` left out. */
function serviceWithout(key: string): string {
  const { [key]: _omitted, ...rest } = SERVICE_BASE;
  return jsonDoc(rest);
}

describe('service codec: rejections (§1.2, §3.5)', () => {
  it.each<[string, string, string]>([
    ['a missing serviceName', serviceWithout('serviceName'), 'serviceName'],
    ['a missing clusterName', serviceWithout('clusterName'), 'clusterName'],
    ['a missing path', serviceWithout('path'), 'path'],
    ['a numeric path', serviceWith({ path: '5' }), 'path'],
    ['a missing loadBalancerStrategyList', serviceWithout('loadBalancerStrategyList'), 'loadBalancerStrategyList'],
    ['an empty loadBalancerStrategyList', serviceWith({ loadBalancerStrategyList: '[]' }), 'loadBalancerStrategyList'],
    ['a strategy name that is not a string', serviceWith({ loadBalancerStrategyList: '["a",1]' }), 'loadBalancerStrategyList[1]'],
    ['"isDefaultService":true (a boolean)', serviceWith({ isDefaultService: 'true' }), 'isDefaultService'],
    ['"defaultRoutingToMaster":true (a boolean)', serviceWith({ defaultRoutingToMaster: 'true' }), 'defaultRoutingToMaster'],
    ['a numeric enableClusterSubsetting', serviceWith({ enableClusterSubsetting: '1' }), 'enableClusterSubsetting'],
    ['a boolean minClusterSubsetSize', serviceWith({ minClusterSubsetSize: 'true' }), 'minClusterSubsetSize'],
    ['a non-numeric minClusterSubsetSize string', serviceWith({ minClusterSubsetSize: '"five"' }), 'minClusterSubsetSize'],
    ['a decimal minClusterSubsetSize string', serviceWith({ minClusterSubsetSize: '"5.0"' }), 'minClusterSubsetSize'],
    ['a minClusterSubsetSize integer beyond 32 bits (a Long)', serviceWith({ minClusterSubsetSize: '3000000000' }), 'minClusterSubsetSize'],
    ['transportClientProperties that is a list', serviceWith({ transportClientProperties: '[]' }), 'transportClientProperties'],
    ['backupRequests that is an object', serviceWith({ backupRequests: '{}' }), 'backupRequests'],
    ['a method-level entry without names', serviceWith({ methodLevelProperties: '[{}]' }), 'methodLevelProperties[0].names'],
    ['a method-level entry that is not an object', serviceWith({ methodLevelProperties: '["x"]' }), 'methodLevelProperties[0]'],
    ['a numeric method name', serviceWith({ methodLevelProperties: '[{"names":[{"service":"s","method":1}]}]' }), 'methodLevelProperties[0].names[0].method'],
    ['a canary configuration without a strategy list', serviceWith({ canaryConfigs: '{"serviceName":"s","clusterName":"c","path":""}', canaryDistributionStrategy: '{"strategy":"percentage"}' }), 'canaryConfigs.loadBalancerStrategyList'],
    ['text that is not JSON', '{"serviceName":', ''],
  ])('rejects %s, naming the field', (_name, input, field) => {
    // Act
    const error = catchD2Error(() => parseServiceProperties(input));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'service', field });
  });
});

describe('service codec: coercions and quirks (§1.2, §4)', () => {
  it.each([
    ['true', true],
    ['false', false],
    ['"true"', true],
    ['"TRUE"', true],
    ['"yes"', false],
  ])('coerces "enableClusterSubsetting":%s to %s and writes a JSON boolean', (raw, expected) => {
    // Act
    const props = parseServiceProperties(serviceWith({ enableClusterSubsetting: raw }));

    // Assess
    expect(props.enableClusterSubsetting).toBe(expected);
    expect(serializeServiceProperties(props)).toContain(`"enableClusterSubsetting":${expected}`);
  });

  it.each([
    ['5', 5],
    ['"5"', 5],
    ['"-3"', -3],
    ['5.0', 5],
    ['5.9', 5],
    ['-5.9', -5],
    ['1e10', 2147483647],
  ])('coerces "minClusterSubsetSize":%s to %s and writes an integer', (raw, expected) => {
    // Act
    const props = parseServiceProperties(serviceWith({ minClusterSubsetSize: raw }));

    // Assess
    expect(props.minClusterSubsetSize).toBe(expected);
    expect(serializeServiceProperties(props)).toContain(`"minClusterSubsetSize":${expected}`);
  });

  it('reads bans from bannedUris, writes them as banned, and so loses them on the next read', () => {
    // Prepare
    const input = serviceWith({ bannedUris: '["http://h:1/x"]', banned: '["http://ignored:2"]' });

    // Act
    const props = parseServiceProperties(input);
    const written = serializeServiceProperties(props);
    const reread = parseServiceProperties(written);

    // Assess
    expect(props.bannedUris).toEqual(['http://h:1/x']);
    expect(props.extra).toEqual({});
    expect(JSON.parse(written)).toMatchObject({ banned: ['http://h:1/x'] });
    expect(JSON.parse(written)).not.toHaveProperty('bannedUris');
    expect(reread.bannedUris).toEqual([]);
  });

  it.each([
    ['"true"', '"true"', { isDefaultService: 'true', defaultRoutingToMaster: 'true', k: 'v' }],
    ['"TRUE"', '"True"', { isDefaultService: 'TRUE', defaultRoutingToMaster: 'True', k: 'v' }],
    ['"false"', '"no"', { k: 'v' }],
    ['null', 'null', { k: 'v' }],
  ])(
    'folds isDefaultService %s and defaultRoutingToMaster %s into serviceMetadataProperties only when "true"',
    (isDefault, routing, expected) => {
      // Prepare
      const input = serviceWith({
        isDefaultService: isDefault,
        defaultRoutingToMaster: routing,
        serviceMetadataProperties: '{"k":"v"}',
      });

      // Act
      const props = parseServiceProperties(input);
      const written = JSON.parse(serializeServiceProperties(props));

      // Assess
      expect(props.serviceMetadataProperties).toEqual(expected);
      expect(props.extra).toEqual({});
      expect(written.serviceMetadataProperties).toEqual(expected);
      expect(written).not.toHaveProperty('isDefaultService');
    },
  );

  it('lets a published serviceMetadataProperties value win over a folded top-level flag', () => {
    // Act
    const props = parseServiceProperties(
      serviceWith({ isDefaultService: '"true"', serviceMetadataProperties: '{"isDefaultService":"false","w":1.0}' }),
    );

    // Assess
    expect(props.serviceMetadataProperties).toEqual({ isDefaultService: 'false', w: 1 });
    expect(serializeServiceProperties(props)).toContain('"w":1.0');
  });

  it('accepts empty strings for serviceName, clusterName and path', () => {
    // Act
    const props = parseServiceProperties(serviceWith({ serviceName: '""', clusterName: '""', path: '""' }));

    // Assess
    expect(props).toMatchObject({ serviceName: '', clusterName: '', path: '' });
  });

  it('reads a minimal document into the defaults of vector 21', () => {
    // Act
    const props = parseServiceProperties(
      '{"serviceName":"serviceName","clusterName":"clusterName","path":"/foo","loadBalancerStrategyList":["rr"]}',
    );

    // Assess
    expect(JSON.parse(serializeServiceProperties(props))).toEqual(JSON.parse(serviceWith()));
  });

  it.each([
    'loadBalancerStrategyProperties',
    'transportClientProperties',
    'degraderProperties',
    'relativeStrategyProperties',
    'prioritizedSchemes',
    'bannedUris',
    'banned',
    'serviceMetadataProperties',
    'isDefaultService',
    'defaultRoutingToMaster',
    'backupRequests',
    'methodLevelProperties',
    'enableClusterSubsetting',
    'minClusterSubsetSize',
    'canaryConfigs',
    'canaryDistributionStrategy',
  ])('accepts an explicit null for optional key %s and uses its default', (key) => {
    // Prepare
    const defaults = parseServiceProperties(serviceWith());

    // Act
    const props = parseServiceProperties(serviceWith({ [key]: 'null' }));

    // Assess
    expect(props).toEqual(defaults);
  });

  it('keeps unknown keys, including those of method-level entries, and writes them back', () => {
    // Prepare
    const input = serviceWith({
      futureFlag: '{"on":true}',
      methodLevelProperties: '[{"names":[{"service":"s","method":null,"tag":1}],"priority":2.0}]',
    });

    // Act
    const props = parseServiceProperties(input);
    const written = serializeServiceProperties(props);

    // Assess
    expect(props.extra).toEqual({ futureFlag: { on: true } });
    expect(props.methodLevelProperties[0].extra).toEqual({ priority: 2 });
    expect(JSON.parse(written)).toMatchObject({
      futureFlag: { on: true },
      methodLevelProperties: [{ names: [{ service: 's', method: null, tag: 1 }], priority: 2 }],
    });
    expect(written).toContain('"priority":2.0');
  });
});
