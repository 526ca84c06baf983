/**
 * XdsChannel and the server feature `failout_delta_ads`: a server that lists it gets
 * `DeltaAggregatedResources` calls (responses reported with protocol 'delta', versions per type for
 * dumps), every other server keeps SotW, and a transport without incremental calls is refused for it.
 */
import type { AdsResponseEvent } from '../../../lib/xds/ads-stream';
import { XdsChannel, type XdsChannelEventHandler, type XdsTransport } from '../../../lib/xds/channel';
import { CDS_TYPE_URL, FakeAdsTransport, FakeDeltaAdsTransport, fakeTypes, server } from '../../helpers/xds-fakes';

function deltaServer(uri: string): ReturnType<typeof server> {
  const base = server(uri);
  return { ...base, serverFeatures: ['failout_delta_ads'] };
}

function fixture(config: ReturnType<typeof server>): { channel: XdsChannel; sotw: FakeAdsTransport; delta: FakeDeltaAdsTransport; responses: AdsResponseEvent[] } {
  const sotw = new FakeAdsTransport();
  const delta = new FakeDeltaAdsTransport();
  const responses: AdsResponseEvent[] = [];
  const handler: XdsChannelEventHandler = {
    onConnectivityFailure: () => undefined,
    onResponse: (event) => responses.push(event),
    onResourceDoesNotExist: () => undefined,
    isResourceCached: () => false,
  };
  const transport: XdsTransport = {
    openAdsCall: (listener) => sotw.factory(listener),
    openDeltaAdsCall: (listener) => delta.factory(listener),
    isReady: () => true,
    onReady: () => undefined,
    close: () => undefined,
  };
  const channel = new XdsChannel({ server: config, node: { id: 'n' }, resourceTypes: fakeTypes(), handler, transportFactory: () => transport });
  return { channel, sotw, delta, responses };
}

describe('XdsChannel with failout_delta_ads', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('opens DeltaAggregatedResources calls to a server that lists the feature, and reports its responses as delta', () => {
    // Prepare
    const { channel, sotw, delta, responses } = fixture(deltaServer('observer:1'));

    // Act
    channel.subscribe(CDS_TYPE_URL, 'c1');
    jest.advanceTimersByTime(0);
    delta.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', system_version_info: 's1', resources: [['c1', 'v1', 1]] });

    // Assess
    expect(sotw.calls).toHaveLength(0);
    expect(delta.current.requests[0]).toMatchObject({ type_url: CDS_TYPE_URL, resource_names_subscribe: ['c1'] });
    expect(responses.map((r) => r.protocol)).toEqual(['delta']);
    expect(channel.state).toBe('ready');
    expect(channel.version(CDS_TYPE_URL)).toBe('s1');
    channel.close();
  });

  it('keeps SotW for a server without the feature', () => {
    // Prepare
    const { channel, sotw, delta } = fixture(server('control-plane:1'));

    // Act
    channel.subscribe(CDS_TYPE_URL, 'c1');
    jest.advanceTimersByTime(0);

    // Assess
    expect(delta.calls).toHaveLength(0);
    expect(sotw.current.requests[0]).toMatchObject({ type_url: CDS_TYPE_URL, resource_names: ['c1'] });
    channel.close();
  });

  it('refuses a transport that cannot open incremental calls for a server that lists the feature', () => {
    // Prepare
    const transport: XdsTransport = { openAdsCall: new FakeAdsTransport().factory, isReady: () => true, onReady: () => undefined, close: () => undefined };
    const handler: XdsChannelEventHandler = { onConnectivityFailure: () => undefined, onResponse: () => undefined, onResourceDoesNotExist: () => undefined, isResourceCached: () => false };

    // Act
    const build = (): XdsChannel => new XdsChannel({ server: deltaServer('observer:1'), node: { id: 'n' }, resourceTypes: fakeTypes(), handler, transportFactory: () => transport });

    // Assess
    expect(build).toThrow(/failout_delta_ads/);
  });
});
