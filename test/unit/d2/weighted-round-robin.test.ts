import fc from 'fast-check';
import { WeightedRoundRobin, type WeightedItem } from '../../../lib/d2/weighted-round-robin';

// Smooth weighted round robin: shares follow the weights, zero weights are never picked, picks spread.

function pickMany<T>(wrr: WeightedRoundRobin<T>, count: number): Map<T, number> {
  const counts = new Map<T, number>();
  for (let i = 0; i < count; i++) {
    const item = wrr.next();
    if (item !== undefined) counts.set(item, (counts.get(item) ?? 0) + 1);
  }
  return counts;
}

/** Deterministic [0, 1) source so a failing run can be replayed. */
function seeded(seed: number): () => number {
  let state = seed >>> 0 || 1;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
}

describe('WeightedRoundRobin', () => {
  it('picks each item exactly its weight times per cycle of integer weights', () => {
    // Prepare
    const wrr = new WeightedRoundRobin([
      { item: 'a', weight: 5 },
      { item: 'b', weight: 1 },
      { item: 'c', weight: 1 },
    ]);

    // Act
    const sequence = Array.from({ length: 7 }, () => wrr.next());

    // Assess: nginx's documented sequence, the heavy item spread out rather than bunched.
    expect(sequence).toEqual(['a', 'a', 'b', 'a', 'c', 'a', 'a']);
  });

  it.each([
    ['zero', 0],
    ['negative', -1],
    ['NaN', Number.NaN],
    ['infinite', Number.POSITIVE_INFINITY],
  ])('never picks an item with a %s weight', (_label, weight) => {
    // Prepare
    const wrr = new WeightedRoundRobin([
      { item: 'live', weight: 1 },
      { item: 'skipped', weight },
      { item: 'other', weight: 2 },
    ]);

    // Act
    const counts = pickMany(wrr, 300);

    // Assess
    expect(counts.get('skipped')).toBeUndefined();
    expect(counts.get('live')).toBe(100);
    expect(counts.get('other')).toBe(200);
    expect(wrr.size).toBe(2);
  });

  it('returns undefined when no item has a weight above zero', () => {
    // Prepare
    const wrr = new WeightedRoundRobin([{ item: 'x', weight: 0 }]);

    // Act
    const picked = wrr.next();

    // Assess
    expect(picked).toBeUndefined();
    expect(wrr.size).toBe(0);
  });

  it('splits fractional weights such as rest.li 0.3 / 0.5 in proportion', () => {
    // Prepare
    const wrr = new WeightedRoundRobin([
      { item: 'a', weight: 0.3 },
      { item: 'b', weight: 0.5 },
      { item: 'c', weight: 0.2 },
    ]);

    // Act
    const counts = pickMany(wrr, 10_000);

    // Assess
    expect(Math.abs((counts.get('a') ?? 0) - 3000)).toBeLessThanOrEqual(2);
    expect(Math.abs((counts.get('b') ?? 0) - 5000)).toBeLessThanOrEqual(2);
    expect(Math.abs((counts.get('c') ?? 0) - 2000)).toBeLessThanOrEqual(2);
  });

  const weightsArb = fc.array(fc.oneof(fc.integer({ min: 0, max: 20 }), fc.constant(0)), { minLength: 1, maxLength: 12 });

  it('matches the weights within one pick for any prefix of picks (property)', () => {
    fc.assert(
      fc.property(weightsArb, fc.integer({ min: 1, max: 500 }), (weights, picks) => {
        // Prepare
        const items: WeightedItem<number>[] = weights.map((weight, item) => ({ item, weight }));
        const wrr = new WeightedRoundRobin(items);
        const total = weights.reduce((s, w) => s + w, 0);

        // Act
        const counts = pickMany(wrr, picks);

        // Assess
        for (const [index, weight] of weights.entries()) {
          const got = counts.get(index) ?? 0;
          if (weight === 0) expect(got).toBe(0);
          else expect(Math.abs(got - (picks * weight) / total)).toBeLessThan(1 + 1e-9);
        }
        if (total === 0) expect(counts.size).toBe(0);
      }),
    );
  });

  it('keeps the shares with a random starting point (property)', () => {
    fc.assert(
      fc.property(weightsArb, fc.integer(), (weights, seed) => {
        // Prepare
        const items = weights.map((weight, item) => ({ item, weight }));
        const wrr = new WeightedRoundRobin(items, { random: seeded(seed) });
        const total = weights.reduce((s, w) => s + w, 0);
        const picks = Math.max(total, 1) * 10;

        // Act
        const counts = pickMany(wrr, picks);

        // Assess: the start shifts each count by at most a couple of picks, whatever the run length.
        for (const [index, weight] of weights.entries()) {
          const got = counts.get(index) ?? 0;
          if (weight === 0) expect(got).toBe(0);
          else expect(Math.abs(got - (picks * weight) / total)).toBeLessThanOrEqual(2);
        }
      }),
    );
  });

  it('starts different instances at different hosts when given randomness', () => {
    // Prepare
    const items = Array.from({ length: 10 }, (_, item) => ({ item, weight: 1 }));
    const random = seeded(42);

    // Act
    const firsts = new Set(Array.from({ length: 20 }, () => new WeightedRoundRobin(items, { random }).next()));

    // Assess
    expect(firsts.size).toBeGreaterThan(3);
  });
});
