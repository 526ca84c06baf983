/**
 * Type lookups of lib/xds/protos: a type found once is kept, for the full root and the client's alike;
 * a type URL nobody knows is refused every time it comes, and is not kept.
 */
import { decodeAnyForClient, packAny, unpackAny, unwrapResource } from '../../../lib/xds/protos';
import { XdsError } from '../../../lib/xds';

const D2_NODE = 'type.googleapis.com/indis.D2Node';
const RESOURCE = 'type.googleapis.com/envoy.service.discovery.v3.Resource';

describe('protos type lookups', () => {
  it('decodes the same message the same way on every call, through both roots', () => {
    // Prepare
    const inner = packAny(D2_NODE, { stat: { Mzxid: '7' }, data: { fields: { clusterName: { stringValue: 'greetings-lor1' } } } });
    const wrapper = packAny(RESOURCE, { name: '/d2/clusters/greetings-lor1', resource: inner });

    // Act
    const first = [unwrapResource(wrapper), unpackAny(inner), decodeAnyForClient(inner)];
    const again = [unwrapResource(wrapper), unpackAny(inner), decodeAnyForClient(inner)];

    // Assess
    expect(first[0]).toEqual({ name: '/d2/clusters/greetings-lor1', any: expect.objectContaining({ type_url: D2_NODE }) as unknown });
    expect(again).toEqual(first);
    expect(JSON.stringify((first[1] as { data: unknown }).data)).toContain('greetings-lor1');
  });

  it('refuses a type URL it does not know, each time, as resourceTypeUnsupported', () => {
    // Prepare
    const unknown = { type_url: 'type.googleapis.com/example.Nope', value: Buffer.alloc(0) };

    // Act
    const errors = [0, 1].map(() => {
      try {
        unpackAny(unknown);
        return undefined;
      } catch (e) {
        return e;
      }
    });

    // Assess
    for (const e of errors) {
      expect(e).toBeInstanceOf(XdsError);
      expect((e as XdsError).kind).toBe('resourceTypeUnsupported');
    }
  });
});
