import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { powertoolsHandler } from '../../lambda';
import type { DrillRunner, DrillTickResult } from '../drill-runner';

/** The drills handler's dependencies: the Powertools instances and the runner (made on the first tick). */
export interface DrillsHandlerDeps {
  /** The runner, or a function giving it (the Lambda's caches one per container). */
  readonly runner: DrillRunner | (() => Promise<DrillRunner>);
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/** What the handler returns (EventBridge ignores it; the local stack, the tests and `aws lambda invoke` read it). */
export interface DrillsResponse {
  /** `tick` for a scheduled event, `runNow` for `{"runNow": "<name>"}`. */
  readonly mode: 'tick' | 'runNow';
  readonly results: readonly DrillTickResult[];
}

/** The Lambda handler as middy builds it. */
export type FailoutDrillsHandler = (event: unknown, context: Context) => Promise<DrillsResponse>;

/** `{"runNow": "<name>"}` names a drill to run now; anything else (an EventBridge scheduled event, a Scheduler input) is a tick. */
function runNowOf(event: unknown): string | undefined {
  if (typeof event !== 'object' || event === null) return undefined;
  const name = (event as { runNow?: unknown }).runNow;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * The `failout-drills` Lambda handler: a tick (EventBridge schedule) runs every due drill, and
 * `{"runNow": "<name>"}` runs one now (lib/safety `DrillRunner`), with Powertools Logger and Metrics
 * middleware. A drill that cannot be judged this tick is counted (`DrillErrors`) and logged, and the
 * next tick tries again (its run id is the same, so it still starts at most once); a ZooKeeper failure
 * throws, so the invocation fails and is retried.
 */
export function createDrillsHandler(deps: DrillsHandlerDeps): FailoutDrillsHandler {
  const runner = typeof deps.runner === 'function' ? deps.runner : ((r: DrillRunner) => async () => r)(deps.runner);
  return powertoolsHandler(async (event: unknown): Promise<DrillsResponse> => {
    const name = runNowOf(event);
    const results = name === undefined ? await (await runner()).tick() : [await (await runner()).runNow(name)];
    for (const [outcome, metric] of [
      ['started', 'RunsStarted'],
      ['skipped', 'RunsSkipped'],
      // A running run whose alarm the tick found in ALARM (the runner sent its stop and verdict).
      ['stopped', 'RunsStopped'],
      ['error', 'DrillErrors'],
    ] as const) {
      deps.metrics.addMetric(metric, MetricUnit.Count, results.filter((r) => r.outcome === outcome).length);
    }
    for (const r of results.filter((x) => x.outcome === 'error')) deps.logger.error('drill not judged; the next tick tries again', { drill: r.drill, error: r.outcome === 'error' ? r.error : undefined });
    return { mode: name === undefined ? 'tick' : 'runNow', results };
  }, deps);
}
