/**
 * `encodeDeltaDiscoveryResponse`: a response built from `Resource` wrappers already encoded (a
 * server's cache) decodes, through the ADS service's own deserializer, as envoy's
 * `DeltaDiscoveryResponse` with each resource's name, version and resource; anything but a wrapper
 * is refused.
 */
import { XdsError } from '../../../lib/xds';
import { encodeDeltaDiscoveryResponse, loadXdsProtos, packAny, wrapResource, type DeltaDiscoveryResponse } from '../../../lib/xds/envoy-protos';

const D2_NODE = 'type.googleapis.com/indis.D2Node';

describe('encodeDeltaDiscoveryResponse', () => {
  it('writes each wrapped resource with its version beside the removed names and the nonce', () => {
    // Prepare
    const node = (v: string) => packAny(D2_NODE, { stat: { Mzxid: v } });
    const a = node('7');
    const b = node('9');
    const decode = (bytes: Buffer): DeltaDiscoveryResponse => loadXdsProtos().adsService.DeltaAggregatedResources!.responseDeserialize(bytes) as DeltaDiscoveryResponse;

    // Act
    const bytes = encodeDeltaDiscoveryResponse({
      system_version_info: '3',
      type_url: D2_NODE,
      nonce: '3',
      removed_resources: ['/d2/clusters/gone'],
      resources: [
        { wrapped: wrapResource(a, '/d2/clusters/a'), version: '7' },
        { wrapped: wrapResource(b, '/d2/clusters/b'), version: '9' },
      ],
    });

    // Assess
    const decoded = decode(bytes);
    expect(decoded).toMatchObject({ system_version_info: '3', type_url: D2_NODE, nonce: '3', removed_resources: ['/d2/clusters/gone'] });
    expect(decoded.resources.map((r) => [r.name, r.version, r.resource.type_url, Buffer.from(r.resource.value).equals(Buffer.from(r.name.endsWith('a') ? a.value : b.value))])).toEqual([
      ['/d2/clusters/a', '7', D2_NODE, true],
      ['/d2/clusters/b', '9', D2_NODE, true],
    ]);
  });

  it('refuses a resource that is not in a Resource wrapper', () => {
    // Prepare
    const bare = packAny(D2_NODE, { stat: { Mzxid: '7' } });

    // Act
    const encode = (): Buffer => encodeDeltaDiscoveryResponse({ system_version_info: '', type_url: D2_NODE, nonce: '1', removed_resources: [], resources: [{ wrapped: bare, version: '7' }] });

    // Assess
    expect(encode).toThrow(XdsError);
  });
});
