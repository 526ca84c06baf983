/**
 * One incremental ADS stream of the observer (`DeltaAggregatedResources`, envoy xds_protocol.rst
 * "Incremental xDS"): per type URL the subscribed names and, per name, the version the client holds.
 * Served beside SotW because rest.li's own D2 xDS client (`com.linkedin.d2.xds.XdsClientImpl`)
 * speaks only delta ADS, and because a client following many resources then gets only the one that
 * changed.
 *
 * Protocol rules, as the spec states them and how the observer keeps them:
 * - Each request is about one type; `resource_names_subscribe` / `resource_names_unsubscribe` change
 *   that type's subscription. An unsubscribed name gets nothing more. Subscribing again to a name
 *   already subscribed is a request for its current state (it is sent again).
 * - A response carries only resources whose version the client does not hold (`Resource {name,
 *   version, resource}`), and in `removed_resources` the subscribed names that do not exist: a node
 *   missing from the start, a node deleted later, a name the observer refuses (`resource-names.ts`),
 *   and `*` (no wildcard here: as in SotW it is a name, and no node has it). A name reported removed
 *   is reported again only after it existed in between.
 * - Versions are per resource: a node's mzxid, a URI map's version that moves with any child
 *   (`resource-cache.ts`). The first request of a type on a stream may carry
 *   `initial_resource_versions` (a reconnecting client): a subscribed resource whose version matches
 *   is not sent again; one that changed is, and one deleted since is removed. The first request of
 *   a type is still answered, once none of its names waits for a first read: with nothing to send,
 *   by a response without resources. A reconnecting client whose versions are all current would
 *   otherwise never hear from the stream, and a client hears a server's recovery only from a
 *   response (gRFC A57/A71): ours would stay on its fallback observer for good.
 * - Unlike SotW, a response does not wait for every name of its type: each name is sent once its
 *   first read is in (a pending one follows in a later response).
 * - `response_nonce` without `error_detail` ACKs, with it NACKs. Subscription changes in the same
 *   request apply either way, and whatever the nonce (unlike SotW there is no stale request: every
 *   request says what changes). A NACK is reported (logged, counted) and the rejected versions count
 *   as held: nothing is resent until the resource changes again, so a client that rejects a resource
 *   never loops (the observer only serves what our client accepts; a NACK is a client problem).
 * - Malformed data is the cache's business: the last good version stays, so no response goes out.
 *
 * Responses are per stream (they depend on what each client holds), but the resources in them are
 * the cache's `Resource` wrappers, encoded once per change for every stream, SotW or delta; a
 * response only adds each resource's version around those bytes. Flow control as in SotW: while
 * grpc-js buffers a response for a slow client, changes only mark names dirty, and the client then
 * gets their latest versions once.
 *
 * Concurrency: event loop only; `types` changes in request handling and `flush`.
 */
import type * as grpc from '@grpc/grpc-js';
import type { Lifecycle } from '../lifecycle';
import { encodeDeltaDiscoveryResponse, type DeltaDiscoveryRequest, type DeltaDiscoveryResponse, type EncodedDeltaResource } from '../xds/envoy-protos';
import type { AdsProtocol, SentResponse, ServedStream, StreamHooks, TypeStatus } from './ads-stream';
import type { ResourceCache } from './resource-cache';
import { isObservedTypeUrl, resourceKey } from './resource-names';
import { StreamCall } from './stream-call';
import type { Subscriber, Subscriptions } from './subscriptions';

/** The delta ADS call as grpc-js hands it to a handler; responses go out encoded (bytes). */
export type DeltaAdsCall = grpc.ServerDuplexStream<DeltaDiscoveryRequest, DeltaDiscoveryResponse | Buffer>;

/** Options of {@link DeltaAdsStream}. */
export interface DeltaAdsStreamOptions {
  /** Unique per observer (shared with SotW streams), for logs and CSDS. */
  readonly id: number;
  readonly cache: ResourceCache;
  readonly subscriptions: Subscriptions;
  readonly hooks: StreamHooks;
}

/** One type's state on the stream. */
interface DeltaTypeState {
  /** The subscribed names. */
  readonly names: Set<string>;
  /**
   * What the client holds, by subscribed name: the version last sent (or announced in
   * `initial_resource_versions`), undefined once reported removed; no entry: nothing known.
   */
  readonly held: Map<string, string | undefined>;
  /** Names to compare with the cache at the next flush. */
  readonly dirty: Set<string>;
  /** Responses sent and not yet ACKed or NACKed, by nonce: what the client held after each. */
  readonly inFlight: Map<number, SentResponse>;
  acked: SentResponse | undefined;
  nacked: (SentResponse & { readonly message: string }) | undefined;
  /** A response of this type went out on the stream (the first request is owed one, see the header). */
  answered: boolean;
}

/** Responses kept awaiting their ACK per type: a client that never ACKs must not grow the stream (older ones then read as settled). */
const MAX_IN_FLIGHT = 16;

/** A response's content: the resources to send and the names to report removed. */
interface DeltaContent {
  readonly resources: EncodedDeltaResource[];
  readonly removed: string[];
}

/** Serves one `DeltaAggregatedResources` call. */
export class DeltaAdsStream implements Subscriber, ServedStream {
  readonly protocol: AdsProtocol = 'delta';
  private readonly types = new Map<string, DeltaTypeState>();
  /** The call: its lifecycle and flow control. */
  private readonly io: StreamCall<DeltaDiscoveryRequest>;
  private node = '';
  /** The last nonce sent on this stream (any type). */
  private nonce = 0;

  constructor(
    call: DeltaAdsCall,
    private readonly options: DeltaAdsStreamOptions,
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

  /** Part of {@link Subscriber}: the subscribed resource `name` of `typeUrl` changed. */
  resourceChanged(typeUrl: string, name: string): void {
    const state = this.types.get(typeUrl);
    if (this.lifecycle === 'closed' || !state?.names.has(name)) return;
    state.dirty.add(name);
    this.io.scheduleFlush();
  }

  private onRequest(req: DeltaDiscoveryRequest): void {
    if (!isObservedTypeUrl(req.type_url)) return;
    if (this.node === '' && req.node?.id) this.node = req.node.id;
    let state = this.types.get(req.type_url);
    const first = state === undefined;
    if (!state) {
      state = { names: new Set(), held: new Map(), dirty: new Set(), inFlight: new Map(), acked: undefined, nacked: undefined, answered: false };
      this.types.set(req.type_url, state);
    }
    if (req.response_nonce) this.settleResponse(req, state);
    this.unsubscribe(req.type_url, state, req.resource_names_unsubscribe);
    this.subscribe(req.type_url, state, req.resource_names_subscribe, first ? req.initial_resource_versions : {});
    if (state.dirty.size > 0) this.io.scheduleFlush();
  }

  /** The ACK or NACK of a response this stream sent (a nonce it did not send, or already settled, is ignored). */
  private settleResponse(req: DeltaDiscoveryRequest, state: DeltaTypeState): void {
    const nonce = Number(req.response_nonce);
    const sent = state.inFlight.get(nonce);
    if (!sent) return;
    for (const n of state.inFlight.keys()) if (n <= nonce) state.inFlight.delete(n);
    if (req.error_detail) {
      const message = req.error_detail.message ?? '';
      this.options.hooks.nacked({ streamId: this.id, protocol: this.protocol, nodeId: this.node, typeUrl: req.type_url, nonce: req.response_nonce, message });
      state.nacked = { ...sent, at: Date.now(), message };
    } else {
      state.acked = { ...sent, at: Date.now() };
      state.nacked = undefined;
    }
  }

  private unsubscribe(typeUrl: string, state: DeltaTypeState, names: readonly string[]): void {
    for (const name of names) {
      if (!state.names.delete(name)) continue;
      state.held.delete(name);
      state.dirty.delete(name);
      this.options.subscriptions.remove(typeUrl, name, this);
    }
  }

  private subscribe(typeUrl: string, state: DeltaTypeState, names: readonly string[], initial: Readonly<Record<string, string>>): void {
    for (const name of names) {
      if (!state.names.has(name)) {
        state.names.add(name);
        this.options.subscriptions.add(typeUrl, name, this);
      }
      // A name subscribed (again) is compared anew: against what the client says it holds, or nothing.
      if (Object.hasOwn(initial, name)) state.held.set(name, initial[name]);
      else state.held.delete(name);
      state.dirty.add(name);
    }
  }

  private flush(): void {
    for (const [typeUrl, state] of this.types) {
      if (this.io.blocked) return; // the rest stays dirty until drain
      if (state.dirty.size === 0) continue;
      const content = this.compose(typeUrl, state);
      if (content.resources.length > 0 || content.removed.length > 0 || this.owesAnswer(typeUrl, state)) this.send(typeUrl, state, content);
    }
  }

  /** The type's first request is not answered yet, and none of its names waits for a first read (their reads mark them dirty again). */
  private owesAnswer(typeUrl: string, state: DeltaTypeState): boolean {
    if (state.answered || state.names.size === 0) return false;
    for (const name of state.names) if (this.options.cache.get(resourceKey(typeUrl, name)).status === 'pending') return false;
    return true;
  }

  /** Takes the type's dirty names: each one whose cached state differs from what the client holds. */
  private compose(typeUrl: string, state: DeltaTypeState): DeltaContent {
    const resources: EncodedDeltaResource[] = [];
    const removed: string[] = [];
    for (const name of state.dirty) {
      const entry = this.options.cache.get(resourceKey(typeUrl, name));
      if (entry.status === 'pending') continue; // its first read marks it dirty again
      const held = state.held.get(name);
      if (entry.status === 'present' && held !== entry.version) {
        resources.push({ wrapped: entry.resource, version: entry.version });
        state.held.set(name, entry.version);
      } else if (entry.status === 'absent' && (held !== undefined || !state.held.has(name))) {
        removed.push(name);
        state.held.set(name, undefined);
      }
    }
    state.dirty.clear();
    return { resources, removed };
  }

  private send(typeUrl: string, state: DeltaTypeState, { resources, removed }: DeltaContent): void {
    const nonce = ++this.nonce;
    state.answered = true;
    const bytes = encodeDeltaDiscoveryResponse({ system_version_info: String(nonce), type_url: typeUrl, nonce: String(nonce), removed_resources: removed, resources });
    // CSDS shows per name what the client holds once it ACKed: every subscribed name, not only this response's.
    state.inFlight.set(nonce, { versions: new Map(state.held), at: Date.now() });
    if (state.inFlight.size > MAX_IN_FLIGHT) state.inFlight.delete(state.inFlight.keys().next().value!);
    this.io.write(bytes);
    this.options.hooks.pushed(typeUrl, resources.length);
  }

  private onClosed(): void {
    for (const [typeUrl, state] of this.types) for (const name of state.names) this.options.subscriptions.remove(typeUrl, name, this);
    this.types.clear();
    this.options.hooks.closed(this);
  }
}
