/**
 * Fakes for the lib/xds client core: JSON-encoded resource types, a recording watcher, a fake
 * channel pool (for authority tests) and a fake ADS call factory (for stream tests).
 */
import type { AdsResponseEvent, AdsCall, AdsCallListener } from '../../lib/xds/ads-stream';
import { Authority, type ChannelLease, type ChannelPool, type ServerSwitchEvent } from '../../lib/xds/authority';
import type { XdsServerConfig } from '../../lib/xds/bootstrap';
import type { XdsChannelEventHandler, XdsChannelState } from '../../lib/xds/channel';
import { XdsError } from '../../lib/xds/errors';
import type { AnyMessage, DeltaDiscoveryRequest, DeltaDiscoveryResponse, DiscoveryRequest, DiscoveryResponse } from '../../lib/xds/protos';
import type { AnyResourceType } from '../../lib/xds/resource-state';
import { CDS_TYPE_URL, EDS_TYPE_URL, LDS_TYPE_URL, RDS_TYPE_URL, kindOfTypeUrl, type XdsTypeUrl } from '../../lib/xds/resource-types/type-urls';
import type { XdsWatcher } from '../../lib/xds/watcher';

export { CDS_TYPE_URL, EDS_TYPE_URL, LDS_TYPE_URL, RDS_TYPE_URL };

/** A resource type whose Any value is JSON `{name, value, invalid?}`. */
export function fakeType(typeUrl: XdsTypeUrl): AnyResourceType {
  return {
    kind: kindOfTypeUrl(typeUrl) as NonNullable<ReturnType<typeof kindOfTypeUrl>>,
    typeUrl,
    allResourcesRequiredInSotW: typeUrl === LDS_TYPE_URL || typeUrl === CDS_TYPE_URL,
    decode(any) {
      const obj = JSON.parse(Buffer.from(any.value).toString()) as { name: string; value: unknown; invalid?: string };
      if (obj.invalid) return { ok: false, name: obj.name, error: new XdsError('validation', obj.invalid) };
      return { ok: true, name: obj.name, value: obj.value };
    },
    isEqual: (a, b) => JSON.stringify(a) === JSON.stringify(b),
  };
}

/** All four fake types by URL. */
export function fakeTypes(): Map<string, AnyResourceType> {
  return new Map([LDS_TYPE_URL, RDS_TYPE_URL, CDS_TYPE_URL, EDS_TYPE_URL].map((u) => [u, fakeType(u)]));
}

/** An Any for {@link fakeType}. */
export function fakeAny(typeUrl: string, name: string, value: unknown, invalid?: string): AnyMessage {
  return { type_url: typeUrl, value: Buffer.from(JSON.stringify({ name, value, invalid })) };
}

/** A server config as the bootstrap would produce it. */
export function server(uri: string, index = 0, ignoreResourceDeletion = false): XdsServerConfig {
  return {
    serverUri: uri,
    channelCreds: { type: 'insecure' },
    serverFeatures: ignoreResourceDeletion ? ['ignore_resource_deletion'] : [],
    ignoreResourceDeletion,
    key: uri,
    field: `xds_servers[${index}]`,
  };
}

/** What a recording watcher saw. */
export type WatchEvent =
  | { type: 'update'; value: unknown }
  | { type: 'doesNotExist' }
  | { type: 'error'; error: XdsError; ambient: boolean };

/** A watcher that records events and calls done() at once. */
export interface RecordingWatcher extends XdsWatcher {
  readonly events: WatchEvent[];
  /** Resolves with the next event not yet taken. */
  next(): Promise<WatchEvent>;
}

/** Creates a {@link RecordingWatcher}. */
export function recordingWatcher(): RecordingWatcher {
  const events: WatchEvent[] = [];
  let taken = 0;
  const waiters: Array<() => void> = [];
  const push = (event: WatchEvent, done: () => void): void => {
    events.push(event);
    waiters.splice(0).forEach((w) => w());
    done();
  };
  return {
    events,
    onUpdate: (value, done) => push({ type: 'update', value }, done),
    onResourceDoesNotExist: (done) => push({ type: 'doesNotExist' }, done),
    onError: (error, { ambient }, done) => push({ type: 'error', error, ambient }, done),
    async next() {
      while (events.length <= taken) await new Promise<void>((resolve) => waiters.push(resolve));
      return events[taken++] as WatchEvent;
    },
  };
}

/**
 * Lets queued setImmediate chains (watcher deliveries, flushes) run: a few immediate rounds first
 * (a busy loop may fire a timer before the check phase), then `ms` of wall time.
 */
export async function settle(ms = 20): Promise<void> {
  for (let i = 0; i < 10; i++) await new Promise((resolve) => setImmediate(resolve));
  await new Promise((resolve) => setTimeout(resolve, ms));
}

/** A fake channel lease driven by the test. */
export class FakeChannel implements ChannelLease {
  state: XdsChannelState = 'connecting';
  lastError: XdsError | undefined;
  readonly subscriptions = new Map<string, Set<string>>();
  released = false;
  capMs: number | undefined;

  constructor(
    readonly serverUri: string,
    readonly handler: XdsChannelEventHandler,
  ) {}

  names(typeUrl: string): string[] {
    return [...(this.subscriptions.get(typeUrl) ?? [])].sort();
  }
  subscribe(typeUrl: string, name: string): void {
    if (!this.subscriptions.has(typeUrl)) this.subscriptions.set(typeUrl, new Set());
    this.subscriptions.get(typeUrl)?.add(name);
  }
  unsubscribe(typeUrl: string, name: string): void {
    this.subscriptions.get(typeUrl)?.delete(name);
  }
  setRetryCapMs(capMs: number): void {
    this.capMs = capMs;
  }
  /** What the authority told this channel it holds from other servers: `name@version` (`name@-` for none), in order. */
  readonly heldElsewhere: string[] = [];
  heldFromOtherServer(_typeUrl: string, name: string, version: string | undefined): void {
    this.heldElsewhere.push(`${name}@${version ?? '-'}`);
  }
  /** Names the authority asked to await from this server (a SotW response left out a value another server sent), in order. */
  readonly awaited: string[] = [];
  awaitFromServer(_typeUrl: string, name: string): void {
    this.awaited.push(name);
  }
  version(): string {
    return '';
  }
  release(): void {
    this.released = true;
    this.state = 'closed';
  }

  /** A connectivity failure (stream failed before its first response). */
  fail(message = 'connection refused'): void {
    this.state = 'failing';
    this.lastError = new XdsError('connection', `${this.serverUri}: ${message}`, { serverUri: this.serverUri });
    this.handler.onConnectivityFailure(this.lastError);
  }

  /** A response with valid resources (`updates`) and invalid ones (`errors`). */
  respond(typeUrl: string, updates: Record<string, unknown>, options: { version?: string; errors?: Record<string, string> } = {}): void {
    this.state = 'ready';
    const errors = Object.entries(options.errors ?? {}).map(([name, message]) => ({ name, error: new XdsError('validation', message) }));
    const event: AdsResponseEvent = {
      typeUrl,
      version: options.version ?? '1',
      protocol: 'sotw',
      removed: [],
      updates: Object.entries(updates).map(([name, value]) => ({ name, value, raw: fakeAny(typeUrl, name, value) })),
      errors,
      names: new Set([...Object.keys(updates), ...Object.keys(options.errors ?? {})]),
    };
    this.handler.onResponse(event);
  }

  /** An incremental response: `updates` with their versions ('1' unless given) and the names the server `removed`. */
  respondDelta(typeUrl: string, updates: Record<string, unknown>, removed: string[] = [], options: { version?: string; errors?: Record<string, string> } = {}): void {
    this.state = 'ready';
    const event: AdsResponseEvent = {
      typeUrl,
      version: '',
      protocol: 'delta',
      removed,
      updates: Object.entries(updates).map(([name, value]) => ({ name, value, raw: fakeAny(typeUrl, name, value), version: options.version ?? '1' })),
      errors: Object.entries(options.errors ?? {}).map(([name, message]) => ({ name, error: new XdsError('validation', message), version: options.version ?? '1' })),
      names: new Set(Object.keys(updates)),
    };
    this.handler.onResponse(event);
  }

  expire(typeUrl: string, name: string): void {
    this.handler.onResourceDoesNotExist(typeUrl, name);
  }
}

/** A pool handing out {@link FakeChannel}s and remembering every acquisition. */
export class FakePool implements ChannelPool {
  readonly acquired: FakeChannel[] = [];

  acquire(server: XdsServerConfig, handler: XdsChannelEventHandler, signal: AbortSignal): ChannelLease {
    const channel = new FakeChannel(server.serverUri, handler);
    this.acquired.push(channel);
    signal.addEventListener('abort', () => channel.release(), { once: true });
    return channel;
  }

  /** The live (unreleased) channel of a server. */
  live(uri: string): FakeChannel {
    const channel = [...this.acquired].reverse().find((c) => c.serverUri === uri && !c.released);
    if (!channel) throw new Error(`no live channel to ${uri}; acquired: ${this.acquired.map((c) => c.serverUri).join(', ')}`);
    return channel;
  }

  /** URIs of unreleased channels. */
  liveUris(): string[] {
    return this.acquired.filter((c) => !c.released).map((c) => c.serverUri);
  }
}

/** A fake ADS transport: records calls and their requests. `C` is the protocol's fake call. */
class FakeCalls<L, C> {
  readonly calls: C[] = [];
  ready = true;

  constructor(private readonly open: (listener: L) => C) {}

  get current(): C {
    const call = this.calls[this.calls.length - 1];
    if (!call) throw new Error('no call');
    return call;
  }

  protected record(listener: L): C {
    const call = this.open(listener);
    this.calls.push(call);
    return call;
  }
}

/** A fake SotW ADS transport: records calls and their requests. */
export class FakeAdsTransport extends FakeCalls<AdsCallListener, FakeAdsCall> {
  readonly factory = (listener: AdsCallListener): AdsCall => this.record(listener);
  constructor() {
    super((listener: AdsCallListener) => new FakeAdsCall(listener));
  }
}

/** A fake incremental ADS transport: records calls and their requests. */
export class FakeDeltaAdsTransport extends FakeCalls<AdsCallListener<DeltaDiscoveryResponse>, FakeDeltaAdsCall> {
  readonly factory = (listener: AdsCallListener<DeltaDiscoveryResponse>): AdsCall<DeltaDiscoveryRequest> => this.record(listener);
  constructor() {
    super((listener: AdsCallListener<DeltaDiscoveryResponse>) => new FakeDeltaAdsCall(listener));
  }
}

/** One fake call of either protocol: records what was written (copies), and closes on demand. */
class RecordingCall<Req extends { type_url: string }, Res> implements AdsCall<Req> {
  readonly requests: Req[] = [];
  cancelled = false;
  constructor(protected readonly listener: AdsCallListener<Res>) {}
  write(request: Req): void {
    this.requests.push(structuredClone(request));
  }
  cancel(): void {
    this.cancelled = true;
  }
  close(error?: Error): void {
    this.listener.onClose(error);
  }
  /** Requests of one type. */
  requestsFor(typeUrl: string): Req[] {
    return this.requests.filter((r) => r.type_url === typeUrl);
  }
}

/** One fake SotW call. */
export class FakeAdsCall extends RecordingCall<DiscoveryRequest, DiscoveryResponse> {
  respond(response: Partial<DiscoveryResponse> & { type_url: string; resources: AnyMessage[] }): void {
    this.listener.onMessage({ version_info: '', nonce: '', ...response });
  }
}

/** One fake incremental call. */
export class FakeDeltaAdsCall extends RecordingCall<DeltaDiscoveryRequest, DeltaDiscoveryResponse> {
  /** A response; resources are `[name, version, value, invalid?]` of {@link fakeAny}, named in their `Resource`. */
  respond(response: { type_url: string; nonce: string; resources?: ReadonlyArray<readonly [string, string, unknown, string?]>; removed?: string[]; system_version_info?: string }): void {
    this.listener.onMessage({
      type_url: response.type_url,
      nonce: response.nonce,
      system_version_info: response.system_version_info ?? '',
      resources: (response.resources ?? []).map(([name, version, value, invalid]) => ({ name, version, resource: fakeAny(response.type_url, name, value, invalid) })),
      removed_resources: response.removed ?? [],
    });
  }
}

/** An Authority over fake channels for `uris` (priority order), recording its server switches. */
export function fakeAuthority(uris: readonly string[], name = ''): { authority: Authority; pool: FakePool; switches: ServerSwitchEvent[] } {
  const pool = new FakePool();
  const switches: ServerSwitchEvent[] = [];
  const authority = new Authority({
    name,
    servers: uris.map((u, i) => server(u, i)),
    pool,
    resourceTypes: fakeTypes(),
    onServerSwitch: (e) => switches.push(e),
  });
  return { authority, pool, switches };
}
