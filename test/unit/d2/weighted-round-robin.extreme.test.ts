/**
 * Issue 14: WeightedRoundRobin with extreme weights. Before, two hosts of weight 1.7e308 and one of
 * weight 1 made the total Infinity, every score became Infinity or NaN, and the split came out 39:1
 * instead of 1:1:0. The balancer now works on weights scaled to the largest one when their sum would
 * not be finite, so shares follow the weights whatever their magnitude.
 */
import { WeightedRoundRobin } from '../../../lib/d2/weighted-round-robin';

function shares(weights: readonly number[], picks: number): number[] {
  const wrr = new WeightedRoundRobin(weights.map((weight, item) => ({ item, weight })));
  const counts = weights.map(() => 0);
  for (let i = 0; i < picks; i++) {
    const item = wrr.next();
    if (item !== undefined) counts[item]!++;
  }
  return counts;
}

describe('WeightedRoundRobin with extreme weights', () => {
  it('splits two hosts of weight 1.7e308 evenly and gives a weight-1 host nothing to speak of', () => {
    const counts = shares([1.7e308, 1.7e308, 1], 10_000);
    expect(counts[0]).toBe(5000);
    expect(counts[1]).toBe(5000);
    expect(counts[2]).toBe(0);
  });

  it.each([
    [[Number.MAX_VALUE, Number.MAX_VALUE, Number.MAX_VALUE], [1000, 1000, 1000]],
    [[Number.MAX_VALUE, Number.MAX_VALUE / 2], [2000, 1000]],
    [[4_294_967_295, 4_294_967_295, 1], [1500, 1500, 0]],
    [[Number.MIN_VALUE, Number.MIN_VALUE], [1500, 1500]],
    [[1e-300, 3e-300], [750, 2250]],
  ])('keeps the shares of %j', (weights, expected) => {
    expect(shares(weights, 3000)).toEqual(expected);
  });

  it('reports a finite total weight whatever the weights', () => {
    const wrr = new WeightedRoundRobin([{ item: 'a', weight: 1.7e308 }, { item: 'b', weight: 1.7e308 }]);
    expect(Number.isFinite(wrr.totalWeight)).toBe(true);
    expect(wrr.size).toBe(2);
  });
});
