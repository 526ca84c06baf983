import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2/codecs/cluster';
import { ALL_BUCKETS, parseFailoutProperties, serializeFailoutProperties } from '../../../lib/d2/codecs/failout';
import type { FailoutProperties } from '../../../lib/d2/model';
import { catchD2Error } from './fixtures';

// The failoutProperties codec (ARCHITECTURE "Failout properties"): the rules parseFailoutConfig had,
// now in lib/d2 with the other rest.li codecs, plus rest.li's opaque-map vectors.

/** `failoutProperties` with the given raw entries. */
function raw(redirects: unknown[], buckets: unknown[]): Record<string, unknown> {
  return { failoutRedirectConfigs: redirects, failoutBucketConfigs: buckets };
}

describe('failout codec: reading', () => {
  it.each([
    ['undefined (absent)', undefined],
    ['null', null],
    ['an empty object', {}],
    ['the text {}', '{}'],
    ['the text null', 'null'],
  ])('reads %s as no failout', (_name, value) => {
    // Act
    const props = parseFailoutProperties(value);

    // Assess
    expect(props).toBeNull();
  });

  it('reads the documented example with peers, weights, range, window and metadata, unknown keys kept', () => {
    // Prepare
    const value = raw(
      [{ peer: 'greetings-lva1', weight: 2 }, { peer: 'greetings-ltx1', weight: 1 }],
      [{ partition: 'main', bucketOfflineRange: { from: 0, to: 49 }, offlineAt: 1000, onlineAt: 2000, requestId: 'r1', requestedBy: 'me', reason: 'INC-1', extraKey: true }],
    );

    // Act
    const props = parseFailoutProperties(value);

    // Assess
    expect(props).toEqual<FailoutProperties>({
      redirects: [{ peer: 'greetings-lva1', weight: 2 }, { peer: 'greetings-ltx1', weight: 1 }],
      ignoredRedirectEntries: 0,
      buckets: [
        { partition: 'main', bucketOfflineRange: { from: 0, to: 49 }, offlineAt: 1000, onlineAt: 2000, requestId: 'r1', requestedBy: 'me', reason: 'INC-1', extra: { extraKey: true } },
      ],
    });
  });

  it('reads the extra bucket keys stopAlarms and drill', () => {
    // Act
    const props = parseFailoutProperties(raw([{ peer: 'p' }], [{ offlineAt: 5, stopAlarms: ['errors-high', 'latency'], drill: 'weekly' }]));

    // Assess
    expect(props?.buckets).toEqual([{ offlineAt: 5, stopAlarms: ['errors-high', 'latency'], drill: 'weekly' }]);
  });

  it('leaves absent keys absent (their defaults apply on use) and reads null as absent', () => {
    // Act
    const props = parseFailoutProperties(raw([{ peer: 'p1', weight: null }], [{}, { partition: null, offlineAt: null, onlineAt: null, reason: null }]));

    // Assess
    expect(props).toEqual<FailoutProperties>({ redirects: [{ peer: 'p1' }], ignoredRedirectEntries: 0, buckets: [{}, {}] });
  });

  it('defaults a missing or null list to []', () => {
    // Act
    const props = parseFailoutProperties({ failoutBucketConfigs: [{ partition: 'main' }], failoutRedirectConfigs: null });

    // Assess
    expect(props).toEqual<FailoutProperties>({ redirects: [], ignoredRedirectEntries: 0, buckets: [{ partition: 'main' }] });
  });

  it.each([
    ['fabric alone', { fabric: 'testfabric', weight: 1 }, { peer: 'testfabric', peerKey: 'fabric', weight: 1 }],
    ['peer and fabric that agree', { peer: 'x', fabric: 'x' }, { peer: 'x', peerKey: 'both' }],
  ])("accepts rest.li's fabric key as an alias of peer: %s", (_name, entry, expected) => {
    // Act
    const props = parseFailoutProperties(raw([entry], []));

    // Assess
    expect(props?.redirects).toEqual([expected]);
  });

  it('counts the empty redirect entries of rest.li\'s vectors and leaves them out of the peers', () => {
    // Act
    const props = parseFailoutProperties(raw([{}, { peer: 'a' }, {}], []));

    // Assess
    expect(props).toEqual<FailoutProperties>({ redirects: [{ peer: 'a' }], ignoredRedirectEntries: 2, buckets: [] });
  });

  it('reads an integral weight written with a decimal point as that integer', () => {
    // Act
    const props = parseFailoutProperties('{"failoutRedirectConfigs":[{"peer":"p","weight":2.0}]}');

    // Assess
    expect(props?.redirects).toEqual([{ peer: 'p', weight: 2 }]);
  });

  it.each<[string, unknown, string]>([
    ['failoutProperties that is a list', [], 'failoutProperties'],
    ['a redirect list that is an object', { failoutRedirectConfigs: {} }, 'failoutProperties.failoutRedirectConfigs'],
    ['a bucket list that is a string', { failoutBucketConfigs: 'all' }, 'failoutProperties.failoutBucketConfigs'],
    ['a redirect entry that is not an object', raw(['p1'], []), 'failoutProperties.failoutRedirectConfigs[0]'],
    ['a redirect entry without a peer', raw([{ weight: 1 }], []), 'failoutProperties.failoutRedirectConfigs[0].peer'],
    ['a redirect entry whose peer is null', raw([{ peer: null }], []), 'failoutProperties.failoutRedirectConfigs[0].peer'],
    ['a peer that is not a string', raw([{ peer: 7 }], []), 'failoutProperties.failoutRedirectConfigs[0].peer'],
    ['an empty peer', raw([{ peer: '' }], []), 'failoutProperties.failoutRedirectConfigs[0].peer'],
    ['a fabric that is not a string', raw([{ fabric: ['x'] }], []), 'failoutProperties.failoutRedirectConfigs[0].fabric'],
    ['peer and fabric that disagree', raw([{ peer: 'a', fabric: 'b' }], []), 'failoutProperties.failoutRedirectConfigs[0].fabric'],
    ['a repeated peer', raw([{ peer: 'a' }, { peer: 'a', weight: 2 }], []), 'failoutProperties.failoutRedirectConfigs[1].peer'],
    ['a peer repeated through fabric', raw([{ peer: 'a' }, {}, { fabric: 'a' }], []), 'failoutProperties.failoutRedirectConfigs[2].fabric'],
    ['a weight of zero', raw([{ peer: 'a', weight: 0 }], []), 'failoutProperties.failoutRedirectConfigs[0].weight'],
    ['a negative weight', raw([{ peer: 'a', weight: -1 }], []), 'failoutProperties.failoutRedirectConfigs[0].weight'],
    ['a fractional weight', raw([{ peer: 'a', weight: 1.5 }], []), 'failoutProperties.failoutRedirectConfigs[0].weight'],
    ['a weight written as a string', raw([{ peer: 'a', weight: '2' }], []), 'failoutProperties.failoutRedirectConfigs[0].weight'],
    ['a bucket entry that is not an object', raw([], [null]), 'failoutProperties.failoutBucketConfigs[0]'],
    ['a range that is not an object', raw([], [{ bucketOfflineRange: '0-49' }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange'],
    ['a range starting below 0', raw([], [{ bucketOfflineRange: { from: -1, to: 5 } }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange.from'],
    ['a range ending above 99', raw([], [{ bucketOfflineRange: { from: 0, to: 100 } }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange.to'],
    ['a range without to', raw([], [{ bucketOfflineRange: { from: 0 } }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange.to'],
    ['a range with from > to', raw([], [{ bucketOfflineRange: { from: 50, to: 49 } }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange'],
    ['a fractional bucket', raw([], [{ bucketOfflineRange: { from: 0.5, to: 9 } }]), 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange.from'],
    ['an offlineAt that is not a number', raw([], [{ offlineAt: '2026-11-30T16:00:00Z' }]), 'failoutProperties.failoutBucketConfigs[0].offlineAt'],
    ['a negative offlineAt', raw([], [{ offlineAt: -5 }]), 'failoutProperties.failoutBucketConfigs[0].offlineAt'],
    ['an onlineAt that is not a number', raw([], [{ offlineAt: 1, onlineAt: 'soon' }]), 'failoutProperties.failoutBucketConfigs[0].onlineAt'],
    ['an onlineAt not after offlineAt', raw([], [{ offlineAt: 10, onlineAt: 10 }]), 'failoutProperties.failoutBucketConfigs[0].onlineAt'],
    ['an onlineAt of 0 without offlineAt (offline since 0)', raw([], [{ onlineAt: 0 }]), 'failoutProperties.failoutBucketConfigs[0].onlineAt'],
    ['a partition that is not a string', raw([], [{ partition: 3 }]), 'failoutProperties.failoutBucketConfigs[0].partition'],
    ['an empty partition', raw([], [{ partition: '' }]), 'failoutProperties.failoutBucketConfigs[0].partition'],
    ['a reason that is not a string', raw([], [{ reason: 42 }]), 'failoutProperties.failoutBucketConfigs[0].reason'],
    ['a requestId that is not a string', raw([], [{ requestId: 7 }]), 'failoutProperties.failoutBucketConfigs[0].requestId'],
    ['stopAlarms that is a string', raw([], [{ stopAlarms: 'errors-high' }]), 'failoutProperties.failoutBucketConfigs[0].stopAlarms'],
    ['stopAlarms holding a number', raw([], [{ stopAlarms: ['a', 1] }]), 'failoutProperties.failoutBucketConfigs[0].stopAlarms'],
    ['a drill that is not a string', raw([], [{ drill: true }]), 'failoutProperties.failoutBucketConfigs[0].drill'],
  ])('rejects %s as malformed, naming the field', (_name, value, field) => {
    // Act
    const error = catchD2Error(() => parseFailoutProperties(value));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
  });

  it('rejects text that is not JSON, naming failoutProperties', () => {
    // Act
    const error = catchD2Error(() => parseFailoutProperties('{"failoutRedirectConfigs":['));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field: 'failoutProperties' });
  });
});

describe('failout codec: writing', () => {
  it('writes entries back with the keys they were read with, {} entries after the others', () => {
    // Prepare
    const text =
      '{"failoutRedirectConfigs":[{},{"fabric":"testfabric","weight":1},{"peer":"x","fabric":"x"},{"peer":"y"}],' +
      '"failoutBucketConfigs":[{},{"partition":"main"},{"offlineAt":5,"note":"kept"}]}';

    // Act
    const written = serializeFailoutProperties(parseFailoutProperties(text)!);

    // Assess
    expect(written).toBe(
      '{"failoutRedirectConfigs":[{"fabric":"testfabric","weight":1},{"peer":"x","fabric":"x"},{"peer":"y"},{}],' +
        '"failoutBucketConfigs":[{},{"partition":"main"},{"offlineAt":5,"note":"kept"}]}',
    );
  });

  it('writes the keys of a bucket entry in the documented order, unknown keys last', () => {
    // Prepare
    const props: FailoutProperties = {
      redirects: [{ peer: 'lva1', weight: 2, extra: { zone: 'b' } }],
      ignoredRedirectEntries: 0,
      buckets: [
        {
          extra: { z: 1 },
          drill: 'weekly',
          stopAlarms: ['errors-high'],
          reason: 'INC-1',
          requestedBy: 'me',
          requestId: 'r1',
          onlineAt: 20,
          offlineAt: 10,
          bucketOfflineRange: { from: 0, to: 49, extra: { note: 'half' } },
          partition: 'main',
        },
      ],
      extra: { writerNote: 'kept' },
    };

    // Act
    const written = serializeFailoutProperties(props);

    // Assess
    expect(written).toBe(
      '{"failoutRedirectConfigs":[{"peer":"lva1","weight":2,"zone":"b"}],"failoutBucketConfigs":[{"partition":"main",' +
        '"bucketOfflineRange":{"from":0,"to":49,"note":"half"},"offlineAt":10,"onlineAt":20,"requestId":"r1","requestedBy":"me",' +
        '"reason":"INC-1","stopAlarms":["errors-high"],"drill":"weekly","z":1}],"writerNote":"kept"}',
    );
  });

  it('keeps decimal literals of unknown keys inside entries', () => {
    // Prepare
    const text = '{"failoutRedirectConfigs":[{"peer":"p","weight":2.0,"share":0.5,"scale":1.0}],"failoutBucketConfigs":[{"ratio":1.0}],"v":1.0}';

    // Act
    const written = serializeFailoutProperties(parseFailoutProperties(text)!);

    // Assess
    expect(written).toBe('{"failoutRedirectConfigs":[{"peer":"p","weight":2,"share":0.5,"scale":1.0}],"failoutBucketConfigs":[{"ratio":1.0}],"v":1.0}');
  });

  it.each<[string, FailoutProperties, string]>([
    ['an empty peer', { redirects: [{ peer: '' }], ignoredRedirectEntries: 0, buckets: [] }, 'failoutProperties.failoutRedirectConfigs[0].peer'],
    ['a repeated peer', { redirects: [{ peer: 'a' }, { peer: 'a' }], ignoredRedirectEntries: 0, buckets: [] }, 'failoutProperties.failoutRedirectConfigs[1].peer'],
    ['a zero weight', { redirects: [{ peer: 'a', weight: 0 }], ignoredRedirectEntries: 0, buckets: [] }, 'failoutProperties.failoutRedirectConfigs[0].weight'],
    ['a negative ignored count', { redirects: [], ignoredRedirectEntries: -1, buckets: [] }, 'failoutProperties.failoutRedirectConfigs'],
    ['a range past 99', { redirects: [], ignoredRedirectEntries: 0, buckets: [{ bucketOfflineRange: { from: 0, to: 100 } }] }, 'failoutProperties.failoutBucketConfigs[0].bucketOfflineRange.to'],
    ['a window that ends before it starts', { redirects: [], ignoredRedirectEntries: 0, buckets: [{ offlineAt: 10, onlineAt: 5 }] }, 'failoutProperties.failoutBucketConfigs[0].onlineAt'],
    ['a NaN offlineAt', { redirects: [], ignoredRedirectEntries: 0, buckets: [{ offlineAt: Number.NaN }] }, 'failoutProperties.failoutBucketConfigs[0].offlineAt'],
    ['an empty partition', { redirects: [], ignoredRedirectEntries: 0, buckets: [{ partition: '' }] }, 'failoutProperties.failoutBucketConfigs[0].partition'],
  ])('refuses to write %s, naming the field the reader would name', (_name, props, field) => {
    // Act
    const standalone = catchD2Error(() => serializeFailoutProperties(props));
    const inCluster = catchD2Error(() => serializeClusterProperties({ ...parseClusterProperties({ clusterName: 'c' }), failoutProperties: props }));

    // Assess
    expect(standalone).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
    expect(inCluster).toMatchObject({ kind: 'malformed', entity: 'cluster', field });
  });

  it('exposes the default range as all 100 buckets', () => {
    // Assess
    expect(ALL_BUCKETS).toEqual({ from: 0, to: 99 });
    expect(Object.isFrozen(ALL_BUCKETS)).toBe(true);
  });
});

// rest.li ClusterPropertiesSerializerTest.testFailoutProperties (vector 17) and testClusterStoreProperties
// (vector 18): opaque maps, read through the cluster codec and written back unchanged.
describe('failout codec: rest.li vectors inside a cluster document', () => {
  it.each<[string, string, FailoutProperties]>([
    [
      'redirect and bucket',
      '{"failoutRedirectConfigs":[{"fabric":"testfabric","weight":1}],"failoutBucketConfigs":[{"partition":"main"}]}',
      { redirects: [{ peer: 'testfabric', peerKey: 'fabric', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ partition: 'main' }] },
    ],
    [
      'redirect and an empty bucket',
      '{"failoutRedirectConfigs":[{"fabric":"testfabric","weight":1}],"failoutBucketConfigs":[{}]}',
      { redirects: [{ peer: 'testfabric', peerKey: 'fabric', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{}] },
    ],
    [
      'an empty redirect and a bucket',
      '{"failoutRedirectConfigs":[{}],"failoutBucketConfigs":[{"partition":"main"}]}',
      { redirects: [], ignoredRedirectEntries: 1, buckets: [{ partition: 'main' }] },
    ],
    ['an empty redirect and an empty bucket', '{"failoutRedirectConfigs":[{}],"failoutBucketConfigs":[{}]}', { redirects: [], ignoredRedirectEntries: 1, buckets: [{}] }],
    ['two empty lists (vector 18)', '{"failoutRedirectConfigs":[],"failoutBucketConfigs":[]}', { redirects: [], ignoredRedirectEntries: 0, buckets: [] }],
  ])('reads %s and writes it back unchanged', (_name, failout, expected) => {
    // Prepare
    const input = `{"clusterName":"cluster-1","failoutProperties":${failout}}`;

    // Act
    const props = parseClusterProperties(input);
    const written = JSON.parse(serializeClusterProperties(props)) as { failoutProperties: unknown };

    // Assess
    expect(props.failoutProperties).toEqual(expected);
    expect(written.failoutProperties).toEqual(JSON.parse(failout));
  });

  it('makes the whole cluster document malformed when its failout is (rest.li: PropertySerializationException)', () => {
    // Act
    const error = catchD2Error(() => parseClusterProperties({ clusterName: 'c', failoutProperties: raw([{ peer: 'p', weight: -1 }], []) }));

    // Assess
    expect(error).toMatchObject({ kind: 'malformed', entity: 'cluster', field: 'failoutProperties.failoutRedirectConfigs[0].weight' });
  });
});
