/**
 * One incremental ("delta") ADS stream to one server (`DeltaAggregatedResources`, envoy
 * xds_protocol.rst "Incremental xDS"), restarted after failures. Spoken to servers whose bootstrap
 * entry lists `failout_delta_ads` (failout's D2 observers, lib/observer/delta-ads-stream.ts); every
 * other server gets SotW (`ads-stream.ts`). Same public surface and handler as `AdsStream`; the
 * call's lifecycle, retry, coalescing, does-not-exist timers and decoding are shared with it
 * (`ads-stream-base.ts`). grpc-go has no delta client; its SotW rules are kept where they apply.
 *
 * Protocol rules:
 * - The first request of each type on a call subscribes to every name of the type
 *   (`resource_names_subscribe`) and carries `initial_resource_versions`: the version of each
 *   resource the stream holds, so that the server sends only what changed meanwhile. Versions are
 *   per resource and survive call restarts; a name removed or unsubscribed has none, nor one whose
 *   value the client took from another server since (A71 fallback; `heldElsewhere`).
 * - Later requests carry only the change: names added (`resource_names_subscribe`) and names removed
 *   (`resource_names_unsubscribe`).
 * - ACK: `response_nonce` alone, sent once per response. NACK: `response_nonce` and `error_detail`
 *   (UNAVAILABLE "xDS response validation errors: [...]", as the SotW stream); the valid resources of
 *   a NACKed response are still reported, and their versions held.
 * - `removed_resources` names resources that do not exist (never did, were deleted, or the server
 *   refuses the name): reported at once in the event's `removed`, so the owner does not wait for the
 *   does-not-exist timer. The timer still runs for names a server never answers.
 * - Absence from a response means nothing (the event's `protocol` is 'delta': no SotW deletion).
 *
 * Concurrency: everything runs on the event loop; fields marked "per call" are reset by `resetForCall`.
 */
import { AdsStreamBase, type AdsResponseEvent, type AdsStreamBaseOptions, type BaseNameState, type BaseTypeState } from './ads-stream-base';
import type { DeltaDiscoveryRequest, DeltaDiscoveryResponse, DeltaResource } from './protos';
import { canonicalResourceName } from './resource-name';
import { WatchState, type AnyResourceType } from './resource-state';

/** Options of {@link DeltaAdsStream}: those of `AdsStream`, with calls of `DeltaAggregatedResources`. */
export type DeltaAdsStreamOptions = AdsStreamBaseOptions<DeltaDiscoveryRequest, DeltaDiscoveryResponse>;

interface DeltaNameState extends BaseNameState {
  /** Version of the resource last accepted for this name; undefined when none is held (survives call restarts). */
  version: string | undefined;
}

interface DeltaTypeState extends BaseTypeState<DeltaNameState> {
  /** `system_version_info` of the last response accepted whole (debugging, as the spec says). */
  systemVersion: string;
  /** Nonce of the response to ACK or NACK in the next request; cleared once sent. Per call. */
  nonce: string;
  /** Names subscribed since this type's last request on the call. Per call. */
  readonly added: Set<string>;
  /** Names unsubscribed since this type's last request on the call. Per call. */
  readonly dropped: Set<string>;
}

/** One incremental ADS stream with its subscriptions, per-resource versions, ACK/NACK state and timers. */
export class DeltaAdsStream extends AdsStreamBase<DeltaDiscoveryRequest, DeltaDiscoveryResponse, DeltaNameState, DeltaTypeState> {
  constructor(options: DeltaAdsStreamOptions) {
    super(options);
  }

  /** `system_version_info` of the type's last response accepted whole ('' before one): for debugging only. */
  version(typeUrl: string): string {
    return this.types.get(typeUrl)?.systemVersion ?? '';
  }

  protected newTypeState(): DeltaTypeState {
    return { systemVersion: '', nonce: '', added: new Set(), dropped: new Set(), names: new Map(), dirty: false, pendingError: undefined, sentOnCall: false };
  }

  protected newNameState(): DeltaNameState {
    return { state: WatchState.started, expiry: undefined, decoded: undefined, version: undefined };
  }

  /** Before the type's first request on the call nothing is noted: that request subscribes every name. */
  protected subscribed(type: DeltaTypeState, name: string): void {
    if (!type.sentOnCall) return;
    type.dropped.delete(name);
    type.added.add(name);
  }

  /** A name added and dropped before any request said so is not mentioned at all. */
  protected unsubscribed(type: DeltaTypeState, name: string): void {
    if (!type.sentOnCall || type.added.delete(name)) return;
    type.dropped.add(name);
  }

  /**
   * The client's value of the name came from another server (a fallback, or a lagging replica): this
   * stream's version is no longer what the client holds, unless it is the very same version. It is
   * forgotten, so that the next call's `initial_resource_versions` leave the name out and this server
   * sends its current state: otherwise a server that holds the version this stream last accepted
   * sends nothing, and the other server's (older, or since removed) state would stay for good.
   */
  protected heldElsewhere(entry: DeltaNameState, version: string | undefined): void {
    if (entry.version !== version) entry.version = undefined;
  }

  protected resetForCall(type: DeltaTypeState): void {
    type.nonce = '';
    type.added.clear();
    type.dropped.clear();
  }

  /**
   * The first request of the type on the call: every name, with the versions held. Later ones: the
   * changes and the ACK/NACK; nothing when there is nothing to say.
   */
  protected buildRequest(typeUrl: string, type: DeltaTypeState): DeltaDiscoveryRequest | undefined {
    if (!type.sentOnCall) {
      if (type.names.size === 0) return undefined;
      const initial: Record<string, string> = {};
      for (const [name, entry] of type.names) if (entry.version !== undefined) initial[name] = entry.version;
      return { type_url: typeUrl, resource_names_subscribe: [...type.names.keys()], resource_names_unsubscribe: [], initial_resource_versions: initial, response_nonce: '' };
    }
    if (type.added.size === 0 && type.dropped.size === 0 && type.nonce === '') return undefined;
    return { type_url: typeUrl, resource_names_subscribe: [...type.added], resource_names_unsubscribe: [...type.dropped], initial_resource_versions: {}, response_nonce: type.nonce };
  }

  /** An ACK or NACK is sent once; the changes it carried are now the server's. */
  protected requestWritten(type: DeltaTypeState): void {
    type.nonce = '';
    type.added.clear();
    type.dropped.clear();
  }

  protected typeUrlOf(response: DeltaDiscoveryResponse): string {
    return response.type_url;
  }

  protected readResponse(resourceType: AnyResourceType, type: DeltaTypeState, response: DeltaDiscoveryResponse): AdsResponseEvent {
    type.nonce = response.nonce;
    const typeUrl = response.type_url;
    const decoded = this.decodeResources(resourceType, type, typeUrl, response.resources, unwrapDelta);
    for (const update of decoded.updates) {
      const entry = type.names.get(update.name);
      if (entry) entry.version = update.version;
    }
    const removed: string[] = [];
    for (const raw of response.removed_resources) {
      const name = canonicalResourceName(raw);
      const entry = type.names.get(name);
      if (!entry || decoded.names.has(name)) continue; // not subscribed, or also sent (the resource wins)
      this.markReceived(entry);
      entry.version = undefined;
      entry.decoded = undefined;
      removed.push(name);
    }
    if (decoded.errors.length === 0) {
      type.systemVersion = response.system_version_info;
      type.pendingError = undefined;
    } else {
      type.pendingError = this.nackDetail(decoded.errors);
    }
    return { typeUrl, version: response.system_version_info, protocol: 'delta', removed, ...decoded };
  }
}

/** A delta resource is the `Resource` wrapper itself: its name, its version and the resource. */
function unwrapDelta(resource: DeltaResource): { any: DeltaResource['resource']; name: string; version: string } {
  return { any: resource.resource, name: resource.name, version: resource.version };
}
