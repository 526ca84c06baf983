import { TransientRequestError } from './errors';
import type { RequestLogger } from './logger';
import type { Attempt, Outcome } from './request-outcome';

/** How hard the writer tries when other writers change the cluster between its read and its write. */
export interface RetryBudget {
  /**
   * Attempts lost to changes of the cluster (or its drill) before giving up, the first included.
   * Default 10. Losing to a writer of another cluster on the view of open failouts counts only
   * against {@link maxElapsedMs}: that writer made progress, and the two take turns.
   */
  readonly maxAttempts: number;
  /** Time from the first attempt after which no new attempt starts. Default 5 s. */
  readonly maxElapsedMs: number;
  /** Backoff cap of the first retry; doubles per retry ("full jitter": uniform in [0, cap]). Default 10 ms. */
  readonly baseDelayMs: number;
  /** Largest backoff cap. Default 250 ms. */
  readonly maxDelayMs: number;
}

/** Defaults of {@link RetryBudget}. */
export const DEFAULT_RETRY_BUDGET: RetryBudget = Object.freeze({ maxAttempts: 10, maxElapsedMs: 5000, baseDelayMs: 10, maxDelayMs: 250 });

/** What {@link retryOnConflict} needs of the writer. Fixed after the writer's construction. */
export interface RetryContext {
  readonly budget: RetryBudget;
  readonly log: RequestLogger;
  /** Epoch ms. */
  readonly clock: () => number;
  /** In [0, 1). */
  readonly random: () => number;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * Runs `step` until it is not a `conflict` (or `viewConflict`), within the retry budget, with
 * jittered backoff.
 *
 * @throws TransientRequestError `retryBudgetSpent` when the budget is spent.
 */
export async function retryOnConflict(context: RetryContext, request: { requestId: string; cluster: string }, step: () => Promise<Attempt>): Promise<Outcome> {
  const { budget, log } = context;
  const started = context.clock();
  let conflicts = 0;
  for (let attempt = 1; ; attempt++) {
    const result = await step();
    if (result !== 'conflict' && result !== 'viewConflict') return { ...result, attempts: attempt };
    // A view conflict means another cluster's writer made progress (ZooKeeper applied its multi): the
    // writers of related clusters take turns. Only time bounds those, with a short jitter, so a burst
    // of requests to one peer is not turned into retries past the budget and SQS redeliveries.
    if (result === 'conflict') conflicts++;
    const elapsed = context.clock() - started;
    if (conflicts >= budget.maxAttempts || elapsed >= budget.maxElapsedMs) {
      log.warn('retry budget spent on version conflicts', { requestId: request.requestId, cluster: request.cluster, attempts: attempt, elapsedMs: elapsed });
      throw new TransientRequestError('retryBudgetSpent', `cluster ${request.cluster} kept changing: ${attempt} attempts in ${elapsed} ms`, {
        requestId: request.requestId,
        cluster: request.cluster,
      });
    }
    const cap = result === 'viewConflict' ? budget.baseDelayMs : Math.min(budget.maxDelayMs, budget.baseDelayMs * 2 ** (conflicts - 1));
    log.debug('version conflict; retrying', { requestId: request.requestId, cluster: request.cluster, attempt, on: result === 'viewConflict' ? 'view' : 'cluster' });
    await context.sleep(Math.floor(context.random() * cap));
  }
}
