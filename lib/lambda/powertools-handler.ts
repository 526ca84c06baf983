import type { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Metrics } from '@aws-lambda-powertools/metrics';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context } from 'aws-lambda';
import { middy } from './middy';

/** A Lambda handler as the runtime calls it. */
export type LambdaHandler<TEvent, TResult> = (event: TEvent, context: Context) => Promise<TResult>;

/** The Powertools instances a handler logs and counts with (configured once per function, `#powertools/*`). */
export interface LambdaPowertools {
  readonly logger: Logger;
  readonly metrics: Metrics;
}

/**
 * `run` as every failout Lambda runs it: a middy chain with Powertools' Logger middleware (the Lambda
 * context on every line, keys appended during an invocation reset after it) and Metrics middleware
 * (metrics flushed after each invocation, the cold start counted). One chain, so the functions cannot
 * drift in what they log and count.
 */
export function powertoolsHandler<TEvent, TResult>(run: LambdaHandler<TEvent, TResult>, powertools: LambdaPowertools): LambdaHandler<TEvent, TResult> {
  const handler = middy(run)
    .use(injectLambdaContext(powertools.logger, { resetKeys: true }))
    .use(logMetrics(powertools.metrics, { captureColdStartMetric: true }));
  return (event, context) => handler(event, context);
}
