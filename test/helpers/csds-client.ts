/**
 * A CSDS client that is not our code: a plain @grpc/grpc-js generic client whose service shape
 * (method paths, streaming) and messages come from envoy's own .proto files, as a tool would load
 * them: `csds.proto` and the resource protos from @grpc/grpc-js-xds's `deps/`, parsed by protobufjs
 * (not lib/xds's generated descriptor). Decoded the way @grpc/proto-loader decodes (snake_case
 * fields, enum names, string longs, defaults), and an Any unpacks to its message by type URL.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';

const PROTO_FILES = [
  'envoy/service/status/v3/csds.proto',
  'envoy/config/listener/v3/listener.proto',
  'envoy/config/route/v3/route.proto',
  'envoy/config/cluster/v3/cluster.proto',
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
];
const SERVICE = 'envoy.service.status.v3.ClientStatusDiscoveryService';
const DECODE: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

/** `google.protobuf.Timestamp` as decoded. */
export interface DecodedTimestamp {
  seconds: string;
  nanos: number;
}

/** `ClientConfig.GenericXdsConfig` as decoded. */
export interface DecodedGenericXdsConfig {
  type_url: string;
  name: string;
  version_info: string;
  xds_config: { type_url: string; value: Buffer } | null;
  last_updated: DecodedTimestamp | null;
  config_status: string;
  client_status: string;
  error_state: { details: string; version_info: string; last_update_attempt: DecodedTimestamp | null; failed_configuration: unknown } | null;
  is_static_resource: boolean;
}

/** `ClientStatusResponse` as decoded. */
export interface DecodedClientStatusResponse {
  config: Array<{ node: { id: string; user_agent_name: string } | null; generic_xds_configs: DecodedGenericXdsConfig[]; client_scope: string }>;
}

let loaded: protobuf.Root | undefined;

/** The envoy protos, parsed from the .proto files once. */
export function envoyProtoRoot(): protobuf.Root {
  if (loaded) return loaded;
  const pkg = path.dirname(require.resolve('@grpc/grpc-js-xds/package.json'));
  const dirs = ['envoy-api', 'xds', 'googleapis', 'protoc-gen-validate'].map((d) => path.join(pkg, 'deps', d));
  dirs.push(path.dirname(require.resolve('protobufjs/package.json'))); // google/protobuf/descriptor.proto
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => dirs.map((d) => path.join(d, target)).find((c) => existsSync(c)) ?? target;
  root.loadSync(PROTO_FILES, { keepCase: true });
  root.resolveAll();
  loaded = root;
  return root;
}

/** The service definition as csds.proto declares it. */
function serviceDefinition(): grpc.ServiceDefinition {
  const root = envoyProtoRoot();
  const service = root.lookupService(SERVICE);
  const definition: Record<string, grpc.MethodDefinition<object, object>> = {};
  for (const method of service.methodsArray) {
    const request = root.lookupType(method.requestType);
    const response = root.lookupType(method.responseType);
    definition[method.name] = {
      path: `/${SERVICE}/${method.name}`,
      requestStream: method.requestStream === true,
      responseStream: method.responseStream === true,
      requestSerialize: (obj: object) => Buffer.from(request.encode(request.fromObject(obj)).finish()),
      requestDeserialize: (bytes: Buffer) => request.toObject(request.decode(bytes), DECODE),
      responseSerialize: (obj: object) => Buffer.from(response.encode(response.fromObject(obj)).finish()),
      responseDeserialize: (bytes: Buffer) => response.toObject(response.decode(bytes), DECODE),
      originalName: method.name,
    };
  }
  return definition;
}

/** A CSDS client on `127.0.0.1:<port>`, sending `authorization` metadata (e.g. `Bearer <token>`) when given. */
export class CsdsTestClient {
  private readonly client: grpc.Client;

  constructor(
    port: number,
    private readonly authorization?: string,
  ) {
    const Client = grpc.makeGenericClientConstructor(serviceDefinition(), 'ClientStatusDiscoveryService');
    this.client = new Client(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  }

  /** `FetchClientStatus`; rejects with the call's `grpc.ServiceError`. */
  fetch(request: object = {}): Promise<DecodedClientStatusResponse> {
    const method = this.client as unknown as Record<string, (req: object, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, res?: object) => void) => void>;
    return new Promise((resolve, reject) =>
      method.FetchClientStatus!.call(this.client, request, this.metadata(), { deadline: Date.now() + 5000 }, (err, res) =>
        err ? reject(err) : resolve(res as DecodedClientStatusResponse),
      ),
    );
  }

  /** `StreamClientStatus`: the open stream. */
  stream(): grpc.ClientDuplexStream<object, DecodedClientStatusResponse> {
    const method = this.client as unknown as Record<string, (md: grpc.Metadata) => grpc.ClientDuplexStream<object, DecodedClientStatusResponse>>;
    return method.StreamClientStatus!.call(this.client, this.metadata());
  }

  close(): void {
    this.client.close();
  }

  private metadata(): grpc.Metadata {
    const metadata = new grpc.Metadata();
    if (this.authorization !== undefined) metadata.set('authorization', this.authorization);
    return metadata;
  }
}

/** The resource in an `xds_config`, decoded with the envoy protos. */
export function unpackXdsConfig(any: { type_url: string; value: Buffer }): Record<string, unknown> {
  const type = envoyProtoRoot().lookupType(any.type_url.slice(any.type_url.lastIndexOf('/') + 1));
  return type.toObject(type.decode(any.value), DECODE);
}

/** Milliseconds since the epoch of a decoded Timestamp. */
export function timestampMs(ts: DecodedTimestamp | null): number | undefined {
  return ts === null ? undefined : Number(ts.seconds) * 1000 + Math.floor(ts.nanos / 1_000_000);
}
