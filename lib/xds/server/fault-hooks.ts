/**
 * Faults a test (or the local stack) can inject into the management server.
 *
 * Public names (stable):
 * - `FaultHooks` — `failStreamWhenRequested(fault)` → remove fn, `delayResponses(ms, typeUrl?)`,
 *   `dropResponses(typeUrl | 'all' | null)`, `clear()`; read by the server through `matchStreamFailure`,
 *   `responseDelayMs`, `shouldDrop`.
 * - `StreamFailureFault` — `{ resourceName?, typeUrl?, stopListener?, code?, details?, once? }`.
 * - `invalidResource(kind, name)` — a decodable Any that fails validation (for the NACK path).
 * - `garbageResource(typeUrl)` — an Any whose bytes do not decode.
 *
 * Serving an invalid resource = putting one of these in a snapshot under a name (`Record` form of
 * `ResourceSet`); sending garbage to open streams = `XdsManagementServer.pushRaw`.
 */
import { status as GrpcStatus } from '@grpc/grpc-js';
import { packAny, wrapResource, type AnyMessage } from '../protos';
import { TYPE_URLS, type ResourceKind } from '../resource-types/type-urls';

/** Fail the ADS stream when a request names `resourceName` (or any request of `typeUrl`). */
export interface StreamFailureFault {
  resourceName?: string;
  typeUrl?: string;
  /** Also stop the listener (grpc-go's TestFallback_MidUpdate / MidStartup). */
  stopListener?: boolean;
  /** Status to fail with; UNAVAILABLE by default. */
  code?: GrpcStatus;
  details?: string;
  /** Remove the fault after it fired once. */
  once?: boolean;
}

/** Mutable fault configuration, read by the server on every request/response. */
export class FaultHooks {
  private failures: StreamFailureFault[] = [];
  private delays = new Map<string, number>();
  private drops = new Set<string>();

  /** Arms a stream failure; returns a function that disarms it. */
  failStreamWhenRequested(fault: StreamFailureFault): () => void {
    this.failures.push(fault);
    return () => {
      this.failures = this.failures.filter((f) => f !== fault);
    };
  }

  /** Delays every response (of `typeUrl`, or of all types) by `ms`; 0 removes the delay. */
  delayResponses(ms: number, typeUrl: string = 'all'): void {
    if (ms > 0) this.delays.set(typeUrl, ms);
    else this.delays.delete(typeUrl);
  }

  /** Drops (never sends) responses of `typeUrl`, or of all types with 'all'; null stops dropping. */
  dropResponses(typeUrl: string | 'all' | null): void {
    if (typeUrl === null) this.drops.clear();
    else this.drops.add(typeUrl);
  }

  /** Removes every fault. */
  clear(): void {
    this.failures = [];
    this.delays.clear();
    this.drops.clear();
  }

  /** The armed failure matching a request, if any (a `once` fault is disarmed here). */
  matchStreamFailure(typeUrl: string, resourceNames: readonly string[]): StreamFailureFault | undefined {
    const fault = this.failures.find(
      (f) =>
        (f.typeUrl === undefined || f.typeUrl === typeUrl) &&
        (f.resourceName === undefined || resourceNames.includes(f.resourceName)) &&
        (f.typeUrl !== undefined || f.resourceName !== undefined),
    );
    if (fault?.once) this.failures = this.failures.filter((f) => f !== fault);
    return fault;
  }

  /** Delay for a response of `typeUrl` (0 = none). */
  responseDelayMs(typeUrl: string): number {
    return this.delays.get(typeUrl) ?? this.delays.get('all') ?? 0;
  }

  /** True when responses of `typeUrl` are being dropped. */
  shouldDrop(typeUrl: string): boolean {
    return this.drops.has(typeUrl) || this.drops.has('all');
  }
}

/** A resource that decodes but fails validation (NACK path), per kind. */
export function invalidResource(kind: ResourceKind, name: string): AnyMessage {
  switch (kind) {
    case 'listener':
      return packAny(TYPE_URLS.listener, { name }); // no api_listener
    case 'routeConfiguration':
      return packAny(TYPE_URLS.routeConfiguration, { name, virtual_hosts: [{ name: 'vh', domains: [] }] }); // no domains
    case 'cluster':
      return packAny(TYPE_URLS.cluster, { name, type: 'STATIC' }); // not EDS
    case 'clusterLoadAssignment':
      return packAny(TYPE_URLS.clusterLoadAssignment, {
        cluster_name: name,
        endpoints: [{ load_balancing_weight: { value: 1 }, lb_endpoints: [{ endpoint: {} }] }], // no address
      });
    // The indis messages carry no name: the Resource wrapper names them.
    case 'd2Node':
      return wrapResource(packAny(TYPE_URLS.d2Node, { stat: { Mzxid: '1' } }), name); // no data
    case 'd2UriMap':
      return wrapResource(packAny(TYPE_URLS.d2UriMap, { nodes: { child: { clusterName: '' } } }), name); // no clusterName
    case 'd2SymlinkNode':
      return wrapResource(packAny(TYPE_URLS.d2SymlinkNode, { masterClusterNodePath: '' }), name); // no target
  }
}

/** An Any of `typeUrl` whose bytes do not decode (field 1000 with the invalid wire type 7). */
export function garbageResource(typeUrl: string): AnyMessage {
  return { type_url: typeUrl, value: Buffer.from([0xc7, 0x3e, 0x00]) };
}
