/**
 * One xDS server: its gRPC channel and its ADS stream (grpc-go `channel.go`), with the retry backoff
 * of gRFC A57 and a shorter "probe" cap used while an authority serves from a lower-priority server
 * (so that the return to the primary is prompt, instead of up to ~144 s as in grpc-go).
 *
 * The channel reports to ONE {@link XdsChannelEventHandler}; sharing across authorities is the job
 * of the pool in client.ts (leases, see {@link ChannelLease}).
 *
 * Concurrency: event-loop only. `server`, `options` are fixed after construction; `stateValue`,
 * `capMs`, `lastErrorValue` change only in the stream's callbacks and in `setRetryCapMs`/`close`.
 */
import * as grpc from '@grpc/grpc-js';
import { AdsStream, type AdsCall, type AdsCallListener, type AdsResponseEvent, type AdsStreamEventHandler } from './ads-stream';
import { channelCredentials, DEFAULT_FALLBACK_PROBE_CAP_MS, type XdsServerConfig } from './bootstrap';
import type { XdsError } from './errors';
import { loadXdsProtos, type DiscoveryResponse, type NodeMessage } from './protos';
import type { AnyResourceType } from './resource-state';

/** Base retry delay (gRFC A57; grpc-go backoff.go). */
export const RETRY_BASE_MS = 1000;
/** Multiplier per failed attempt. */
export const RETRY_MULTIPLIER = 1.6;
/** ± jitter fraction. */
export const RETRY_JITTER = 0.2;
/** Normal cap of the retry delay. */
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
  /** True while the underlying channel is READY (the does-not-exist timer starts only then). */
  isReady(): boolean;
  /** Calls `listener` each time the transport becomes READY, until `close`. */
  onReady(listener: () => void): void;
  /** Closes the underlying channel. */
  close(): void;
}

/** Builds the transport of a server; `reconnectCapMs` caps the transport's own reconnect backoff. */
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
  /** Cap of the transport's own reconnect backoff: the probe cap (default 5 s). */
  readonly reconnectCapMs?: number;
  /** Jitter source (tests); default Math.random. */
  readonly random?: () => number;
}

/** Delay before retry `attempt` (0-based): 1 s × 1.6^attempt, ±20 %, never above `capMs`. */
export function retryDelayMs(attempt: number, capMs: number, random: () => number = Math.random): number {
  const nominal = Math.min(capMs, RETRY_BASE_MS * RETRY_MULTIPLIER ** attempt);
  const jittered = nominal * (1 + RETRY_JITTER * (2 * random() - 1));
  return Math.max(0, Math.min(capMs, Math.round(jittered)));
}

/** One server connection with its ADS stream. */
export class XdsChannel {
  private readonly stream: AdsStream;
  private readonly transport: XdsTransport;
  private stateValue: XdsChannelState = 'connecting';
  private capMs = RETRY_CAP_MS;
  private lastErrorValue: XdsError | undefined;
  private readonly onAbort = (): void => this.close();

  constructor(private readonly options: XdsChannelOptions) {
    if (!options.server?.serverUri) throw new TypeError('XdsChannel: server.serverUri is required');
    if (!options.handler) throw new TypeError('XdsChannel: handler is required');
    const random = options.random ?? Math.random;
    this.transport = (options.transportFactory ?? grpcTransport)(options.server, options.reconnectCapMs ?? DEFAULT_FALLBACK_PROBE_CAP_MS);
    const handler: AdsStreamEventHandler = {
      onStreamError: (error, info) => this.handleStreamError(error, info.beforeFirstResponse),
      onResponse: (event) => {
        this.stateValue = 'ready';
        this.options.handler.onResponse(event);
      },
      onResourceDoesNotExist: (typeUrl, name) => this.options.handler.onResourceDoesNotExist(typeUrl, name),
      isResourceCached: (typeUrl, name) => this.options.handler.isResourceCached(typeUrl, name),
    };
    this.stream = new AdsStream({
      serverUri: options.server.serverUri,
      callFactory: (listener) => this.transport.openAdsCall(listener),
      handler,
      node: options.node,
      resourceTypes: options.resourceTypes,
      retryDelayMs: (attempt) => retryDelayMs(attempt, this.capMs, random),
      isTransportReady: () => this.transport.isReady(),
      watchExpiryMs: options.watchExpiryMs,
    });
    this.transport.onReady(() => this.stream.onTransportReady());
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

  /**
   * Sets the retry cap: {@link RETRY_CAP_MS} normally, the probe cap while a lower server serves.
   * A pending retry that is further away than the new cap is brought forward.
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
 * `grpc.max_reconnect_backoff_ms` is the probe cap so that grpc-js's own subchannel backoff never
 * delays the return to a recovered primary beyond it.
 */
export function grpcTransport(server: XdsServerConfig, reconnectCapMs: number = DEFAULT_FALLBACK_PROBE_CAP_MS): XdsTransport {
  const { AdsClient } = loadXdsProtos();
  const client = new AdsClient(server.serverUri, channelCredentials(server), {
    'grpc.keepalive_time_ms': 300_000,
    'grpc.keepalive_timeout_ms': 20_000,
    'grpc.initial_reconnect_backoff_ms': RETRY_BASE_MS,
    'grpc.max_reconnect_backoff_ms': reconnectCapMs,
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
    openAdsCall: (listener) => openGrpcAdsCall(client, listener),
    isReady: () => channel.getConnectivityState(false) === grpc.connectivityState.READY,
    onReady: (listener) => readyListeners.push(listener),
    close: () => {
      closed = true;
      client.close();
    },
  };
}

function openGrpcAdsCall(client: grpc.Client, listener: AdsCallListener): AdsCall {
  const method = (client as unknown as Record<string, () => grpc.ClientDuplexStream<unknown, DiscoveryResponse>>)
    .StreamAggregatedResources;
  const call = method.call(client);
  let finished = false;
  const finish = (error: Error | undefined): void => {
    if (finished) return;
    finished = true;
    listener.onClose(error);
  };
  call.on('data', (response: DiscoveryResponse) => {
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
