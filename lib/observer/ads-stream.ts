/**
 * One SotW ADS stream of the observer (envoy xds_protocol.rst): per type URL the set of subscribed
 * names, the last nonce sent, ACK/NACK. Responses are built from the shared cache's packed
 * resources: a change is encoded once there and only referenced here.
 *
 * Protocol choices:
 * - A request whose `response_nonce` is not the last nonce sent for its type is stale and ignored
 *   (a newer request follows), as the management server in lib/xds/server does.
 * - A NACK is reported (logged and counted by the observer); the stream keeps its subscriptions and
 *   nothing is resent until the state changes: the observer only serves what our client accepts,
 *   so a NACK means a client bug or an incompatible client, not something a resend fixes.
 * - Every response carries every subscribed resource of its type that exists (the `indis` types
 *   are "all resources required in SotW"); it waits while any of them is still `pending`.
 * - Changes are coalesced per type until the next turn of the event loop: a burst of writes is one
 *   response per stream, carrying the latest state. While grpc-js still buffers a response for a
 *   slow client, later ones wait for `drain` and go out as the latest state only (bounded memory).
 *   The call side of this (lifecycle, coalescing, drain) is `stream-call.ts`, shared with the delta
 *   stream (`delta-ads-stream.ts`), which also implements {@link ServedStream}.
 * - Streams with the same subscription get the same bytes, encoded once (`response-encoder.ts`):
 *   `version_info` and `nonce` are both the observer-wide number of that encoding (resource
 *   versions live in the resources' stats); nonces grow on each stream. No wildcard: a request
 *   without names subscribes to nothing.
 *
 * Concurrency: event loop only; `types` changes in request handling and `flush`.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Lifecycle } from '../lifecycle';
import type { AnyMessage, DiscoveryRequest, DiscoveryResponse } from '../xds/envoy-protos';
import type { ResourceCache } from './resource-cache';
import type { ResponseEncoder } from './response-encoder';
import { isObservedTypeUrl, resourceKey } from './resource-names';
import { StreamCall } from './stream-call';
import type { Subscriber, Subscriptions } from './subscriptions';

/** The ADS call as grpc-js hands it to a handler; responses go out encoded (bytes). */
export type AdsCall = grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse | Buffer>;

/** The ADS variant a stream speaks: state of the world or incremental (`delta-ads-stream.ts`). */
export type AdsProtocol = 'sotw' | 'delta';

/** What the server and CSDS read of a stream, whichever variant it speaks. */
export interface ServedStream {
  readonly id: number;
  /** The client's node id ('' until a request named it). */
  readonly nodeId: string;
  readonly protocol: AdsProtocol;
  /** Per subscribed type URL, the names and what the client ACKed or NACKed last (CSDS). */
  typeStatuses(): ReadonlyMap<string, TypeStatus>;
  /** Ends the stream with an error status (the observer closing). */
  fail(code: grpc.status, details: string): void;
}

/** What a stream reports; the observer counts and logs it. */
export interface StreamHooks {
  /** A response went out with `resources` resources. */
  pushed(typeUrl: string, resources: number): void;
  /** The client rejected a response. */
  nacked(info: { readonly streamId: number; readonly protocol: AdsProtocol; readonly nodeId: string; readonly typeUrl: string; readonly nonce: string; readonly message: string }): void;
  /** The stream ended (once). */
  closed(stream: ServedStream): void;
}

/** Options of {@link ObserverAdsStream}. */
export interface ObserverAdsStreamOptions {
  /** Unique per observer, for logs. */
  readonly id: number;
  readonly cache: ResourceCache;
  readonly subscriptions: Subscriptions;
  /** Shared by the observer's streams. */
  readonly encoder: ResponseEncoder;
  readonly hooks: StreamHooks;
}

/** One response as CSDS reports it: each name's resource version in it (undefined: left out, absent) and when. */
export interface SentResponse {
  readonly versions: ReadonlyMap<string, string | undefined>;
  /** When (ms since the epoch) it was sent, ACKed or NACKed. */
  readonly at: number;
}

/** What the client said of this type's responses (CSDS per stream). */
export interface TypeStatus {
  /** The subscribed names. */
  readonly names: ReadonlySet<string>;
  /** The last response the client ACKed; undefined before one. */
  readonly acked: SentResponse | undefined;
  /** The last response it NACKed, while no later one was ACKed, and its error message. */
  readonly nacked: (SentResponse & { readonly message: string }) | undefined;
}

/** One type's state on the stream. */
interface TypeState {
  names: ReadonlySet<string>;
  /** The last nonce sent for this type; undefined before the first response. */
  lastNonce: number | undefined;
  /** The last response sent, awaiting its ACK or NACK. */
  inFlight: SentResponse | undefined;
  acked: SentResponse | undefined;
  nacked: (SentResponse & { readonly message: string }) | undefined;
}

/** Serves one `StreamAggregatedResources` call. */
export class ObserverAdsStream implements Subscriber, ServedStream {
  readonly protocol = 'sotw';
  private readonly types = new Map<string, TypeState>();
  private readonly dirty = new Set<string>();
  /** The call: its lifecycle, and flow control (see {@link send}). */
  private readonly io: StreamCall<DiscoveryRequest>;
  private node = '';

  constructor(
    call: AdsCall,
    private readonly options: ObserverAdsStreamOptions,
  ) {
    this.io = new StreamCall(call, { request: (req) => this.onRequest(req), flush: () => this.flush(), closed: () => this.onClosed() });
  }

  /** `running` until the call ends, then `closed`. */
  get lifecycle(): Lifecycle {
    return this.io.lifecycle;
  }

  /** The stream's id. */
  get id(): number {
    return this.options.id;
  }

  /** The client's node id ('' until a request named it). */
  get nodeId(): string {
    return this.node;
  }

  /** Per subscribed type URL, the names and what the client ACKed or NACKed last (CSDS). */
  typeStatuses(): ReadonlyMap<string, TypeStatus> {
    return this.types;
  }

  /** Ends the stream with an error status (the observer closing). */
  fail(code: grpc.status, details: string): void {
    this.io.fail(code, details);
  }

  /** Part of {@link Subscriber}: a subscribed resource of `typeUrl` changed. */
  resourceChanged(typeUrl: string): void {
    this.markDirty(typeUrl);
  }

  private onRequest(req: DiscoveryRequest): void {
    if (!isObservedTypeUrl(req.type_url)) return;
    if (this.node === '' && req.node?.id) this.node = req.node.id;
    const state = this.types.get(req.type_url);
    if (state?.lastNonce !== undefined && req.response_nonce !== String(state.lastNonce)) return; // stale
    if (state?.lastNonce !== undefined && req.error_detail) {
      this.options.hooks.nacked({ streamId: this.id, protocol: this.protocol, nodeId: this.node, typeUrl: req.type_url, nonce: req.response_nonce, message: req.error_detail.message ?? '' });
      if (state.inFlight) state.nacked = { ...state.inFlight, at: Date.now(), message: req.error_detail.message ?? '' };
    } else if (state?.inFlight) {
      state.acked = { ...state.inFlight, at: Date.now() };
      state.nacked = undefined;
    }
    if (state) state.inFlight = undefined;
    this.resubscribe(req.type_url, state, new Set(req.resource_names));
  }

  private resubscribe(typeUrl: string, state: TypeState | undefined, names: ReadonlySet<string>): void {
    const before = state?.names ?? new Set<string>();
    const { subscriptions } = this.options;
    for (const name of names) if (!before.has(name)) subscriptions.add(typeUrl, name, this);
    for (const name of before) if (!names.has(name)) subscriptions.remove(typeUrl, name, this);
    const changed = !state || before.size !== names.size || [...names].some((n) => !before.has(n));
    if (state) state.names = names;
    else this.types.set(typeUrl, { names, lastNonce: undefined, inFlight: undefined, acked: undefined, nacked: undefined });
    if (changed) this.markDirty(typeUrl);
  }

  private markDirty(typeUrl: string): void {
    if (this.lifecycle === 'closed') return;
    this.dirty.add(typeUrl);
    this.io.scheduleFlush();
  }

  private flush(): void {
    for (const typeUrl of [...this.dirty]) {
      if (this.io.blocked) return; // the rest stays dirty until drain
      this.dirty.delete(typeUrl);
      const state = this.types.get(typeUrl);
      if (!state || state.names.size === 0) continue; // no interest left in the type
      const composed = this.compose(typeUrl, state);
      if (composed) this.send(typeUrl, state, composed);
    }
  }

  /** Every existing subscribed resource of the type and each name's version, or undefined while one is still pending. */
  private compose(typeUrl: string, state: TypeState): { resources: AnyMessage[]; versions: Map<string, string | undefined> } | undefined {
    const resources: AnyMessage[] = [];
    const versions = new Map<string, string | undefined>();
    for (const name of state.names) {
      const entry = this.options.cache.get(resourceKey(typeUrl, name));
      if (entry.status === 'pending') return undefined; // sent when its first read comes in
      versions.set(name, entry.status === 'present' ? entry.version : undefined);
      if (entry.status === 'present') resources.push(entry.resource);
    }
    return { resources, versions };
  }

  private send(typeUrl: string, state: TypeState, { resources, versions }: { resources: AnyMessage[]; versions: Map<string, string | undefined> }): void {
    const response = this.options.encoder.encode(typeUrl, state.names, resources, state.lastNonce ?? 0);
    state.lastNonce = response.nonce;
    state.inFlight = { versions, at: Date.now() };
    // A slow client: further responses wait until grpc-js drained this one. Changes meanwhile only
    // mark their types dirty, so the client then gets the latest state once, not every step.
    this.io.write(response.bytes);
    this.options.hooks.pushed(typeUrl, resources.length);
  }

  private onClosed(): void {
    for (const [typeUrl, state] of this.types) for (const name of state.names) this.options.subscriptions.remove(typeUrl, name, this);
    this.types.clear();
    this.options.hooks.closed(this);
  }
}
