import { Registry } from 'prom-client';
import { bucketOf } from '../../../lib/failout/bucket';
import { FailoutError } from '../../../lib/failout/errors';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import type { FailoutConfig, FailoutRequest } from '../../../lib/failout/types';
import { configOf, viewOf } from './config-factories';

// The default strategy: bucket by key, weighted peer choice, peer eligibility, fail open / closed.

const NOW = 5_000;

function request(key?: string): FailoutRequest {
  return { url: 'd2://greetings/hello', service: 'greetings', cluster: 'lor1', ...(key === undefined ? {} : { key }) };
}

function picks(strategy: WeightedFailoutRedirectStrategy, config: FailoutConfig, n: number, key?: (i: number) => string): Record<string, number> {
  const seen: Record<string, number> = {};
  for (let i = 0; i < n; i++) {
    const target = strategy.redirect(config, request(key?.(i)));
    seen[target] = (seen[target] ?? 0) + 1;
  }
  return seen;
}

describe('WeightedFailoutRedirectStrategy', () => {
  const hosts = { lor1: 3, lva1: 3, ltx1: 3, lsg1: 3 };

  it('keeps every request on a cluster whose windows are not active', () => {
    // Prepare
    const config = configOf('lor1', ['lva1'], [{ offlineAt: NOW + 1 }]);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], hosts), now: () => NOW });

    // Act
    const seen = picks(strategy, config, 100);

    // Assess
    expect(seen).toEqual({ lor1: 100 });
  });

  it.each([
    ['2:1', [['lva1', 2], ['ltx1', 1]] as [string, number][], { lva1: 200, ltx1: 100 }],
    ['1:1:1', [['lva1', 1], ['ltx1', 1], ['lsg1', 1]] as [string, number][], { lva1: 100, ltx1: 100, lsg1: 100 }],
    ['a single peer', [['lva1', 5]] as [string, number][], { lva1: 300 }],
  ])('splits a full failout over the peers by weight (%s)', (_name, peers, expected) => {
    // Prepare
    const config = configOf('lor1', peers);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], hosts), now: () => NOW, random: () => 0 });

    // Act
    const seen = picks(strategy, config, 300);

    // Assess
    expect(seen).toEqual(expected);
  });

  it.each([
    ['the cluster itself', ['lor1', 'lva1'], {}, {}, 'self'],
    ['a peer with no hosts', ['ltx1', 'lva1'], { ltx1: 0 }, {}, 'noHosts'],
    ['a peer failed out for the same bucket (chained failout)', ['ltx1', 'lva1'], {}, { ltx1: ['lva1'] }, 'failedOut'],
  ])('skips %s', (_name, peers, hostOverrides, chained: Record<string, string[]>, reason) => {
    // Prepare
    const config = configOf('lor1', peers);
    const others = Object.entries(chained).map(([cluster, to]) => configOf(cluster, to));
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config, ...others], { ...hosts, ...hostOverrides }), now: () => NOW });

    // Act
    const seen = picks(strategy, config, 50);

    // Assess
    expect(seen).toEqual({ lva1: 50 });
    expect(strategy.stats().skipped).toEqual([{ cluster: 'lor1', peer: peers[0], reason, count: 50 }]);
  });

  it('uses a peer that is failed out only for other buckets', () => {
    // Prepare: lor1 is out for 0–49, ltx1 for 50–99; a key in 0–49 may go to ltx1.
    const config = configOf('lor1', ['ltx1'], [{ from: 0, to: 49 }]);
    const ltx1 = configOf('ltx1', ['lva1'], [{ from: 50, to: 99 }]);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config, ltx1], hosts), now: () => NOW });
    const lowKey = findKey((b) => b < 50);

    // Act
    const target = strategy.redirect(config, request(lowKey));

    // Assess
    expect(target).toBe('ltx1');
  });

  it('moves only the keys whose bucket is in the offline range, and always the same ones', () => {
    // Prepare
    const config = configOf('lor1', ['lva1'], [{ from: 0, to: 49 }]);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], hosts), now: () => NOW });
    const keys = Array.from({ length: 10_000 }, (_, i) => `member-${i}`);

    // Act
    const first = keys.map((key) => strategy.redirect(config, request(key)));
    const second = keys.map((key) => strategy.redirect(config, request(key)));

    // Assess
    const moved = first.filter((t) => t === 'lva1').length;
    expect(Math.abs(moved / keys.length - 0.5)).toBeLessThan(0.03);
    expect(second).toEqual(first);
  });

  it('fails open with no eligible peer, and counts it', () => {
    // Prepare
    const config = configOf('lor1', ['lva1', 'ltx1']);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], { lor1: 3 }), now: () => NOW });

    // Act
    const seen = picks(strategy, config, 10);

    // Assess
    expect(seen).toEqual({ lor1: 10 });
    expect(strategy.stats().noEligiblePeer).toEqual([{ cluster: 'lor1', outcome: 'failOpen', count: 10 }]);
  });

  it('fails open when the failout lists no peer at all', () => {
    // Prepare
    const config = configOf('lor1', []);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], hosts), now: () => NOW });

    // Act
    const target = strategy.redirect(config, request('k'));

    // Assess
    expect(target).toBe('lor1');
  });

  it('fails closed with a typed error when configured to', () => {
    // Prepare
    const config = configOf('lor1', ['lva1']);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], { lor1: 3 }), now: () => NOW, failClosed: true });

    // Act
    const run = (): string => strategy.redirect(config, request('k'));

    // Assess
    expect(run).toThrow(FailoutError);
    expect(run).toThrow(expect.objectContaining({ kind: 'noEligiblePeer', cluster: 'lor1' }));
    expect(strategy.stats().noEligiblePeer).toEqual([{ cluster: 'lor1', outcome: 'failClosed', count: 2 }]);
  });

  it('follows a peer that loses its hosts and gets them back', () => {
    // Prepare
    const config = configOf('lor1', [['lva1', 1], ['ltx1', 1]]);
    const view = viewOf([config], { ...hosts });
    const strategy = new WeightedFailoutRedirectStrategy({ view, now: () => NOW, random: () => 0 });

    // Act
    const before = picks(strategy, config, 10);
    view.hosts.ltx1 = 0;
    const during = picks(strategy, config, 10);
    view.hosts.ltx1 = 3;
    const after = picks(strategy, config, 10);

    // Assess
    expect(before).toEqual({ lva1: 5, ltx1: 5 });
    expect(during).toEqual({ lva1: 10 });
    expect(after).toEqual({ lva1: 5, ltx1: 5 });
  });

  it.each([
    ['no peer has a failout of its own', false],
    ['a peer has a failout of its own, not active yet (per-request eligibility)', true],
  ])('splits a failout over every listed peer, also beyond the 31st, when %s', (_name, peerFailout) => {
    // Prepare: 40 peers of weight 1; the request schema's MAX_PEERS has no upper bound, nor has the codec.
    const names = Array.from({ length: 40 }, (_, i) => `peer${i}`);
    const config = configOf('lor1', names);
    const others = peerFailout ? [configOf('peer0', ['lor1'], [{ offlineAt: NOW + 1_000_000 }])] : [];
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config, ...others], Object.fromEntries(names.map((n) => [n, 1]))), now: () => NOW, random: () => 0 });

    // Act
    const seen = picks(strategy, config, 400);

    // Assess: each peer its weighted share (10 of 400), the last ones included.
    expect(Object.keys(seen).sort()).toEqual([...names].sort());
    expect(Object.values(seen).every((n) => n === 10)).toBe(true);
  });

  it('skips ineligible peers beyond the 31st as it does the first ones', () => {
    // Prepare: 40 peers, the 35th failed out for every bucket (chained failout), the 38th without hosts.
    const names = Array.from({ length: 40 }, (_, i) => `peer${i}`);
    const config = configOf('lor1', names);
    const chained = configOf('peer34', ['lor1']);
    const hostCounts = Object.fromEntries(names.map((n) => [n, n === 'peer37' ? 0 : 1]));
    const registry = new Registry();
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config, chained], hostCounts), now: () => NOW, random: () => 0, registry });

    // Act
    const seen = picks(strategy, config, 380);

    // Assess
    expect(seen.peer34).toBeUndefined();
    expect(seen.peer37).toBeUndefined();
    expect(seen.peer39).toBe(10);
    expect(Object.keys(seen)).toHaveLength(38);
    expect(strategy.stats().skipped).toEqual(
      expect.arrayContaining([
        { cluster: 'lor1', peer: 'peer34', reason: 'failedOut', count: 380 },
        { cluster: 'lor1', peer: 'peer37', reason: 'noHosts', count: 380 },
      ]),
    );
  });

  it('exposes its counters on the registry it is given', async () => {
    // Prepare
    const registry = new Registry();
    const config = configOf('lor1', ['lva1']);
    const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], {}), now: () => NOW, registry });
    strategy.redirect(config, request('k'));

    // Act
    const text = await registry.metrics();

    // Assess
    expect(text).toContain('failout_strategy_no_eligible_peer_total{cluster="lor1",outcome="failOpen"} 1');
    expect(text).toContain('failout_strategy_peer_skipped_total{cluster="lor1",peer="lva1",reason="noHosts"} 1');
  });
});

/** A key whose bucket satisfies `accept`. */
function findKey(accept: (bucket: number) => boolean): string {
  for (let i = 0; ; i++) if (accept(bucketOf(`key-${i}`))) return `key-${i}`;
}
