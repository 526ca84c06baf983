import { processPartialResponse, SqsFifoPartialProcessorAsync } from '@aws-lambda-powertools/batch';
import type { Logger } from '@aws-lambda-powertools/logger';
import { MetricUnit, type Metrics } from '@aws-lambda-powertools/metrics';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { powertoolsHandler } from '../../lambda';
import { assertIsError, TransientRequestError } from '../errors';
import type { Outcome, RequestWriter } from '../request-writer';

/** What the handler needs of a writer: `process`, and `sweepIfDue` when it prunes old records. */
export type RequestProcessor = Pick<RequestWriter, 'process'> & Partial<Pick<RequestWriter, 'sweepIfDue'>>;

/** The handler's dependencies: the Powertools instances and the writer. */
export interface HandlerDeps {
  /** The writer, or a function giving it (called per record; the Lambda's caches its writer across invocations). */
  readonly writer: RequestProcessor | (() => RequestProcessor | Promise<RequestProcessor>);
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Epoch ms, for latencies. Default `Date.now`. */
  readonly clock?: () => number;
}

/** The Lambda handler as middy builds it: `(event, context) => Promise<SQSBatchResponse>`. */
export type FailoutRequestsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse>;

/**
 * The `failout-requests` Lambda handler: Powertools' FIFO batch processor with `skipGroupOnError`
 * (a failed record fails the rest of ITS message group only; other clusters proceed), partial batch
 * responses, Logger and Metrics middleware.
 *
 * The Powertools `parser` integration is deliberately not used: it marks a record that fails the schema
 * as failed, so SQS would retry it and move it to the DLQ; a bad request must instead be recorded and
 * acknowledged at once (never blocking its cluster's group), which the writer does.
 *
 * After the batch, the writer prunes request records past their retention (`sweepIfDue`, at most
 * hourly): only a writer this batch already had (a failed cold start is not retried for it), and a
 * failed sweep is logged, never a batch item failure.
 */
export function createHandler(deps: HandlerDeps): FailoutRequestsHandler {
  const processor = new SqsFifoPartialProcessorAsync();
  const writerOf = resolverOf(deps.writer);
  // The writer a record of the current batch got; one batch at a time per handler (see Powertools).
  let batchWriter: RequestProcessor | undefined;
  const recordHandler = createRecordHandler({ ...deps, writer: async () => (batchWriter = await writerOf()) });
  return powertoolsHandler(async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    batchWriter = undefined;
    const response = await processPartialResponse(event, recordHandler, processor, { context, skipGroupOnError: true, throwOnFullBatchFailure: false });
    await sweepQuietly(batchWriter, deps.logger);
    return response;
  }, deps);
}

/**
 * Processes one record: resolves when it may be acknowledged (applied, rejected, duplicate), throws
 * when it must be retried. Logs one line per record with request id, cluster and outcome, and counts it;
 * a duplicate whose first record cannot be read is a warning and counted `UnreadableRecord` too.
 */
export function createRecordHandler(deps: HandlerDeps): (record: SQSRecord) => Promise<Outcome> {
  const { logger, metrics } = deps;
  const clock = deps.clock ?? Date.now;
  const writerOf = resolverOf(deps.writer);
  return async (record) => {
    const started = clock();
    const keys = ['messageId', 'messageGroupId', 'requestId', 'cluster', 'outcome', 'reason'];
    logger.appendKeys({ messageId: record.messageId, messageGroupId: record.attributes?.MessageGroupId });
    try {
      const writer = await writerOf();
      const outcome = await writer.process(record.body, { messageId: record.messageId });
      logger.appendKeys({ requestId: outcome.requestId, cluster: outcome.cluster, outcome: outcome.status, reason: outcome.reason });
      countOutcome(metrics, outcome, clock() - started, queueLatency(record, clock()));
      logOutcome(logger, outcome);
      return outcome;
    } catch (e) {
      assertIsError(e);
      const transient = e instanceof TransientRequestError;
      logger.appendKeys({ outcome: transient ? 'transientFailure' : 'failure' });
      metrics.addMetric(transient ? 'TransientFailure' : 'Failure', MetricUnit.Count, 1);
      logger.warn('request not processed; SQS will deliver it again', { error: e });
      throw e;
    } finally {
      logger.removeKeys(keys);
    }
  };
}

function resolverOf(writer: HandlerDeps['writer']): () => RequestProcessor | Promise<RequestProcessor> {
  return typeof writer === 'function' ? writer : () => writer;
}

/**
 * Runs the writer's record sweep (which logs its own figures), logging, never throwing, what goes
 * wrong: the records wait for the next sweep.
 */
async function sweepQuietly(writer: RequestProcessor | undefined, logger: Logger): Promise<void> {
  try {
    await writer?.sweepIfDue?.();
  } catch (e) {
    assertIsError(e);
    logger.warn('request record sweep failed; a later batch sweeps again', { error: e });
  }
}

function countOutcome(metrics: Metrics, outcome: Outcome, latencyMs: number, queueMs: number | undefined): void {
  if (outcome.status === 'applied') metrics.addMetric('Applied', MetricUnit.Count, 1);
  // Applied without checking the alarms it names (the alarm source could not be read): alarm on it.
  if (outcome.status === 'applied' && outcome.record.alarmsUnchecked === true) metrics.addMetric('AlarmsUnchecked', MetricUnit.Count, 1);
  // A restore that removed a failout another tool wrote unreadable: find out who wrote it.
  if (outcome.status === 'applied' && outcome.record.unreadableFailout !== undefined) metrics.addMetric('UnreadableFailoutRemoved', MetricUnit.Count, 1);
  if (outcome.status === 'duplicate') metrics.addMetric('Duplicate', MetricUnit.Count, 1);
  // Acknowledged although the first delivery's record cannot be read (someone wrote that node): alarm on it.
  if (outcome.unreadableRecord !== undefined) metrics.addMetric('UnreadableRecord', MetricUnit.Count, 1);
  if (outcome.status === 'rejected') {
    metrics.addMetric('Rejected', MetricUnit.Count, 1);
    metrics
      .singleMetric()
      .addDimension('reason', outcome.reason ?? 'unknown')
      .addMetric('Rejected', MetricUnit.Count, 1);
  }
  metrics.addMetric('ApplyLatency', MetricUnit.Milliseconds, latencyMs);
  if (queueMs !== undefined) metrics.addMetric('QueueLatency', MetricUnit.Milliseconds, queueMs);
}

function logOutcome(logger: Logger, outcome: Outcome): void {
  if (outcome.status === 'rejected') {
    logger.warn('request rejected', { problems: outcome.record.message, attempts: outcome.attempts });
  } else if (outcome.status === 'applied' && outcome.record.unreadableFailout !== undefined) {
    logger.warn("restore applied: it removed the cluster's unreadable failoutProperties (written by another tool)", {
      unreadableFailout: outcome.record.unreadableFailout,
      attempts: outcome.attempts,
      clusterVersion: outcome.record.clusterVersion,
    });
  } else if (outcome.unreadableRecord !== undefined) {
    logger.warn("duplicate request acknowledged; the first delivery's record cannot be read", { unreadableRecord: outcome.unreadableRecord, attempts: outcome.attempts });
  } else {
    logger.info(outcome.status === 'applied' ? 'request applied' : 'duplicate request acknowledged', {
      attempts: outcome.attempts,
      clusterVersion: outcome.record.clusterVersion,
      ...(outcome.record.alarmsUnchecked === true ? { alarmsUnchecked: true } : {}),
    });
  }
}

/** Time from SendMessage to now, when SQS said when the message was sent. */
function queueLatency(record: SQSRecord, now: number): number | undefined {
  const sent = Number(record.attributes?.SentTimestamp);
  return Number.isFinite(sent) && sent > 0 ? Math.max(0, now - sent) : undefined;
}
