/**
 * One SotW ADS stream on the management server.
 *
 * Public names (stable):
 * - `AdsSession` — created by `XdsManagementServer` per stream; `onSnapshotChanged()`, `pushRaw(...)`,
 *   `fail(code, details)`, getters `id`, `nodeId`, `closed`.
 * - `AdsSessionDeps` — what the session needs from its server.
 *
 * Protocol (envoy xds_protocol.rst): a request whose response_nonce differs from the last nonce sent
 * on this stream for its type is stale and IGNORED (grpc-js-xds-peer.md: without this rule
 * grpc-js-xds's N=1000 takes 7× longer). LDS/CDS with no names (or '*') is a wildcard. A NACK never
 * triggers a resend of the same state. Every response carries a fresh nonce (unique per stream).
 */
import type * as grpc from '@grpc/grpc-js';
import { status as GrpcStatus } from '@grpc/grpc-js';
import { wrapResource, type AnyMessage, type DiscoveryRequest, type DiscoveryResponse } from '../protos';
import { CDS_TYPE_URL, LDS_TYPE_URL } from '../resource-types/type-urls';
import type { FaultHooks, StreamFailureFault } from './fault-hooks';
import type { RecordedStream, RequestClassification, ServerRecorder } from './recorder';
import type { SnapshotCache } from './snapshot-cache';
import type { Lifecycle } from '../../lifecycle';

type AdsCall = grpc.ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>;

/** What an {@link AdsSession} needs from its server. */
export interface AdsSessionDeps {
  readonly cache: SnapshotCache;
  readonly faults: FaultHooks;
  readonly recorder: ServerRecorder;
  /** Wrap each resource in `envoy.service.discovery.v3.Resource`. */
  readonly wrapResources: boolean;
  /** Called when a stream-failure fault fired (the server may stop its listener). */
  readonly onFault: (fault: StreamFailureFault) => void;
  /** Called once when the stream is over. */
  readonly onClosed: (session: AdsSession) => void;
}

/** Per-type subscription state on one stream. */
interface TypeState {
  names: ReadonlySet<string>;
  wildcard: boolean;
  /** Last nonce sent for this type (undefined: nothing sent yet). */
  lastNonce: string | undefined;
  /** Snapshot version of the last response sent. */
  sentVersion: string | undefined;
}

function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((n) => b.has(n));
}

/** Handles one `StreamAggregatedResources` call. */
export class AdsSession {
  private readonly types = new Map<string, TypeState>();
  private readonly record: RecordedStream;
  private nonceCounter = 0;
  private node: string | undefined;
  private lifecycle: Lifecycle = 'running';

  constructor(
    private readonly call: AdsCall,
    id: number,
    private readonly deps: AdsSessionDeps,
  ) {
    this.record = { id, service: 'ads', openedAt: Date.now(), nodeId: undefined, closedAt: undefined };
    deps.recorder.streams.push(this.record);
    call.on('data', (req: DiscoveryRequest) => this.onRequest(req));
    call.on('end', () => {
      call.end();
      this.markClosed();
    });
    call.on('error', () => this.markClosed());
    call.on('cancelled', () => this.markClosed());
    call.on('close', () => this.markClosed());
    deps.recorder.notify();
  }

  /** Stream id (unique per server). */
  get id(): number {
    return this.record.id;
  }

  /** The node id from the first request ('' until then or when absent). */
  get nodeId(): string {
    return this.node ?? '';
  }

  /** True once the stream is over. */
  get closed(): boolean {
    return this.lifecycle === 'closed';
  }

  private markClosed(): void {
    if (this.lifecycle === 'closed') return;
    this.lifecycle = 'closed';
    this.record.closedAt = Date.now();
    this.deps.onClosed(this);
    this.deps.recorder.notify();
  }

  /** Ends the stream with an error status. */
  fail(code: GrpcStatus, details: string): void {
    if (this.lifecycle === 'closed') return;
    this.call.emit('error', Object.assign(new Error(details), { code, details }));
    this.markClosed();
  }

  private classify(req: DiscoveryRequest, type: TypeState | undefined): RequestClassification {
    if (!type || type.lastNonce === undefined) return 'initial';
    if (req.response_nonce !== type.lastNonce) return 'stale';
    return req.error_detail ? 'nack' : 'ack';
  }

  private onRequest(req: DiscoveryRequest): void {
    if (this.lifecycle === 'closed') return;
    if (this.node === undefined && req.node) this.node = this.record.nodeId = req.node.id ?? '';
    const previous = this.types.get(req.type_url);
    const classification = this.classify(req, previous);
    this.deps.recorder.requests.push({
      at: Date.now(),
      streamId: this.id,
      nodeId: this.nodeId,
      typeUrl: req.type_url,
      versionInfo: req.version_info,
      resourceNames: this.deps.recorder.names(req.resource_names),
      resourceNameCount: req.resource_names.length,
      responseNonce: req.response_nonce,
      errorDetail: req.error_detail ? { code: req.error_detail.code, message: req.error_detail.message } : undefined,
      classification,
    });
    this.deps.recorder.notify();
    if (classification === 'stale') return;
    const fault = this.deps.faults.matchStreamFailure(req.type_url, req.resource_names);
    if (fault) {
      this.fail(fault.code ?? GrpcStatus.UNAVAILABLE, fault.details ?? 'injected stream failure');
      this.deps.onFault(fault);
      return;
    }
    this.updateSubscription(req, previous, classification);
  }

  private updateSubscription(req: DiscoveryRequest, previous: TypeState | undefined, classification: RequestClassification): void {
    const names = new Set(req.resource_names);
    const isSotwWildcardType = req.type_url === LDS_TYPE_URL || req.type_url === CDS_TYPE_URL;
    const wildcard = names.has('*') || (isSotwWildcardType && names.size === 0);
    names.delete('*');
    const type: TypeState = previous ?? { names, wildcard, lastNonce: undefined, sentVersion: undefined };
    const namesChanged = !previous || previous.wildcard !== wildcard || !sameNames(previous.names, names);
    type.names = names;
    type.wildcard = wildcard;
    this.types.set(req.type_url, type);
    if (!wildcard && names.size === 0) return; // no interest in this type any more
    const version = this.deps.cache.get(this.nodeId)?.version;
    const outdated = classification !== 'nack' && version !== undefined && version !== req.version_info;
    if (classification === 'initial' || namesChanged || outdated) this.respond(req.type_url, type);
  }

  /** Re-sends every subscribed type whose snapshot version changed. */
  onSnapshotChanged(): void {
    const snapshot = this.deps.cache.get(this.nodeId);
    if (!snapshot || this.lifecycle === 'closed') return;
    for (const [typeUrl, type] of this.types) {
      if ((type.wildcard || type.names.size > 0) && type.sentVersion !== snapshot.version) this.respond(typeUrl, type);
    }
  }

  private respond(typeUrl: string, type: TypeState): void {
    const snapshot = this.deps.cache.get(this.nodeId);
    if (!snapshot) return; // nothing to serve yet; onSnapshotChanged sends once there is
    const all = snapshot.resources.get(typeUrl as never) ?? new Map<string, AnyMessage>();
    const entries = [...all].filter(([name]) => type.wildcard || type.names.has(name));
    const resources = entries.map(([name, any]) => (this.deps.wrapResources ? wrapResource(any, name) : any));
    this.send(typeUrl, snapshot.version, resources, entries.map(([n]) => n), type);
  }

  /** Sends `resources` as-is to this stream when it subscribes to `typeUrl` (garbage, invalid data). */
  pushRaw(typeUrl: string, resources: AnyMessage[], version: string): boolean {
    const type = this.types.get(typeUrl);
    if (!type || this.lifecycle === 'closed') return false;
    this.send(typeUrl, version, resources, [], type);
    return true;
  }

  private send(typeUrl: string, version: string, resources: AnyMessage[], names: string[], type: TypeState): void {
    const faults = this.deps.faults;
    const dropped = faults.shouldDrop(typeUrl);
    const nonce = String(++this.nonceCounter);
    this.deps.recorder.responses.push({ at: Date.now(), streamId: this.id, typeUrl, versionInfo: version, nonce, resourceNames: this.deps.recorder.names(names), resourceCount: resources.length, dropped });
    this.deps.recorder.notify();
    if (dropped) return;
    type.lastNonce = nonce;
    type.sentVersion = version;
    const response: DiscoveryResponse = { version_info: version, resources, type_url: typeUrl, nonce };
    const delay = faults.responseDelayMs(typeUrl);
    if (delay === 0) this.call.write(response);
    else setTimeout(() => this.lifecycle === 'running' && this.call.write(response), delay).unref();
  }
}
