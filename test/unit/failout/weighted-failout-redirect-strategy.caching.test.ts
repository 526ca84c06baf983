import * as bucket from '../../../lib/failout/bucket';
import type { FailoutConfig, FailoutRequest } from '../../../lib/failout/types';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { configOf, recordingViewOf, type RecordingView } from './config-factories';

// What the default strategy keeps between requests (issue 13): the peers' facts (self, host count for
// the service's schemes, own failout config) per config and scheme list while the view's `version`
// holds, and nothing without a version; and when the request's key is hashed at all (only when the
// bucket can change the answer).

const NOW = 5_000;
const HTTP: readonly string[] = ['http'];
const HTTPS: readonly string[] = ['https'];

function request(key: string | undefined, schemes: readonly string[] = HTTP): FailoutRequest {
  return { url: 'd2://greetings/hello', service: 'greetings', cluster: 'lor1', schemes, ...(key === undefined ? {} : { key }) };
}

function targets(strategy: WeightedFailoutRedirectStrategy, config: FailoutConfig, n: number, schemes: readonly string[] = HTTP): Set<string> {
  return new Set(Array.from({ length: n }, (_, i) => strategy.redirect(config, request(`member-${i}`, schemes))));
}

function strategyOver(view: RecordingView): WeightedFailoutRedirectStrategy {
  return new WeightedFailoutRedirectStrategy({ view, now: () => NOW, random: () => 0 });
}

describe('WeightedFailoutRedirectStrategy with a versioned view', () => {
  it('asks the view about each peer once per scheme list while the version holds', () => {
    // Prepare
    const config = configOf('lor1', ['lva1', 'ltx1']);
    const view = recordingViewOf([config], { lva1: { http: 1, https: 1 }, ltx1: { http: 1 } }, 7);
    const strategy = strategyOver(view);

    // Act
    const http = targets(strategy, config, 10, HTTP);
    const https = targets(strategy, config, 10, HTTPS);

    // Assess
    expect(http).toEqual(new Set(['lva1', 'ltx1']));
    expect(https).toEqual(new Set(['lva1']));
    expect(view.hostCountCalls).toEqual(['lva1|http', 'ltx1|http', 'lva1|https', 'ltx1|https']);
  });

  it.each<[string, (view: RecordingView) => void, Set<string>]>([
    ['a peer loses its hosts', (view) => (view.hosts.ltx1 = {}), new Set(['lva1'])],
    ['a peer gets a failout of its own', (view) => view.configs.set('ltx1', configOf('ltx1', ['lva1'])), new Set(['lva1'])],
    ['a peer without hosts gets some', (view) => (view.hosts.lsg1 = { http: 2 }), new Set(['lva1', 'ltx1', 'lsg1'])],
  ])('sees it when %s and the version goes up', (_what, change, expected) => {
    // Prepare
    const config = configOf('lor1', ['lva1', 'ltx1', 'lsg1']);
    const view = recordingViewOf([config], { lva1: { http: 1 }, ltx1: { http: 1 } }, 1);
    const strategy = strategyOver(view);
    const before = targets(strategy, config, 12);

    // Act
    change(view);
    view.version = 2;
    const after = targets(strategy, config, 12);

    // Assess
    expect(before).toEqual(new Set(['lva1', 'ltx1']));
    expect(after).toEqual(expected);
  });

  it('keeps what the view said while the version holds, even if the view would now answer otherwise', () => {
    // Prepare
    const config = configOf('lor1', ['lva1', 'ltx1']);
    const view = recordingViewOf([config], { lva1: { http: 1 }, ltx1: { http: 1 } }, 1);
    const strategy = strategyOver(view);
    targets(strategy, config, 2);

    // Act: a change the view's owner failed to announce with a new version.
    view.hosts.ltx1 = {};
    const after = targets(strategy, config, 12);

    // Assess
    expect(after).toEqual(new Set(['lva1', 'ltx1']));
    expect(view.hostCountCalls).toHaveLength(2);
  });

  it('starts afresh for a new config object under the same version', () => {
    // Prepare
    const view = recordingViewOf([], { lva1: { http: 1 }, ltx1: { http: 1 } }, 1);
    const strategy = strategyOver(view);
    targets(strategy, configOf('lor1', ['lva1']), 4);

    // Act
    const next = targets(strategy, configOf('lor1', ['ltx1']), 4);

    // Assess
    expect(next).toEqual(new Set(['ltx1']));
    expect(view.hostCountCalls).toEqual(['lva1|http', 'ltx1|http']);
  });
});

describe('WeightedFailoutRedirectStrategy with a view without a version', () => {
  it('asks the view on every request, so a change is seen at once', () => {
    // Prepare
    const config = configOf('lor1', ['lva1', 'ltx1']);
    const view = recordingViewOf([config], { lva1: { http: 1 }, ltx1: { http: 1 } }, undefined);
    const strategy = strategyOver(view);
    const before = targets(strategy, config, 4);

    // Act
    view.hosts.ltx1 = {};
    const after = targets(strategy, config, 4);

    // Assess
    expect(before).toEqual(new Set(['lva1', 'ltx1']));
    expect(after).toEqual(new Set(['lva1']));
    expect(view.hostCountCalls).toHaveLength(16);
  });
});

describe('WeightedFailoutRedirectStrategy key hashing', () => {
  let bucketOf: jest.SpiedFunction<typeof bucket.bucketOf>;

  beforeEach(() => {
    bucketOf = jest.spyOn(bucket, 'bucketOf');
  });

  afterEach(() => bucketOf.mockRestore());

  it.each<[string, FailoutConfig, string]>([
    ['one window over all buckets', configOf('lor1', ['lva1']), 'lva1'],
    ['two windows over all buckets', configOf('lor1', ['lva1'], [{ from: 0, to: 99 }, { from: 0, to: 99, offlineAt: 1 }]), 'lva1'],
    ['a window over all buckets that has not started', configOf('lor1', ['lva1'], [{ offlineAt: NOW + 1 }]), 'lor1'],
  ])('does not hash the key with %s and no peer failout of its own', (_what, config, expected) => {
    // Prepare
    const strategy = strategyOver(recordingViewOf([config], { lva1: { http: 1 } }, 1));

    // Act
    const target = strategy.redirect(config, request('member-1'));

    // Assess
    expect(target).toBe(expected);
    expect(bucketOf).not.toHaveBeenCalled();
  });

  it.each<[string, string]>([
    ['inside the range moves', 'lva1'],
    ['outside the range stays', 'lor1'],
  ])("uses the key's bucket for a partial range: a key %s", (what, expected) => {
    // Prepare
    const config = configOf('lor1', ['lva1'], [{ from: 0, to: 49 }]);
    const strategy = strategyOver(recordingViewOf([config], { lva1: { http: 1 } }, 1));
    const key = findKey(what.startsWith('inside') ? (b) => b <= 49 : (b) => b >= 50);
    bucketOf.mockClear();

    // Act
    const target = strategy.redirect(config, request(key));

    // Assess
    expect(target).toBe(expected);
    expect(bucketOf.mock.calls.map((call) => call[0])).toEqual([key]);
  });

  it.each<[string, (bucket: number) => boolean, string]>([
    ['a key in a bucket the heavy peer is out for goes to the other peer', (b) => b <= 49, 'lva1'],
    ['a key in a bucket the heavy peer serves goes to it', (b) => b >= 50, 'ltx1'],
  ])("uses the key's bucket over all buckets when a peer has its own partial failout: %s", (_what, accept, expected) => {
    // Prepare: ltx1 (weighted far above lva1) is itself out for buckets 0–49.
    const config = configOf('lor1', [['lva1', 1], ['ltx1', 1000]]);
    const ltx1 = configOf('ltx1', ['lsg1'], [{ from: 0, to: 49 }]);
    const strategy = strategyOver(recordingViewOf([config, ltx1], { lva1: { http: 1 }, ltx1: { http: 1 } }, 1));
    const key = findKey(accept);
    bucketOf.mockClear();

    // Act
    const target = strategy.redirect(config, request(key));

    // Assess
    expect(target).toBe(expected);
    expect(bucketOf.mock.calls.map((call) => call[0])).toEqual([key]);
  });
});

/** A key whose bucket satisfies `accept` (computed with the real, unspied hash). */
function findKey(accept: (bucket: number) => boolean): string {
  for (let i = 0; ; i++) if (accept(bucket.hashKey(`key-${i}`) % 100)) return `key-${i}`;
}
