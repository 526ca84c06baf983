/**
 * CSDS (gRFC A40): the one builder of `ClientStatusResponse` from client dumps, and its two renderings
 * (the gRPC message, decoded here with envoy's own .proto files, and proto3 JSON) saying the same.
 */
import type { AuthorityDump, XdsClientDump } from '../../../lib/xds';
import { buildClientStatusResponse, clientStatusJson, csdsServiceDefinition, type GenericXdsConfig } from '../../../lib/xds/csds';
import { buildCluster, CDS_TYPE_URL, EDS_TYPE_URL, LDS_TYPE_URL } from '../../../lib/xds/resource-types';
import { envoyProtoRoot, type DecodedClientStatusResponse } from '../../helpers/csds-client';

type DumpedResource = AuthorityDump['resources'][number];

const T0 = 1_800_000_000_123;

/** A dumped resource: ACKED cluster `name` at version '1' by default. */
function resource(name: string, overrides: Partial<DumpedResource> = {}): DumpedResource {
  return {
    typeUrl: CDS_TYPE_URL,
    name,
    status: 'acked',
    version: '1',
    source: 'primary:1',
    watchers: 1,
    error: undefined,
    raw: buildCluster(name, { edsServiceName: `${name}-eds` }),
    lastUpdated: T0,
    rejected: undefined,
    ...overrides,
  };
}

/** A client dump of one default authority holding `resources`, or of several authorities. */
function dumpOf(resources: DumpedResource[], more: AuthorityDump[] = [], clientScope = '#server'): XdsClientDump {
  const authority = (name: string, rs: DumpedResource[]): AuthorityDump => ({ authority: name, topLevel: name === '', activeServer: 'primary:1', servers: [], resources: rs });
  return { clientScope, node: { id: 'node-1', user_agent_name: 'failout', client_features: [] }, authorities: [authority('', resources), ...more] };
}

const only = (dump: XdsClientDump): GenericXdsConfig => buildClientStatusResponse([dump]).config[0]!.generic_xds_configs[0]!;

describe('buildClientStatusResponse', () => {
  it.each([
    ['requested', 'REQUESTED'],
    ['acked', 'ACKED'],
    ['nacked', 'NACKED'],
    ['doesNotExist', 'DOES_NOT_EXIST'],
  ] as const)('reports status %s as client_status %s', (status, clientStatus) => {
    expect(only(dumpOf([resource('c1', { status })])).client_status).toBe(clientStatus);
  });

  it('gives an ACKED resource its type, name, version, the Any as received and when it was updated', () => {
    // Prepare
    const r = resource('c1', { version: 'v7' });

    // Act
    const config = only(dumpOf([r]));

    // Assess
    expect(config).toEqual({
      type_url: CDS_TYPE_URL,
      name: 'c1',
      version_info: 'v7',
      xds_config: r.raw,
      last_updated: { seconds: 1_800_000_000, nanos: 123_000_000 },
      client_status: 'ACKED',
      error_state: null,
    });
  });

  it('keeps the accepted version and config of a NACKED resource and adds the rejected update (A40 example)', () => {
    // Prepare
    const r = resource('c1', { status: 'nacked', version: '1', error: 'NACKed c1 from primary:1: bad port', rejected: { version: '2', at: T0 + 1000 } });

    // Act
    const config = only(dumpOf([r]));

    // Assess
    expect(config).toMatchObject({ version_info: '1', xds_config: r.raw, client_status: 'NACKED' });
    expect(config.error_state).toEqual({ details: 'NACKed c1 from primary:1: bad port', version_info: '2', last_update_attempt: { seconds: 1_800_000_001, nanos: 123_000_000 } });
  });

  it('has no config or time for a resource not received yet', () => {
    expect(only(dumpOf([resource('c1', { status: 'requested', version: '', raw: undefined, lastUpdated: undefined })]))).toMatchObject({
      version_info: '',
      xds_config: null,
      last_updated: null,
      error_state: null,
    });
  });

  it('leaves every config out when asked to exclude resource contents', () => {
    const response = buildClientStatusResponse([dumpOf([resource('c1'), resource('c2')])], { excludeResourceContents: true });
    expect(response.config[0]!.generic_xds_configs.map((c) => c.xds_config)).toEqual([null, null]);
  });

  it('gives one ClientConfig per client, with its node and scope, and the resources of all its authorities', () => {
    // Prepare
    const federated: AuthorityDump = { authority: 'other', topLevel: false, activeServer: undefined, servers: [], resources: [resource('xdstp://other/envoy.config.cluster.v3.Cluster/c9')] };

    // Act
    const response = buildClientStatusResponse([dumpOf([resource('c1')], [federated], 'xds:///a'), dumpOf([], [], 'xds:///b')]);

    // Assess
    expect(response.config.map((c) => [c.client_scope, c.node?.id, c.generic_xds_configs.map((g) => g.name)])).toEqual([
      ['xds:///a', 'node-1', ['c1', 'xdstp://other/envoy.config.cluster.v3.Cluster/c9']],
      ['xds:///b', 'node-1', []],
    ]);
  });
});

describe('the two renderings of a ClientStatusResponse', () => {
  const response = buildClientStatusResponse([
    dumpOf([
      resource('c1', { version: 'v1' }),
      resource('c2', { status: 'nacked', error: 'NACKed c2: bad', rejected: { version: 'v2', at: T0 + 2000 } }),
      resource('l1', { typeUrl: LDS_TYPE_URL, status: 'requested', version: '', raw: undefined, lastUpdated: undefined }),
      resource('e1', { typeUrl: EDS_TYPE_URL, status: 'doesNotExist', version: '', raw: undefined, lastUpdated: T0 }),
    ]),
  ]);

  it('renders proto3 JSON: .proto field names, enum names, RFC 3339 times, Anys with @type, defaults left out', () => {
    // Act
    const json = clientStatusJson(response) as { config: Array<{ generic_xds_configs: unknown[]; node: unknown; client_scope: string }> };

    // Assess
    const [c1, c2, l1, e1] = json.config[0]!.generic_xds_configs;
    expect(c1).toEqual({
      type_url: CDS_TYPE_URL,
      name: 'c1',
      version_info: 'v1',
      xds_config: { '@type': CDS_TYPE_URL, name: 'c1', type: 'EDS', eds_cluster_config: { eds_config: { ads: {} }, service_name: 'c1-eds' } },
      last_updated: '2027-01-15T08:00:00.123Z',
      client_status: 'ACKED',
    });
    expect(c2).toMatchObject({ client_status: 'NACKED', error_state: { details: 'NACKed c2: bad', version_info: 'v2', last_update_attempt: '2027-01-15T08:00:02.123Z' } });
    expect(l1).toEqual({ type_url: LDS_TYPE_URL, name: 'l1', client_status: 'REQUESTED' });
    expect(e1).toEqual({ type_url: EDS_TYPE_URL, name: 'e1', last_updated: '2027-01-15T08:00:00.123Z', client_status: 'DOES_NOT_EXIST' });
    expect(json.config[0]).toMatchObject({ node: { id: 'node-1', user_agent_name: 'failout' }, client_scope: '#server' });
  });

  it('serializes for gRPC what envoy’s csds.proto decodes to the same statuses, versions, errors and resources', () => {
    // Prepare
    const serialize = csdsServiceDefinition().FetchClientStatus!.responseSerialize;
    const type = envoyProtoRoot().lookupType('envoy.service.status.v3.ClientStatusResponse');

    // Act
    const decoded = type.toObject(type.decode(serialize(response)), { enums: String, longs: String, defaults: true, json: true }) as DecodedClientStatusResponse;

    // Assess: field by field against the JSON rendering
    const json = clientStatusJson(response) as unknown as DecodedClientStatusResponse;
    const fields = (r: DecodedClientStatusResponse) =>
      r.config[0]!.generic_xds_configs.map((g) => [g.type_url, g.name, g.version_info ?? '', g.client_status, g.error_state?.details, g.error_state?.version_info]);
    expect(fields(decoded)).toEqual(fields(json));
    expect(decoded.config[0]!.generic_xds_configs[0]!.xds_config).toMatchObject({ '@type': CDS_TYPE_URL, name: 'c1', eds_cluster_config: { service_name: 'c1-eds' } });
    expect(decoded.config[0]).toMatchObject({ node: { id: 'node-1' }, client_scope: '#server' });
  });
});
