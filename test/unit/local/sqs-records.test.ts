import type { Message } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';
import { failedMessageIds, fakeLambdaContext, queueArnFromUrl, toSqsRecord } from '../../../lib/local/sqs-records';

const SOURCE = { queueArn: 'arn:aws:sqs:us-east-1:000000000000:requests.fifo', region: 'us-east-1' };

function fifoMessage(overrides: Partial<Message> = {}): Message {
  return {
    MessageId: 'm-1',
    ReceiptHandle: 'rh-1',
    Body: '{"a":1}',
    MD5OfBody: 'md5',
    Attributes: {
      ApproximateReceiveCount: '2',
      SentTimestamp: '1000',
      SenderId: '000000000000',
      ApproximateFirstReceiveTimestamp: '1001',
      MessageGroupId: 'greetings-lor1',
      MessageDeduplicationId: 'req-1',
      SequenceNumber: '00000000000000000007',
    },
    ...overrides,
  };
}

function recordsWithIds(...ids: string[]): SQSRecord[] {
  return ids.map((id) => toSqsRecord(fifoMessage({ MessageId: id }), SOURCE));
}

describe('toSqsRecord builds what the event source mapping delivers', () => {
  it('copies id, receipt handle, body, md5 and the FIFO attributes, and names the source', () => {
    const record = toSqsRecord(fifoMessage(), SOURCE);
    expect(record).toEqual({
      messageId: 'm-1',
      receiptHandle: 'rh-1',
      body: '{"a":1}',
      md5OfBody: 'md5',
      attributes: {
        ApproximateReceiveCount: '2',
        SentTimestamp: '1000',
        SenderId: '000000000000',
        ApproximateFirstReceiveTimestamp: '1001',
        MessageGroupId: 'greetings-lor1',
        MessageDeduplicationId: 'req-1',
        SequenceNumber: '00000000000000000007',
      },
      messageAttributes: {},
      eventSource: 'aws:sqs',
      eventSourceARN: SOURCE.queueArn,
      awsRegion: 'us-east-1',
    });
  });

  it('turns message attributes into lower-camel with base64 binaries', () => {
    const record = toSqsRecord(
      fifoMessage({
        MessageAttributes: { trace: { DataType: 'String', StringValue: 'abc' }, blob: { DataType: 'Binary', BinaryValue: Uint8Array.from([1, 2, 3]) } },
        MD5OfMessageAttributes: 'md5a',
      }),
      SOURCE,
    );
    expect(record.messageAttributes).toEqual({
      trace: { dataType: 'String', stringValue: 'abc', stringListValues: [], binaryListValues: [] },
      blob: { dataType: 'Binary', binaryValue: 'AQID', stringListValues: [], binaryListValues: [] },
    });
    expect(record.md5OfMessageAttributes).toBe('md5a');
  });

  it('leaves optional FIFO attributes out of a standard-queue message', () => {
    const record = toSqsRecord(fifoMessage({ Attributes: { ApproximateReceiveCount: '1', SentTimestamp: '1', SenderId: 'x', ApproximateFirstReceiveTimestamp: '1' } }), SOURCE);
    expect('MessageGroupId' in record.attributes).toBe(false);
    expect('SequenceNumber' in record.attributes).toBe(false);
  });

  it.each([['MessageId'], ['ReceiptHandle'], ['Body']] as const)('refuses a message without %s', (field) => {
    expect(() => toSqsRecord(fifoMessage({ [field]: undefined }), SOURCE)).toThrow(/without/);
  });
});

describe('queueArnFromUrl', () => {
  it.each([
    ['http://sqs.us-east-1.127.0.0.1:4566/000000000000/q.fifo', 'us-east-1', 'arn:aws:sqs:us-east-1:000000000000:q.fifo'],
    ['https://sqs.eu-west-1.amazonaws.com/123456789012/requests.fifo', 'eu-west-1', 'arn:aws:sqs:eu-west-1:123456789012:requests.fifo'],
  ])('maps %s to its ARN', (url, region, arn) => {
    expect(queueArnFromUrl(url, region)).toBe(arn);
  });

  it('refuses a URL without /<account>/<name>', () => {
    expect(() => queueArnFromUrl('http://localhost:1/q', 'us-east-1')).toThrow(/not an SQS queue URL/);
  });
});

describe('failedMessageIds reads the handler answer as Lambda does', () => {
  const records = recordsWithIds('a', 'b', 'c');

  it.each([
    ['no answer', undefined, []],
    ['an empty list', { batchItemFailures: [] }, []],
    ['listed failures', { batchItemFailures: [{ itemIdentifier: 'b' }] }, ['b']],
    ['an unknown identifier (the whole batch)', { batchItemFailures: [{ itemIdentifier: 'zzz' }] }, ['a', 'b', 'c']],
    ['an empty identifier (the whole batch)', { batchItemFailures: [{ itemIdentifier: '' }] }, ['a', 'b', 'c']],
  ])('%s', (_name, response, expected) => {
    expect([...failedMessageIds(records, response)].sort()).toEqual(expected);
  });
});

describe('fakeLambdaContext', () => {
  it('counts the remaining time down from the timeout and gives each invocation its own id', () => {
    let now = 1000;
    const context = fakeLambdaContext({ timeoutMs: 500, now: () => now, functionName: 'fn' });
    now = 1200;
    expect(context.getRemainingTimeInMillis()).toBe(300);
    now = 2000;
    expect(context.getRemainingTimeInMillis()).toBe(0);
    expect(context.invokedFunctionArn).toBe('arn:aws:lambda:us-east-1:000000000000:function:fn');
    expect(fakeLambdaContext().awsRequestId).not.toBe(context.awsRequestId);
  });
});
