import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSRecord } from 'aws-lambda';
import { RequestWriter } from '../../lib/requests';
import { type Outcome, type RequestWriterOptions } from '../../lib/requests/request-writer';
import { createHandler, type FailoutRequestsHandler } from '../../lib/requests/lambda';
import { OPEN_ACL } from '../../lib/zk';
import type { TestPaths } from './requests-queue';

/**
 * The REAL `failout-requests` handler (createHandler over a RequestWriter on a real ZooKeeper session),
 * invoked directly with SQS events, the way Lambda's event source mapping would: no queue in between,
 * so a test can send thousands of records in seconds and see each batch's response.
 */

process.env.POWERTOOLS_METRICS_DISABLED = 'true';

const CONTEXT = {
  functionName: 'failout-requests',
  functionVersion: '1',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:000000000000:function:failout-requests',
  memoryLimitInMB: '256',
  awsRequestId: 'test-invocation',
  getRemainingTimeInMillis: () => 30_000,
} as unknown as Context;

/** A handler with its writer, and every outcome the writer returned. */
export interface DirectHandler {
  readonly writer: RequestWriter;
  readonly outcomes: Outcome[];
  /** The handler itself (what a poller drives; one batch at a time per handler). */
  readonly handler: FailoutRequestsHandler;
  /** Invokes the handler with one batch. */
  invoke(records: readonly SQSRecord[]): Promise<SQSBatchResponse>;
}

export function directHandler(session: RequestWriterOptions['session'], paths: TestPaths, options: Partial<RequestWriterOptions> = {}): DirectHandler {
  // An unconstrained writer: these tests are about input, not access (the ACL tests are elsewhere).
  const writer = new RequestWriter({ session, d2BasePath: paths.d2Base, requestsPath: paths.requestsPath, recordAcl: OPEN_ACL, ...options });
  const outcomes: Outcome[] = [];
  const handler = createHandler({
    writer: {
      process: async (body, meta) => {
        const outcome = await writer.process(body, meta);
        outcomes.push(outcome);
        return outcome;
      },
      sweepIfDue: () => writer.sweepIfDue(),
    },
    logger: new Logger({ serviceName: 'failout-requests-test', logLevel: 'SILENT' }),
    metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-requests-test' }),
  });
  return { writer, outcomes, handler, invoke: (records) => handler({ Records: [...records] }, CONTEXT) };
}
