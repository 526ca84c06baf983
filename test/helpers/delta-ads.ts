/**
 * A raw incremental ADS client for the observer's integration tests: envoy's
 * `DeltaDiscoveryRequest` / `DeltaDiscoveryResponse` defined a second time, independently of
 * lib/xds's generated descriptor, as a .proto text written from envoy's `discovery.proto` field
 * numbers (names of our own; only numbers and types travel), over a grpc-js bidirectional call
 * with our own (de)serializers. What the observer sends is decoded with it, and the D2 resources
 * inside with the independent `XdsD2.proto` (indis-reference.ts).
 */
import * as grpc from '@grpc/grpc-js';
import * as protobuf from 'protobufjs';
import { referenceRoot } from './indis-reference';

const DELTA_PROTO = `
syntax = "proto3";
package deltaref;

message PackedAny { string type_url = 1; bytes value = 2; }
message RpcStatus { int32 code = 1; string message = 2; }
message ClientNode { string id = 1; }
message Res {
  string version = 1;
  PackedAny resource = 2;
  string name = 3;
}
message DeltaReq {
  ClientNode node = 1;
  string type_url = 2;
  repeated string subscribe = 3;
  repeated string unsubscribe = 4;
  map<string, string> initial_versions = 5;
  string response_nonce = 6;
  RpcStatus error_detail = 7;
}
message DeltaResp {
  string system_version_info = 1;
  repeated Res resources = 2;
  string type_url = 4;
  string nonce = 5;
  repeated string removed = 6;
}
`;

const DELTA_METHOD = '/envoy.service.discovery.v3.AggregatedDiscoveryService/DeltaAggregatedResources';

/** A request in the reference schema's names. */
export interface DeltaReq {
  type_url: string;
  subscribe?: string[];
  unsubscribe?: string[];
  initial_versions?: Record<string, string>;
  response_nonce?: string;
  error_detail?: { code: number; message: string };
}

/** A response decoded with the reference schema. */
export interface DeltaResp {
  system_version_info: string;
  resources: Array<{ name: string; version: string; resource: { type_url: string; value: Buffer } }>;
  type_url: string;
  nonce: string;
  removed: string[];
}

let root: protobuf.Root | undefined;
function deltaRoot(): protobuf.Root {
  if (root) return root;
  root = new protobuf.Root();
  protobuf.parse(DELTA_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

/** A raw delta ADS stream that queues what the observer sends. */
export class RawDeltaStream {
  readonly responses: DeltaResp[] = [];
  /** The status the call ended with, once it ended. */
  status: grpc.StatusObject | undefined;
  private taken = 0;
  private readonly client: grpc.Client;
  private readonly call: grpc.ClientDuplexStream<DeltaReq, DeltaResp>;

  constructor(address: string, nodeId = 'raw-delta-test') {
    const req = deltaRoot().lookupType('deltaref.DeltaReq');
    const resp = deltaRoot().lookupType('deltaref.DeltaResp');
    this.client = new grpc.Client(address, grpc.credentials.createInsecure());
    let first = true;
    this.call = this.client.makeBidiStreamRequest<DeltaReq, DeltaResp>(
      DELTA_METHOD,
      (r) => {
        const withNode = first ? { node: { id: nodeId }, ...r } : r;
        first = false;
        return Buffer.from(req.encode(req.fromObject(withNode)).finish());
      },
      (bytes) => resp.toObject(resp.decode(bytes), { arrays: true, defaults: true }) as DeltaResp,
    );
    this.call.on('data', (r: DeltaResp) => this.responses.push(r));
    this.call.on('status', (s) => (this.status = s));
    this.call.on('error', () => undefined);
  }

  send(req: DeltaReq): void {
    this.call.write(req);
  }

  /** The next response, or undefined when none came within `ms`. */
  async next(ms = 5000): Promise<DeltaResp | undefined> {
    const deadline = Date.now() + ms;
    while (this.responses.length <= this.taken && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    return this.responses.length > this.taken ? this.responses[this.taken++] : undefined;
  }

  /**
   * Responses (each ACKed) until every one of `names` was sent or removed: the observer sends each
   * name once its first read is in, so one subscription may take several responses. Merged into one.
   */
  async until(names: readonly string[], ms = 5000): Promise<DeltaResp> {
    const merged: DeltaResp = { system_version_info: '', resources: [], type_url: '', nonce: '', removed: [] };
    const seen = (n: string): boolean => merged.removed.includes(n) || merged.resources.some((r) => r.name === n);
    const deadline = Date.now() + ms;
    while (!names.every(seen)) {
      const r = await this.next(deadline - Date.now());
      if (!r) break;
      this.ack(r);
      Object.assign(merged, { system_version_info: r.system_version_info, type_url: r.type_url, nonce: r.nonce });
      merged.resources.push(...r.resources);
      merged.removed.push(...r.removed);
    }
    return merged;
  }

  /** ACKs `response`. */
  ack(response: DeltaResp): void {
    this.send({ type_url: response.type_url, response_nonce: response.nonce });
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}

/** `google.protobuf.Struct` (as the reference schema decodes it) as plain JSON. */
function structJson(struct: { fields?: Record<string, unknown> } | undefined): Record<string, unknown> {
  const value = (v: Record<string, unknown>): unknown => {
    if ('structValue' in v) return structJson(v.structValue as { fields?: Record<string, unknown> });
    if ('listValue' in v) return ((v.listValue as { values?: Array<Record<string, unknown>> }).values ?? []).map(value);
    if ('nullValue' in v) return null;
    return v.stringValue ?? v.numberValue ?? v.boolValue;
  };
  return Object.fromEntries(Object.entries(struct?.fields ?? {}).map(([k, v]) => [k, value(v as Record<string, unknown>)]));
}

/** A D2Node of a delta response: its name, the resource version, the znode's mzxid and its data. */
export function d2NodesOf(response: DeltaResp | undefined): Array<{ name: string; version: string; mzxid: string; data: Record<string, unknown> }> {
  const type = referenceRoot().lookupType('indis.D2Node');
  return (response?.resources ?? []).map((r) => {
    const node = type.toObject(type.decode(r.resource.value), { longs: String, oneofs: true }) as { stat?: { mzxid?: string }; data?: { fields?: Record<string, unknown> } };
    return { name: r.name, version: r.version, mzxid: node.stat?.mzxid ?? '', data: structJson(node.data) };
  });
}

/** A D2URIMap of a delta response: its name, version, and the URI children it holds. */
export function uriMapsOf(response: DeltaResp | undefined): Array<{ name: string; version: string; children: string[] }> {
  const type = referenceRoot().lookupType('indis.D2URIMap');
  return (response?.resources ?? []).map((r) => {
    const map = type.toObject(type.decode(r.resource.value)) as { nodes?: Record<string, unknown> };
    return { name: r.name, version: r.version, children: Object.keys(map.nodes ?? {}).sort() };
  });
}
