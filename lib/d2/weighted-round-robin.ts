/** One candidate of a {@link WeightedRoundRobin}: an item and its relative weight. */
export interface WeightedItem<T> {
  /** The candidate returned by `next()` (e.g. a host). */
  readonly item: T;
  /** Relative weight. Only finite weights above zero take part; 0, negative and NaN are skipped. */
  readonly weight: number;
}

/** Options for {@link WeightedRoundRobin}. */
export interface WeightedRoundRobinOptions {
  /**
   * Source of randomness for the starting point, in [0, 1). Without it every instance starts at the
   * same place, so many clients that rebuild at the same moment all pick the same first host; D2Client
   * passes `Math.random` to spread them. Tests leave it out for a deterministic sequence.
   */
  readonly random?: () => number;
}

/**
 * Smooth weighted round robin (nginx's `ngx_http_upstream_get_peer`): every pick adds each weight to
 * its running score, picks the highest score and subtracts the total from it. Over any `Σweights`
 * consecutive picks with integer weights, each item is picked exactly `weight` times, and the picks of
 * a heavy item are spread out instead of bunched (weights 5,1,1 give a a b a c a a, not a a a a a b c).
 *
 * Pure and synchronous; `next()` is O(n) with no allocation. Immutable candidates: when the set or
 * a weight changes, build a new instance (that is how D2Client reacts to a new URI snapshot).
 *
 * Concurrency: `scores` changes only inside `next()`, which runs to completion on the event loop.
 */
export class WeightedRoundRobin<T> {
  private readonly items: readonly T[];
  private readonly weights: Float64Array;
  private readonly scores: Float64Array;
  private readonly total: number;

  constructor(candidates: Iterable<WeightedItem<T>>, options: WeightedRoundRobinOptions = {}) {
    const items: T[] = [];
    const weights: number[] = [];
    for (const candidate of candidates) {
      // `> 0` is false for NaN too: a host announced with weight 0 is drained, not picked.
      if (!(candidate.weight > 0) || !Number.isFinite(candidate.weight)) continue;
      items.push(candidate.item);
      weights.push(candidate.weight);
    }
    this.items = items;
    this.weights = Float64Array.from(scaled(weights));
    this.scores = new Float64Array(items.length);
    this.total = this.weights.reduce((sum, w) => sum + w, 0);
    const random = options.random;
    if (random) {
      // A random start keeps the long-run shares: an item's pick count after k picks is
      // (k·w + start − score_k) / Σw, and scores stay bounded whatever they start at.
      for (let i = 0; i < this.scores.length; i++) this.scores[i] = random() * this.total;
    }
  }

  /** Number of candidates that can be picked (weight above zero). */
  get size(): number {
    return this.items.length;
  }

  /**
   * Sum of the weights of the candidates that can be picked, in the units `next()` works in: the
   * weights as given, or scaled to the largest one when their sum would not be finite. Always finite.
   */
  get totalWeight(): number {
    return this.total;
  }

  /** The candidates that can be picked, in input order. */
  candidates(): readonly T[] {
    return this.items;
  }

  /** The next item, or undefined when no candidate has a weight above zero. */
  next(): T | undefined {
    const n = this.items.length;
    if (n === 0) return undefined;
    if (n === 1) return this.items[0];
    const scores = this.scores;
    const weights = this.weights;
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < n; i++) {
      const score = scores[i]! + weights[i]!;
      scores[i] = score;
      // Strict `>`: ties go to the earlier item, which keeps the sequence deterministic.
      if (score > bestScore) {
        bestScore = score;
        best = i;
      }
    }
    scores[best] = bestScore - this.total;
    return this.items[best];
  }
}

/**
 * The weights as given, or divided by the largest when their sum is not finite (issue 14: two hosts
 * of weight 1.7e308 made the total Infinity, every score Infinity or NaN, and the split 39:1). Scaling
 * keeps every ratio, and with the largest weight 1 the sum is at most the number of candidates. A
 * weight tiny next to the largest may become 0 (a share below 2^-1074 of the traffic, i.e. none).
 */
function scaled(weights: readonly number[]): readonly number[] {
  const total = weights.reduce((sum, w) => sum + w, 0);
  if (Number.isFinite(total)) return weights;
  const max = Math.max(...weights);
  return weights.map((w) => w / max);
}
