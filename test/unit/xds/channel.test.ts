/**
 * XdsChannel: retry backoff, connectivity reporting, the probe cap, close by signal.
 */
import type { AdsCallListener } from '../../../lib/xds/ads-stream';
import { XdsChannel, retryDelayMs, type XdsChannelEventHandler, type XdsTransport } from '../../../lib/xds/channel';
import type { XdsError } from '../../../lib/xds/errors';
import { CDS_TYPE_URL, FakeAdsTransport, fakeTypes, server } from '../../helpers/xds-fakes';

describe('retryDelayMs', () => {
  it.each([
    [0, 0.5, 1000],
    [1, 0.5, 1600],
    [5, 0.5, 10_486],
    [20, 0.5, 120_000],
    [0, 0, 800],
    [0, 1, 1200],
    [20, 1, 120_000],
  ])('attempt %i with random %d waits %i ms (1 s × 1.6^n, ±20 %%, capped at 120 s)', (attempt, random, expected) => {
    expect(retryDelayMs(attempt, 120_000, () => random)).toBe(expected);
  });

  it('never exceeds a probe cap', () => {
    expect(retryDelayMs(10, 5000, () => 1)).toBe(5000);
  });
});

interface Fixture {
  channel: XdsChannel;
  transport: FakeAdsTransport;
  failures: XdsError[];
  closed: () => boolean;
  controller: AbortController;
}

function fixture(): Fixture {
  const transport = new FakeAdsTransport();
  let transportClosed = false;
  const failures: XdsError[] = [];
  const handler: XdsChannelEventHandler = {
    onConnectivityFailure: (e) => failures.push(e),
    onResponse: () => undefined,
    onResourceDoesNotExist: () => undefined,
    isResourceCached: () => false,
  };
  const controller = new AbortController();
  const fake: XdsTransport = {
    openAdsCall: (listener: AdsCallListener) => transport.factory(listener),
    isReady: () => true,
    onReady: () => undefined,
    close: () => {
      transportClosed = true;
    },
  };
  const channel = new XdsChannel({
    server: server('primary:1'),
    node: { id: 'n' },
    resourceTypes: fakeTypes(),
    handler,
    signal: controller.signal,
    transportFactory: () => fake,
    random: () => 0.5,
  });
  return { channel, transport, failures, closed: () => transportClosed, controller };
}

describe('XdsChannel', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports a stream failure before the first response as a connectivity failure and becomes failing', () => {
    const { channel, transport, failures } = fixture();
    transport.current.close(new Error('refused'));
    expect(channel.state).toBe('failing');
    expect(failures).toHaveLength(1);
    expect(channel.lastError?.kind).toBe('connection');
    channel.close();
  });

  it('does not report a close after a response, and is ready after a response', () => {
    const { channel, transport, failures } = fixture();
    transport.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n', resources: [] });
    expect(channel.state).toBe('ready');
    transport.current.close(undefined);
    expect(failures).toEqual([]);
    expect(channel.state).toBe('connecting');
    channel.close();
  });

  it('retries a failing server within the probe cap once it is set', () => {
    const { channel, transport } = fixture();
    for (let i = 0; i < 9; i++) {
      transport.current.close(new Error('refused'));
      jest.advanceTimersByTime(120_000);
    }
    transport.current.close(new Error('refused'));
    const calls = transport.calls.length;
    channel.setRetryCapMs(5000);
    jest.advanceTimersByTime(5000);
    expect(transport.calls).toHaveLength(calls + 1);
    channel.close();
  });

  it('closes stream and transport when the signal aborts', () => {
    const { channel, transport, closed, controller } = fixture();
    controller.abort();
    expect(channel.state).toBe('closed');
    expect(transport.current.cancelled).toBe(true);
    expect(closed()).toBe(true);
  });
});
