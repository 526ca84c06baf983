import type { SQSRecord } from 'aws-lambda';
import type { ChangeRequestInput } from '../../lib/requests';

/** 2026-11-30T16:00:00Z: the fixed "now" of the request tests. */
export const NOW = Date.parse('2026-11-30T16:00:00Z');
export const HOUR = 3600_000;

let counter = 0;

/** A valid failout request body (as an object): greetings-lor1 → greetings-lva1 ×2, ltx1 ×1, two hours. */
export function failoutInput(overrides: Record<string, unknown> = {}): ChangeRequestInput & Record<string, unknown> {
  return {
    version: 1,
    requestId: `req-${++counter}`,
    action: 'failout',
    cluster: 'greetings-lor1',
    peers: [
      { cluster: 'greetings-lva1', weight: 2 },
      { cluster: 'greetings-ltx1', weight: 1 },
    ],
    duration: 'PT2H',
    requestedBy: 'oncall@example.com',
    reason: 'INC-4711',
    ...overrides,
  } as ChangeRequestInput & Record<string, unknown>;
}

/** A valid restore request body (as an object). */
export function restoreInput(overrides: Record<string, unknown> = {}): ChangeRequestInput & Record<string, unknown> {
  return { version: 1, requestId: `req-${++counter}`, action: 'restore', cluster: 'greetings-lor1', ...overrides } as ChangeRequestInput &
    Record<string, unknown>;
}

/** An SQS FIFO record as the event source mapping delivers it. */
export function sqsRecord(body: string | object, group: string, id = `msg-${++counter}`): SQSRecord {
  return {
    messageId: id,
    receiptHandle: `rh-${id}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: {
      ApproximateReceiveCount: '1',
      SentTimestamp: String(Date.now() - 5),
      SenderId: 'test',
      ApproximateFirstReceiveTimestamp: String(Date.now()),
      SequenceNumber: String(counter),
      MessageGroupId: group,
      MessageDeduplicationId: id,
    },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:failout-requests.fifo',
    awsRegion: 'us-east-1',
  };
}
