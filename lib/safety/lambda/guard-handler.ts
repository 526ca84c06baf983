import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { powertoolsHandler } from '../../lambda';
import type { GuardCounter, GuardResult, StopGuard } from '../stop-guard';
import { handleAlarmEvent } from '../stop-guard';

/** The guard handler's dependencies: the Powertools instances and the guard (made on the first ALARM). */
export interface GuardHandlerDeps {
  /** The guard, or a function giving it (the Lambda's caches one per container). */
  readonly guard: StopGuard | (() => Promise<StopGuard>);
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * What the handler returns (EventBridge ignores it; the local stack, the tests and a manual `aws lambda
 * invoke` read it): the outcome, and for a malformed event the error's message.
 */
export type GuardResponse =
  | { readonly outcome: 'malformed'; readonly error: string }
  | { readonly outcome: 'ignored'; readonly alarmName: string; readonly state: string }
  | {
      readonly outcome: 'handled';
      readonly alarmName: string;
      readonly clusters: number;
      readonly restores: readonly { readonly cluster: string; readonly requestId: string }[];
      readonly unreadable: readonly string[];
    };

/** The Lambda handler as middy builds it. */
export type FailoutGuardHandler = (event: unknown, context: Context) => Promise<GuardResponse>;

/**
 * The `failout-guard` Lambda handler: an EventBridge "CloudWatch Alarm State Change" event → restore
 * requests (lib/safety `handleAlarmEvent`), with Powertools Logger and Metrics middleware. A malformed
 * event resolves (logged at error, counted `MalformedEvents`): a retry would not read it better. A
 * failure to read ZooKeeper or to send a restore throws, so the asynchronous invocation is retried
 * and finally goes to the rule's DLQ; a retry sends the same request ids.
 */
export function createGuardHandler(deps: GuardHandlerDeps): FailoutGuardHandler {
  const guard = typeof deps.guard === 'function' ? deps.guard : ((g: StopGuard) => async () => g)(deps.guard);
  const count = (counter: GuardCounter, value: number): void => void deps.metrics.addMetric(counter, MetricUnit.Count, value);
  return powertoolsHandler(async (event: unknown): Promise<GuardResponse> => responseOf(await handleAlarmEvent(event, { guard, logger: deps.logger, count })), deps);
}

function responseOf(result: GuardResult): GuardResponse {
  switch (result.outcome) {
    case 'malformed':
      return { outcome: 'malformed', error: result.error.message };
    case 'ignored':
      return result;
    case 'handled':
      return {
        outcome: 'handled',
        alarmName: result.alarmName,
        clusters: result.clusters,
        restores: result.restores.map((r) => ({ cluster: r.cluster, requestId: r.requestId })),
        unreadable: result.unreadable.map((u) => u.cluster),
      };
  }
}
