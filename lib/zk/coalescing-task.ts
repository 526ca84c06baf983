/**
 * Runs an async task one at a time; a `run()` that arrives while it runs makes it run once more
 * afterwards instead of in parallel (any number of such calls coalesce into one re-run). Persistent
 * watches and the leader election re-read this way, so results arrive in order and never pile up.
 *
 * Concurrency: `running` and `dirty` change only inside `run`, on the event loop.
 */
export class CoalescingTask {
  private running = false;
  private dirty = false;

  /**
   * @param task one pass; its rejection is handled by the caller's task itself (it should not throw)
   * @param shouldContinue checked before each re-run (false once the owner closed)
   */
  constructor(
    private readonly task: () => Promise<void>,
    private readonly shouldContinue: () => boolean,
  ) {}

  /** Asks for one more pass after the current one; resolves when the passes this call caused are done. */
  async run(): Promise<void> {
    if (!this.shouldContinue()) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.dirty = false;
        await this.task();
      } while (this.dirty && this.shouldContinue());
    } finally {
      this.running = false;
    }
  }

  /** Marks that another pass is needed once the current one ends (for a task that finds itself stale). */
  requestRerun(): void {
    this.dirty = true;
  }
}
