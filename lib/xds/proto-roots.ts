/**
 * The protobufjs roots of lib/xds, each built once, on first use, from its generated descriptor in
 * `envoy-descriptor.ts` (scripts/xds-descriptor.ts), and gRPC method definitions over them. Internal:
 * `protos.ts` (ADS, LRS, Any) and `csds.ts` (gRFC A40) build on it; the package face does not export it.
 *
 * Concurrency: event-loop only; `roots` fills lazily and never shrinks.
 */
import type * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs/light';
import { ENVOY_CLIENT_DESCRIPTOR_JSON, ENVOY_CSDS_DESCRIPTOR_JSON, ENVOY_DESCRIPTOR_JSON } from './envoy-descriptor';
import { INDIS_DESCRIPTOR } from './indis-descriptor';

/**
 * Which descriptor a root is built from.
 * - 'client': the types the xDS client reads and writes, other message types empty (a fraction of the
 *   memory, which is what a service embedding the client pays for).
 * - 'full': every field, for `packAny`/`unpackAny`, the management server and rendering resources as JSON.
 * - 'csds': the Client Status Discovery Service messages (gRFC A40), for a process that serves CSDS.
 * Each is built on first use, so a client process never builds the full one.
 */
export type RootKind = 'client' | 'full' | 'csds';

const DESCRIPTORS: Readonly<Record<RootKind, string>> = {
  client: ENVOY_CLIENT_DESCRIPTOR_JSON,
  full: ENVOY_DESCRIPTOR_JSON,
  csds: ENVOY_CSDS_DESCRIPTOR_JSON,
};

const roots: Partial<Record<RootKind, protobuf.Root>> = {};

/** The root of `kind`, built on the first call. */
export function rootOf(kind: RootKind): protobuf.Root {
  return (roots[kind] ??= buildRoot(kind));
}

/**
 * The client's and the full root also hold rest.li's `indis` messages (D2 over xDS,
 * `indis-descriptor.ts`): the client decodes them like the envoy resources, and `packAny` encodes
 * them for a server. Their `google.protobuf.Struct` is the one both envoy descriptors already hold.
 */
function buildRoot(kind: RootKind): protobuf.Root {
  const root = protobuf.Root.fromJSON(JSON.parse(DESCRIPTORS[kind]) as protobuf.INamespace);
  if (kind !== 'csds' && INDIS_DESCRIPTOR.nested) root.addJSON(INDIS_DESCRIPTOR.nested);
  return root;
}

/** `toObject` options matching grpc-js-xds and proto-loader (so decoded objects look the same). */
export const TO_OBJECT: protobuf.IConversionOptions = { longs: String, enums: String, defaults: true, oneofs: true };

/**
 * A gRPC method whose messages are (de)serialized with `request` and `response`: plain objects with
 * the .proto's field names in, {@link TO_OBJECT} objects out. `streaming` is 'bidi' or 'unary'. A
 * message written as bytes is taken as already encoded and sent as it is.
 */
export function methodDefinition(methodPath: string, request: protobuf.Type, response: protobuf.Type, streaming: 'bidi' | 'unary'): grpc.MethodDefinition<object, object> {
  // Bytes are a message someone already encoded (a server sending one response to many streams).
  const serialize = (type: protobuf.Type) => (obj: object): Buffer =>
    obj instanceof Uint8Array ? Buffer.from(obj.buffer, obj.byteOffset, obj.byteLength) : Buffer.from(type.encode(type.fromObject(obj)).finish());
  const deserialize = (type: protobuf.Type) => (bytes: Buffer): object => type.toObject(type.decode(bytes), TO_OBJECT);
  return {
    path: methodPath,
    requestStream: streaming === 'bidi',
    responseStream: streaming === 'bidi',
    requestSerialize: serialize(request),
    requestDeserialize: deserialize(request),
    responseSerialize: serialize(response),
    responseDeserialize: deserialize(response),
    originalName: methodPath.slice(methodPath.lastIndexOf('/') + 1),
  };
}
