/**
 * What the SotW ADS stream (`ads-stream.ts`) and the incremental one (`delta-ads-stream.ts`) share:
 * the call's lifecycle and retry, per-type coalescing of requests, the does-not-exist timers and the
 * decoding of resources. grpc-go keeps both protocols in one `ads_stream.go` behind a flag; here each
 * protocol is a subclass that only says how a request is built and how a response is read, so that
 * the rules below cannot drift between the two.
 *
 * Shared rules (envoy xds_protocol.rst; reference xds-fallback-a71.md §3):
 * - `node` only in the first request of a call; at most one request per type per tick (coalescing).
 * - Does-not-exist timer (default 15 s): started only once the name was written on a call whose
 *   transport is READY, never for a cached resource; stopped when the call fails and restarted after
 *   the resend (gRFC A57, C-core `MaybeStartTimer`, Java `startMissingResourceTimers`).
 * - A call that fails before its first response is a connectivity failure; after one it is not, and
 *   the retry is immediate (backoff reset, A57).
 * - Resources are decoded by their type (the `Resource` wrapper's name passed along); bytes equal to
 *   the ones last accepted for the name are not decoded again; names not subscribed are ignored;
 *   duplicate names and resources of another type are errors (the response is NACKed).
 *
 * Concurrency: everything runs on the event loop; fields marked "per call" are reset by `openCall`.
 */
import { XdsError, assertIsError } from './errors';
import type { AnyMessage, DiscoveryRequest, DiscoveryResponse, NodeMessage, StatusMessage } from './protos';
import { canonicalResourceName } from './resource-name';
import { WatchState, type AnyResourceType } from './resource-state';
import type { Lifecycle } from '../lifecycle';

/** Default does-not-exist timeout (gRFC A57 / xDS protocol "Knowing When a Requested Resource Does Not Exist"). */
export const DEFAULT_WATCH_EXPIRY_MS = 15_000;
/** gRPC status UNAVAILABLE, used in NACK `error_detail` like C-core and grpc-node. */
const NACK_STATUS_CODE = 14;

/** One bidirectional ADS call, as the transport hands it out (`Req`: SotW or delta request). */
export interface AdsCall<Req = DiscoveryRequest> {
  /** Sends one request on the call; ignored once the call has finished. */
  write(request: Req): void;
  /** Ends the call; no listener callback follows. */
  cancel(): void;
}

/** What the transport reports about one call. `onClose` is called at most once. */
export interface AdsCallListener<Res = DiscoveryResponse> {
  /** One response arrived. */
  onMessage(response: Res): void;
  /** The call ended: `error` when it failed, undefined when it finished with status OK. */
  onClose(error: Error | undefined): void;
}

/** Opens one call (the channel wraps grpc-js; unit tests pass a fake). */
export type AdsCallFactory<Req = DiscoveryRequest, Res = DiscoveryResponse> = (listener: AdsCallListener<Res>) => AdsCall<Req>;

/** One valid, subscribed resource of a response. */
export interface AdsResourceUpdate {
  readonly name: string;
  readonly value: unknown;
  /** The Any it was decoded from (unwrapped; its bytes copied out of the response), for CSDS (gRFC A40). */
  readonly raw: AnyMessage;
  /** Incremental ADS only: the resource's own version (CSDS shows it); SotW versions are per response. */
  readonly version?: string;
}

/** The outcome of one ADS response, after decoding. */
export interface AdsResponseEvent {
  readonly typeUrl: string;
  /** SotW: the response's `version_info`; delta: its `system_version_info` (for debugging only, per the spec). */
  readonly version: string;
  /**
   * Which protocol the response came on. `sotw`: a response carries the full set of its type, so an
   * LDS/CDS resource missing from it is deleted. `delta`: a response carries only changes; absence
   * means nothing, and deletions are the names in {@link removed}.
   */
  readonly protocol: 'sotw' | 'delta';
  /**
   * Valid, subscribed resources: the decoded value, and the Any it was decoded from (unwrapped; its
   * bytes copied out of the response), kept for CSDS, which shows the xDS config as received (gRFC A40
   * "Expose xDS Config As Is").
   */
  readonly updates: readonly AdsResourceUpdate[];
  /** Invalid resources (`name` when it could be read). A non-empty list means the response was NACKed. */
  readonly errors: ReadonlyArray<{
    readonly name: string | undefined;
    readonly error: XdsError;
    /** Incremental ADS only: the rejected resource's own version (CSDS `error_state`). */
    readonly version?: string;
  }>;
  /** Every subscribed name present in the response, valid or not (for SotW deletion). */
  readonly names: ReadonlySet<string>;
  /** Delta only (empty for SotW): subscribed names the server says do not exist (never existed, refused or deleted). */
  readonly removed: readonly string[];
}

/** How a stream reports to its owner (the channel). */
export interface AdsStreamEventHandler {
  /** The call failed; `beforeFirstResponse` makes it a connectivity failure (gRFC A57). */
  onStreamError(error: XdsError, info: { readonly beforeFirstResponse: boolean }): void;
  /** A response of a known type was processed (valid or NACKed). */
  onResponse(event: AdsResponseEvent): void;
  /** The does-not-exist timer of a name fired. */
  onResourceDoesNotExist(typeUrl: string, name: string): void;
  /** True when some owner has the resource cached (no timer is started for it). */
  isResourceCached(typeUrl: string, name: string): boolean;
}

/** Options of a stream (`Req`/`Res`: the protocol's request and response messages). */
export interface AdsStreamBaseOptions<Req, Res> {
  /** The server, for error messages. */
  readonly serverUri: string;
  /** Opens a call. */
  readonly callFactory: AdsCallFactory<Req, Res>;
  /** Receives the stream's events. */
  readonly handler: AdsStreamEventHandler;
  /** Sent in the first request of every call. */
  readonly node: NodeMessage;
  /** Known resource types by type URL; responses of other types are neither ACKed nor NACKed. */
  readonly resourceTypes: ReadonlyMap<string, AnyResourceType>;
  /** Delay before retry number `attempt` (0-based) after a call failed without a response. */
  readonly retryDelayMs: (attempt: number) => number;
  /** True when the transport is READY (timers start only then). */
  readonly isTransportReady: () => boolean;
  /** Does-not-exist timeout; default {@link DEFAULT_WATCH_EXPIRY_MS}. */
  readonly watchExpiryMs?: number;
}

/** State of a stream: idle → connecting → streaming (a response arrived) → backoff → … → closed; its lifecycle derives from it. */
export type AdsStreamState = 'idle' | 'connecting' | 'streaming' | 'backoff' | 'closed';

/**
 * The does-not-exist timer shared by the names whose timers started in the same millisecond (a request
 * usually writes thousands at once). One timer instead of one per name: at 10,000 names the per-name
 * timers were a large share of the client's peak memory.
 */
interface ExpiryGroup {
  readonly timer: NodeJS.Timeout;
  readonly startedAt: number;
  /** Names still waiting on this timer; at 0 the timer is cleared. */
  pending: number;
}

/** What a stream keeps per subscribed name (subclasses add their own fields). */
export interface BaseNameState {
  state: WatchState;
  expiry: ExpiryGroup | undefined;
  /**
   * The bytes and value of this name's last accepted resource. A SotW server resends every
   * subscribed resource in each response (the `indis` types, CDS, LDS), so most of a response is
   * what the client already has: equal bytes decode to an equal value, and are not decoded again.
   */
  decoded: { readonly bytes: Buffer; readonly value: unknown } | undefined;
}

/** What a stream keeps per type (subclasses add their own fields). */
export interface BaseTypeState<N extends BaseNameState> {
  readonly names: Map<string, N>;
  /** A request must be written at the next flush. */
  dirty: boolean;
  /** NACK detail for the next request. */
  pendingError: StatusMessage | undefined;
  /** A request for this type was written on the current call. Per call. */
  sentOnCall: boolean;
}

/** One resource of a response, unwrapped: the Any to decode, the name it was sent under, and (delta) its version. */
export interface UnwrappedResource {
  readonly any: AnyMessage;
  /** The `Resource` wrapper's name ('' when the resource was not wrapped or the name was empty). */
  readonly name: string;
  readonly version?: string;
}

/** What {@link AdsStreamBase.decodeResources} found in a response. */
export interface DecodedResources {
  readonly updates: AdsResourceUpdate[];
  readonly errors: Array<{ name: string | undefined; error: XdsError; version?: string }>;
  readonly names: Set<string>;
}

/** The fields every ADS request has, SotW or delta: the base sets them. */
export interface RequestCommon {
  node?: NodeMessage | null;
  error_detail?: StatusMessage | null;
}

/** A stream's lifecycle, timers and decoding; the subclass builds requests and reads responses. */
export abstract class AdsStreamBase<Req extends RequestCommon, Res, N extends BaseNameState, T extends BaseTypeState<N>> {
  protected readonly types = new Map<string, T>();
  private readonly expiryMs: number;
  private stateValue: AdsStreamState = 'idle';
  private call: AdsCall<Req> | undefined;
  /** Per call: a response arrived on it; the first request was written (node sent). */
  private received = false;
  private nodeSent = false;
  private attempt = 0;
  /** Incremented per call, so that callbacks of an old call are ignored. */
  private generation = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDueAt = 0;
  private flushScheduled: NodeJS.Immediate | undefined;
  /** Per type, the expiry group names started now may join. */
  private readonly openExpiry = new Map<string, ExpiryGroup>();

  protected constructor(protected readonly options: AdsStreamBaseOptions<Req, Res>) {
    this.expiryMs = options.watchExpiryMs ?? DEFAULT_WATCH_EXPIRY_MS;
  }

  /** The stream's state. */
  get state(): AdsStreamState {
    return this.stateValue;
  }

  /** `idle` before {@link start}, `closed` after {@link close}, else `running` (derived from {@link state}). */
  get lifecycle(): Lifecycle {
    return this.stateValue === 'idle' || this.stateValue === 'closed' ? this.stateValue : 'running';
  }

  /** Opens the first call. Idempotent. */
  start(): void {
    if (this.stateValue !== 'idle') return;
    this.openCall();
  }

  /** Adds `name` to the type's subscription; the request goes out at the next tick. */
  subscribe(typeUrl: string, name: string): void {
    const type = this.typeState(typeUrl);
    if (type.names.has(name)) return;
    type.names.set(name, this.newNameState());
    this.subscribed(type, name);
    this.markDirty(type);
  }

  /** Removes `name` from the type's subscription; the request goes out at the next tick. */
  unsubscribe(typeUrl: string, name: string): void {
    const type = this.types.get(typeUrl);
    const entry = type?.names.get(name);
    if (!type || !entry) return;
    stopTimer(entry);
    type.names.delete(name);
    this.unsubscribed(type, name);
    this.markDirty(type);
  }

  /**
   * The client now holds, for `name`, what ANOTHER server sent (a fallback, or the server above it):
   * `version` is that server's own version of the resource (incremental ADS), undefined when there is
   * none to compare (a SotW value, or the name does not exist). A stream must not tell its server, at
   * its next call, that the client holds a version it does not (see {@link heldElsewhere}).
   */
  heldFromOtherServer(typeUrl: string, name: string, version: string | undefined): void {
    const type = this.types.get(typeUrl);
    const entry = type?.names.get(name);
    if (type && entry) this.heldElsewhere(entry, version);
  }

  /**
   * A SotW response of `typeUrl` left out `name`, which the client holds from ANOTHER server: the
   * response may have been computed before this server saw the request naming it (a push in flight
   * when a fallback subscribed it on a stream already open), so its absence proves nothing yet. The
   * name waits for a response like an uncached one: its does-not-exist timer runs (cached or not)
   * until a response carries it, and fires through the handler if none does.
   */
  awaitFromServer(typeUrl: string, name: string): void {
    const entry = this.types.get(typeUrl)?.names.get(name);
    if (!entry || entry.expiry !== undefined || !this.call || !this.options.isTransportReady()) return;
    entry.state = WatchState.requested;
    this.startTimer(typeUrl, entry);
  }

  /** The watch state of a name (test hook and dump). */
  watchState(typeUrl: string, name: string): WatchState | undefined {
    return this.types.get(typeUrl)?.names.get(name)?.state;
  }

  /** Last accepted version of a type (SotW `version_info`; delta: `system_version_info`, for debugging). */
  abstract version(typeUrl: string): string;

  /**
   * The transport became READY: retry at once if waiting in backoff, and start the timers of names
   * already written. Without the early retry, two independent backoffs (this stream's and grpc-js's
   * subchannel reconnect) could miss each other: a retry that fires while the subchannel still waits
   * fails at once (no waitForReady), and the return to a recovered primary then lags by a second
   * full probe period (up to ~2 × `fallbackProbeCapMs`).
   */
  onTransportReady(): void {
    if (this.stateValue === 'backoff') {
      clearTimeout(this.retryTimer);
      this.retryTimer = undefined;
      this.openCall();
    }
    for (const [typeUrl, type] of this.types) {
      for (const [name, entry] of type.names) this.maybeStartTimer(typeUrl, name, entry);
    }
  }

  /** Brings a pending retry forward so that it is at most `maxDelayMs` away (probe cap changes). */
  rescheduleRetry(maxDelayMs: number): void {
    if (this.stateValue !== 'backoff' || this.retryDueAt - Date.now() <= maxDelayMs) return;
    clearTimeout(this.retryTimer);
    this.scheduleRetry(maxDelayMs);
  }

  /** Ends the call and all timers; nothing is reported afterwards. */
  close(): void {
    if (this.stateValue === 'closed') return;
    this.stateValue = 'closed';
    clearTimeout(this.retryTimer);
    if (this.flushScheduled) clearImmediate(this.flushScheduled);
    for (const type of this.types.values()) for (const entry of type.names.values()) stopTimer(entry);
    const call = this.call;
    this.call = undefined;
    call?.cancel();
  }

  /** A new type record. */
  protected abstract newTypeState(): T;
  /** A new name record, in state `started`. */
  protected abstract newNameState(): N;
  /** Hook: `name` was added to `type` (before the flush is scheduled). */
  protected abstract subscribed(type: T, name: string): void;
  /** Hook: `name` was removed from `type`. */
  protected abstract unsubscribed(type: T, name: string): void;
  /** Hook: the client holds another server's `version` of the name of `entry` (see {@link heldFromOtherServer}). */
  protected abstract heldElsewhere(entry: N, version: string | undefined): void;
  /** Hook: a new call opens; reset what is per call in `type`. */
  protected abstract resetForCall(type: T): void;
  /**
   * The request of a dirty type, or undefined when there is nothing to say. `node` is set by the
   * caller. Called at most once per type per tick.
   */
  protected abstract buildRequest(typeUrl: string, type: T): Req | undefined;
  /** Hook: the type's request was written; `request` is what went out. */
  protected abstract requestWritten(type: T, request: Req): void;
  /** The response's type URL (protocol-specific message). */
  protected abstract typeUrlOf(response: Res): string;
  /** Reads a response of a known type, updates the type's state, and returns the event to report. */
  protected abstract readResponse(resourceType: AnyResourceType, type: T, response: Res): AdsResponseEvent;

  protected typeState(typeUrl: string): T {
    let type = this.types.get(typeUrl);
    if (!type) {
      type = this.newTypeState();
      this.types.set(typeUrl, type);
    }
    return type;
  }

  protected markDirty(type: T): void {
    type.dirty = true;
    this.scheduleFlush();
  }

  /** The NACK detail of a response with `errors` (same text as grpc-node and C-core). */
  protected nackDetail(errors: DecodedResources['errors']): StatusMessage {
    const messages = errors.map((e) => (e.name ? `${e.name}: ${e.error.message}` : e.error.message));
    return { code: NACK_STATUS_CODE, message: `xDS response validation errors: [${messages.join('; ')}]` };
  }

  /** The name left the wait for a response (a response carried it): its timer stops. */
  protected markReceived(entry: N): void {
    stopTimer(entry);
    entry.state = WatchState.received;
  }

  /**
   * Decodes the resources of a response of `typeUrl`: `unwrap` gives each one's Any, the name it was
   * sent under and its version (it may throw: the resource is then an error without a name).
   */
  protected decodeResources<R>(resourceType: AnyResourceType, type: T, typeUrl: string, resources: readonly R[], unwrap: (resource: R) => UnwrappedResource): DecodedResources {
    const updates: AdsResourceUpdate[] = [];
    const errors: DecodedResources['errors'] = [];
    const names = new Set<string>();
    const validation = (message: string, name?: string, cause?: unknown): XdsError =>
      new XdsError('validation', message, { typeUrl, resourceName: name, serverUri: this.options.serverUri, cause });
    resources.forEach((resource, index) => {
      let result;
      let any: AnyMessage;
      let wrapperName: string;
      let version: string | undefined;
      try {
        const unwrapped = unwrap(resource);
        any = unwrapped.any;
        version = unwrapped.version;
        wrapperName = canonicalResourceName(unwrapped.name);
        if (any.type_url !== typeUrl) {
          errors.push({ name: undefined, error: validation(`resource index ${index}: type ${any.type_url} in a ${typeUrl} response`) });
          return;
        }
        const known = wrapperName === '' ? undefined : type.names.get(wrapperName)?.decoded;
        if (known?.bytes.equals(any.value)) result = { ok: true as const, name: wrapperName, value: known.value, bytes: known.bytes };
        else result = resourceType.decode(any, wrapperName);
      } catch (e) {
        assertIsError(e);
        errors.push({ name: undefined, error: validation(`resource index ${index}: ${e.message}`, undefined, e) });
        return;
      }
      // Subscriptions hold normalized names (A47): a server may order context parameters otherwise.
      const name = result.name === undefined ? undefined : canonicalResourceName(result.name);
      const entry = name === undefined ? undefined : type.names.get(name);
      if (name !== undefined && !entry) return; // not subscribed: ignored
      if (name !== undefined && names.has(name)) {
        errors.push({ name, error: validation(`duplicate resource name ${name}`, name) });
        return;
      }
      if (name !== undefined) names.add(name);
      if (entry) this.markReceived(entry);
      if (result.ok) {
        // A copy of the bytes (or the copy kept from before): a view would keep the whole response
        // alive for as long as any one of its resources stays cached, and a server sending subsets
        // (EDS, RDS) could pile up old responses.
        const bytes = 'bytes' in result ? result.bytes : Buffer.from(any.value);
        // Kept only for a resource named by its wrapper: the name is what finds it before decoding.
        if (entry && name === wrapperName) entry.decoded = { bytes, value: result.value };
        const raw = { type_url: any.type_url, value: bytes };
        updates.push(version === undefined ? { name: name ?? result.name, value: result.value, raw } : { name: name ?? result.name, value: result.value, raw, version });
      } else {
        const error = toValidationError(result.error, name, validation);
        errors.push(version === undefined ? { name, error } : { name, error, version });
      }
    });
    return { updates, errors, names };
  }

  private openCall(): void {
    this.stateValue = 'connecting';
    this.received = false;
    this.nodeSent = false;
    for (const type of this.types.values()) {
      type.sentOnCall = false;
      type.pendingError = undefined;
      this.resetForCall(type);
      if (type.names.size > 0) type.dirty = true;
    }
    const generation = ++this.generation;
    const live = (): boolean => generation === this.generation && this.call !== undefined;
    const listener: AdsCallListener<Res> = {
      onMessage: (response) => {
        if (live()) this.handleResponse(response);
      },
      onClose: (error) => {
        if (live()) this.handleClose(error);
      },
    };
    this.call = this.options.callFactory(listener);
    this.scheduleFlush();
  }

  private handleClose(error: Error | undefined): void {
    this.call = undefined;
    for (const type of this.types.values()) {
      for (const entry of type.names.values()) {
        stopTimer(entry);
        if (entry.state === WatchState.requested) entry.state = WatchState.started;
      }
    }
    const beforeFirstResponse = !this.received;
    const kind = beforeFirstResponse ? 'connection' : 'streamFailedAfterRecv';
    const detail = error?.message ?? 'stream closed by the server';
    const xdsError = new XdsError(kind, `ADS stream to ${this.options.serverUri} failed: ${detail}`, {
      serverUri: this.options.serverUri,
      cause: error,
    });
    if (beforeFirstResponse) {
      this.scheduleRetry(this.options.retryDelayMs(this.attempt));
      this.attempt += 1;
    } else {
      this.scheduleRetry(0);
    }
    this.options.handler.onStreamError(xdsError, { beforeFirstResponse });
  }

  private scheduleRetry(delayMs: number): void {
    this.stateValue = 'backoff';
    this.retryDueAt = Date.now() + delayMs;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      if (this.stateValue === 'backoff') this.openCall();
    }, delayMs);
    this.retryTimer.unref?.();
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.stateValue === 'closed') return;
    this.flushScheduled = setImmediate(() => {
      this.flushScheduled = undefined;
      this.flush();
    });
  }

  /** Writes one request per dirty type. */
  private flush(): void {
    const call = this.call;
    if (!call) return;
    for (const [typeUrl, type] of this.types) {
      if (!type.dirty) continue;
      type.dirty = false;
      const request = this.buildRequest(typeUrl, type);
      if (request === undefined) continue;
      if (!this.nodeSent) request.node = this.options.node;
      if (type.pendingError) request.error_detail = type.pendingError;
      type.pendingError = undefined;
      this.nodeSent = true;
      type.sentOnCall = true;
      call.write(request);
      if (this.call !== call) return; // the write failed synchronously and closed the call
      this.requestWritten(type, request);
      for (const [name, entry] of type.names) {
        if (entry.state === WatchState.started) entry.state = WatchState.requested;
        this.maybeStartTimer(typeUrl, name, entry);
      }
    }
  }

  private maybeStartTimer(typeUrl: string, name: string, entry: N): void {
    if (entry.state !== WatchState.requested || entry.expiry !== undefined || !this.call) return;
    if (!this.options.isTransportReady() || this.options.handler.isResourceCached(typeUrl, name)) return;
    this.startTimer(typeUrl, entry);
  }

  /** Puts `entry` on the expiry group of its type started this millisecond (or a new one). */
  private startTimer(typeUrl: string, entry: N): void {
    const now = Date.now();
    const open = this.openExpiry.get(typeUrl);
    const group = open?.startedAt === now && open.pending > 0 ? open : this.openExpiryGroup(typeUrl, now);
    group.pending += 1;
    entry.expiry = group;
  }

  /** A new expiry group for names of `typeUrl` starting their timers at `now`. */
  private openExpiryGroup(typeUrl: string, now: number): ExpiryGroup {
    const group: ExpiryGroup = { timer: setTimeout(() => this.expire(typeUrl, group), this.expiryMs), startedAt: now, pending: 0 };
    group.timer.unref?.();
    this.openExpiry.set(typeUrl, group);
    return group;
  }

  /** An expiry group's timer fired: its names still waiting do not exist. */
  private expire(typeUrl: string, group: ExpiryGroup): void {
    if (this.openExpiry.get(typeUrl) === group) this.openExpiry.delete(typeUrl);
    const expired: string[] = [];
    for (const [name, entry] of this.types.get(typeUrl)?.names ?? []) {
      if (entry.expiry !== group) continue;
      entry.expiry = undefined;
      if (entry.state !== WatchState.requested) continue;
      entry.state = WatchState.timeout;
      expired.push(name);
    }
    // Reported after the loop: a handler may unsubscribe, which changes the map.
    for (const name of expired) this.options.handler.onResourceDoesNotExist(typeUrl, name);
  }

  private handleResponse(response: Res): void {
    this.received = true;
    this.attempt = 0;
    this.stateValue = 'streaming';
    const typeUrl = this.typeUrlOf(response);
    const resourceType = this.options.resourceTypes.get(typeUrl);
    if (!resourceType) return; // grpc-go neither ACKs nor NACKs an unknown type
    const type = this.typeState(typeUrl);
    const event = this.readResponse(resourceType, type, response);
    this.markDirty(type);
    this.options.handler.onResponse(event);
  }
}

/** Takes a name off its expiry group; the group's timer stops with its last name. */
function stopTimer(entry: BaseNameState): void {
  const group = entry.expiry;
  if (!group) return;
  entry.expiry = undefined;
  group.pending -= 1;
  if (group.pending === 0) clearTimeout(group.timer);
}

function toValidationError(
  error: Error,
  name: string | undefined,
  validation: (message: string, name?: string, cause?: unknown) => XdsError,
): XdsError {
  return error instanceof XdsError ? error : validation(error.message, name, error);
}
