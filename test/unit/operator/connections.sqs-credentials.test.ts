import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { OperatorConnections, resolveSettings } from '../../../lib/operator';
import { sqsSender } from '../../../lib/safety/lambda-source';

// A queue URL may carry `user:password@` (a proxy, a local queue behind basic auth). The AWS SDK warns
// through `console` when the queue URL's host differs from the client's endpoint, quoting the whole
// queue URL (@aws-sdk/middleware-sdk-sqs queueUrlMiddleware): that warning must not show the password.

const QUEUE_URL = 'http://queue-user:s3cret-pw@127.0.0.1:1/000000000000/requests.fifo';
const MESSAGE = { QueueUrl: QUEUE_URL, MessageBody: '{}', MessageGroupId: 'g', MessageDeduplicationId: 'd' };

/** Everything written through `console` (where the SDK's default logger writes) while `act` runs. */
async function consoleOutput(act: () => Promise<unknown>): Promise<string> {
  const lines: string[] = [];
  let failure: unknown;
  const spies = (['log', 'info', 'warn', 'error', 'debug'] as const).map((level) =>
    jest.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(args.map((a) => (a instanceof Error ? a.message : String(a))).join(' '))),
  );
  try {
    await act().catch((err: unknown) => (failure = err));
  } finally {
    for (const spy of spies) spy.mockRestore();
  }
  // The message went as far as the network (nothing listens on port 1): the SDK did all it does first.
  expect(failure).toEqual(expect.objectContaining({ message: expect.stringContaining('ECONNREFUSED') }));
  return lines.join('\n');
}

describe('SQS clients: a queue URL with credentials', () => {
  const env = { AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'local', AWS_SECRET_ACCESS_KEY: 'local', AWS_MAX_ATTEMPTS: '1' };
  const saved = { ...process.env };
  // The SDK reads credentials and retries from the process environment, as in a Lambda.
  beforeAll(() => void Object.assign(process.env, env));
  afterAll(() => {
    process.env = saved;
  });

  it.each([
    ['without SQS_ENDPOINT', {}, true],
    ['with an SQS_ENDPOINT on another host', { sqsEndpoint: 'http://localhost:1' }, false],
  ])("the operator's client (%s) never logs the queue URL's password", async (_name, flags, warned) => {
    // Prepare
    const connections = new OperatorConnections(resolveSettings({ queueUrl: QUEUE_URL, ...flags }, env));
    const sqs: SQSClient = connections.sqs(env);

    // Act
    const output = await consoleOutput(() => sqs.send(new SendMessageCommand(MESSAGE)));
    await connections.close();

    // Assess: the SDK's warning, if any, is kept with the credentials hidden; nothing else is logged
    // (the SDK logs a failed call's whole input at `error` to a logger it is given; the caller reports it)
    expect(output).not.toContain('s3cret-pw');
    expect(output).not.toContain('MessageBody');
    if (warned) expect(output).toContain('QueueUrl=http://***@127.0.0.1:1/');
  });

  it("the guard's and drill runner's sender never logs the queue URL's password", async () => {
    // Prepare
    const send = sqsSender();

    // Act
    const output = await consoleOutput(() => send(MESSAGE));

    // Assess
    expect(output).not.toContain('s3cret-pw');
    expect(output).not.toContain('MessageBody');
    expect(output).toContain('QueueUrl=http://***@127.0.0.1:1/');
  });
});
