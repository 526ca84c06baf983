import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as protobuf from 'protobufjs';
import { ENVOY_CLIENT_DESCRIPTOR_JSON, ENVOY_CSDS_DESCRIPTOR_JSON, ENVOY_DESCRIPTOR_JSON } from '../../../lib/xds/envoy-descriptor';
import { decodeAnyForClient, enumName, packAny, unpackAny } from '../../../lib/xds/protos';
import { CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import { envoyProtoRoot } from '../../helpers/csds-client';
import { CLIENT_FIELDS, clientFieldsOf, CSDS_FIELDS, generateEnvoyDescriptors, renderDescriptorModule, SEED_TYPES, selectedFieldsOf } from '../../../scripts/xds-descriptor';

const rootFrom = (json: string): protobuf.Root => protobuf.Root.fromJSON(JSON.parse(json) as protobuf.INamespace);

describe('the generated envoy descriptors', () => {
  it('are what scripts/xds-descriptor.ts produces from the .proto files today (run `npm run protos` when this fails)', () => {
    const committed = readFileSync(join(__dirname, '..', '..', '..', 'lib', 'xds', 'envoy-descriptor.ts'), 'utf8');
    expect(committed).toBe(renderDescriptorModule(generateEnvoyDescriptors()));
  }, 30_000);

  it('resolve every field of every type they hold, so pruning left no dangling reference', () => {
    const full = rootFrom(ENVOY_DESCRIPTOR_JSON);
    const client = rootFrom(ENVOY_CLIENT_DESCRIPTOR_JSON);
    expect(() => full.resolveAll()).not.toThrow();
    expect(() => client.resolveAll()).not.toThrow();
    for (const name of SEED_TYPES) expect(full.lookupType(name).fullName).toBe(`.${name}`);
  });

  it('leave out of the full descriptor the types no seed reaches (those only options or Any refer to)', () => {
    const full = rootFrom(ENVOY_DESCRIPTOR_JSON);
    expect(full.lookup('envoy.service.status.v3.ClientStatusRequest')).toBeNull();
    expect(full.lookup('validate.FieldRules')).toBeNull();
    expect(full.lookup('google.protobuf.FieldOptions')).toBeNull();
  });

  it('keep the client fields of its types, and every other member of their oneofs, numbered as in the full descriptor', () => {
    const full = rootFrom(ENVOY_DESCRIPTOR_JSON);
    const client = rootFrom(ENVOY_CLIENT_DESCRIPTOR_JSON);
    const shape = (fields: protobuf.Field[]): string[] => fields.map((f) => `${f.name}=${f.id}:${f.type}:${f.repeated ? 'r' : ''}`).sort();
    for (const name of Object.keys(CLIENT_FIELDS)) {
      expect(shape(client.lookupType(name).fieldsArray)).toEqual(shape(clientFieldsOf(full.lookupType(name))));
    }
    const routeMatch = client.lookupType('envoy.config.route.v3.RouteMatch');
    expect(Object.keys(routeMatch.fields)).toEqual(expect.arrayContaining(['prefix', 'path', 'safe_regex', 'case_sensitive']));
    expect(routeMatch.fields.headers).toBeUndefined();
  });

  it('hold the CSDS messages (gRFC A40) in a descriptor of their own, with the CSDS fields numbered as in the .proto, and in neither of the others', () => {
    // Prepare
    const csds = rootFrom(ENVOY_CSDS_DESCRIPTOR_JSON);
    const full = rootFrom(ENVOY_DESCRIPTOR_JSON);
    const client = rootFrom(ENVOY_CLIENT_DESCRIPTOR_JSON);
    const shape = (fields: protobuf.Field[]): string[] => fields.map((f) => `${f.name}=${f.id}:${f.resolve().resolvedType?.fullName ?? f.type}:${f.repeated ? 'r' : ''}`).sort();

    // Act + Assess
    expect(() => csds.resolveAll()).not.toThrow();
    for (const name of Object.keys(CSDS_FIELDS)) {
      expect(shape(csds.lookupType(name).fieldsArray)).toEqual(shape(selectedFieldsOf(envoyProtoRoot().lookupType(name), CSDS_FIELDS)));
    }
    expect(Object.keys(csds.lookupType('envoy.service.status.v3.ClientConfig.GenericXdsConfig').fields)).toEqual(
      expect.arrayContaining(['type_url', 'name', 'version_info', 'xds_config', 'last_updated', 'client_status', 'error_state']),
    );
    expect(csds.lookupType('envoy.service.status.v3.ClientConfig').fields.xds_config).toBeUndefined(); // the deprecated PerXdsConfig
    expect(csds.lookupType('envoy.type.matcher.v3.NodeMatcher').fieldsArray).toEqual([]); // a stub: only its presence is read
    for (const other of [full, client]) expect(other.lookup('envoy.service.status.v3.ClientStatusResponse')).toBeNull();
  });

  it('make every other message type the client types refer to an empty stub', () => {
    const client = rootFrom(ENVOY_CLIENT_DESCRIPTOR_JSON);
    client.resolveAll();
    const stubs = Object.keys(CLIENT_FIELDS)
      .flatMap((name) => client.lookupType(name).fieldsArray)
      .map((f) => f.resolvedType)
      .filter((t): t is protobuf.Type => t instanceof protobuf.Type && !(t.fullName.slice(1) in CLIENT_FIELDS));
    expect(stubs.length).toBeGreaterThan(10);
    for (const stub of stubs) expect(stub.fieldsArray).toEqual([]);
  });
});

describe('decodeAnyForClient', () => {
  it('decodes the fields the validators read as unpackAny does, and skips the others', () => {
    const any = packAny(CDS_TYPE_URL, {
      name: 'c',
      type: 'EDS',
      lb_policy: 'LEAST_REQUEST',
      eds_cluster_config: { eds_config: { ads: {} }, service_name: 's' },
      lrs_server: { self: {} },
      connect_timeout: { seconds: 3 },
      transport_socket: { name: 'tls' },
    });
    const full = unpackAny(any);
    const client = decodeAnyForClient(any);
    for (const key of ['name', 'cluster_discovery_type']) expect(client[key]).toEqual(full[key]);
    for (const key of ['type', 'lb_policy']) expect(enumName(client, key)).toBe(full[key]);
    expect(client.eds_cluster_config).toMatchObject({ service_name: 's', eds_config: { config_source_specifier: 'ads', ads: {} } });
    expect(client.lrs_server).toMatchObject({ config_source_specifier: 'self', self: {} });
    expect(full.transport_socket).toMatchObject({ name: 'tls' });
    expect(client.transport_socket).toBeUndefined(); // not a field the client reads: skipped
    expect(client.lrs_server).not.toBeNull();
  });

  it('reads an unset enum as its zero value and an unknown one as its number', () => {
    const client = decodeAnyForClient(packAny(CDS_TYPE_URL, { name: 'c' }));
    expect(enumName(client, 'lb_policy')).toBe('ROUND_ROBIN');
    expect(enumName(client, 'type')).toBe('STATIC');
    expect(enumName({ $type: client.$type, type: 42 }, 'type')).toBe('42');
    expect(enumName(undefined, 'type')).toBe('');
  });
});
