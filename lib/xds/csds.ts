/**
 * CSDS, the Client Status Discovery Service (gRFC A40): what lib/xds clients know, in the form gRPC's
 * tools read (`grpcdebug <addr> xds config`, admin pages, `grpcurl`).
 *
 * - {@link buildClientStatusResponse}: the one builder. One `ClientConfig` per client, i.e. per CSDS
 *   client scope (gRFC A71), from its `dump()`: the node, and per watched resource its type URL, name,
 *   accepted `version_info`, `client_status`, `last_updated`, the resource as received (`xds_config`,
 *   A40 "Expose xDS Config As Is") while one is cached, and after a NACK the `error_state` (details,
 *   rejected version, when). A NACKed resource keeps the version and config it had (A40's example).
 * - Two renderings of it: the gRPC service ({@link addCsdsService}: `FetchClientStatus`,
 *   `StreamClientStatus`), and proto3 JSON ({@link clientStatusJson}) for an HTTP `/config_dump`.
 *
 * Where this differs from grpc-go `xds/csds`: the clients are given (a function read on each request)
 * instead of a process-wide pool, so any XdsClient user can serve CSDS on a server of their own.
 * Node matchers are refused with INVALID_ARGUMENT (A40 leaves node matching out; grpc-go and
 * grpc-js-xds refuse it too rather than answer as if the node matched).
 *
 * Memory: the service's descriptor is its own small one (`proto-roots.ts` 'csds'); the JSON rendering
 * also builds the full descriptor on first use, to expand the resources' Anys.
 */
import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs/light';
import type { AuthorityDump } from './authority';
import type { XdsClientDump } from './client';
import { assertIsError } from './errors';
import { toProtoJson, type JsonObject } from './proto-json';
import { methodDefinition, rootOf } from './proto-roots';
import type { AnyMessage, NodeMessage } from './protos';
import { ResourceStatus } from './resource-state';
import { messageNameOf } from './resource-types/type-urls';

/** The CSDS service's full name. */
export const CSDS_SERVICE_NAME = 'envoy.service.status.v3.ClientStatusDiscoveryService';
/** Full method path of the unary `FetchClientStatus`. */
export const CSDS_FETCH_METHOD_PATH = `/${CSDS_SERVICE_NAME}/FetchClientStatus`;
/** Full method path of the bidi-streaming `StreamClientStatus` (one response per request). */
export const CSDS_STREAM_METHOD_PATH = `/${CSDS_SERVICE_NAME}/StreamClientStatus`;

/** `google.protobuf.Timestamp`. */
export interface TimestampMessage {
  /** Seconds since the Unix epoch. */
  readonly seconds: number;
  /** Nanoseconds within the second. */
  readonly nanos: number;
}

/** `envoy.admin.v3.ClientResourceStatus`, by name. */
export type ClientResourceStatusName = 'UNKNOWN' | 'REQUESTED' | 'DOES_NOT_EXIST' | 'ACKED' | 'NACKED';

/** `envoy.admin.v3.UpdateFailureState`: the last rejected update of a resource. */
export interface UpdateFailureState {
  /** Why it was rejected (the client's NACK error). */
  readonly details: string;
  /** When the rejected update arrived. */
  readonly last_update_attempt: TimestampMessage | null;
  /** `version_info` of the rejected response. */
  readonly version_info: string;
}

/** `envoy.service.status.v3.ClientConfig.GenericXdsConfig`: one resource. */
export interface GenericXdsConfig {
  /** The resource's type URL. */
  readonly type_url: string;
  /** The resource name (full `xdstp://` names included). */
  readonly name: string;
  /** `version_info` of the response whose value is cached ('' when none). */
  readonly version_info: string;
  /** The cached resource as the server sent it; null when none is cached or contents were excluded. */
  readonly xds_config: AnyMessage | null;
  /** When a value was last accepted or does-not-exist decided; null before either. */
  readonly last_updated: TimestampMessage | null;
  /** What the client knows about it. */
  readonly client_status: ClientResourceStatusName;
  /** The last rejected update, while the resource is NACKED; null otherwise. */
  readonly error_state: UpdateFailureState | null;
}

/** `envoy.service.status.v3.ClientConfig`: one xDS client. */
export interface ClientConfig {
  /** The node the client sends its servers. */
  readonly node: NodeMessage | null;
  /** Every resource the client watches, across its authorities. */
  readonly generic_xds_configs: readonly GenericXdsConfig[];
  /** The client's scope (gRFC A71): the data-plane target it serves, or "#server". */
  readonly client_scope: string;
}

/** `envoy.service.status.v3.ClientStatusResponse`. */
export interface ClientStatusResponse {
  /** One entry per xDS client. */
  readonly config: readonly ClientConfig[];
}

/** `envoy.service.status.v3.ClientStatusRequest`, as the service decodes it. */
export interface ClientStatusRequest {
  /** Node matchers; a non-empty list is refused (see the module comment). */
  readonly node_matchers?: readonly object[];
  /** Leave `xds_config` out of every resource. */
  readonly exclude_resource_contents?: boolean;
}

/** Options of {@link buildClientStatusResponse}. */
export interface ClientStatusOptions {
  /** Leave `xds_config` out (the request's `exclude_resource_contents`). Default false. */
  readonly excludeResourceContents?: boolean;
}

/**
 * What one `ClientConfig` is built from: the parts of an `XdsClient`'s `dump()` CSDS shows. A client's
 * dump is one; a server reporting its own streams (the D2 observer) builds one per stream, so both
 * share this one rendering of the format.
 */
export interface CsdsDump extends Pick<XdsClientDump, 'clientScope' | 'node'> {
  /** The watched resources, grouped as the client groups them (by authority). */
  readonly authorities: ReadonlyArray<{
    readonly resources: ReadonlyArray<Pick<AuthorityDump['resources'][number], 'typeUrl' | 'name' | 'status' | 'version' | 'error' | 'raw' | 'lastUpdated' | 'rejected'>>;
  }>;
}

/** The xDS clients a CSDS service reports, asked on each request; each is one `ClientConfig` (an `XdsClient` is one). */
export type CsdsClients = () => Iterable<{ dump(): CsdsDump }>;

const CLIENT_STATUS: Readonly<Record<ResourceStatus, ClientResourceStatusName>> = {
  [ResourceStatus.requested]: 'REQUESTED',
  [ResourceStatus.acked]: 'ACKED',
  [ResourceStatus.nacked]: 'NACKED',
  [ResourceStatus.doesNotExist]: 'DOES_NOT_EXIST',
};

const RESPONSE_TYPE = 'envoy.service.status.v3.ClientStatusResponse';
const REQUEST_TYPE = 'envoy.service.status.v3.ClientStatusRequest';

function timestamp(ms: number | undefined): TimestampMessage | null {
  return ms === undefined ? null : { seconds: Math.floor(ms / 1000), nanos: (ms % 1000) * 1_000_000 };
}

function clientConfig(dump: CsdsDump, options: ClientStatusOptions): ClientConfig {
  return {
    node: dump.node,
    client_scope: dump.clientScope,
    generic_xds_configs: dump.authorities.flatMap((authority) =>
      authority.resources.map(
        (r): GenericXdsConfig => ({
          type_url: r.typeUrl,
          name: r.name,
          version_info: r.version,
          xds_config: options.excludeResourceContents ? null : (r.raw ?? null),
          last_updated: timestamp(r.lastUpdated),
          client_status: CLIENT_STATUS[r.status],
          error_state:
            r.rejected === undefined ? null : { details: r.error ?? '', last_update_attempt: timestamp(r.rejected.at), version_info: r.rejected.version },
        }),
      ),
    ),
  };
}

/** The CSDS response for `dumps`, one `ClientConfig` each, in order. */
export function buildClientStatusResponse(dumps: readonly CsdsDump[], options: ClientStatusOptions = {}): ClientStatusResponse {
  return { config: dumps.map((dump) => clientConfig(dump, options)) };
}

/** The message type of an Any's type URL in the full descriptor (the resource types and all they reach). */
function resourceTypeOf(typeUrl: string): protobuf.Type | undefined {
  const found = rootOf('full').lookup(messageNameOf(typeUrl));
  return found instanceof protobuf.Type ? found : undefined;
}

/**
 * `response` as proto3 JSON (`proto-json.ts`: field names as in the .proto, as envoy's `/config_dump`
 * prints them, defaults left out), each `xds_config` expanded to `{"@type", ...the resource's fields}`.
 */
export function clientStatusJson(response: ClientStatusResponse): JsonObject {
  const type = rootOf('csds').lookupType(RESPONSE_TYPE);
  return toProtoJson(type, type.fromObject(response), resourceTypeOf);
}

let definition: grpc.ServiceDefinition | undefined;

/** The CSDS service definition (built once, on first use), for `server.addService`. */
export function csdsServiceDefinition(): grpc.ServiceDefinition {
  if (definition) return definition;
  const root = rootOf('csds');
  const request = root.lookupType(REQUEST_TYPE);
  const response = root.lookupType(RESPONSE_TYPE);
  definition = {
    FetchClientStatus: methodDefinition(CSDS_FETCH_METHOD_PATH, request, response, 'unary'),
    StreamClientStatus: methodDefinition(CSDS_STREAM_METHOD_PATH, request, response, 'bidi'),
  };
  return definition;
}

type Answer = { readonly ok: true; readonly response: ClientStatusResponse } | { readonly ok: false; readonly status: Partial<grpc.StatusObject> };

/** The answer to one request: the clients' state now, or the status refusing it. */
function answer(request: ClientStatusRequest, clients: CsdsClients): Answer {
  if ((request.node_matchers?.length ?? 0) > 0) {
    return { ok: false, status: { code: grpc.status.INVALID_ARGUMENT, details: 'node_matchers are not supported' } };
  }
  try {
    const dumps = [...clients()].map((client) => client.dump());
    return { ok: true, response: buildClientStatusResponse(dumps, { excludeResourceContents: request.exclude_resource_contents === true }) };
  } catch (err) {
    assertIsError(err);
    return { ok: false, status: { code: grpc.status.INTERNAL, details: err.message } };
  }
}

/** Options of {@link addCsdsService}. */
export interface CsdsServiceOptions {
  /**
   * Decides from a call's metadata whether it may read the state; a refused call ends UNAUTHENTICATED
   * ("unauthorized", nothing of the metadata echoed) before anything is read. For a server that shares
   * its port with services open to everyone (the D2 observer's ADS port), where a server-wide
   * interceptor would guard them all. Default: every call may.
   */
  readonly authorize?: (metadata: grpc.Metadata) => boolean;
}

/**
 * The handlers of the CSDS service over `clients`: `FetchClientStatus` answers once;
 * `StreamClientStatus` answers every request on the stream with the state at that moment, and ends
 * when the client half-closes.
 */
export function csdsServiceImplementation(clients: CsdsClients, options: CsdsServiceOptions = {}): grpc.UntypedServiceImplementation {
  const refused = (metadata: grpc.Metadata): Partial<grpc.StatusObject> | undefined =>
    options.authorize === undefined || options.authorize(metadata) ? undefined : { code: grpc.status.UNAUTHENTICATED, details: 'unauthorized' };
  return {
    FetchClientStatus: (call: grpc.ServerUnaryCall<ClientStatusRequest, ClientStatusResponse>, callback: grpc.sendUnaryData<ClientStatusResponse>) => {
      const refusal = refused(call.metadata);
      if (refusal) return void callback(refusal);
      const result = answer(call.request, clients);
      if (result.ok) callback(null, result.response);
      else callback(result.status);
    },
    StreamClientStatus: (call: grpc.ServerDuplexStream<ClientStatusRequest, ClientStatusResponse>) => {
      const refusal = refused(call.metadata);
      if (refusal) return void call.emit('error', refusal);
      let state: 'open' | 'failed' = 'open';
      call.on('data', (request: ClientStatusRequest) => {
        if (state !== 'open') return; // requests already in flight when the call failed
        const result = answer(request, clients);
        if (result.ok) return void call.write(result.response);
        state = 'failed';
        call.emit('error', result.status); // grpc-js ends the call with this status
      });
      call.on('end', () => {
        if (state === 'open') call.end();
      });
    },
  };
}

/**
 * Adds the CSDS service over `clients` to `server` (before it is bound or after, as grpc-js allows).
 *
 * @example
 * ```ts
 * const server = new grpc.Server();
 * addCsdsService(server, () => [xdsClient]);
 * server.bindAsync('127.0.0.1:9902', grpc.ServerCredentials.createInsecure(), () => {});
 * ```
 */
export function addCsdsService(server: grpc.Server, clients: CsdsClients, options: CsdsServiceOptions = {}): void {
  server.addService(csdsServiceDefinition(), csdsServiceImplementation(clients, options));
}
