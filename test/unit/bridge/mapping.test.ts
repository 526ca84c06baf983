import { parseClusterProperties, parseServiceProperties, parseUriProperties, serializeClusterProperties } from '../../../lib/d2';
import { d2ClusterName, isBridgeChildName, renderCluster, renderService, uriChildName, uriChildren, usableEndpoints } from '../../../lib/bridge/mapping';
import { isBridgeError } from '../../../lib/bridge/errors';
import type { ClusterLoadAssignment, Endpoint, EndpointHealthStatus } from '../../../lib/xds/resource-types';

function endpoint(address: string, port: number, healthStatus: EndpointHealthStatus = 'HEALTHY', weight = 1): Endpoint {
  return { address, port, healthStatus, weight };
}

function cla(localities: { priority: number; endpoints: Endpoint[] }[]): ClusterLoadAssignment {
  return { name: 'eds', localities: localities.map((l) => ({ locality: { region: '', zone: '', subZone: '' }, weight: 1, ...l })) };
}

const clusterTarget = { clusterName: 'greetings-lor1', xdsCluster: 'greetings-lor1', edsServiceName: 'greetings-eds', lbPolicy: 'ROUND_ROBIN' };

describe('bridge mapping: endpoints → URI children', () => {
  it.each<[EndpointHealthStatus, boolean]>([
    ['HEALTHY', true],
    ['UNKNOWN', true],
    ['UNHEALTHY', false],
    ['DRAINING', false],
    ['TIMEOUT', false],
    ['DEGRADED', false],
  ])('announces an endpoint in state %s: %s', (status, announced) => {
    const chosen = usableEndpoints(cla([{ priority: 0, endpoints: [endpoint('10.0.0.1', 80, status), endpoint('10.0.0.2', 80)] }]));
    expect(chosen.some((e) => e.address === '10.0.0.1')).toBe(announced);
  });

  it('uses the highest priority that has a usable endpoint, and each address once', () => {
    const chosen = usableEndpoints(
      cla([
        { priority: 1, endpoints: [endpoint('10.0.1.1', 80)] },
        { priority: 0, endpoints: [endpoint('10.0.0.1', 80, 'UNHEALTHY')] },
        { priority: 2, endpoints: [endpoint('10.0.2.1', 80)] },
        { priority: 1, endpoints: [endpoint('10.0.1.1', 80), endpoint('10.0.1.2', 80)] },
      ]),
    );
    expect(chosen.map((e) => e.address)).toEqual(['10.0.1.1', '10.0.1.2']);
  });

  it('writes one rest.li URI document per endpoint, with its weight, under a marked name', () => {
    const children = uriChildren('c1', [endpoint('10.0.0.1', 8080, 'HEALTHY', 3), endpoint('::1', 443)], 'https');
    expect([...children.keys()]).toEqual([uriChildName('10.0.0.1', 8080), uriChildName('::1', 443)]);
    expect([...children.keys()].every(isBridgeChildName)).toBe(true);
    const first = parseUriProperties(children.get(uriChildName('10.0.0.1', 8080)));
    expect(first).toMatchObject({ clusterName: 'c1', partitionDesc: { 'https://10.0.0.1:8080': { 0: 3 } } });
    expect(children.get(uriChildName('10.0.0.1', 8080))).toContain('"weights":{"https://10.0.0.1:8080":3.0}');
    expect(Object.keys(parseUriProperties(children.get(uriChildName('::1', 443))).partitionDesc)).toEqual(['https://[::1]:443']);
  });

  it('names children without characters a znode name cannot hold', () => {
    expect(uriChildName('fe80::1%eth0', 80)).toBe('xds-bridge-fe80__1_eth0-80');
  });
});

describe('bridge mapping: D2 names', () => {
  it('keeps a plain cluster name and takes the last segment of an xdstp name', () => {
    expect(d2ClusterName('greetings-lor1')).toBe('greetings-lor1');
    expect(d2ClusterName('xdstp://authority.example/envoy.config.cluster.v3.Cluster/greetings-lva1')).toBe('greetings-lva1');
  });

  it('rejects a name that cannot be a znode name with kind mapping', () => {
    expect.assertions(1);
    try {
      d2ClusterName('xdstp://a/..');
    } catch (err) {
      expect(isBridgeError(err, 'mapping')).toBe(true);
    }
  });
});

describe('bridge mapping: service and cluster documents', () => {
  const serviceTarget = { serviceName: 'greetings', clusterName: 'greetings-lor1', path: '/greetings', loadBalancerStrategyList: ['degraderV3'], scheme: 'http' as const };

  it('creates a service document rest.li can read, pointing at the cluster', () => {
    const doc = parseServiceProperties(renderService(undefined, serviceTarget));
    expect(doc).toMatchObject({ serviceName: 'greetings', clusterName: 'greetings-lor1', path: '/greetings', loadBalancerStrategyList: ['degraderV3'], prioritizedSchemes: ['http'] });
  });

  it('keeps keys of a service document it does not own', () => {
    const existing = JSON.stringify({ serviceName: 'greetings', clusterName: 'old', path: '/x', loadBalancerStrategyList: ['relative'], transportClientProperties: { 'http.requestTimeout': '5000' }, team: 'core' });
    const doc = parseServiceProperties(renderService(existing, serviceTarget));
    expect(doc.clusterName).toBe('greetings-lor1');
    expect(doc.transportClientProperties).toEqual({ 'http.requestTimeout': '5000' });
    expect(doc.extra).toEqual({ team: 'core' });
  });

  it('keeps failoutProperties, unknown keys and other properties of a cluster document', () => {
    const failout = { redirects: [{ peer: 'greetings-lva1', weight: 2 }], ignoredRedirectEntries: 0, buckets: [{ partition: 'main', offlineAt: 1 }] };
    const existing = serializeClusterProperties({ ...parseClusterProperties({ clusterName: 'greetings-lor1', properties: { masterColo: 'lor1' }, owner: 'team-a' }), failoutProperties: { ...failout } });
    const doc = parseClusterProperties(renderCluster(existing, clusterTarget));
    expect(doc.failoutProperties).toEqual(failout);
    expect(doc.extra).toEqual({ owner: 'team-a' });
    expect(doc.properties).toEqual({ masterColo: 'lor1', 'xds.cluster': 'greetings-lor1', 'xds.edsServiceName': 'greetings-eds', 'xds.lbPolicy': 'ROUND_ROBIN' });
  });

  it('renders an unchanged cluster document byte for byte, so nothing is written', () => {
    const once = renderCluster(undefined, clusterTarget)!;
    expect(renderCluster(once, clusterTarget)).toBe(once);
  });

  it('declines to merge a cluster document it cannot read', () => {
    expect(renderCluster('{"clusterName":"c","delegated":"true"}', clusterTarget)).toBeUndefined();
    expect(renderCluster('not json', clusterTarget)).toBeUndefined();
  });
});
