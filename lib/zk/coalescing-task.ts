/** What a {@link CoalescingTask} runs: one pass, and whether another one is still wanted. */
export interface CoalescedPass {
  /** One pass; its rejection is handled by the pass itself (it should not throw). */
  pass(): Promise<void>;
  /** Checked before each pass (false once the owner closed). */
  passWanted(): boolean;
}

/**
 * Runs an async pass one at a time; a `run()` that arrives while it runs makes it run once more
 * afterwards instead of in parallel (any number of such calls coalesce into one re-run). Persistent
 * watches and the leader election re-read this way, so results arrive in order and never pile up.
 * The owner is usually the object itself (a persistent watch is its own pass: no closures per watch).
 *
 * Concurrency: `running` and `dirty` change only inside `run`, on the event loop.
 */
export class CoalescingTask {
  private running = false;
  private dirty = false;

  constructor(private readonly owner: CoalescedPass) {}

  /** Asks for one more pass after the current one; resolves when the passes this call caused are done. */
  async run(): Promise<void> {
    if (!this.owner.passWanted()) return;
    if (this.running) {
      this.dirty = true;
      return;
    }
    this.running = true;
    try {
      do {
        this.dirty = false;
        await this.owner.pass();
      } while (this.dirty && this.owner.passWanted());
    } finally {
      this.running = false;
    }
  }

  /** Marks that another pass is needed once the current one ends (for a pass that finds itself stale). */
  requestRerun(): void {
    this.dirty = true;
  }
}
