/**
 * Proto3 JSON of envoy messages (what `/config_dump` prints): the well-known types in their own
 * forms, 64-bit integers as strings, defaults left out, and an Any nobody can decode shown as it is.
 */
import * as protobuf from 'protobufjs/light';
import { toProtoJson } from '../../../lib/xds/proto-json';
import { loadXdsProtos, packAny, type AnyMessage } from '../../../lib/xds/protos';
import { buildListener, CDS_TYPE_URL } from '../../../lib/xds/resource-types';
import { messageNameOf } from '../../../lib/xds/resource-types/type-urls';

const root = (): protobuf.Root => loadXdsProtos().resourceRoot;
const resolve = (typeUrl: string): protobuf.Type | undefined => {
  const found = root().lookup(messageNameOf(typeUrl));
  return found instanceof protobuf.Type ? found : undefined;
};

/** The JSON of the message packed in `any`. */
function jsonOf(any: AnyMessage): Record<string, unknown> {
  const type = resolve(any.type_url)!;
  return toProtoJson(type, type.decode(any.value), resolve);
}

describe('toProtoJson', () => {
  it('prints Duration as seconds with 0, 3, 6 or 9 fractional digits, and wrappers as their value', () => {
    // Prepare
    const any = packAny(CDS_TYPE_URL, {
      name: 'c',
      connect_timeout: { seconds: 1, nanos: 500_000_000 },
      cleanup_interval: { seconds: 2 },
      dns_refresh_rate: { seconds: 0, nanos: 1_500 },
      per_connection_buffer_limit_bytes: { value: 5 },
    });

    // Act
    const json = jsonOf(any);

    // Assess
    expect(json).toMatchObject({ connect_timeout: '1.500s', cleanup_interval: '2s', dns_refresh_rate: '0.000001500s', per_connection_buffer_limit_bytes: 5 });
  });

  it('prints Struct, Value and ListValue as plain JSON', () => {
    // Prepare: google.protobuf.Value's fields are camelCase in protobufjs's built-in struct.proto
    const any = packAny(CDS_TYPE_URL, {
      name: 'c',
      metadata: {
        filter_metadata: {
          'com.example': { fields: { s: { stringValue: 'x' }, n: { numberValue: 2.5 }, b: { boolValue: true }, z: { nullValue: 'NULL_VALUE' }, l: { listValue: { values: [{ numberValue: 1 }, { structValue: { fields: { k: { stringValue: 'v' } } } }] } } } },
        },
      },
    });

    // Act
    const json = jsonOf(any);

    // Assess
    expect(json.metadata).toEqual({ filter_metadata: { 'com.example': { s: 'x', n: 2.5, b: true, z: null, l: [1, { k: 'v' }] } } });
  });

  it('prints enums by name, leaves fields at their default out, and prints a set oneof member even at its default', () => {
    // Act
    const json = jsonOf(packAny(CDS_TYPE_URL, { name: 'c', type: 'STATIC', lb_policy: 'ROUND_ROBIN', respect_dns_ttl: false }));

    // Assess
    expect(json).toEqual({ name: 'c', type: 'STATIC' });
  });

  it('prints 64-bit integers as strings', () => {
    // Prepare
    const any = packAny('type.googleapis.com/envoy.config.endpoint.v3.ClusterStats', { cluster_name: 'c', total_dropped_requests: '9007199254740993' });

    // Act + Assess
    expect(jsonOf(any)).toEqual({ cluster_name: 'c', total_dropped_requests: '9007199254740993' });
  });

  it('expands nested Anys with @type, and shows one of an unknown type as the Any itself, bytes in base64', () => {
    // Prepare
    const listener = buildListener('l1', { routeConfigName: 'r1' });
    const unknownFilter = { type_url: 'type.googleapis.com/example.Unknown', value: Buffer.from([1, 2, 3]) };
    const hcm = packAny('type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager', {
      rds: { config_source: { ads: {} }, route_config_name: 'r1' },
      http_filters: [{ name: 'x', typed_config: unknownFilter }],
    });
    const withUnknown = packAny(listener.type_url, { name: 'l2', api_listener: { api_listener: hcm } });

    // Act
    const json = jsonOf(listener) as { api_listener: { api_listener: Record<string, unknown> } };
    const unknown = jsonOf(withUnknown) as { api_listener: { api_listener: { http_filters: unknown[] } } };

    // Assess
    expect(json.api_listener.api_listener).toMatchObject({
      '@type': 'type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
      rds: { route_config_name: 'r1' },
    });
    expect(unknown.api_listener.api_listener.http_filters).toEqual([{ name: 'x', typed_config: { type_url: 'type.googleapis.com/example.Unknown', value: 'AQID' } }]);
  });

  it('puts a well-known type packed in an Any under "value"', () => {
    // Prepare
    const any = packAny('type.googleapis.com/envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager', {
      http_filters: [{ name: 'd', typed_config: packAny('type.googleapis.com/google.protobuf.Duration', { seconds: 3 }) }],
    });

    // Act + Assess
    expect(jsonOf(any)).toEqual({ http_filters: [{ name: 'd', typed_config: { '@type': 'type.googleapis.com/google.protobuf.Duration', value: '3s' } }] });
  });
});
