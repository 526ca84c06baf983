import { parseClusterProperties } from '../../../lib/d2';
import { FailoutError } from '../../../lib/failout/errors';
import { ALL_BUCKETS, parseFailoutConfig } from '../../../lib/failout/failout-config';
import type { FailoutPropertiesJson } from '../../../lib/d2';

// parseFailoutConfig: the "Failout properties" data model of ARCHITECTURE.md on top of the codec's raw lists.

function raw(redirects: unknown[], buckets: unknown[]): FailoutPropertiesJson {
  return { failoutRedirectConfigs: redirects, failoutBucketConfigs: buckets };
}

function malformedField(run: () => unknown): string | undefined {
  try {
    run();
  } catch (err) {
    if (err instanceof FailoutError && err.kind === 'malformedConfig') return err.field;
    throw err;
  }
  return undefined;
}

describe('parseFailoutConfig', () => {
  it.each([
    ['undefined (cluster unknown)', undefined],
    ['null (absent, null or {})', null],
  ])('means no failout for %s', (_name, value) => {
    // Act
    const config = parseFailoutConfig('c1', value);

    // Assess
    expect(config).toBeUndefined();
  });

  it('keeps a present config with both lists empty, never failed out (rest.li test provider)', () => {
    // Act
    const config = parseFailoutConfig('c1', raw([], []));

    // Assess
    expect(config).toBeDefined();
    expect(config!.isFailedOut(0)).toBe(false);
    expect(config!.getPeerClusters().size).toBe(0);
  });

  it('reads the documented example with peers, weights, range, window and metadata', () => {
    // Prepare
    const value = raw(
      [{ peer: 'greetings-lva1', weight: 2 }, { peer: 'greetings-ltx1', weight: 1 }],
      [{ partition: 'main', bucketOfflineRange: { from: 0, to: 49 }, offlineAt: 1000, onlineAt: 2000, requestId: 'r1', requestedBy: 'me', reason: 'INC-1', extraKey: true }],
    );

    // Act
    const config = parseFailoutConfig('greetings-lor1', value)!;

    // Assess
    expect(config.cluster).toBe('greetings-lor1');
    expect(config.peers).toEqual([{ cluster: 'greetings-lva1', weight: 2 }, { cluster: 'greetings-ltx1', weight: 1 }]);
    expect([...config.getPeerClusters()]).toEqual(['greetings-lva1', 'greetings-ltx1']);
    expect(config.windows).toEqual([
      { partition: 'main', buckets: { from: 0, to: 49 }, offlineAt: 1000, onlineAt: 2000, requestId: 'r1', requestedBy: 'me', reason: 'INC-1' },
    ]);
  });

  it('applies the defaults: weight 1, all buckets, partition main, offline since always, no end', () => {
    // Act
    const config = parseFailoutConfig('c1', raw([{ peer: 'p1' }], [{}]))!;

    // Assess
    expect(config.peers).toEqual([{ cluster: 'p1', weight: 1 }]);
    expect(config.windows[0]).toEqual({ partition: 'main', buckets: ALL_BUCKETS, offlineAt: 0, onlineAt: undefined, requestId: undefined, requestedBy: undefined, reason: undefined });
    expect(config.isFailedOut(Date.now())).toBe(true);
  });

  it('accepts rest.li\'s fabric key as an alias of peer', () => {
    // Act
    const config = parseFailoutConfig('c1', raw([{ fabric: 'testfabric', weight: 1 }], []))!;

    // Assess
    expect([...config.getPeerClusters()]).toEqual(['testfabric']);
  });

  it.each<[string, FailoutPropertiesJson, string]>([
    ['a redirect entry that is not an object', raw(['p1'], []), 'failoutRedirectConfigs[0]'],
    ['a missing peer', raw([{ weight: 1 }], []), 'failoutRedirectConfigs[0].peer'],
    ['a peer that is not a string', raw([{ peer: 7 }], []), 'failoutRedirectConfigs[0].peer'],
    ['an empty peer', raw([{ peer: '' }], []), 'failoutRedirectConfigs[0].peer'],
    ['a fabric that is not a string', raw([{ fabric: ['x'] }], []), 'failoutRedirectConfigs[0].fabric'],
    ['peer and fabric that disagree', raw([{ peer: 'a', fabric: 'b' }], []), 'failoutRedirectConfigs[0].fabric'],
    ['a repeated peer', raw([{ peer: 'a' }, { peer: 'a', weight: 2 }], []), 'failoutRedirectConfigs[1].peer'],
    ['a weight of zero', raw([{ peer: 'a', weight: 0 }], []), 'failoutRedirectConfigs[0].weight'],
    ['a negative weight', raw([{ peer: 'a', weight: -1 }], []), 'failoutRedirectConfigs[0].weight'],
    ['a fractional weight', raw([{ peer: 'a', weight: 1.5 }], []), 'failoutRedirectConfigs[0].weight'],
    ['a weight written as a string', raw([{ peer: 'a', weight: '2' }], []), 'failoutRedirectConfigs[0].weight'],
    ['a bucket entry that is not an object', raw([], [null]), 'failoutBucketConfigs[0]'],
    ['a range starting below 0', raw([], [{ bucketOfflineRange: { from: -1, to: 5 } }]), 'failoutBucketConfigs[0].bucketOfflineRange.from'],
    ['a range ending above 99', raw([], [{ bucketOfflineRange: { from: 0, to: 100 } }]), 'failoutBucketConfigs[0].bucketOfflineRange.to'],
    ['a range without to', raw([], [{ bucketOfflineRange: { from: 0 } }]), 'failoutBucketConfigs[0].bucketOfflineRange.to'],
    ['a range with from > to', raw([], [{ bucketOfflineRange: { from: 50, to: 49 } }]), 'failoutBucketConfigs[0].bucketOfflineRange'],
    ['a fractional bucket', raw([], [{ bucketOfflineRange: { from: 0.5, to: 9 } }]), 'failoutBucketConfigs[0].bucketOfflineRange.from'],
    ['an offlineAt that is not a number', raw([], [{ offlineAt: '2026-11-30T16:00:00Z' }]), 'failoutBucketConfigs[0].offlineAt'],
    ['a negative offlineAt', raw([], [{ offlineAt: -5 }]), 'failoutBucketConfigs[0].offlineAt'],
    ['an onlineAt that is not a number', raw([], [{ offlineAt: 1, onlineAt: 'soon' }]), 'failoutBucketConfigs[0].onlineAt'],
    ['an onlineAt not after offlineAt', raw([], [{ offlineAt: 10, onlineAt: 10 }]), 'failoutBucketConfigs[0].onlineAt'],
    ['a partition that is not a string', raw([], [{ partition: 3 }]), 'failoutBucketConfigs[0].partition'],
    ['a reason that is not a string', raw([], [{ reason: 42 }]), 'failoutBucketConfigs[0].reason'],
    ['a redirect list that is not a list', { failoutRedirectConfigs: {} as unknown as unknown[], failoutBucketConfigs: [] }, 'failoutRedirectConfigs'],
  ])('rejects %s as malformedConfig naming the field', (_name, value, field) => {
    // Act
    const seen = malformedField(() => parseFailoutConfig('c1', value));

    // Assess
    expect(seen).toBe(field);
  });

  it('names the cluster in the error', () => {
    // Act
    const run = (): unknown => parseFailoutConfig('greetings-lor1', raw([{ peer: 1 }], []));

    // Assess
    expect(run).toThrow(expect.objectContaining({ name: 'FailoutError', kind: 'malformedConfig', cluster: 'greetings-lor1' }));
  });
});

// rest.li ClusterPropertiesSerializerTest.testFailoutProperties: four combinations of redirect and
// bucket lists, read through the cluster codec first.
describe('failout properties read from cluster JSON', () => {
  const redirect = { fabric: 'testfabric', weight: 1 };
  const bucket = { partition: 'main' };

  it.each([
    ['redirect and bucket', [redirect], [bucket], ['testfabric'], true],
    ['redirect only', [redirect], [], ['testfabric'], false],
    ['bucket only', [], [bucket], [], true],
    ['neither (present, empty lists)', [], [], [], false],
  ])('reads %s', (_name, redirects, buckets, peers, failedOut) => {
    // Prepare
    const cluster = parseClusterProperties({ clusterName: 'cluster-1', failoutProperties: { failoutRedirectConfigs: redirects, failoutBucketConfigs: buckets } });

    // Act
    const config = parseFailoutConfig('cluster-1', cluster.failoutProperties);

    // Assess
    expect(config).toBeDefined();
    expect([...config!.getPeerClusters()]).toEqual(peers);
    expect(config!.isFailedOut()).toBe(failedOut);
  });

  it.each([
    ['absent', {}],
    ['null', { failoutProperties: null }],
    ['an empty object', { failoutProperties: {} }],
  ])('reads no failout when failoutProperties is %s', (_name, extra) => {
    // Prepare
    const cluster = parseClusterProperties({ clusterName: 'cluster-1', ...extra });

    // Act
    const config = parseFailoutConfig('cluster-1', cluster.failoutProperties);

    // Assess
    expect(config).toBeUndefined();
  });
});
