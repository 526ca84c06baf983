import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { createLogger, type Logger } from '../logging';
import { failedMessageIds, fakeLambdaContext, queueArnFromUrl, toSqsRecord } from './sqs-records';
import type { Lifecycle } from '../lifecycle';

/** Any SQS Lambda handler: the shape middy and plain async handlers both have. */
export type SqsHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | void>;

/** Options for {@link SqsPoller}. */
export interface SqsPollerOptions {
  /** Client for the queue's endpoint. The poller never destroys it. */
  client: SQSClient;
  queueUrl: string;
  handler: SqsHandler;
  /** Messages per ReceiveMessage and per invocation, 1–10 (the event source mapping's `batchSize`). Default 10. */
  batchSize?: number;
  /**
   * Long-poll wait per ReceiveMessage in seconds, 0–20. Default 1: `close()` waits for the receive in
   * flight (aborting it would hide the messages it took until their visibility timeout), so a short
   * wait keeps closing quick. Lambda itself polls with 20.
   */
  waitTimeSeconds?: number;
  /** Region on every record. Default `us-east-1`. */
  region?: string;
  /** `eventSourceARN` on every record. Default: derived from the queue URL. */
  queueArn?: string;
  /** Name in the fake Lambda context. */
  functionName?: string;
  /** Invocation budget shown by `context.getRemainingTimeInMillis()`. Default 30 s. */
  invocationTimeoutMs?: number;
  logger?: Logger;
}

/** Counters since start. */
export interface SqsPollerStats {
  /** Handler invocations. */
  batches: number;
  /** Records handed to the handler. */
  records: number;
  /** Records left for redelivery: reported in `batchItemFailures`, or the whole batch when the handler threw. */
  failures: number;
  /** Records deleted from the queue. */
  deleted: number;
  /** Invocations that threw (each failed its whole batch). */
  handlerErrors: number;
  /** ReceiveMessage or DeleteMessageBatch calls that failed. */
  sqsErrors: number;
}

/** Backoff after a failed ReceiveMessage: doubles from 100 ms up to 2 s. */
const RECEIVE_BACKOFF = { initialMs: 100, maxMs: 2000 } as const;

/**
 * Drives an SQS Lambda handler from a real queue the way Lambda's event source mapping does:
 * long-poll ReceiveMessage (all system and message attributes) → `SQSRecord`s → the handler with a fake
 * context → DeleteMessageBatch of every record not in `batchItemFailures`. Failed records are left
 * alone: they come back after the visibility timeout and, after `maxReceiveCount`, the queue's redrive
 * policy moves them to the DLQ. A handler that throws fails its whole batch.
 *
 * One poller processes one batch at a time; run several for concurrency (Lambda scales the same way).
 * Give each poller its own handler instance, as each Lambda execution environment has its own: Lambda
 * never runs one instance on two batches at once, and handlers rely on that (Powertools' batch
 * processors keep the invocation's records in the instance; shared across concurrent batches, one
 * batch's failures are reported for the other and messages are deleted unprocessed).
 *
 * Concurrency: `lifecycle` changes only in `start`/`close`; the loop is the only writer of `counters`.
 */
export class SqsPoller {
  /** `idle` → `running` → `closing` → `closed` (each step once). */
  private lifecycleValue: Lifecycle = 'idle';
  private loop: Promise<void> | undefined;
  private wakeBackoff: (() => void) | undefined;
  private readonly counters: SqsPollerStats = { batches: 0, records: 0, failures: 0, deleted: 0, handlerErrors: 0, sqsErrors: 0 };
  private readonly batchSize: number;
  private readonly waitTimeSeconds: number;
  private readonly region: string;
  private readonly queueArn: string;
  private readonly log: Logger;

  constructor(private readonly options: SqsPollerOptions) {
    this.batchSize = options.batchSize ?? 10;
    this.waitTimeSeconds = options.waitTimeSeconds ?? 1;
    if (!Number.isInteger(this.batchSize) || this.batchSize < 1 || this.batchSize > 10) throw new Error(`batchSize must be an integer from 1 to 10, got ${this.batchSize}`);
    if (!Number.isInteger(this.waitTimeSeconds) || this.waitTimeSeconds < 0 || this.waitTimeSeconds > 20) {
      throw new Error(`waitTimeSeconds must be an integer from 0 to 20, got ${this.waitTimeSeconds}`);
    }
    this.region = options.region ?? 'us-east-1';
    this.queueArn = options.queueArn ?? queueArnFromUrl(options.queueUrl, this.region);
    this.log = options.logger ?? createLogger('sqs-poller');
  }

  /** Where the poller is: `idle` before {@link start}, `running`, `closing` while the last receive finishes, `closed`. */
  get lifecycle(): Lifecycle {
    return this.lifecycleValue;
  }

  /** A copy of the counters. */
  stats(): SqsPollerStats {
    return { ...this.counters };
  }

  /** Starts polling. Throws when called twice. */
  start(): void {
    if (this.lifecycleValue !== 'idle') throw new Error(`poller cannot start: it is ${this.lifecycleValue}`);
    this.lifecycleValue = 'running';
    this.loop = this.run();
  }

  /**
   * Stops after the receive in flight (at most `waitTimeSeconds`) and the batch it returns: every
   * received message is handled and acknowledged, none is left invisible. Safe to call twice.
   */
  async close(): Promise<void> {
    if (this.lifecycleValue === 'idle') {
      this.lifecycleValue = 'closed';
      return;
    }
    if (this.lifecycleValue === 'running') this.lifecycleValue = 'closing';
    this.wakeBackoff?.();
    await this.loop;
    this.lifecycleValue = 'closed';
  }

  private async run(): Promise<void> {
    let backoffMs = 0;
    while (this.lifecycleValue === 'running') {
      let messages: Message[];
      try {
        messages = await this.receive();
        backoffMs = 0;
      } catch (err) {
        this.counters.sqsErrors++;
        backoffMs = Math.min(RECEIVE_BACKOFF.maxMs, Math.max(RECEIVE_BACKOFF.initialMs, backoffMs * 2));
        this.log.warn({ err, backoffMs }, 'ReceiveMessage failed; retrying');
        await this.sleep(backoffMs);
        continue;
      }
      if (messages.length > 0) await this.processBatch(messages);
    }
  }

  private async receive(): Promise<Message[]> {
    const out = await this.options.client.send(
      new ReceiveMessageCommand({
        QueueUrl: this.options.queueUrl,
        MaxNumberOfMessages: this.batchSize,
        WaitTimeSeconds: this.waitTimeSeconds,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    return out.Messages ?? [];
  }

  /** One invocation: build the event, call the handler, delete what succeeded. Never throws. */
  private async processBatch(messages: readonly Message[]): Promise<void> {
    const records: SQSRecord[] = [];
    for (const message of messages) {
      try {
        records.push(toSqsRecord(message, { queueArn: this.queueArn, region: this.region }));
      } catch (err) {
        // Unreadable messages are left to the redrive policy, as a poison message would be.
        this.log.error({ err, messageId: message.MessageId }, 'skipping a malformed message');
      }
    }
    if (records.length === 0) return;
    this.counters.batches++;
    this.counters.records += records.length;
    let failed: ReadonlySet<string>;
    try {
      const context = fakeLambdaContext({ functionName: this.options.functionName, region: this.region, timeoutMs: this.options.invocationTimeoutMs });
      failed = failedMessageIds(records, await this.options.handler({ Records: records }, context));
    } catch (err) {
      this.counters.handlerErrors++;
      this.log.warn({ err, records: records.length }, 'handler threw; the whole batch will be redelivered');
      failed = new Set(records.map((r) => r.messageId));
    }
    this.counters.failures += failed.size;
    await this.deleteAll(records.filter((r) => !failed.has(r.messageId)));
  }

  private async deleteAll(records: readonly SQSRecord[]): Promise<void> {
    if (records.length === 0) return;
    try {
      const out = await this.options.client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: this.options.queueUrl,
          Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })),
        }),
      );
      this.counters.deleted += out.Successful?.length ?? 0;
      if (out.Failed && out.Failed.length > 0) {
        this.counters.sqsErrors++;
        this.log.warn({ failed: out.Failed }, 'DeleteMessageBatch left messages; they will be redelivered');
      }
    } catch (err) {
      // The messages come back after the visibility timeout; the handler's idempotency absorbs that.
      this.counters.sqsErrors++;
      this.log.warn({ err, records: records.length }, 'DeleteMessageBatch failed; the batch will be redelivered');
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.wakeBackoff = done;
    });
  }
}
