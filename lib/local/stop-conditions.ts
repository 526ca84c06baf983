/**
 * The local stack's stop conditions (issue 16): the `failout-guard` Lambda as `cdk deploy` ships it —
 * the esbuild bundle of `functions/failout-guard/handler.ts` in a process of its own, with the
 * environment the CDK app gives it (plus the local SQS endpoint) — and the alarm evaluator that emits
 * CloudWatch's alarm state change events into it, as the EventBridge rule does in AWS.
 */
import { AlarmEvaluator } from './alarm-evaluator';
import type { LambdaProcess } from './lambda-process';
import { startQueueSenderLambda, type QueueSenderLambdaOptions } from './queue-sender-lambda';
import type { Sample } from './traffic';
import type { PortReservation } from './net';

/** What {@link startStopConditions} started. */
export interface LocalStopConditions {
  readonly guard: LambdaProcess;
  readonly alarms: AlarmEvaluator;
  /** Stops the evaluator, then the guard. */
  close(): Promise<void>;
}

/** Options of {@link startStopConditions}. */
export interface LocalStopConditionsOptions extends QueueSenderLambdaOptions {
  /** The traffic generator's samples. */
  readonly samplesSince: (since: number) => readonly Sample[];
  readonly clusters: readonly string[];
  /** The evaluator's port, held until it binds (`FAILOUT_ALARMS_URL` given to the request worker before it started). Default: a free one. */
  readonly alarmsPort?: PortReservation;
}

/** Starts the guard's process, then the evaluator (which needs it). On a failure stops what runs and rethrows. */
export async function startStopConditions(options: LocalStopConditionsOptions): Promise<LocalStopConditions> {
  const guard = await startQueueSenderLambda('failout-guard', options);
  try {
    const alarms = await AlarmEvaluator.start({ samplesSince: options.samplesSince, clusters: options.clusters, emit: (event) => guard.call(event), logger: options.logger, port: options.alarmsPort });
    return {
      guard,
      alarms,
      close: async () => {
        await alarms.close();
        await guard.close();
      },
    };
  } catch (err) {
    await guard.close();
    throw err;
  }
}
