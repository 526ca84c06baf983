import { parseServiceProperties, serializeServiceProperties } from '../../../lib/d2/codecs/service';
import {
  PERCENTAGE_STRATEGY,
  QUICKSTART,
  RELATIVE_STRATEGY_PROPERTIES,
  SERVICE_BASE,
  catchD2Error,
  jsonDoc,
  semantic,
  type Members,
} from './fixtures';

function serviceWith(...members: Members[]): string {
  return jsonDoc(SERVICE_BASE, ...members);
}

const METHOD_LEVEL =
  '[{"transportClientProperties":{"allowedClientOverrideKeys":"http.requestTimeout, http.useResponseCompression, ' +
  'http.responseContentEncodings","http.requestTimeout":"5000"},"serviceMetadataProperties":{"retry.maxAttempts":"3"},' +
  '"names":[{"method":"testMethod","service":"testService"},{"method":null,"service":"testService2"}]}]';

/** Vector 24: the top-level service and its canary, a full service with the relative properties of 23. */
const CANARY_SERVICE: Members = {
  serviceName: '"servicename2"',
  clusterName: '"clustername2"',
  path: '"/path2"',
  loadBalancerStrategyList: '["strategy2"]',
  canaryConfigs: jsonDoc(SERVICE_BASE, {
    serviceName: '"servicename2"',
    clusterName: '"clustername3"',
    path: '"/path2"',
    loadBalancerStrategyList: '["strategy2"]',
    relativeStrategyProperties: RELATIVE_STRATEGY_PROPERTIES,
  }),
  canaryDistributionStrategy: PERCENTAGE_STRATEGY,
};

describe('service codec: rest.li test vectors', () => {
  it.each<[string, Members]>([
    ['21: the plain service', {}],
    [
      '22: property maps',
      {
        path: '"/service"',
        loadBalancerStrategyList: '["strategyName"]',
        loadBalancerStrategyProperties: '{"foo":"bar"}',
        transportClientProperties: '{"foo":"bar"}',
        serviceMetadataProperties: '{"foo":"bar"}',
      },
    ],
    ['23: relative strategy', { prioritizedSchemes: '["HTTPS"]', relativeStrategyProperties: RELATIVE_STRATEGY_PROPERTIES }],
    ['24: canary', CANARY_SERVICE],
    ['25: method-level properties', { methodLevelProperties: METHOD_LEVEL }],
  ])('reads and writes back vector %s unchanged', (_name, members) => {
    // Prepare
    const input = serviceWith(members);

    // Act
    const written = serializeServiceProperties(parseServiceProperties(input));

    // Assess
    expect(semantic(written)).toEqual(semantic(input));
  });

  it('reads and writes back the quick-start service document unchanged', () => {
    // Act
    const written = serializeServiceProperties(parseServiceProperties(QUICKSTART.service));

    // Assess
    expect(semantic(written)).toEqual(semantic(QUICKSTART.service));
  });

  it('writes the keys of vector 21 in the order of rest.li\'s getters, canary and extras last', () => {
    // Prepare
    const input = serviceWith(CANARY_SERVICE, { zeta: '1' });

    // Act
    const keys = Object.keys(JSON.parse(serializeServiceProperties(parseServiceProperties(input))));

    // Assess
    expect(keys).toEqual([...Object.keys(SERVICE_BASE), 'canaryConfigs', 'canaryDistributionStrategy', 'zeta']);
  });

  it('vector 21: writes no canary keys without a canary, and both with one', () => {
    // Act
    const plain = JSON.parse(serializeServiceProperties(parseServiceProperties(serviceWith())));
    const canary = JSON.parse(serializeServiceProperties(parseServiceProperties(serviceWith(CANARY_SERVICE))));

    // Assess
    expect(plain).not.toHaveProperty('canaryConfigs');
    expect(plain).not.toHaveProperty('canaryDistributionStrategy');
    expect(canary).toHaveProperty('canaryConfigs.clusterName', 'clustername3');
    expect(canary).toHaveProperty('canaryDistributionStrategy.strategy', 'percentage');
  });

  it('vector 25: reads method-level names with a null method', () => {
    // Act
    const props = parseServiceProperties(serviceWith({ methodLevelProperties: METHOD_LEVEL }));

    // Assess
    expect(props.methodLevelProperties[0].names).toEqual([
      { service: 'testService', method: 'testMethod', extra: {} },
      { service: 'testService2', method: null, extra: {} },
    ]);
    expect(props.methodLevelProperties[0].serviceMetadataProperties).toEqual({ 'retry.maxAttempts': '3' });
  });

  it('vector 25: rejects a method-level name whose service is null', () => {
    // Prepare
    const input = serviceWith({ methodLevelProperties: '[{"names":[{"method":"m","service":null}]}]' });

    // Act
    const error = catchD2Error(() => parseServiceProperties(input));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'service', field: 'methodLevelProperties[0].names[0].service' });
  });

  it('reads a canary only when both canary keys are non-empty objects', () => {
    // Act
    const alone = parseServiceProperties(serviceWith({ canaryConfigs: CANARY_SERVICE.canaryConfigs }));
    const both = parseServiceProperties(serviceWith(CANARY_SERVICE));

    // Assess
    expect(alone.canary).toBeNull();
    expect(both.canary?.configs.clusterName).toBe('clustername3');
    expect(both.canary?.configs.relativeStrategyProperties).toHaveProperty('ringProperties.consistentHashAlgorithm', 'pointBased');
  });
});
