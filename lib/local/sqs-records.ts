import { randomUUID } from 'node:crypto';
import type { Message, MessageAttributeValue } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSMessageAttributes, SQSRecord } from 'aws-lambda';

/**
 * The pure half of the local poller: what Lambda's SQS event source mapping builds from a
 * ReceiveMessage answer, and how it reads the handler's answer. No I/O here, so unit tests reach it.
 */

/** Where a record came from: the queue's ARN and region (Lambda sets both on every record). */
export interface RecordSource {
  readonly queueArn: string;
  readonly region: string;
}

/**
 * The queue ARN for a queue URL: `http(s)://<host>/<account>/<name>` →
 * `arn:aws:sqs:<region>:<account>:<name>`. Works for AWS and fauxqs URLs alike (both put the account
 * and the name in the path).
 *
 * @throws Error when the path is not `/<account>/<name>`.
 */
export function queueArnFromUrl(queueUrl: string, region: string): string {
  // Not `new URL()`: fauxqs hands out hosts like `sqs.us-east-1.127.0.0.1`, which WHATWG URL refuses.
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/]+\/([^/?#]+)\/([^/?#]+)\/?$/i.exec(queueUrl);
  const [, account, name] = match ?? [];
  if (!account || !name) throw new Error(`not an SQS queue URL (expected /<account>/<name>): ${queueUrl}`);
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

/**
 * An `SQSRecord` as Lambda delivers it, from one received message (asked for with all system and
 * message attributes). Message attributes move to Lambda's lower-camel spelling, binary values to
 * base64. Missing counters become `'0'` rather than `undefined`, as the type promises strings.
 *
 * @throws Error when the message lacks an id, a receipt handle or a body (a server bug).
 */
export function toSqsRecord(message: Message, source: RecordSource): SQSRecord {
  const { MessageId, ReceiptHandle, Body } = message;
  if (!MessageId || !ReceiptHandle || Body === undefined) throw new Error('received a message without MessageId, ReceiptHandle or Body');
  const a = message.Attributes ?? {};
  const attributes: SQSRecord['attributes'] = {
    ApproximateReceiveCount: a.ApproximateReceiveCount ?? '0',
    SentTimestamp: a.SentTimestamp ?? '0',
    SenderId: a.SenderId ?? '',
    ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? '0',
  };
  // Optional ones only when present: a handler that checks `'MessageGroupId' in attributes` must not be fooled.
  if (a.SequenceNumber !== undefined) attributes.SequenceNumber = a.SequenceNumber;
  if (a.MessageGroupId !== undefined) attributes.MessageGroupId = a.MessageGroupId;
  if (a.MessageDeduplicationId !== undefined) attributes.MessageDeduplicationId = a.MessageDeduplicationId;
  if (a.AWSTraceHeader !== undefined) attributes.AWSTraceHeader = a.AWSTraceHeader;
  if (a.DeadLetterQueueSourceArn !== undefined) attributes.DeadLetterQueueSourceArn = a.DeadLetterQueueSourceArn;
  const record: SQSRecord = {
    messageId: MessageId,
    receiptHandle: ReceiptHandle,
    body: Body,
    attributes,
    messageAttributes: toLambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: source.queueArn,
    awsRegion: source.region,
  };
  if (message.MD5OfMessageAttributes !== undefined) record.md5OfMessageAttributes = message.MD5OfMessageAttributes;
  return record;
}

function toLambdaMessageAttributes(input: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const out: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(input ?? {})) {
    const attribute: SQSMessageAttributes[string] = { dataType: value.DataType ?? 'String', stringListValues: [], binaryListValues: [] };
    if (value.StringValue !== undefined) attribute.stringValue = value.StringValue;
    if (value.BinaryValue !== undefined) attribute.binaryValue = Buffer.from(value.BinaryValue).toString('base64');
    out[name] = attribute;
  }
  return out;
}

/**
 * The message ids a handler's answer marks as failed, the way the event source mapping reads it with
 * `ReportBatchItemFailures`: `undefined`/no list → none failed; an identifier that is empty or not in
 * the batch makes the whole batch count as failed (Lambda's rule, so a handler bug never deletes
 * messages it did not process).
 */
export function failedMessageIds(records: readonly SQSRecord[], response: SQSBatchResponse | void | undefined): ReadonlySet<string> {
  const all = new Set(records.map((r) => r.messageId));
  const failures = response?.batchItemFailures;
  if (failures === undefined || failures === null) return new Set();
  if (!Array.isArray(failures)) return all;
  const failed = new Set<string>();
  for (const item of failures as unknown[]) {
    const id = (item as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || !all.has(id)) return all;
    failed.add(id);
  }
  return failed;
}

/** What the fake context says about the function. */
export interface FakeContextOptions {
  functionName?: string;
  region?: string;
  /** The invocation's time budget; `getRemainingTimeInMillis` counts it down. Default 30 s. */
  timeoutMs?: number;
  /** Clock, for tests. */
  now?: () => number;
}

/**
 * A Lambda `Context` for one invocation: a fresh `awsRequestId`, `getRemainingTimeInMillis` counting
 * down from `timeoutMs`. The deprecated `done`/`fail`/`succeed` throw: our handlers are async.
 */
export function fakeLambdaContext(options: FakeContextOptions = {}): Context {
  const functionName = options.functionName ?? 'failout-requests-local';
  const region = options.region ?? 'us-east-1';
  const now = options.now ?? Date.now;
  const deadline = now() + (options.timeoutMs ?? 30_000);
  const deprecated = (): never => {
    throw new Error('callback-style completion is not supported by the local poller; return a promise');
  };
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:${region}:000000000000:function:${functionName}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `local/${randomUUID()}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - now()),
    done: deprecated,
    fail: deprecated,
    succeed: deprecated,
  };
}
