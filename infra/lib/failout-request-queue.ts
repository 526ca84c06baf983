import { Duration } from 'aws-cdk-lib';
import type { Metric, MetricOptions } from 'aws-cdk-lib/aws-cloudwatch';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';

/** Props of {@link FailoutRequestQueue}. */
export interface FailoutRequestQueueProps {
  /**
   * The consumer's (the Lambda's) timeout. The visibility timeout is `visibilityFactor` times it, so a
   * batch still running is never handed to a second invocation.
   */
  readonly consumerTimeout: Duration;
  /** Multiplier for the visibility timeout. Default 6 (the AWS guidance for SQS event sources); at least 6. */
  readonly visibilityFactor?: number;
  /** Receives before a message goes to the DLQ. Default 5. */
  readonly maxReceiveCount?: number;
}

/**
 * The change-request queue (ARCHITECTURE.md "Change request"): SQS FIFO with content-based
 * deduplication off — the sender sets `MessageDeduplicationId` to the request id and
 * `MessageGroupId` to the cluster — and a FIFO dead-letter queue after `maxReceiveCount` receives.
 * Both queues are encrypted (SQS-managed SSE, so senders need no KMS grant) and refuse non-TLS access;
 * the DLQ keeps messages 14 days, the longest SQS allows, for investigation and redrive.
 */
export class FailoutRequestQueue extends Construct {
  /** Receives before the DLQ, when not given. */
  static readonly DEFAULT_MAX_RECEIVE_COUNT = 5;

  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** The request queue's visibility timeout: how long a received message (and its FIFO group) stays locked. */
  readonly visibilityTimeout: Duration;
  /** Receives before a message goes to the DLQ. */
  readonly maxReceiveCount: number;

  constructor(scope: Construct, id: string, props: FailoutRequestQueueProps) {
    super(scope, id);
    const factor = props.visibilityFactor ?? 6;
    if (factor < 6) throw new Error(`visibilityFactor must be at least 6, got ${factor}`);
    this.visibilityTimeout = Duration.seconds(props.consumerTimeout.toSeconds() * factor);
    this.maxReceiveCount = props.maxReceiveCount ?? FailoutRequestQueue.DEFAULT_MAX_RECEIVE_COUNT;
    this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      fifo: true,
      contentBasedDeduplication: false,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    this.queue = new Queue(this, 'Queue', {
      fifo: true,
      contentBasedDeduplication: false,
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: this.visibilityTimeout,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: this.maxReceiveCount },
    });
  }

  /** Messages waiting in the DLQ (Maximum per minute by default). */
  metricDeadLetters(options: MetricOptions = {}): Metric {
    return this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum', ...options });
  }

  /**
   * Age in seconds of the request queue's oldest message, received or not (Maximum per minute by
   * default). It sees a FIFO group blocked behind a failing message long before the DLQ does; SQS
   * leaves a message out of it after its third receive (see `FailoutAlarms.blockedGroup`).
   */
  metricOldestMessageAge(options: MetricOptions = {}): Metric {
    return this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum', ...options });
  }
}
