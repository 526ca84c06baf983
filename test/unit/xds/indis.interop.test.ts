/**
 * Wire compatibility with rest.li's `XdsD2.proto` (package `indis`), checked independently of the
 * codec: the messages are defined a second time (test/helpers/indis-reference.ts), from a .proto text written from the reference
 * note's field numbers (docs: /work/shared/reference/d2-over-xds.md) with field names of our own
 * choosing (only numbers and types travel), and parsed by full protobufjs. Each message goes both
 * ways (our builders → their decoder, their encoder → our resource types), and the bytes are read
 * tag by tag to check field numbers and wire types.
 */
import * as protobuf from 'protobufjs';
import { wrapResource, type AnyMessage } from '../../../lib/xds/protos';
import { rootOf } from '../../../lib/xds/proto-roots';
import {
  buildD2Node,
  buildD2SymlinkNode,
  buildD2UriMap,
  d2NodeType,
  d2SymlinkNodeType,
  d2UriMapType,
  D2_NODE_TYPE_URL,
  D2_SYMLINK_NODE_TYPE_URL,
  D2_URI_MAP_TYPE_URL,
  type DecodeResult,
} from '../../../lib/xds/resource-types';
import type { Stat } from '../../../lib/zk';
import { referenceRoot } from '../../helpers/indis-reference';

const ref = referenceRoot();
const type = (name: string): protobuf.Type => ref.lookupType(`indis.${name}`);

const STAT: Stat = {
  czxid: 0x1_0000_0001n,
  mzxid: 2n ** 62n + 5n,
  pzxid: 0x2_0000_0003n,
  ephemeralOwner: -0x1234_5678_9abcn,
  mtime: 1_764_518_400_123,
  version: 7,
  cversion: 3,
  aversion: 1,
  dataLength: 42,
  numChildren: 2,
};

/** The reference's Stat object form of {@link STAT} (int64s as strings, as `toObject({longs: String})` prints). */
const REF_STAT = {
  czxid: STAT.czxid.toString(),
  mzxid: STAT.mzxid.toString(),
  ctime: '1700000000000',
  mtime: String(STAT.mtime),
  version: 7,
  cversion: 3,
  aversion: 1,
  ephemeral_owner: STAT.ephemeralOwner.toString(),
  data_length: 42,
  num_children: 2,
  pzxid: STAT.pzxid.toString(),
};

const TO_OBJECT: protobuf.IConversionOptions = { longs: String, defaults: false };

/** JSON → google.protobuf.Struct in the reference's (protobufjs bundled) field names, written here on purpose. */
function refStruct(json: Record<string, unknown>): object {
  const value = (v: unknown): object => {
    if (v === null) return { nullValue: 0 };
    if (typeof v === 'number') return { numberValue: v };
    if (typeof v === 'string') return { stringValue: v };
    if (typeof v === 'boolean') return { boolValue: v };
    if (Array.isArray(v)) return { listValue: { values: v.map(value) } };
    return { structValue: refStruct(v as Record<string, unknown>) };
  };
  return { fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, value(v)])) };
}

/** google.protobuf.Struct (as the reference's `toObject` gives it) → JSON. */
function refJson(struct: { fields?: Record<string, Record<string, unknown>> }): Record<string, unknown> {
  const value = (v: Record<string, unknown>): unknown => {
    if ('nullValue' in v) return null;
    if ('numberValue' in v) return v.numberValue;
    if ('stringValue' in v) return v.stringValue;
    if ('boolValue' in v) return v.boolValue;
    if ('listValue' in v) return ((v.listValue as { values?: Record<string, unknown>[] }).values ?? []).map(value);
    return refJson(v.structValue as { fields?: Record<string, Record<string, unknown>> });
  };
  return Object.fromEntries(Object.entries(struct.fields ?? {}).map(([k, v]) => [k, value(v)]));
}

function decodeRef(name: string, any: AnyMessage): Record<string, unknown> {
  const t = type(name);
  return t.toObject(t.decode(any.value), TO_OBJECT);
}

function encodeRef(name: string, typeUrl: string, object: object): AnyMessage {
  const t = type(name);
  const message = t.fromObject(object);
  const problem = t.verify(message);
  if (problem) throw new Error(problem);
  return { type_url: typeUrl, value: Buffer.from(t.encode(message).finish()) };
}

function valueOf<V>(result: DecodeResult<V>): V {
  if (!result.ok) throw result.error;
  return result.value;
}

/** The top-level fields of a message as `[field number, wire type]`, in order, read from the bytes. */
function tags(bytes: Uint8Array): Array<[number, number]> {
  const reader = protobuf.Reader.create(bytes);
  const out: Array<[number, number]> = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    out.push([tag >>> 3, tag & 7]);
    reader.skipType(tag & 7);
  }
  return out;
}

/** The bytes of the length-delimited fields numbered `id`. */
function embedded(bytes: Uint8Array, id: number): Uint8Array[] {
  const reader = protobuf.Reader.create(bytes);
  const out: Uint8Array[] = [];
  while (reader.pos < reader.len) {
    const tag = reader.uint32();
    if (tag >>> 3 === id && (tag & 7) === 2) out.push(reader.bytes());
    else reader.skipType(tag & 7);
  }
  return out;
}

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

describe('indis messages against a second, independent definition of XdsD2.proto', () => {
  it("number and type every field as the reference does (int64 zxids, times and session id; int32 counters; double weights; int32 partition ids)", () => {
    const ours = rootOf('full');
    const shape = (root: protobuf.Root, name: string): string[] =>
      root.lookupType(name).fieldsArray.map((f) => `${f.id}:${f.map ? `map<${(f as unknown as protobuf.MapField).keyType},` : ''}${f.resolve().resolvedType?.fullName.replace(/^\.indis\./, '') ?? f.type}${f.map ? '>' : ''}`).sort();
    for (const name of ['indis.Stat', 'indis.D2Node', 'indis.D2SymlinkNode', 'indis.D2URI', 'indis.D2URI.PartitionData', 'indis.D2URIMap']) {
      expect(shape(ours, name)).toEqual(shape(ref, name));
    }
    expect(shape(ref, 'indis.Stat')).toEqual(
      ['1:int64', '2:int64', '3:int64', '4:int64', '5:int32', '6:int32', '7:int32', '8:int64', '9:int32', '10:int32', '11:int64'].sort(),
    );
  });

  describe('D2Node', () => {
    const json = { clusterName: 'greetings-lor1', minClusterSubsetSize: 10, ratio: 0.25, list: [1, 'x', null, true], nested: { failoutProperties: { failoutBucketConfigs: [{ offlineAt: 1764518400000 }] } } };

    it('built by our codec, decodes with the reference', () => {
      // Act
      const decoded = decodeRef('D2Node', buildD2Node('/d2/clusters/greetings-lor1', JSON.stringify(json), { ...STAT, ctime: 1_700_000_000_000 }));

      // Assess
      expect(decoded.stat).toEqual(REF_STAT);
      expect(refJson(decoded.data as never)).toEqual(json);
    });

    it('encoded by the reference, decodes with our resource type', () => {
      // Act
      const any = encodeRef('D2Node', D2_NODE_TYPE_URL, { stat: REF_STAT, data: refStruct(json) });
      const node = valueOf(d2NodeType.decode(wrapResource(any, '/d2/clusters/greetings-lor1')));

      // Assess
      expect(node).toEqual({ name: '/d2/clusters/greetings-lor1', stat: { ...STAT, ctime: 1_700_000_000_000 }, data: json });
    });

    it('puts stat in field 1 and data in field 2, both length-delimited, and the stat fields as varints 1–11', () => {
      const any = buildD2Node('/d2/clusters/c', '{"a":1}', { ...STAT, ctime: 1 });

      expect(tags(any.value)).toEqual([
        [1, LEN],
        [2, LEN],
      ]);
      expect(tags(embedded(any.value, 1)[0])).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].map((id) => [id, VARINT]));
    });
  });

  describe('D2URIMap', () => {
    const uriJson = (host: string): Record<string, unknown> => ({
      weights: { [host]: 2.5 },
      clusterName: 'greetings-lor1',
      partitionDesc: { [host]: { 0: { weight: 2.5 }, [-7]: { weight: 0.5 } } },
      uriSpecificProperties: { [host]: { doNotSlowStart: true, zone: 'a', n: 3 } },
    });
    const refUri = (host: string): object => ({
      stat: REF_STAT,
      uri_specific_properties: { [host]: refStruct({ doNotSlowStart: true, zone: 'a', n: 3 }) },
      partition_desc: { [host]: { weights: { 0: 2.5, [-7]: 0.5 } } },
      weights: { [host]: 2.5 },
      cluster_name: 'greetings-lor1',
    });

    it('built by our codec, decodes with the reference', () => {
      // Act
      const any = buildD2UriMap('/d2/uris/greetings-lor1', [{ name: 'h1', data: JSON.stringify(uriJson('http://h1:80')), stat: { ...STAT, ctime: 1_700_000_000_000 } }]);
      const decoded = decodeRef('D2URIMap', any) as { nodes: Record<string, Record<string, unknown>> };

      // Assess
      const h1 = decoded.nodes.h1;
      expect({ ...h1, uri_specific_properties: undefined }).toEqual({ ...refUri('http://h1:80'), uri_specific_properties: undefined });
      expect(refJson((h1.uri_specific_properties as Record<string, never>)['http://h1:80'])).toEqual({ doNotSlowStart: true, zone: 'a', n: 3 });
    });

    it('encoded by the reference, decodes with our resource type', () => {
      // Act
      const any = encodeRef('D2URIMap', D2_URI_MAP_TYPE_URL, { nodes: { h2: refUri('http://h2:80'), h1: refUri('http://h1:80') } });
      const map = valueOf(d2UriMapType.decode(wrapResource(any, '/d2/uris/greetings-lor1')));

      // Assess
      expect(map).toEqual({
        name: '/d2/uris/greetings-lor1',
        nodes: [
          { name: 'h1', stat: { ...STAT, ctime: 1_700_000_000_000 }, data: uriJson('http://h1:80') },
          { name: 'h2', stat: { ...STAT, ctime: 1_700_000_000_000 }, data: uriJson('http://h2:80') },
        ],
      });
    });

    it('lays D2URI out as fields 1–5: partition ids as int32 varint keys, weights as doubles', () => {
      // Prepare
      const any = buildD2UriMap('/d2/uris/c', [{ name: 'h1', data: JSON.stringify(uriJson('http://h1:80')), stat: STAT }]);

      // Act
      const [entry] = embedded(any.value, 1); // map entry: key = 1, value = 2
      const [d2uri] = embedded(entry, 2);
      const [partitionEntry] = embedded(d2uri, 3);
      const [partitionData] = embedded(partitionEntry, 2);
      const weightEntries = embedded(partitionData, 1);
      const [legacyWeight] = embedded(d2uri, 4);

      // Assess
      expect(tags(any.value)).toEqual([[1, LEN]]);
      expect(tags(d2uri)).toEqual([
        [1, LEN],
        [2, LEN],
        [3, LEN],
        [4, LEN],
        [5, LEN],
      ]);
      expect(weightEntries.map(tags)).toEqual([
        [
          [1, VARINT],
          [2, FIXED64],
        ],
        [
          [1, VARINT],
          [2, FIXED64],
        ],
      ]);
      expect(tags(legacyWeight)).toEqual([
        [1, LEN],
        [2, FIXED64],
      ]);
    });
  });

  describe('D2SymlinkNode', () => {
    it('goes both ways, with the target path in field 2', () => {
      // Act
      const ours = buildD2SymlinkNode('/d2/clusters/$m', '/d2/clusters/greetings-lor1', STAT);
      const theirs = encodeRef('D2SymlinkNode', D2_SYMLINK_NODE_TYPE_URL, { stat: REF_STAT, master_cluster_node_path: '/d2/clusters/greetings-lor1' });

      // Assess
      expect(decodeRef('D2SymlinkNode', ours)).toEqual({ stat: { ...REF_STAT, ctime: undefined }, master_cluster_node_path: '/d2/clusters/greetings-lor1' });
      expect(valueOf(d2SymlinkNodeType.decode(theirs, '/d2/clusters/$m'))).toEqual({
        name: '/d2/clusters/$m',
        stat: { ...STAT, ctime: 1_700_000_000_000 },
        masterClusterNodePath: '/d2/clusters/greetings-lor1',
      });
      expect(tags(ours.value)).toEqual([
        [1, LEN],
        [2, LEN],
      ]);
    });
  });
});
