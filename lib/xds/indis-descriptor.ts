/**
 * The `indis` messages of rest.li's D2 over xDS (`d2/src/main/proto/XdsD2.proto`, package `indis`,
 * proto3), as a protobufjs JSON descriptor that `proto-roots.ts` adds to the client's and the full
 * root, beside the envoy types.
 *
 * Why written by hand and not generated like `envoy-descriptor.ts`: the .proto is not in any package
 * we depend on (rest.li ships it inside a Java jar), and it is five messages. What keeps this
 * descriptor honest is test/unit/xds/indis.interop.test.ts, which defines the same messages a second
 * time from a .proto text written from the reference note, and checks both directions on the wire.
 *
 * Field names are rest.li's own, capitalised `Stat` fields included (`Czxid`, `Mzxid`, …), so that a
 * proto3 JSON dump (CSDS, config_dump) prints what rest.li's tools print; only numbers and types
 * matter on the wire. Left out: `D2NodeMap` (deprecated in rest.li in favour of `D2URIMap`) and the
 * fields newer rest.li versions added to `D2URI` (an unknown field is skipped by every decoder).
 */
import type * as protobuf from 'protobufjs/light';

const STAT = '.indis.Stat';
const STRUCT = '.google.protobuf.Struct';

/** A `map<keyType, type>` field (protobufjs' `IMapField`, which `IType.fields` is not typed to hold). */
const map = (keyType: string, type: string, id: number): protobuf.IField => ({ keyType, type, id }) as protobuf.IMapField;

/** The `indis` package (Stat, D2Node, D2SymlinkNode, D2URI with its nested PartitionData, D2URIMap). */
export const INDIS_DESCRIPTOR: protobuf.INamespace = {
  nested: {
    indis: {
      nested: {
        // ZooKeeper's Stat (org.apache.zookeeper.data.Stat), field for field; zxids, times and the
        // session id are int64, the counters int32.
        Stat: {
          fields: {
            Czxid: { type: 'int64', id: 1 },
            Mzxid: { type: 'int64', id: 2 },
            Ctime: { type: 'int64', id: 3 },
            Mtime: { type: 'int64', id: 4 },
            Version: { type: 'int32', id: 5 },
            Cversion: { type: 'int32', id: 6 },
            Aversion: { type: 'int32', id: 7 },
            EphemeralOwner: { type: 'int64', id: 8 },
            DataLength: { type: 'int32', id: 9 },
            NumChildren: { type: 'int32', id: 10 },
            Pzxid: { type: 'int64', id: 11 },
          },
        },
        D2Node: {
          fields: {
            stat: { type: STAT, id: 1 },
            data: { type: STRUCT, id: 2 },
          },
        },
        D2SymlinkNode: {
          fields: {
            stat: { type: STAT, id: 1 },
            masterClusterNodePath: { type: 'string', id: 2 },
          },
        },
        D2URI: {
          fields: {
            stat: { type: STAT, id: 1 },
            uriSpecificProperties: map('string', STRUCT, 2),
            partitionDesc: map('string', '.indis.D2URI.PartitionData', 3),
            weights: map('string', 'double', 4),
            clusterName: { type: 'string', id: 5 },
          },
          nested: {
            PartitionData: {
              fields: {
                weights: map('int32', 'double', 1),
              },
            },
          },
        },
        D2URIMap: {
          fields: {
            nodes: map('string', '.indis.D2URI', 1),
          },
        },
      },
    },
  },
};
