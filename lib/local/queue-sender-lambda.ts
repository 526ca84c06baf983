/**
 * The local stack's guard and drills functions alike: a bundled `failout-guard` or `failout-drills`
 * Lambda as `cdk deploy` ships it, in a process of its own, with the environment the CDK app gives it
 * (ZooKeeper, the D2 base, the request queue, the Powertools service) plus the local SQS endpoint and
 * credentials, metrics off.
 */
import type { Logger } from '../logging';
import { bundleFunction } from './function-bundle';
import { LambdaProcess } from './lambda-process';
import type { LocalSqs } from './sqs';

/** What {@link startQueueSenderLambda} needs besides the function's name. */
export interface QueueSenderLambdaOptions {
  readonly connectString: string;
  readonly sqs: LocalSqs;
  readonly logLevel: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR' | 'SILENT';
  readonly logger: Logger;
}

/**
 * Bundles `functions/<name>/handler.ts` and starts it. `env` follows the request queue's URL; `overrides`
 * (a test's own paths) win over everything.
 */
export async function startQueueSenderLambda(
  name: 'failout-guard' | 'failout-drills',
  options: QueueSenderLambdaOptions,
  env: Readonly<Record<string, string>> = {},
  overrides: Readonly<Record<string, string>> = {},
): Promise<LambdaProcess> {
  const bundle = await bundleFunction(name);
  return LambdaProcess.start({
    bundle: bundle.file,
    functionName: name,
    logger: options.logger,
    env: {
      ZK_CONNECT: options.connectString,
      D2_BASE_PATH: '/d2',
      FAILOUT_QUEUE_URL: options.sqs.queueUrl,
      ...env,
      POWERTOOLS_SERVICE_NAME: name,
      POWERTOOLS_METRICS_NAMESPACE: 'failout',
      POWERTOOLS_METRICS_DISABLED: 'true',
      POWERTOOLS_LOG_LEVEL: options.logLevel,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      AWS_ENDPOINT_URL_SQS: options.sqs.endpoint,
      ...overrides,
    },
  });
}
