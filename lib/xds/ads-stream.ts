/**
 * One SotW ADS stream to one server (grpc-go `ads_stream.go`), restarted after failures. The call's
 * lifecycle, retry, coalescing, does-not-exist timers and decoding are shared with the incremental
 * stream (`ads-stream-base.ts`); this file holds what is SotW's own.
 *
 * Protocol rules (envoy xds_protocol.rst; reference xds-fallback-a71.md §3):
 * - Every request carries the FULL name set of its type; `node` only in the first request of a call.
 * - ACK: `version_info` = the response's version, `response_nonce` = its nonce.
 * - NACK: `version_info` = the LAST ACCEPTED version, the rejected nonce, and `error_detail`
 *   (UNAVAILABLE "xDS response validation errors: [...]", as grpc-node and C-core send). Valid
 *   resources of a NACKed response are still reported.
 * - Versions survive restarts of the call; nonces do not.
 *
 * Concurrency: everything runs on the event loop; fields marked "per call" are reset by `resetForCall`.
 */
import { AdsStreamBase, type AdsResponseEvent, type AdsStreamBaseOptions, type BaseNameState, type BaseTypeState } from './ads-stream-base';
import { unwrapResource, type DiscoveryRequest, type DiscoveryResponse } from './protos';
import { WatchState, type AnyResourceType } from './resource-state';

export {
  DEFAULT_WATCH_EXPIRY_MS,
  type AdsCall,
  type AdsCallFactory,
  type AdsCallListener,
  type AdsResourceUpdate,
  type AdsResponseEvent,
  type AdsStreamEventHandler,
  type AdsStreamState,
} from './ads-stream-base';

/** Options of {@link AdsStream}. */
export type AdsStreamOptions = AdsStreamBaseOptions<DiscoveryRequest, DiscoveryResponse>;

interface TypeState extends BaseTypeState<BaseNameState> {
  /** Last accepted version (survives call restarts). */
  version: string;
  /** Nonce of the last response on the current call. Per call. */
  nonce: string;
}

/** One SotW ADS stream with its subscriptions, ACK/NACK state and does-not-exist timers. */
export class AdsStream extends AdsStreamBase<DiscoveryRequest, DiscoveryResponse, BaseNameState, TypeState> {
  constructor(options: AdsStreamOptions) {
    super(options);
  }

  /** Last accepted version of a type. */
  version(typeUrl: string): string {
    return this.types.get(typeUrl)?.version ?? '';
  }

  protected newTypeState(): TypeState {
    return { version: '', nonce: '', names: new Map(), dirty: false, pendingError: undefined, sentOnCall: false };
  }

  protected newNameState(): BaseNameState {
    return { state: WatchState.started, expiry: undefined, decoded: undefined };
  }

  /** Nothing to keep: every request carries the full set. */
  protected subscribed(): void {}

  /** Nothing to keep: every request carries the full set. */
  protected unsubscribed(): void {}

  /** Nothing to forget: a SotW server sends the whole subscribed set on every new call. */
  protected heldElsewhere(): void {}

  protected resetForCall(type: TypeState): void {
    type.nonce = '';
  }

  /** The full name set; nothing for a type whose last name went before any request of it on this call. */
  protected buildRequest(typeUrl: string, type: TypeState): DiscoveryRequest | undefined {
    if (type.names.size === 0 && !type.sentOnCall) return undefined;
    return { version_info: type.version, resource_names: [...type.names.keys()], type_url: typeUrl, response_nonce: type.nonce };
  }

  protected requestWritten(): void {}

  protected typeUrlOf(response: DiscoveryResponse): string {
    return response.type_url;
  }

  protected readResponse(resourceType: AnyResourceType, type: TypeState, response: DiscoveryResponse): AdsResponseEvent {
    type.nonce = response.nonce;
    const decoded = this.decodeResources(resourceType, type, response.type_url, response.resources, unwrapResource);
    if (decoded.errors.length === 0) {
      type.version = response.version_info;
      type.pendingError = undefined;
    } else {
      type.pendingError = this.nackDetail(decoded.errors);
    }
    return { typeUrl: response.type_url, version: response.version_info, protocol: 'sotw', removed: [], ...decoded };
  }
}
