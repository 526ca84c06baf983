/**
 * The reconnect policy (issue 15): gRPC's connection backoff (1 s, ×1.6, ±20 %, 120 s cap,
 * connection-backoff.md) for every server, except a higher-priority server while its authority is
 * served by a lower one (gRFC A71 fallback), which is probed with backoff capped at
 * `fallbackProbeCapMs`. Both the stream's retry delays and the transport's own reconnect cap (the cap a
 * transport is built with) are observed, with fake timers and fake transports.
 */
import type { AdsCallListener } from '../../../lib/xds/ads-stream';
import { parseBootstrap } from '../../../lib/xds/bootstrap';
import { RETRY_CAP_MS, XdsChannel, type XdsChannelEventHandler, type XdsTransport, type XdsTransportFactory } from '../../../lib/xds/channel';
import { createXdsClient, type XdsClient } from '../../../lib/xds/client';
import { CDS_TYPE_URL, FakeAdsTransport, fakeAny, fakeTypes, recordingWatcher, server, type FakeAdsCall } from '../../helpers/xds-fakes';

const PROBE_CAP_MS = 5000;

/** One transport a channel built: the reconnect cap it got, its calls, and a READY switch. */
interface BuiltTransport {
  readonly serverUri: string;
  readonly capMs: number;
  readonly fake: FakeAdsTransport;
  ready: boolean;
  closed: boolean;
}

/** A transport factory that records every transport built (not READY until the test says so). */
function recordingFactory(): { factory: XdsTransportFactory; built: BuiltTransport[] } {
  const built: BuiltTransport[] = [];
  const factory: XdsTransportFactory = (config, capMs): XdsTransport => {
    const entry: BuiltTransport = { serverUri: config.serverUri, capMs, fake: new FakeAdsTransport(), ready: false, closed: false };
    built.push(entry);
    return {
      openAdsCall: (listener: AdsCallListener) => entry.fake.factory(listener),
      isReady: () => entry.ready,
      onReady: () => undefined,
      close: () => {
        entry.closed = true;
      },
    };
  };
  return { factory, built };
}

/** The calls opened on a server so far, over all its transports. */
function callsTo(built: readonly BuiltTransport[], uri: string): FakeAdsCall[] {
  return built.filter((b) => b.serverUri === uri).flatMap((b) => b.fake.calls);
}

/**
 * Fails the server's current call before any response and returns how long the channel waits
 * (fake time) before it opens the next call.
 */
function failAndMeasureRetry(built: readonly BuiltTransport[], uri: string): number {
  const calls = callsTo(built, uri);
  const before = calls.length;
  calls.at(-1)?.close(new Error('connection refused'));
  const start = Date.now();
  for (let i = 0; i < 100 && callsTo(built, uri).length === before; i++) jest.advanceTimersToNextTimer();
  if (callsTo(built, uri).length === before) throw new Error(`no retry to ${uri}`);
  return Date.now() - start;
}

/** gRPC connection backoff without jitter (random() = 0.5): 1 s × 1.6^n, capped. */
const nominal = (attempt: number, capMs: number): number => Math.round(Math.min(capMs, 1000 * 1.6 ** attempt));

const handler: XdsChannelEventHandler = {
  onConnectivityFailure: () => undefined,
  onResponse: () => undefined,
  onResourceDoesNotExist: () => undefined,
  isResourceCached: () => false,
};

describe('XdsChannel reconnect policy', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function channelFixture(): { channel: XdsChannel; built: BuiltTransport[] } {
    const { factory, built } = recordingFactory();
    const channel = new XdsChannel({
      server: server('primary:1'),
      node: { id: 'n' },
      resourceTypes: fakeTypes(),
      handler,
      transportFactory: factory,
      random: () => 0.5,
    });
    return { channel, built };
  }

  it("outside fallback, backs off 1 s × 1.6 up to 120 s, and builds its transport with gRPC's 120 s reconnect cap", () => {
    const { channel, built } = channelFixture();

    const delays = Array.from({ length: 14 }, () => failAndMeasureRetry(built, 'primary:1'));

    expect(delays).toEqual(Array.from({ length: 14 }, (_, n) => nominal(n, RETRY_CAP_MS)));
    expect(delays.at(-1)).toBe(RETRY_CAP_MS);
    expect(built.map((b) => b.capMs)).toEqual([RETRY_CAP_MS]);
    channel.close();
  });

  it('in fallback, probes at most every fallbackProbeCapMs, on a transport rebuilt with that reconnect cap', () => {
    const { channel, built } = channelFixture();
    for (let i = 0; i < 12; i++) failAndMeasureRetry(built, 'primary:1');
    callsTo(built, 'primary:1').at(-1)?.close(new Error('connection refused')); // now waiting 120 s

    channel.setRetryCapMs(PROBE_CAP_MS);
    const start = Date.now();
    jest.advanceTimersByTime(PROBE_CAP_MS);
    const delays = Array.from({ length: 5 }, () => failAndMeasureRetry(built, 'primary:1'));

    expect(callsTo(built, 'primary:1')).toHaveLength(13 + 1 + 5);
    expect(Date.now() - start).toBe(PROBE_CAP_MS * 6);
    expect(delays).toEqual([PROBE_CAP_MS, PROBE_CAP_MS, PROBE_CAP_MS, PROBE_CAP_MS, PROBE_CAP_MS]);
    expect(built.map((b) => ({ capMs: b.capMs, closed: b.closed }))).toEqual([
      { capMs: RETRY_CAP_MS, closed: true },
      { capMs: PROBE_CAP_MS, closed: false },
    ]);
    channel.close();
  });

  it('after the return, keeps a READY transport, and rebuilds it with the 120 s cap once its connection breaks', () => {
    const { channel, built } = channelFixture();
    channel.setRetryCapMs(PROBE_CAP_MS);
    failAndMeasureRetry(built, 'primary:1');
    const probing = built[1];
    if (!probing) throw new Error('expected a transport rebuilt with the probe cap');
    probing.ready = true;
    probing.fake.current.respond({ type_url: CDS_TYPE_URL, nonce: 'n1', resources: [] });
    channel.setRetryCapMs(RETRY_CAP_MS); // the authority returned to this server

    probing.fake.current.close(undefined); // e.g. max connection age: a close after a response
    jest.advanceTimersByTime(0);
    expect(built).toHaveLength(2);
    expect(probing.fake.calls).toHaveLength(2);

    probing.ready = false; // the connection broke
    const delay = failAndMeasureRetry(built, 'primary:1');

    expect(delay).toBe(nominal(0, RETRY_CAP_MS));
    expect(built.map((b) => b.capMs)).toEqual([RETRY_CAP_MS, PROBE_CAP_MS, RETRY_CAP_MS]);
    expect(probing.closed).toBe(true);
    channel.close();
  });
});

describe('XdsClient reconnect policy', () => {
  let client: XdsClient | undefined;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => {
    client?.close();
    client = undefined;
    jest.useRealTimers();
  });

  const insecure = [{ type: 'insecure' }];
  function clientFixture(uris: readonly string[]): BuiltTransport[] {
    const { factory, built } = recordingFactory();
    client = createXdsClient({
      bootstrap: parseBootstrap({ xds_servers: uris.map((u) => ({ server_uri: u, channel_creds: insecure })), node: { id: 'n1' } }, {}),
      resourceTypes: fakeTypes(),
      fallbackProbeCapMs: PROBE_CAP_MS,
      transportFactory: factory,
    });
    return built;
  }

  it('retries a lone dead server less and less often, up to every 120 s, never at the probe cap', () => {
    const built = clientFixture(['primary:1']);
    client?.watch('cluster', 'c1', recordingWatcher());

    const delays = Array.from({ length: 14 }, () => failAndMeasureRetry(built, 'primary:1'));

    expect(delays.every((d, n) => Math.abs(d - nominal(n, RETRY_CAP_MS)) <= 0.2 * nominal(n, RETRY_CAP_MS))).toBe(true);
    expect(delays.slice(-3).every((d) => d > PROBE_CAP_MS * 10)).toBe(true);
    expect(built.map((b) => b.capMs)).toEqual([RETRY_CAP_MS]);
  });

  it('probes the primary at the probe cap only while the secondary serves, then goes back to 120 s', () => {
    const built = clientFixture(['primary:1', 'secondary:2']);
    client?.watch('cluster', 'c1', recordingWatcher());
    jest.advanceTimersByTime(0);

    const probeDelays = Array.from({ length: 8 }, () => failAndMeasureRetry(built, 'primary:1'));

    expect(probeDelays.every((d) => d <= PROBE_CAP_MS)).toBe(true);
    expect(built.map((b) => [b.serverUri, b.capMs])).toEqual([
      ['primary:1', RETRY_CAP_MS],
      ['secondary:2', RETRY_CAP_MS],
      ['primary:1', PROBE_CAP_MS],
    ]);

    const primary = built[2];
    if (!primary) throw new Error('expected the probing transport');
    primary.ready = true;
    primary.fake.current.respond({ type_url: CDS_TYPE_URL, version_info: '1', nonce: 'n', resources: [fakeAny(CDS_TYPE_URL, 'c1', 'v')] });
    expect(client?.dump().authorities[0]?.activeServer).toBe('primary:1');
    primary.ready = false; // the returned primary dies again; nothing is uncached, so no fallback
    primary.fake.current.close(new Error('connection reset'));
    const delays = Array.from({ length: 14 }, () => failAndMeasureRetry(built, 'primary:1'));

    expect(delays.slice(-3).every((d) => d > PROBE_CAP_MS * 10)).toBe(true);
    expect(built.filter((b) => b.serverUri === 'primary:1').map((b) => b.capMs)).toEqual([RETRY_CAP_MS, PROBE_CAP_MS, RETRY_CAP_MS]);
  });
});
