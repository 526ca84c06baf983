/**
 * rest.li's `XdsD2.proto` (package `indis`) defined a second time, independently of lib/xds's codec:
 * a .proto text written from the reference note's field numbers (docs:
 * /work/shared/reference/d2-over-xds.md) with field names of our own choosing (only numbers and types
 * travel), parsed by full protobufjs. The wire-compatibility tests decode what we build (and what an
 * observer serves) with it.
 */
import * as protobuf from 'protobufjs';

const XDS_D2_PROTO = `
syntax = "proto3";
package indis;
import "google/protobuf/struct.proto";

message Stat {
  int64 czxid = 1;
  int64 mzxid = 2;
  int64 ctime = 3;
  int64 mtime = 4;
  int32 version = 5;
  int32 cversion = 6;
  int32 aversion = 7;
  int64 ephemeral_owner = 8;
  int32 data_length = 9;
  int32 num_children = 10;
  int64 pzxid = 11;
}
message D2Node { Stat stat = 1; google.protobuf.Struct data = 2; }
message D2SymlinkNode { Stat stat = 1; string master_cluster_node_path = 2; }
message D2URI {
  Stat stat = 1;
  map<string, google.protobuf.Struct> uri_specific_properties = 2;
  message PartitionData { map<int32, double> weights = 1; }
  map<string, PartitionData> partition_desc = 3;
  map<string, double> weights = 4;
  string cluster_name = 5;
}
message D2URIMap { map<string, D2URI> nodes = 1; }
`;

/** The reference's messages, parsed from the text above (struct.proto from protobufjs' bundled copy). */
export function referenceRoot(): protobuf.Root {
  const root = protobuf.Root.fromJSON(protobuf.common.get('google/protobuf/struct.proto') as protobuf.INamespace);
  protobuf.parse(XDS_D2_PROTO, root, { keepCase: true });
  root.resolveAll();
  return root;
}

