import { parseClusterProperties, type FailoutProperties } from '../../../lib/d2';
import { ALL_BUCKETS, createFailoutConfig } from '../../../lib/failout/failout-config';

// createFailoutConfig: the runtime view of the typed failoutProperties the codec validated (the rules
// themselves are tested with the codec in test/unit/d2/failout.*.test.ts).

function props(redirects: FailoutProperties['redirects'], buckets: FailoutProperties['buckets'], ignoredRedirectEntries = 0): FailoutProperties {
  return { redirects, ignoredRedirectEntries, buckets };
}

describe('createFailoutConfig', () => {
  it('means no failout for null (absent, null or {})', () => {
    // Act
    const config = createFailoutConfig('c1', null);

    // Assess
    expect(config).toBeUndefined();
  });

  it('keeps a present config with both lists empty, never failed out (rest.li test provider)', () => {
    // Act
    const config = createFailoutConfig('c1', props([], []));

    // Assess
    expect(config).toBeDefined();
    expect(config!.isFailedOut(0)).toBe(false);
    expect(config!.getPeerClusters().size).toBe(0);
  });

  it('reads the documented example with peers, weights, range, window and metadata', () => {
    // Prepare
    const value = props(
      [{ peer: 'greetings-lva1', weight: 2 }, { peer: 'greetings-ltx1', weight: 1 }],
      [{ partition: 'main', bucketOfflineRange: { from: 0, to: 49 }, offlineAt: 1000, onlineAt: 2000, requestId: 'r1', requestedBy: 'me', reason: 'INC-1', extra: { extraKey: true } }],
    );

    // Act
    const config = createFailoutConfig('greetings-lor1', value)!;

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
    const config = createFailoutConfig('c1', props([{ peer: 'p1' }], [{}]))!;

    // Assess
    expect(config.peers).toEqual([{ cluster: 'p1', weight: 1 }]);
    expect(config.windows[0]).toEqual({ partition: 'main', buckets: ALL_BUCKETS, offlineAt: 0, onlineAt: undefined, requestId: undefined, requestedBy: undefined, reason: undefined });
    expect(config.isFailedOut(Date.now())).toBe(true);
  });

  it('leaves the ignored {} redirect entries out of the peers', () => {
    // Act
    const config = createFailoutConfig('c1', props([{ peer: 'testfabric', peerKey: 'fabric' }], [{}], 2))!;

    // Assess
    expect(config.peers).toEqual([{ cluster: 'testfabric', weight: 1 }]);
  });

  it('shares the peer list and set of the previous config when the peers are the same, and only then', () => {
    // Prepare
    const first = createFailoutConfig('c1', props([{ peer: 'p1', weight: 2 }, { peer: 'p2' }], [{ offlineAt: 10 }]))!;

    // Act
    const restored = createFailoutConfig('c1', props([{ peer: 'p1', weight: 2 }, { peer: 'p2', weight: 1 }], [{ offlineAt: 10, onlineAt: 20 }]), first)!;
    const reweighted = createFailoutConfig('c1', props([{ peer: 'p1', weight: 3 }, { peer: 'p2' }], [{ offlineAt: 10 }]), restored)!;
    const reordered = createFailoutConfig('c1', props([{ peer: 'p2' }, { peer: 'p1', weight: 2 }], [{ offlineAt: 10 }]), first)!;
    const otherCluster = createFailoutConfig('c2', props([{ peer: 'p1', weight: 2 }, { peer: 'p2' }], [{ offlineAt: 10 }]), first)!;

    // Assess
    expect(restored.peers).toBe(first.peers);
    expect(restored.getPeerClusters()).toBe(first.getPeerClusters());
    expect([restored.isFailedOut(15), restored.isFailedOut(25)]).toEqual([true, false]);
    expect(reweighted.peers).toEqual([{ cluster: 'p1', weight: 3 }, { cluster: 'p2', weight: 1 }]);
    expect(reordered.peers.map((p) => p.cluster)).toEqual(['p2', 'p1']);
    expect([...reordered.getPeerClusters()]).toEqual(['p2', 'p1']);
    expect(otherCluster.peers).not.toBe(first.peers);
  });

  it('is immutable: later changes to the properties it was built from do not change it', () => {
    // Prepare
    const value = props([{ peer: 'p1' }], [{ offlineAt: 10, onlineAt: 20 }]);
    const config = createFailoutConfig('c1', value)!;

    // Act
    value.buckets[0].onlineAt = 30;
    value.redirects.push({ peer: 'p2' });

    // Assess
    expect(config.isFailedOut(25)).toBe(false);
    expect(config.windows[0].onlineAt).toBe(20);
    expect([...config.getPeerClusters()]).toEqual(['p1']);
    expect(Object.isFrozen(config.peers) && Object.isFrozen(config.windows)).toBe(true);
  });
});

// rest.li ClusterPropertiesSerializerTest.testFailoutProperties: four combinations of redirect and
// bucket lists, read through the cluster codec first.
describe('failout configs of cluster JSON', () => {
  const redirect = { fabric: 'testfabric', weight: 1 };
  const bucket = { partition: 'main' };

  it.each([
    ['redirect and bucket', [redirect], [bucket], ['testfabric'], true],
    ['redirect only', [redirect], [], ['testfabric'], false],
    ['bucket only', [], [bucket], [], true],
    ['an empty redirect entry and a bucket', [{}], [bucket], [], true],
    ['an empty redirect entry and an empty bucket', [{}], [{}], [], true],
    ['neither (present, empty lists)', [], [], [], false],
  ])('reads %s', (_name, redirects, buckets, peers, failedOut) => {
    // Prepare
    const cluster = parseClusterProperties({ clusterName: 'cluster-1', failoutProperties: { failoutRedirectConfigs: redirects, failoutBucketConfigs: buckets } });

    // Act
    const config = createFailoutConfig('cluster-1', cluster.failoutProperties);

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
    const config = createFailoutConfig('cluster-1', cluster.failoutProperties);

    // Assess
    expect(config).toBeUndefined();
  });
});
