/** Resource types: build → decode round trips, validation errors per type, equality, SotW semantics. */
import { packAny, unpackAny, wrapResource } from '../../../lib/xds/protos';
import {
  buildCluster,
  buildClusterLoadAssignment,
  buildListener,
  buildRouteConfiguration,
  CDS_TYPE_URL,
  clusterLoadAssignmentType,
  D2_NODE_TYPE_URL,
  D2_SYMLINK_NODE_TYPE_URL,
  D2_URI_MAP_TYPE_URL,
  clusterType,
  EDS_TYPE_URL,
  HCM_TYPE_URL,
  isXdsTypeUrl,
  kindOfTypeUrl,
  LDS_TYPE_URL,
  listenerType,
  RDS_TYPE_URL,
  RESOURCE_TYPES,
  resourceTypeForUrl,
  routeConfigurationType,
  ROUTER_TYPE_URL,
  type DecodeResult,
} from '../../../lib/xds/resource-types';
import { garbageResource, invalidResource } from '../../../lib/xds/server/fault-hooks';

function expectError<V>(result: DecodeResult<V>, fragment: string): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.kind).toBe('validation');
  expect(result.error.message).toContain(fragment);
}

const hcm = (spec: object, filters: object[] = [{ name: 'router', typed_config: packAny(ROUTER_TYPE_URL, {}) }]): object => ({
  name: 'l',
  api_listener: { api_listener: packAny(HCM_TYPE_URL, { ...spec, http_filters: filters }) },
});

describe('type URLs', () => {
  it('maps kinds and URLs both ways', () => {
    expect(kindOfTypeUrl(CDS_TYPE_URL)).toBe('cluster');
    expect(isXdsTypeUrl(EDS_TYPE_URL)).toBe(true);
    expect(isXdsTypeUrl('type.googleapis.com/foo')).toBe(false);
    expect(resourceTypeForUrl(RDS_TYPE_URL)).toBe(routeConfigurationType);
    expect(resourceTypeForUrl('nope')).toBeUndefined();
  });

  it('requires all resources in SotW for LDS, CDS and the D2 types (no parent resource tells their deletion), not for RDS and EDS', () => {
    expect(Object.values(RESOURCE_TYPES).filter((t) => t.allResourcesRequiredInSotW).map((t) => t.typeUrl)).toEqual([
      LDS_TYPE_URL,
      CDS_TYPE_URL,
      D2_NODE_TYPE_URL,
      D2_URI_MAP_TYPE_URL,
      D2_SYMLINK_NODE_TYPE_URL,
    ]);
  });
});

describe('Listener', () => {
  it('round-trips an RDS listener', () => {
    expect(listenerType.decode(buildListener('svc', { routeConfigName: 'rc' }))).toEqual({
      ok: true,
      name: 'svc',
      value: { name: 'svc', routeConfig: { source: 'rds', routeConfigName: 'rc' }, httpFilters: [ROUTER_TYPE_URL] },
    });
  });

  it('round-trips an inline route configuration', () => {
    const result = listenerType.decode(buildListener('svc', { inlineRoute: { cluster: 'c' }, inlineRouteName: 'inline' }));

    expect(result.ok && result.value.routeConfig).toMatchObject({
      source: 'inline',
      routeConfiguration: { name: 'inline', virtualHosts: [{ domains: ['*'], routes: [{ action: { kind: 'cluster', cluster: 'c' } }] }] },
    });
  });

  it.each<[string, object, string]>([
    ['no api_listener', { name: 'l' }, 'no api_listener'],
    ['an api_listener that is not an HCM', { name: 'l', api_listener: { api_listener: packAny(ROUTER_TYPE_URL, {}) } }, 'not an HttpConnectionManager'],
    ['rds with an empty name', hcm({ rds: { config_source: { ads: {} }, route_config_name: '' } }), 'route_config_name is empty'],
    ['rds from a non-ADS config source', hcm({ rds: { config_source: { path: '/x' }, route_config_name: 'r' } }), 'ads or self'],
    ['neither rds nor route_config', hcm({}), 'neither rds nor route_config'],
    ['no router filter last', hcm({ rds: { config_source: { ads: {} }, route_config_name: 'r' } }, []), 'router'],
  ])('rejects %s', (_label, obj, fragment) => {
    const result = listenerType.decode(packAny(LDS_TYPE_URL, obj));

    expectError(result, fragment);
    expect(result.ok ? undefined : result.name).toBe('l');
  });
});

describe('RouteConfiguration', () => {
  it('round-trips prefix and path matches to a cluster and weighted clusters', () => {
    const any = buildRouteConfiguration('rc', {
      virtualHosts: [
        {
          name: 'vh',
          domains: ['a.example', '*'],
          routes: [{ path: '/svc/Method', weightedClusters: [{ name: 'x', weight: 3 }, { name: 'y', weight: 1 }] }, { prefix: '/', cluster: 'c' }],
        },
      ],
    });

    expect(routeConfigurationType.decode(any)).toEqual({
      ok: true,
      name: 'rc',
      value: {
        name: 'rc',
        virtualHosts: [
          {
            name: 'vh',
            domains: ['a.example', '*'],
            routes: [
              { match: { kind: 'path', path: '/svc/Method' }, caseSensitive: true, action: { kind: 'weightedClusters', clusters: [{ name: 'x', weight: 3 }, { name: 'y', weight: 1 }] } },
              { match: { kind: 'prefix', prefix: '/' }, caseSensitive: true, action: { kind: 'cluster', cluster: 'c' } },
            ],
          },
        ],
      },
    });
  });

  it.each<[string, object, string]>([
    ['a virtual host without domains', { name: 'rc', virtual_hosts: [{ name: 'v', domains: [] }] }, 'no domains'],
    ['a regex match', { name: 'rc', virtual_hosts: [{ domains: ['*'], routes: [{ match: { safe_regex: { regex: '.*' } }, route: { cluster: 'c' } }] }] }, 'unsupported path specifier safe_regex'],
    ['a route without action', { name: 'rc', virtual_hosts: [{ domains: ['*'], routes: [{ match: { prefix: '' } }] }] }, 'no route action'],
    ['zero total weight', { name: 'rc', virtual_hosts: [{ domains: ['*'], routes: [{ match: { prefix: '' }, route: { weighted_clusters: { clusters: [{ name: 'x', weight: { value: 0 } }] } } }] }] }, 'total weight is 0'],
  ])('rejects %s', (_label, obj, fragment) => {
    expectError(routeConfigurationType.decode(packAny(RDS_TYPE_URL, obj)), fragment);
  });
});

describe('Cluster', () => {
  it('round-trips an EDS cluster with LRS to self', () => {
    expect(clusterType.decode(buildCluster('c', { edsServiceName: 'eds', lrs: true }))).toEqual({
      ok: true,
      name: 'c',
      value: { name: 'c', discoveryType: 'EDS', edsServiceName: 'eds', lbPolicy: 'ROUND_ROBIN', lrs: 'self' },
    });
  });

  it('uses the cluster name as EDS service name when service_name is empty', () => {
    const any = packAny(CDS_TYPE_URL, { name: 'c', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } } });

    expect(clusterType.decode(any)).toMatchObject({ ok: true, value: { edsServiceName: 'c', lrs: 'none' } });
  });

  it.each<[string, object, string]>([
    ['a STATIC cluster', { name: 'c', type: 'STATIC' }, 'unsupported cluster type STATIC'],
    ['EDS without an ADS config source', { name: 'c', type: 'EDS', eds_cluster_config: { eds_config: { path: '/x' } } }, 'eds_config must be ads or self'],
    ['an unsupported lb_policy', { name: 'c', type: 'EDS', lb_policy: 'MAGLEV', eds_cluster_config: { eds_config: { ads: {} } } }, 'unsupported lb_policy MAGLEV'],
    ['an lrs_server other than self', { name: 'c', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} } }, lrs_server: { ads: {} } }, 'lrs_server must be self'],
  ])('rejects %s', (_label, obj, fragment) => {
    expectError(clusterType.decode(packAny(CDS_TYPE_URL, obj)), fragment);
  });
});

describe('ClusterLoadAssignment', () => {
  it('round-trips localities, weights and health', () => {
    const any = buildClusterLoadAssignment('eds', {
      localities: [
        { locality: { region: 'r', zone: 'z' }, weight: 2, priority: 1, endpoints: [{ address: '10.0.0.1', port: 80, healthStatus: 'DRAINING', weight: 5 }] },
      ],
    });

    expect(clusterLoadAssignmentType.decode(any)).toEqual({
      ok: true,
      name: 'eds',
      value: {
        name: 'eds',
        localities: [
          { locality: { region: 'r', zone: 'z', subZone: '' }, weight: 2, priority: 1, endpoints: [{ address: '10.0.0.1', port: 80, healthStatus: 'DRAINING', weight: 5 }] },
        ],
      },
    });
  });

  it('ignores localities with weight 0, as gRPC does', () => {
    const any = packAny(EDS_TYPE_URL, { cluster_name: 'eds', endpoints: [{ lb_endpoints: [] }] });

    expect(clusterLoadAssignmentType.decode(any)).toMatchObject({ ok: true, value: { localities: [] } });
  });

  it.each<[string, object, string]>([
    ['an endpoint without address', { endpoint: {} }, 'no socket address'],
    ['an empty address', { endpoint: { address: { socket_address: { address: '', port_value: 1 } } } }, 'empty address'],
    ['port 0', { endpoint: { address: { socket_address: { address: '1.2.3.4', port_value: 0 } } } }, 'invalid port 0'],
  ])('rejects %s', (_label, lbEndpoint, fragment) => {
    const any = packAny(EDS_TYPE_URL, { cluster_name: 'eds', endpoints: [{ load_balancing_weight: { value: 1 }, lb_endpoints: [lbEndpoint] }] });

    expectError(clusterLoadAssignmentType.decode(any), fragment);
  });
});

describe('decoding from a response', () => {
  it('unwraps envoy.service.discovery.v3.Resource', () => {
    expect(clusterType.decode(wrapResource(buildCluster('c'), 'c'))).toMatchObject({ ok: true, name: 'c' });
  });

  it('rejects a resource of another type, naming neither type wrongly', () => {
    expectError(clusterType.decode(buildClusterLoadAssignment('eds', [])), `expected ${CDS_TYPE_URL}`);
  });

  it('turns undecodable bytes into a validation error instead of throwing', () => {
    expectError(clusterType.decode(garbageResource(CDS_TYPE_URL)), 'cannot decode');
  });

  it.each(['listener', 'routeConfiguration', 'cluster', 'clusterLoadAssignment'] as const)(
    'rejects the invalid %s the server can inject, keeping its name for the NACK',
    (kind) => {
      const result = RESOURCE_TYPES[kind].decode(invalidResource(kind, 'bad'));

      expect(result).toMatchObject({ ok: false, name: 'bad' });
    },
  );

  it('rejects a resource without a name', () => {
    expectError(clusterType.decode(packAny(CDS_TYPE_URL, { type: 'EDS' })), 'no name');
  });
});

describe('isEqual', () => {
  it('is true for equal decodes and false after a change', () => {
    const decode = (port: number) => {
      const r = clusterLoadAssignmentType.decode(buildClusterLoadAssignment('eds', [{ address: '1.1.1.1', port }]));
      if (!r.ok) throw r.error;
      return r.value;
    };

    expect(clusterLoadAssignmentType.isEqual(decode(80), decode(80))).toBe(true);
    expect(clusterLoadAssignmentType.isEqual(decode(80), decode(81))).toBe(false);
  });
});

describe('packAny', () => {
  it('rejects misspelled fields and unknown enum values that fromObject would drop', () => {
    expect(() => packAny(CDS_TYPE_URL, { name: 'c', eds_cluster_confg: {} })).toThrow(/unknown field/);
    expect(() => packAny(CDS_TYPE_URL, { name: 'c', type: 'EDZ' })).toThrow(/unknown enum value/);
    expect(() => packAny(EDS_TYPE_URL, { cluster_name: 'c', endpoints: [{ lb_endpoints: [{ endpont: {} }] }] })).toThrow(/lb_endpoints\.endpont/);
  });

  it('round-trips through unpackAny', () => {
    expect(unpackAny(packAny(CDS_TYPE_URL, { name: 'c', type: 'EDS' }))).toMatchObject({ name: 'c', type: 'EDS' });
  });
});
