/**
 * The local stack's stop conditions (issue 16): the `failout-guard` Lambda as `cdk deploy` ships it —
 * the esbuild bundle of `functions/failout-guard/handler.ts` in a process of its own, with the
 * environment the CDK app gives it (plus the local SQS endpoint) — and the alarm evaluator that emits
 * CloudWatch's alarm state change events into it, as the EventBridge rule does in AWS.
 */
import type { Logger } from '../logging';
import { AlarmEvaluator } from './alarm-evaluator';
import { bundleFunction } from './function-bundle';
import { LambdaProcess } from './lambda-process';
import type { LocalSqs } from './sqs';
import type { Sample } from './traffic';

/** What {@link startStopConditions} started. */
export interface LocalStopConditions {
  readonly guard: LambdaProcess;
  readonly alarms: AlarmEvaluator;
  /** Stops the evaluator, then the guard. */
  stop(): Promise<void>;
}

/** Options of {@link startStopConditions}. */
export interface LocalStopConditionsOptions {
  readonly connectString: string;
  readonly sqs: LocalSqs;
  /** The traffic generator's samples. */
  readonly samplesSince: (since: number) => readonly Sample[];
  readonly clusters: readonly string[];
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  readonly logger: Logger;
}

/** Starts the guard's process, then the evaluator (which needs it). On a failure stops what runs and rethrows. */
export async function startStopConditions(options: LocalStopConditionsOptions): Promise<LocalStopConditions> {
  const bundle = await bundleFunction('failout-guard');
  const guard = await LambdaProcess.start({
    bundle: bundle.file,
    functionName: 'failout-guard',
    logger: options.logger,
    env: {
      ZK_CONNECT: options.connectString,
      D2_BASE_PATH: '/d2',
      FAILOUT_QUEUE_URL: options.sqs.queueUrl,
      POWERTOOLS_SERVICE_NAME: 'failout-guard',
      POWERTOOLS_METRICS_NAMESPACE: 'failout',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: options.logLevel,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SQS: options.sqs.endpoint,
    },
  });
  try {
    const alarms = await AlarmEvaluator.start({ samplesSince: options.samplesSince, clusters: options.clusters, emit: (event) => guard.call(event), logger: options.logger });
    return {
      guard,
      alarms,
      stop: async () => {
        await alarms.stop();
        await guard.stop();
      },
    };
  } catch (err) {
    await guard.stop();
    throw err;
  }
}
