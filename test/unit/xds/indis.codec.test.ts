/**
 * rest.li's `indis` resource types (D2 over xDS): what an observer builds from ZooKeeper's view
 * decodes, through our XdsResourceTypes, into what lib/d2's codecs read as they read ZooKeeper.
 */
import {
  parseClusterProperties,
  parseServiceProperties,
  parseUriProperties,
  serializeClusterProperties,
  serializeServiceProperties,
  serializeUriProperties,
  type ClusterProperties,
  type UriProperties,
} from '../../../lib/d2/data';
import { XdsError } from '../../../lib/xds/errors';
import { toProtoJson } from '../../../lib/xds/proto-json';
import { rootOf } from '../../../lib/xds/proto-roots';
import { packAny, wrapResource, type AnyMessage } from '../../../lib/xds/protos';
import {
  buildD2Node,
  buildD2SymlinkNode,
  buildD2UriMap,
  d2NodeType,
  d2NodeVersion,
  d2SymlinkNodeType,
  d2UriMapType,
  d2UriMapVersion,
  D2_NODE_TYPE_URL,
  D2_SYMLINK_NODE_TYPE_URL,
  D2_URI_MAP_TYPE_URL,
  RESOURCE_TYPES,
  resourceTypeForUrl,
  type D2UriChild,
  type DecodeResult,
} from '../../../lib/xds/resource-types';
import { invalidResource } from '../../../lib/xds/server/fault-hooks';
import type { Stat } from '../../../lib/zk';

/** A stat as lib/zk reads it: bigint zxids past 2^53, a negative session id (readBigInt64BE), no ctime. */
function zkStat(overrides: Partial<Stat> = {}): Stat {
  return {
    version: 4,
    aversion: 1,
    cversion: 2,
    czxid: 0x1_0000_0001n,
    mzxid: 2n ** 60n + 3n,
    pzxid: 0x1_0000_0007n,
    ephemeralOwner: -0x7123_4567_89ab_cdefn,
    dataLength: 120,
    numChildren: 0,
    mtime: 1_764_518_400_123,
    ...overrides,
  };
}

function valueOf<V>(result: DecodeResult<V>): V {
  if (!result.ok) throw result.error;
  return result.value;
}

function expectInvalid<V>(result: DecodeResult<V>, fragment: string): void {
  expect(result.ok).toBe(false);
  if (!result.ok) {
    expect(result.error.kind).toBe('validation');
    expect(result.error.message).toContain(fragment);
  }
}

/** A cluster with failoutProperties, canary, slow start (a Double field written `1.0`) and subsetting. */
function failedOutCluster(): ClusterProperties {
  const text = JSON.stringify({
    clusterName: 'greetings-lor1',
    properties: { foo: 'bar' },
    prioritizedSchemes: ['http'],
    partitionProperties: { partitionType: 'RANGE', partitionKeyRegex: 'blah', keyRangeStart: 0, partitionSize: 5000000, partitionCount: 100 },
    enableClusterSubsetting: true,
    minClusterSubsetSize: 10,
    failoutProperties: {
      failoutRedirectConfigs: [
        { peer: 'greetings-lva1', weight: 2 },
        { peer: 'greetings-ltx1', weight: 1 },
      ],
      failoutBucketConfigs: [
        {
          partition: 'main',
          bucketOfflineRange: { from: 0, to: 49 },
          offlineAt: 1764518400000,
          onlineAt: 1764525600000,
          requestId: 'b6f1',
          requestedBy: 'oncall@example.com',
          reason: 'INC-4711',
        },
      ],
    },
  }).replace('"minClusterSubsetSize":10', '"minClusterSubsetSize":10,"slowStartProperties":{"disabled":false,"windowDurationSeconds":30,"aggression":1.0,"minWeightPercent":0.5}');
  return parseClusterProperties(text);
}

/** Documents as ZooKeeper holds them, written by lib/d2's serializers. */
const SERVICE = serializeServiceProperties(
  parseServiceProperties({
    serviceName: 'greetings',
    clusterName: 'greetings-lor1',
    path: '/greetings',
    loadBalancerStrategyList: ['degraderV3', 'degraderV2'],
    prioritizedSchemes: ['http'],
    loadBalancerStrategyProperties: { 'http.loadBalancer.pointsPerWeight': '100' },
    degraderProperties: { 'degrader.highErrorRate': '0.1' },
    transportClientProperties: { 'http.requestTimeout': '10000' },
    methodLevelProperties: [{ names: [{ service: 'testService', method: null }], transportClientProperties: {}, serviceMetadataProperties: { 'retry.maxAttempts': '3' } }],
  }),
);
const CLUSTER = serializeClusterProperties(failedOutCluster());
const PLAIN_CLUSTER = serializeClusterProperties(parseClusterProperties({ clusterName: 'greetings-lva1' }));

const uri = (clusterName: string, partitionDesc: UriProperties['partitionDesc'], uriSpecificProperties: UriProperties['uriSpecificProperties'] = {}): string =>
  serializeUriProperties({ clusterName, partitionDesc, uriSpecificProperties });

describe('D2Node', () => {
  it.each([
    ['a service', SERVICE, parseServiceProperties, serializeServiceProperties],
    ['a cluster with failoutProperties, canary-free, slow start and range partitioning', CLUSTER, parseClusterProperties, serializeClusterProperties],
    ['a cluster with rest.li defaults only', PLAIN_CLUSTER, parseClusterProperties, serializeClusterProperties],
  ] as const)('carries %s so that lib/d2 reads the decoded object as it reads ZooKeeper, and writes it back the same', (_what, text, parse, serialize) => {
    // Prepare
    const path = '/d2/clusters/x';

    // Act
    const node = valueOf(d2NodeType.decode(wrapResource(buildD2Node(path, Buffer.from(text), zkStat()), path)));

    // Assess
    expect(node.name).toBe(path);
    expect(parse(node.data as never)).toEqual(parse(text as never));
    expect(serialize(parse(node.data as never) as never)).toBe(text);
  });

  it('hands back the failout windows exactly (epoch ms are integers well inside 2^53)', () => {
    const node = valueOf(d2NodeType.decode(buildD2Node('/d2/clusters/greetings-lor1', CLUSTER, zkStat()), '/d2/clusters/greetings-lor1'));

    expect(parseClusterProperties(node.data).failoutProperties).toEqual(failedOutCluster().failoutProperties);
  });

  it('brings integral doubles back as integers and fractions as fractions', () => {
    // Prepare: Struct holds doubles only, so `5` and `5.0` are the same number on the wire.
    const text = '{"int":5,"decimal":5.0,"half":0.5,"negative":-3,"zero":0,"exponent":1e3,"nested":[{"n":2.0}]}';

    // Act
    const { data } = valueOf(d2NodeType.decode(buildD2Node('/d2/services/s', text, zkStat()), '/d2/services/s'));

    // Assess
    expect(data).toEqual({ int: 5, decimal: 5, half: 0.5, negative: -3, zero: 0, exponent: 1000, nested: [{ n: 2 }] });
    expect(Number.isInteger(data.decimal)).toBe(true);
    expect(JSON.stringify(data)).toBe('{"int":5,"decimal":5,"half":0.5,"negative":-3,"zero":0,"exponent":1000,"nested":[{"n":2}]}');
  });

  it('must be read as an object: re-stringified, a Double field written 1.0 in ZooKeeper would fail lib/d2 as 1', () => {
    // Prepare: slowStartProperties.aggression is a Java Double; ZooKeeper holds `1.0`.
    const node = valueOf(d2NodeType.decode(buildD2Node('/d2/clusters/c', CLUSTER, zkStat()), '/d2/clusters/c'));

    // Act + Assess
    expect(parseClusterProperties(node.data).slowStartProperties?.aggression).toBe(1);
    expect(() => parseClusterProperties(JSON.stringify(node.data))).toThrow(/aggression/);
  });

  it('loses only the decimal spelling of an integral value inside an opaque map', () => {
    // Prepare
    const text = serializeClusterProperties(parseClusterProperties('{"clusterName":"c","properties":{"scope":1.0,"ratio":0.25}}'));

    // Act
    const node = valueOf(d2NodeType.decode(buildD2Node('/d2/clusters/c', text, zkStat()), '/d2/clusters/c'));

    // Assess
    expect(text).toContain('"scope":1.0');
    expect(serializeClusterProperties(parseClusterProperties(node.data))).toBe(text.replace('"scope":1.0', '"scope":1'));
  });

  it("carries lib/zk's stat exactly: 64-bit zxids, a negative session id, ctime 0 when unknown", () => {
    const stat = zkStat();

    const node = valueOf(d2NodeType.decode(buildD2Node('/d2/services/s', '{}', stat), '/d2/services/s'));
    const asZk: Stat = node.stat; // the decoded stat is lib/zk's shape

    expect(asZk).toEqual({ ...stat, ctime: 0 });
    expect(valueOf(d2NodeType.decode(buildD2Node('/d2/services/s', '{}', { ...stat, ctime: 1_700_000_000_000 }), '/d2/services/s')).stat.ctime).toBe(1_700_000_000_000);
  });

  it('keeps a "__proto__" key as data, never as a prototype', () => {
    const { data } = valueOf(d2NodeType.decode(buildD2Node('/d2/services/s', '{"__proto__":{"polluted":true},"a":1}', zkStat()), '/d2/services/s'));

    expect(Object.keys(data)).toEqual(['__proto__', 'a']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect((data as Record<string, unknown>).polluted).toBeUndefined();
  });

  it.each([
    ['data that is not JSON', '{"clusterName":'],
    ['data that is not a JSON object', '[1,2]'],
    ['no data at all', ''],
  ])('refuses to build a node from %s, naming the path', (_what, text) => {
    expect(() => buildD2Node('/d2/clusters/bad', text, zkStat())).toThrow(expect.objectContaining({ kind: 'validation', message: expect.stringContaining('/d2/clusters/bad') }));
  });

  it.each<[string, AnyMessage, string | undefined, string]>([
    ['without data', packAny(D2_NODE_TYPE_URL, { stat: { Mzxid: '1' } }), '/d2/services/s', 'no data'],
    ['without a name (neither wrapped nor named by the stream)', buildD2Node('/d2/services/s', '{}', zkStat()), undefined, 'no name'],
    ['of another type', buildD2SymlinkNode('/d2/clusters/$s', '/d2/clusters/c', zkStat()), '/d2/clusters/$s', 'wrong type'],
    ['with a non-finite number', packAny(D2_NODE_TYPE_URL, { data: { fields: { x: { numberValue: Infinity } } } }), '/d2/services/s', 'data.x is Infinity'],
    ['with a Value that holds nothing', packAny(D2_NODE_TYPE_URL, { data: { fields: { x: {} } } }), '/d2/services/s', 'data.x is a Value with no kind'],
    ['whose bytes do not decode', { type_url: D2_NODE_TYPE_URL, value: Buffer.from([0xc7, 0x3e, 0x00]) }, '/d2/services/s', 'cannot decode'],
  ])('rejects a D2Node %s', (_what, any, name, fragment) => {
    expectInvalid(d2NodeType.decode(any, name), fragment);
  });

  it('takes its name from a Resource wrapper still around it, or from the one the stream took off', () => {
    const any = buildD2Node('/d2/services/s', '{"serviceName":"s"}', zkStat());

    expect(d2NodeType.decode(wrapResource(any, '/d2/services/s'))).toMatchObject({ ok: true, name: '/d2/services/s' });
    expect(d2NodeType.decode(any, '/d2/services/s')).toMatchObject({ ok: true, name: '/d2/services/s' });
  });
});

describe('D2URIMap', () => {
  const LEGACY = uri('greetings-lor1', { 'http://10.0.0.1:80': { 0: 1 } });
  const PARTITIONED = uri('greetings-lor1', { 'http://host7.example.com:8080/profile-war': { 2: 1, 3: 0.5, 1000: 0.3 } });
  const WITH_PROPERTIES = uri('greetings-lor1', { 'https://10.0.0.3:443': { 0: 2.5 } }, { 'https://10.0.0.3:443': { foo: 'fooValue', baz: 1, doNotSlowStart: true, nested: { list: [1, 'x', null] } } });
  const children: D2UriChild[] = [
    { name: 'ephemoral-0000000002', data: Buffer.from(WITH_PROPERTIES), stat: zkStat({ mzxid: 30n }) },
    { name: 'ephemoral-0000000000', data: Buffer.from(LEGACY), stat: zkStat({ mzxid: 10n }) },
    { name: 'profile-host7', data: PARTITIONED, stat: zkStat({ mzxid: 20n, ephemeralOwner: 0n }) },
  ];

  it('carries every announcement so that lib/d2 reads each decoded document as it reads the child, and writes it back the same', () => {
    // Act
    const map = valueOf(d2UriMapType.decode(wrapResource(buildD2UriMap('/d2/uris/greetings-lor1', children), '/d2/uris/greetings-lor1')));

    // Assess
    expect(map.name).toBe('/d2/uris/greetings-lor1');
    expect(map.nodes.map((n) => n.name)).toEqual(['ephemoral-0000000000', 'ephemoral-0000000002', 'profile-host7']);
    for (const node of map.nodes) {
      const child = children.find((c) => c.name === node.name);
      const text = Buffer.from(child?.data ?? '').toString('utf8');
      expect(node.stat).toEqual({ ...child?.stat, ctime: 0 });
      expect(parseUriProperties(node.data)).toEqual(parseUriProperties(text));
      expect(serializeUriProperties(parseUriProperties(node.data))).toBe(text);
    }
  });

  it("maps the URI JSON onto D2URI's fields as rest.li does: legacy weights, partition weights, properties", () => {
    const map = valueOf(d2UriMapType.decode(buildD2UriMap('/d2/uris/c', children), '/d2/uris/c'));

    expect(map.nodes.map((n) => n.data)).toEqual([
      {
        weights: { 'http://10.0.0.1:80': 1 },
        clusterName: 'greetings-lor1',
        partitionDesc: { 'http://10.0.0.1:80': { 0: { weight: 1 } } },
        uriSpecificProperties: {},
      },
      {
        weights: { 'https://10.0.0.3:443': 2.5 },
        clusterName: 'greetings-lor1',
        partitionDesc: { 'https://10.0.0.3:443': { 0: { weight: 2.5 } } },
        uriSpecificProperties: { 'https://10.0.0.3:443': { foo: 'fooValue', baz: 1, doNotSlowStart: true, nested: { list: [1, 'x', null] } } },
      },
      {
        clusterName: 'greetings-lor1',
        partitionDesc: { 'http://host7.example.com:8080/profile-war': { 2: { weight: 1 }, 3: { weight: 0.5 }, 1000: { weight: 0.3 } } },
        uriSpecificProperties: {},
      },
    ]);
  });

  it('drops what D2URI has no field for: the derived urisBySchemeAndPartition and unknown keys', () => {
    const text = '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":1.0}}},"extraKey":"x","urisBySchemeAndPartition":{"http":{"0":["http://h:1"]}}}';

    const [node] = valueOf(d2UriMapType.decode(buildD2UriMap('/d2/uris/c', [{ name: 'h', data: text, stat: zkStat() }]), '/d2/uris/c')).nodes;

    expect(node.data).toEqual({ clusterName: 'c', partitionDesc: { 'http://h:1': { 0: { weight: 1 } } }, uriSpecificProperties: {} });
  });

  it('is an empty map for a cluster with no announcements left', () => {
    expect(valueOf(d2UriMapType.decode(buildD2UriMap('/d2/uris/c', []), '/d2/uris/c'))).toEqual({ name: '/d2/uris/c', nodes: [] });
  });

  it.each([
    ['not JSON', '{', 'not JSON'],
    ['without clusterName', '{"partitionDesc":{}}', 'clusterName must be a non-empty string'],
    ['with a partition id that is not an int32', '{"clusterName":"c","partitionDesc":{"http://h:1":{"a":{"weight":1.0}}}}', 'partitionDesc["http://h:1"]["a"] is not a 32-bit partition id'],
    ['with a partition id past int32', '{"clusterName":"c","partitionDesc":{"http://h:1":{"2147483648":{"weight":1.0}}}}', 'is not a 32-bit partition id'],
    ['with a weight that is not a number', '{"clusterName":"c","partitionDesc":{"http://h:1":{"0":{"weight":"1"}}}}', 'weight must be a number'],
    ['with properties that are not an object', '{"clusterName":"c","uriSpecificProperties":{"http://h:1":[1]}}', 'must be a JSON object'],
  ])('leaves out a child %s and reports it, or throws naming it without onInvalid', (_what, text, fragment) => {
    // Prepare
    const bad: D2UriChild = { name: 'bad', data: text, stat: zkStat() };
    const reported: Array<[string, XdsError]> = [];

    // Act
    const map = valueOf(d2UriMapType.decode(buildD2UriMap('/d2/uris/c', [children[1], bad], { onInvalid: (name, e) => reported.push([name, e]) }), '/d2/uris/c'));

    // Assess
    expect(map.nodes.map((n) => n.name)).toEqual(['ephemoral-0000000000']);
    expect(reported.map(([name, e]) => [name, e.kind])).toEqual([['bad', 'validation']]);
    expect(reported[0][1].message).toContain(fragment);
    expect(() => buildD2UriMap('/d2/uris/c', [bad])).toThrow(expect.objectContaining({ kind: 'validation', message: expect.stringContaining('/d2/uris/c/bad') }));
  });

  it.each<[string, object, string]>([
    ['a URI without clusterName', { nodes: { h: {} } }, 'nodes["h"] has no clusterName'],
    ['a non-finite legacy weight', { nodes: { h: { clusterName: 'c', weights: { 'http://h:1': NaN } } } }, 'weights["http://h:1"] is NaN'],
    ['a non-finite partition weight', { nodes: { h: { clusterName: 'c', partitionDesc: { 'http://h:1': { weights: { 0: -Infinity } } } } } }, 'partitionDesc["http://h:1"]["0"] is -Infinity'],
    ['a URI node with an empty name', { nodes: { '': { clusterName: 'c' } } }, 'empty name'],
  ])('rejects a D2URIMap with %s', (_what, message, fragment) => {
    expectInvalid(d2UriMapType.decode(packAny(D2_URI_MAP_TYPE_URL, message), '/d2/uris/c'), fragment);
  });
});

describe('D2SymlinkNode', () => {
  it('carries the path of the node it stands for, with its stat', () => {
    const any = buildD2SymlinkNode('/d2/clusters/$greetingsMaster', Buffer.from('/d2/clusters/greetings-lor1'), zkStat());

    expect(valueOf(d2SymlinkNodeType.decode(wrapResource(any, '/d2/clusters/$greetingsMaster')))).toEqual({
      name: '/d2/clusters/$greetingsMaster',
      stat: { ...zkStat(), ctime: 0 },
      masterClusterNodePath: '/d2/clusters/greetings-lor1',
    });
  });

  it('refuses a target that is not an absolute path, both ways', () => {
    expect(() => buildD2SymlinkNode('/d2/clusters/$s', 'greetings-lor1', zkStat())).toThrow(expect.objectContaining({ kind: 'validation' }));
    expectInvalid(d2SymlinkNodeType.decode(packAny(D2_SYMLINK_NODE_TYPE_URL, { masterClusterNodePath: '' }), '/d2/clusters/$s'), 'not an absolute path');
  });
});

describe('versions', () => {
  it("is a node's mzxid, in decimal", () => {
    expect(d2NodeVersion(zkStat())).toBe((2n ** 60n + 3n).toString());
  });

  it("is the largest of the URI node's pzxid and its children's mzxids, so removing the newest child never brings an old version back", () => {
    // Prepare
    const before = [{ stat: { mzxid: 10n } }, { stat: { mzxid: 30n } }];

    // Act: the child of mzxid 30 is deleted at zxid 31, which becomes the parent's pzxid.
    const versions = [d2UriMapVersion({ pzxid: 5n }, before), d2UriMapVersion({ pzxid: 31n }, before.slice(0, 1))];

    // Assess
    expect(versions).toEqual(['30', '31']);
    expect(d2UriMapVersion(undefined, [])).toBe('0');
  });
});

describe('registration', () => {
  it('registers the three indis types with the client, by kind and by type URL', () => {
    expect(RESOURCE_TYPES.d2Node).toBe(d2NodeType);
    expect(RESOURCE_TYPES.d2UriMap).toBe(d2UriMapType);
    expect(RESOURCE_TYPES.d2SymlinkNode).toBe(d2SymlinkNodeType);
    expect(resourceTypeForUrl('type.googleapis.com/indis.D2URIMap')).toBe(d2UriMapType);
  });

  it.each(['d2Node', 'd2UriMap', 'd2SymlinkNode'] as const)('rejects the invalid %s the server can inject, keeping its name for the NACK', (kind) => {
    expect(RESOURCE_TYPES[kind].decode(invalidResource(kind, 'bad'))).toMatchObject({ ok: false, name: 'bad' });
  });

  it("prints in a config dump (CSDS) as proto3 JSON, with rest.li's field names", () => {
    const type = rootOf('full').lookupType('indis.D2Node');
    const any = buildD2Node('/d2/services/s', '{"serviceName":"s","n":1.5}', zkStat({ cversion: 0, aversion: 0 }));

    expect(toProtoJson(type, type.decode(any.value), () => undefined)).toEqual({
      stat: { Czxid: '4294967297', Mzxid: (2n ** 60n + 3n).toString(), Mtime: '1764518400123', Version: 4, EphemeralOwner: (-0x7123_4567_89ab_cdefn).toString(), DataLength: 120, Pzxid: '4294967303' },
      data: { serviceName: 's', n: 1.5 },
    });
  });

  it('wraps errors as XdsError', () => {
    const result = d2NodeType.decode(packAny(D2_NODE_TYPE_URL, {}), '/d2/services/s');
    expect(!result.ok && result.error).toBeInstanceOf(XdsError);
  });
});
