/**
 * The rate half of the write budget: a token bucket refilled at `ratePerSecond`, holding at most one
 * second of burst. A request for more tokens than the bucket holds waits for the deficit, so a large
 * batch is paced rather than refused.
 *
 * Concurrency: one caller at a time (the sync's serial pass); `tokens` and `updatedAt` change only in `take`.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  constructor(
    private readonly ratePerSecond: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = ratePerSecond;
    this.updatedAt = now();
  }

  /** Takes `count` tokens, waiting as long as the rate requires. */
  async take(count: number): Promise<void> {
    this.refill();
    if (this.tokens < count) {
      const waitMs = ((count - this.tokens) / this.ratePerSecond) * 1000;
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
      this.refill();
    }
    this.tokens = Math.max(0, this.tokens - count);
  }

  private refill(): void {
    const now = this.now();
    this.tokens = Math.min(this.ratePerSecond, this.tokens + ((now - this.updatedAt) / 1000) * this.ratePerSecond);
    this.updatedAt = now;
  }
}
