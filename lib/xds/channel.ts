/**
 * One xDS server: its gRPC channel and its ADS stream (grpc-go `channel.go`).
 *
 * Reconnect policy. Two backoffs act on a server: the stream's retry after a call failed without a
 * response (gRFC A57), and the transport's own reconnect (grpc-js subchannel; pick_first keeps
 * reconnecting while in TRANSIENT_FAILURE, gRFC A62). Both follow ONE cap, the channel's retry cap:
 * - gRPC's connection backoff (connection-backoff.md: 1 s, ×1.6, ±20 %, capped at {@link RETRY_CAP_MS}
 *   = 120 s) by default, so a dead server alone is tried less and less often, as in grpc-go;
 * - the authority's `fallbackProbeCapMs` (default 5 s) only while the server is above the active one of
 *   an authority in fallback (A71), so that the return to it is prompt (grpc-go: up to ~144 s).
 * grpc-js fixes its reconnect backoff when a channel is built, so the transport is rebuilt with the
 * current cap before a call when its cap differs and it is not READY (a live connection is kept: its
 * backoff only matters once it breaks, and the call after that rebuilds it).
 *
 * Protocol: incremental ADS (`DeltaAggregatedResources`, `delta-ads-stream.ts`) when the server's
 * bootstrap entry lists `failout_delta_ads`, SotW otherwise; the authority above sees the same events.
 *
 * The channel reports to ONE {@link XdsChannelEventHandler}; sharing across authorities is the job
 * of the pool in client.ts (leases, see {@link ChannelLease}).
 *
 * Concurrency: event-loop only. `server`, `options` are fixed after construction; `stateValue`,
 * `capMs`, `lastErrorValue` change only in the stream's callbacks and in `setRetryCapMs`/`close`;
 * `transport` and `transportCapMs` only when a call is opened and in `close`.
 */
import * as grpc from '@grpc/grpc-js';
import { AdsStream, type AdsCall, type AdsCallListener, type AdsResponseEvent, type AdsStreamEventHandler } from './ads-stream';
import type { AdsStreamBaseOptions } from './ads-stream-base';
import { channelCredentials, DELTA_ADS_SERVER_FEATURE, speaksDeltaAds, type XdsServerConfig } from './bootstrap';
import { DeltaAdsStream } from './delta-ads-stream';
import type { XdsError } from './errors';
import { loadXdsProtos, type DeltaDiscoveryRequest, type DeltaDiscoveryResponse, type NodeMessage } from './protos';
import type { AnyResourceType } from './resource-state';
import type { Lifecycle } from '../lifecycle';

/** Base retry delay (gRFC A57; grpc-go backoff.go). */
export const RETRY_BASE_MS = 1000;
/** Multiplier per failed attempt. */
export const RETRY_MULTIPLIER = 1.6;
/** ± jitter fraction. */
export const RETRY_JITTER = 0.2;
/** Normal cap of the retry delay and of the transport's reconnect backoff (gRPC connection-backoff.md). */
export const RETRY_CAP_MS = 120_000;

/**
 * Connectivity of a channel as the authority sees it:
 * - `connecting`: no response on the current stream yet, and no failure since the last response;
 * - `ready`: a response arrived on the current stream;
 * - `failing`: a stream failed before its first response (gRFC A57 connectivity failure);
 * - `closed`.
 */
export type XdsChannelState = 'connecting' | 'ready' | 'failing' | 'closed';

/** How a channel reports to its owner (grpc-go `xdsChannelEventHandler`). */
export interface XdsChannelEventHandler {
  /** A connectivity failure (never a failure after a response). */
  onConnectivityFailure(error: XdsError): void;
  /** A decoded response (valid or NACKed). */
  onResponse(event: AdsResponseEvent): void;
  /** A does-not-exist timer fired on this channel. */
  onResourceDoesNotExist(typeUrl: string, name: string): void;
  /** True when the owner has the resource cached (no timer then). */
  isResourceCached(typeUrl: string, name: string): boolean;
}

/** The transport below a channel: grpc-js by default, a fake in unit tests. */
export interface XdsTransport {
  /** Opens a new `StreamAggregatedResources` call that reports to `listener`. */
  openAdsCall(listener: AdsCallListener): AdsCall;
  /**
   * Opens a new `DeltaAggregatedResources` call (incremental ADS), used for servers with
   * `failout_delta_ads`. A transport without it speaks SotW only; a channel refuses it for such a server.
   */
  openDeltaAdsCall?(listener: AdsCallListener<DeltaDiscoveryResponse>): AdsCall<DeltaDiscoveryRequest>;
  /** True while the underlying channel is READY (the does-not-exist timer starts only then). */
  isReady(): boolean;
  /** Calls `listener` each time the transport becomes READY, until `close`. */
  onReady(listener: () => void): void;
  /** Closes the underlying channel. */
  close(): void;
}

/**
 * Builds the transport of a server. `reconnectCapMs` caps the transport's own reconnect backoff: the
 * channel's retry cap at build time ({@link RETRY_CAP_MS}, or the probe cap during a fallback). A
 * channel builds a new transport when its cap changes (see the header).
 */
export type XdsTransportFactory = (server: XdsServerConfig, reconnectCapMs: number) => XdsTransport;

/** Options of {@link XdsChannel}. */
export interface XdsChannelOptions {
  readonly server: XdsServerConfig;
  /** Sent in the first request of each stream. */
  readonly node: NodeMessage;
  readonly resourceTypes: ReadonlyMap<string, AnyResourceType>;
  readonly handler: XdsChannelEventHandler;
  /** Aborting it closes the channel. */
  readonly signal?: AbortSignal;
  /** Does-not-exist timeout (default 15 s). */
  readonly watchExpiryMs?: number;
  /** Default: grpc-js. */
  readonly transportFactory?: XdsTransportFactory;
  /** Jitter source (tests); default Math.random. */
  readonly random?: () => number;
}

/** Delay before retry `attempt` (0-based): 1 s × 1.6^attempt, ±20 %, never above `capMs`. */
export function retryDelayMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const nominal = Math.min(capMs, RETRY_BASE_MS * RETRY_MULTIPLIER ** attempt);
  const jittered = nominal * (1 + RETRY_JITTER * (2 * random() - 1));
  return Math.max(0, Math.min(capMs, Math.round(jittered)));
}

/** One server connection with its ADS stream: incremental when the server lists `failout_delta_ads`, else SotW. */
export class XdsChannel {
  /** Either protocol's stream: the same public surface and handler. */
  private readonly stream: AdsStream | DeltaAdsStream;
  private transport: XdsTransport;
  /** The reconnect cap `transport` was built with. */
  private transportCapMs: number;
  private stateValue: XdsChannelState = 'connecting';
  private capMs = RETRY_CAP_MS;
  private lastErrorValue: XdsError | undefined;
  private readonly onAbort = (): void => this.close();

  constructor(private readonly options: XdsChannelOptions) {
    if (!options.server?.serverUri) throw new TypeError('XdsChannel: server.serverUri is required');
    if (!options.handler) throw new TypeError('XdsChannel: handler is required');
    const random = options.random ?? Math.random;
    const handler: AdsStreamEventHandler = {
      onStreamError: (error, info) => this.handleStreamError(error, info.beforeFirstResponse),
      onResponse: (event) => {
        this.stateValue = 'ready';
        this.options.handler.onResponse(event);
      },
      onResourceDoesNotExist: (typeUrl, name) => this.options.handler.onResourceDoesNotExist(typeUrl, name),
      isResourceCached: (typeUrl, name) => this.options.handler.isResourceCached(typeUrl, name),
    };
    const common = {
      serverUri: options.server.serverUri,
      handler,
      node: options.node,
      resourceTypes: options.resourceTypes,
      retryDelayMs: (attempt: number) => retryDelayMs(attempt, this.capMs, random),
      isTransportReady: () => this.transport.isReady(),
      watchExpiryMs: options.watchExpiryMs,
    } satisfies Omit<AdsStreamBaseOptions<unknown, unknown>, 'callFactory'>;
    this.transportCapMs = this.capMs;
    this.transport = this.buildTransport(this.capMs);
    if (speaksDeltaAds(options.server)) {
      if (!this.transport.openDeltaAdsCall) {
        this.transport.close();
        throw new TypeError(`XdsChannel: the transport of ${options.server.serverUri} cannot open incremental ADS calls, which ${DELTA_ADS_SERVER_FEATURE} asks for`);
      }
      this.stream = new DeltaAdsStream({ ...common, callFactory: (listener) => this.openDeltaCall(listener) });
    } else {
      this.stream = new AdsStream({ ...common, callFactory: (listener) => this.transportForCall().openAdsCall(listener) });
    }
    if (options.signal?.aborted) {
      this.close();
      return;
    }
    options.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.stream.start();
  }

  /** The server's URI. */
  get serverUri(): string {
    return this.options.server.serverUri;
  }

  /** Connectivity as the authority sees it. */
  get state(): XdsChannelState {
    return this.stateValue;
  }

  /** `running` from construction until {@link close}, then `closed` (derived from {@link state}). */
  get lifecycle(): Lifecycle {
    return this.stateValue === 'closed' ? 'closed' : 'running';
  }

  /** The last connectivity failure (kept after recovery, for dumps). */
  get lastError(): XdsError | undefined {
    return this.lastErrorValue;
  }

  /** The current retry cap. */
  get retryCapMs(): number {
    return this.capMs;
  }

  /** The last accepted version of a type on this server. */
  version(typeUrl: string): string {
    return this.stream.version(typeUrl);
  }

  /** Adds a name to the subscriptions (sent at the next tick). */
  subscribe(typeUrl: string, name: string): void {
    if (this.stateValue !== 'closed') this.stream.subscribe(typeUrl, name);
  }

  /** Removes a name from the subscriptions (sent at the next tick). */
  unsubscribe(typeUrl: string, name: string): void {
    if (this.stateValue !== 'closed') this.stream.unsubscribe(typeUrl, name);
  }

  /** The client holds, for a subscribed name, another server's `version` of it (undefined: none comparable); see `AdsStreamBase.heldFromOtherServer`. */
  heldFromOtherServer(typeUrl: string, name: string, version: string | undefined): void {
    if (this.stateValue !== 'closed') this.stream.heldFromOtherServer(typeUrl, name, version);
  }

  /** A SotW response left out a name the client holds from another server; see `AdsStreamBase.awaitFromServer`. */
  awaitFromServer(typeUrl: string, name: string): void {
    if (this.stateValue !== 'closed') this.stream.awaitFromServer(typeUrl, name);
  }

  /**
   * Sets the retry cap: {@link RETRY_CAP_MS} normally, the probe cap while a lower server serves.
   * A pending retry that is further away than the new cap is brought forward; the transport takes the
   * new cap at the next call it is not READY for.
   */
  setRetryCapMs(capMs: number): void {
    this.capMs = capMs;
    this.stream.rescheduleRetry(capMs);
  }

  /** Closes the stream and the transport. Idempotent; nothing is reported afterwards. */
  close(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    this.options.signal?.removeEventListener('abort', this.onAbort);
    this.stream.close();
    this.transport.close();
  }

  /** Builds a transport whose READY events reach the stream while it is the current one. */
  private buildTransport(capMs: number): XdsTransport {
    const transport = (this.options.transportFactory ?? grpcTransport)(this.options.server, capMs);
    transport.onReady(() => {
      if (this.transport === transport) this.stream.onTransportReady();
    });
    return transport;
  }

  /**
   * The transport for a new call (no call is open then). grpc-js fixes its reconnect backoff at build
   * time, so a transport built with another cap is replaced, unless it is READY: its connection is
   * kept, and the first call after that connection breaks replaces it.
   */
  private transportForCall(): XdsTransport {
    if (this.transportCapMs !== this.capMs && !this.transport.isReady()) {
      this.transport.close();
      this.transportCapMs = this.capMs;
      this.transport = this.buildTransport(this.capMs);
    }
    return this.transport;
  }

  /** An incremental call on the current transport (checked at construction to offer them). */
  private openDeltaCall(listener: AdsCallListener<DeltaDiscoveryResponse>): AdsCall<DeltaDiscoveryRequest> {
    const transport = this.transportForCall();
    if (!transport.openDeltaAdsCall) throw new TypeError(`XdsChannel: the transport of ${this.serverUri} cannot open incremental ADS calls`);
    return transport.openDeltaAdsCall(listener);
  }

  private handleStreamError(error: XdsError, beforeFirstResponse: boolean): void {
    if (this.stateValue === 'closed') return;
    if (!beforeFirstResponse) {
      // gRFC A57: a close after a response is not a failure (server rebalancing, max age).
      this.stateValue = 'connecting';
      return;
    }
    this.stateValue = 'failing';
    this.lastErrorValue = error;
    this.options.handler.onConnectivityFailure(error);
  }
}

/**
 * The grpc-js transport. ADS calls do not use waitForReady: a call on a channel in
 * TRANSIENT_FAILURE fails at once, which is the connectivity signal (grpc-go does the same).
 * grpc-js's own subchannel reconnect follows gRPC's connection backoff capped at `reconnectCapMs`
 * (the channel's retry cap, see the header), so that it never delays a return beyond the probe cap in
 * fallback, and never hammers a dead server outside it. A local subchannel pool keeps a rebuilt
 * transport from inheriting a pooled subchannel that is still in its old backoff.
 */
export function grpcTransport(server: XdsServerConfig, reconnectCapMs: number = RETRY_CAP_MS): XdsTransport {
  const { AdsClient } = loadXdsProtos();
  const client = new AdsClient(server.serverUri, channelCredentials(server), {
    'grpc.keepalive_time_ms': 300_000,
    'grpc.keepalive_timeout_ms': 20_000,
    // grpc-js takes its first delay uncapped: a probe cap below 1 s must bound it too.
    'grpc.initial_reconnect_backoff_ms': Math.min(RETRY_BASE_MS, reconnectCapMs),
    'grpc.max_reconnect_backoff_ms': reconnectCapMs,
    'grpc.use_local_subchannel_pool': 1,
    'grpc.enable_retries': 0,
  });
  const channel = client.getChannel();
  let closed = false;
  const readyListeners: Array<() => void> = [];
  const watch = (): void => {
    if (closed) return;
    const current = channel.getConnectivityState(false);
    if (current === grpc.connectivityState.SHUTDOWN) return;
    channel.watchConnectivityState(current, Date.now() + 3_600_000, () => {
      if (closed) return;
      if (channel.getConnectivityState(false) === grpc.connectivityState.READY) readyListeners.forEach((l) => l());
      watch();
    });
  };
  watch();
  return {
    openAdsCall: (listener) => openGrpcAdsCall(client, 'StreamAggregatedResources', listener),
    openDeltaAdsCall: (listener) => openGrpcAdsCall(client, 'DeltaAggregatedResources', listener),
    isReady: () => channel.getConnectivityState(false) === grpc.connectivityState.READY,
    onReady: (listener) => readyListeners.push(listener),
    close: () => {
      closed = true;
      client.close();
    },
  };
}

/** One ADS call of either protocol (`method`: SotW or incremental) on `client`. */
function openGrpcAdsCall<Req, Res>(client: grpc.Client, method: 'StreamAggregatedResources' | 'DeltaAggregatedResources', listener: AdsCallListener<Res>): AdsCall<Req> {
  const open = (client as unknown as Record<typeof method, () => grpc.ClientDuplexStream<Req, Res>>)[method];
  const call = open.call(client);
  let finished = false;
  const finish = (error: Error | undefined): void => {
    if (finished) return;
    finished = true;
    listener.onClose(error);
  };
  call.on('data', (response: Res) => {
    if (!finished) listener.onMessage(response);
  });
  call.on('error', (error: Error) => finish(error));
  call.on('status', (status: grpc.StatusObject) => {
    if (status.code === grpc.status.OK) finish(undefined);
  });
  return {
    write: (request) => {
      if (!finished) call.write(request);
    },
    cancel: () => {
      finished = true;
      call.cancel();
    },
  };
}
