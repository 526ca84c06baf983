/**
 * The local stack's drills (issue 16): the `failout-drills` Lambda as `cdk deploy` ships it — the
 * esbuild bundle of `functions/failout-drills/handler.ts` in a process of its own, with the environment
 * the CDK app gives it plus the local SQS endpoint and the alarm evaluator's URL (where CloudWatch's
 * DescribeAlarms answers in AWS) — and a timer that sends it EventBridge's scheduled event, as the
 * every-minute rule does in AWS (here every 10 s, so a drill due this minute starts within seconds).
 */
import type { DrillsResponse } from '../safety/lambda';
import type { LambdaProcess } from './lambda-process';
import { startQueueSenderLambda, type QueueSenderLambdaOptions } from './queue-sender-lambda';

/** Default tick of the local drill timer. */
export const LOCAL_DRILL_TICK_MS = 10_000;

/** What {@link startLocalDrills} started. */
export interface LocalDrills {
  readonly lambda: LambdaProcess;
  /** One tick now (what the timer does); resolves to what the function returned. */
  tick(): Promise<DrillsResponse>;
  /** `{"runNow": name}`: the drill now, with the runner's checks. */
  runNow(name: string): Promise<DrillsResponse>;
  /** Stops the timer (waiting for a tick in flight), then the function. */
  close(): Promise<void>;
}

/** Options of {@link startLocalDrills}. */
export interface LocalDrillsOptions extends QueueSenderLambdaOptions {
  /** The alarm evaluator's `GET` URL (`FAILOUT_ALARMS_URL`). */
  readonly alarmsUrl: string;
  /** Default {@link LOCAL_DRILL_TICK_MS}; 0: no timer (a test ticks by hand). */
  readonly tickMs?: number;
  /** Extra environment of the function (a test's own `D2_BASE_PATH`, `FAILOUT_DRILLS_PATH`, …); wins over the defaults. */
  readonly env?: Readonly<Record<string, string>>;
}

/** The event EventBridge sends a scheduled rule's target. */
function scheduledEvent(now: number): Record<string, unknown> {
  return { version: '0', id: `local-${now}`, 'detail-type': 'Scheduled Event', source: 'aws.events', account: '000000000000', time: new Date(now).toISOString(), region: 'us-east-1', resources: [], detail: {} };
}

/** Starts the drills function's process and its timer. */
export async function startLocalDrills(options: LocalDrillsOptions): Promise<LocalDrills> {
  const lambda = await startQueueSenderLambda('failout-drills', options, { FAILOUT_ALARMS_URL: options.alarmsUrl }, options.env);
  const tick = async (): Promise<DrillsResponse> => (await lambda.call(scheduledEvent(Date.now()))) as DrillsResponse;
  let inFlight: Promise<unknown> = Promise.resolve();
  const tickMs = options.tickMs ?? LOCAL_DRILL_TICK_MS;
  const timer =
    tickMs > 0
      ? setInterval(() => {
          // One tick at a time; a failed tick is logged and the next one tries again (as EventBridge's next minute).
          inFlight = inFlight.then(() => tick().catch((err: unknown) => options.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'drill tick failed')));
        }, tickMs)
      : undefined;
  timer?.unref();
  return {
    lambda,
    tick,
    runNow: async (name) => (await lambda.call({ runNow: name })) as DrillsResponse,
    close: async () => {
      if (timer !== undefined) clearInterval(timer);
      await inFlight;
      await lambda.close();
    },
  };
}
