import fc from 'fast-check';
import { bucketOf } from '../../../lib/failout/bucket';
import { WeightedFailoutRedirectStrategy } from '../../../lib/failout/weighted-failout-redirect-strategy';
import { configOf, seededRandom, viewOf, type WindowSpec } from './config-factories';

// Properties of the default strategy over random failouts, peer states and keys.

const CLUSTERS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];
const NOW = 1_000;

const range = fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 })).map(([a, b]): WindowSpec => ({ from: Math.min(a, b), to: Math.max(a, b), offlineAt: 0 }));

/** A failout of c0 to some of the other clusters (c0 itself may be listed too: it must be skipped). */
const scenario = fc.record({
  peers: fc.uniqueArray(fc.constantFrom(...CLUSTERS), { minLength: 0, maxLength: 6 }),
  weights: fc.array(fc.integer({ min: 1, max: 9 }), { minLength: 6, maxLength: 6 }),
  ownRange: range,
  // Per other cluster: its own failout (chained) or none.
  peerRanges: fc.array(fc.option(range, { nil: undefined }), { minLength: 6, maxLength: 6 }),
  hostCounts: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 6, maxLength: 6 }),
  keys: fc.array(fc.string(), { minLength: 1, maxLength: 30 }),
  seed: fc.integer(),
});

describe('WeightedFailoutRedirectStrategy properties', () => {
  it('never picks the failed-out cluster, an unlisted cluster, a peer failed out for the bucket, or a peer without hosts', () => {
    fc.assert(
      fc.property(scenario, (s) => {
        // Prepare
        const config = configOf('c0', s.peers.map((p, i) => [p, s.weights[i]!]), [s.ownRange]);
        const others = CLUSTERS.slice(1).flatMap((c, i) => {
          const r = s.peerRanges[i + 1];
          return r ? [configOf(c, ['c0'], [r])] : [];
        });
        const hosts = Object.fromEntries(CLUSTERS.map((c, i) => [c, s.hostCounts[i]!]));
        const view = viewOf([config, ...others], hosts);
        const strategy = new WeightedFailoutRedirectStrategy({ view, now: () => NOW, random: seededRandom(s.seed) });

        for (const key of s.keys) {
          // Act
          const target = strategy.redirect(config, { url: 'd2://svc/x', service: 'svc', cluster: 'c0', key });

          // Assess
          const bucket = bucketOf(key);
          const eligible = (peer: string): boolean =>
            peer !== 'c0' && view.getFailoutConfig(peer)?.isBucketFailedOut(bucket, NOW) !== true && view.getHostCount(peer) > 0;
          if (!config.isBucketFailedOut(bucket, NOW)) {
            expect(target).toBe('c0');
          } else if (target === 'c0') {
            // Fail open only when no listed peer was eligible.
            expect(s.peers.filter(eligible)).toEqual([]);
          } else {
            expect(s.peers).toContain(target);
            expect(eligible(target)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('splits a full failout over the eligible peers by weight, within two requests per peer', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 10 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 20 }),
        fc.integer(),
        (weights, rounds, seed) => {
          // Prepare
          const peers = weights.map((w, i): [string, number] => [`p${i}`, w]);
          const config = configOf('c0', peers);
          const hosts = Object.fromEntries(peers.map(([p]) => [p, 1]));
          const strategy = new WeightedFailoutRedirectStrategy({ view: viewOf([config], hosts), now: () => NOW, random: seededRandom(seed) });
          const total = weights.reduce((a, b) => a + b, 0);
          const counts = new Map<string, number>();

          // Act
          for (let i = 0; i < rounds * total; i++) {
            const target = strategy.redirect(config, { url: 'd2://svc/x', service: 'svc', cluster: 'c0' });
            counts.set(target, (counts.get(target) ?? 0) + 1);
          }

          // Assess
          for (const [peer, weight] of peers) expect(Math.abs((counts.get(peer) ?? 0) - rounds * weight)).toBeLessThanOrEqual(2);
        },
      ),
      { numRuns: 200 },
    );
  });
});
