import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { killOnExit } from './child-processes';

/**
 * A local SQS (fauxqs 1.9.2) with a FIFO queue and its FIFO dead-letter queue, for tests, the local
 * stack and the benchmarks.
 *
 * Why a child process: fauxqs is ESM-only. Under tsx or plain node a dynamic `import('fauxqs')` from
 * CommonJS works, but jest runs our CommonJS inside a vm context where every `import()` — including the
 * `new Function('s', 'return import(s)')` trick — throws "A dynamic import callback was invoked without
 * --experimental-vm-modules". The tiny `fauxqs-server.mjs` shim runs fauxqs's `buildApp({host:
 * '127.0.0.1', logger: false})` and listens on 127.0.0.1 (not `startFauxqs`, which binds 0.0.0.0 whatever
 * host it is given) in a `node` child instead, which works the same everywhere (jest, tsx, the bench)
 * and gives the server its own event loop, so it never competes with the poller under test.
 */

/** Region, account and dummy credentials of the local server; the SDK insists on some credentials. */
export const LOCAL_REGION = 'us-east-1';
const DUMMY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

/** Options for one FIFO queue and its DLQ. */
export interface FifoQueueOptions {
  /** Base name; `.fifo` and `-dlq.fifo` are appended. Default: `failout-requests-<random>`. */
  name?: string;
  /** Receives before a message moves to the DLQ (the redrive policy). Default 5. */
  maxReceiveCount?: number;
  /** Visibility timeout of the main queue in whole seconds. Default 30. */
  visibilityTimeoutSeconds?: number;
}

/** A FIFO queue (content-based deduplication off) with a FIFO DLQ behind its redrive policy. */
export interface FifoQueuePair {
  readonly queueUrl: string;
  readonly queueArn: string;
  readonly dlqUrl: string;
  readonly dlqArn: string;
}

/** Options for {@link startLocalSqs}: the first queue pair, and the server's port (default: a free one). */
export interface LocalSqsOptions extends FifoQueueOptions {
  port?: number;
  /** Milliseconds to wait for the server to listen. Default 15 s. */
  readyTimeoutMs?: number;
}

/** A running local SQS server with one queue pair created. */
export interface LocalSqs extends FifoQueuePair {
  /** `http://127.0.0.1:<port>`: the SDK endpoint (`SQS_ENDPOINT`). */
  readonly endpoint: string;
  /** A client for {@link endpoint} (dummy credentials, `us-east-1`), shared: do not destroy it. */
  readonly client: SQSClient;
  /** Creates another queue pair on the same server (a test that needs a fresh queue). */
  createFifoQueuePair(options?: FifoQueueOptions): Promise<FifoQueuePair>;
  /** Stops the server and destroys the client. Safe to call twice. */
  close(): Promise<void>;
}

/** An SQS client for a local endpoint: dummy credentials, region `us-east-1`. */
export function localSqsClient(endpoint: string): SQSClient {
  return new SQSClient({ endpoint, region: LOCAL_REGION, credentials: DUMMY_CREDENTIALS });
}

/**
 * Creates a FIFO DLQ, then a FIFO queue whose redrive policy moves a message there after
 * `maxReceiveCount` receives. Content-based deduplication is off on both: the sender's
 * `MessageDeduplicationId` (the request id) is the only deduplication key, as in production.
 */
export async function createFifoQueuePair(client: SQSClient, options: FifoQueueOptions = {}): Promise<FifoQueuePair> {
  const name = options.name ?? `failout-requests-${randomUUID().slice(0, 8)}`;
  const maxReceiveCount = options.maxReceiveCount ?? 5;
  const visibility = options.visibilityTimeoutSeconds ?? 30;
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1) throw new Error(`maxReceiveCount must be a positive integer, got ${maxReceiveCount}`);
  if (!Number.isInteger(visibility) || visibility < 0) throw new Error(`visibilityTimeoutSeconds must be a whole number of seconds, got ${visibility}`);
  const fifo = { FifoQueue: 'true', ContentBasedDeduplication: 'false' };
  const dlq = await client.send(new CreateQueueCommand({ QueueName: `${name}-dlq.fifo`, Attributes: fifo }));
  const dlqUrl = required(dlq.QueueUrl, 'DLQ url');
  const dlqArn = await queueArn(client, dlqUrl);
  const main = await client.send(
    new CreateQueueCommand({
      QueueName: `${name}.fifo`,
      Attributes: {
        ...fifo,
        VisibilityTimeout: String(visibility),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlqArn, maxReceiveCount }),
      },
    }),
  );
  const queueUrl = required(main.QueueUrl, 'queue url');
  return { queueUrl, queueArn: await queueArn(client, queueUrl), dlqUrl, dlqArn };
}

async function queueArn(client: SQSClient, queueUrl: string): Promise<string> {
  const out = await client.send(new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }));
  return required(out.Attributes?.QueueArn, `QueueArn of ${queueUrl}`);
}

function required(value: string | undefined, what: string): string {
  if (!value) throw new Error(`local SQS returned no ${what}`);
  return value;
}

/**
 * Starts fauxqs on 127.0.0.1 (see the module comment for why in a child process) and creates one
 * FIFO queue pair. Resolves once both queues exist.
 */
export async function startLocalSqs(options: LocalSqsOptions = {}): Promise<LocalSqs> {
  const { child, endpoint } = await spawnServer(options.port ?? 0, options.readyTimeoutMs ?? 15_000);
  const client = localSqsClient(endpoint);
  let closed = false;
  const close = async (): Promise<void> => {
    if (closed) return;
    closed = true;
    client.destroy();
    await stopChild(child);
  };
  try {
    const pair = await createFifoQueuePair(client, options);
    return { ...pair, endpoint, client, close, createFifoQueuePair: (more) => createFifoQueuePair(client, more) };
  } catch (err) {
    await close();
    throw err;
  }
}

function spawnServer(port: number, readyTimeoutMs: number): Promise<{ child: ChildProcess; endpoint: string }> {
  const child = spawn(process.execPath, [join(__dirname, 'fauxqs-server.mjs')], {
    stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, FAUXQS_HOST: '127.0.0.1', FAUXQS_PORT: String(port) },
  });
  killOnExit(child);
  return new Promise((resolve, reject) => {
    let buffered = '';
    const fail = (err: Error): void => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(err);
    };
    const timer = setTimeout(() => fail(new Error(`fauxqs did not start within ${readyTimeoutMs} ms`)), readyTimeoutMs);
    const onEarlyExit = (code: number | null): void => fail(new Error(`fauxqs exited with code ${String(code)} before listening`));
    child.once('error', fail);
    child.once('exit', onEarlyExit);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      child.off('exit', onEarlyExit);
      child.stdout?.removeAllListeners('data');
      child.stdout?.resume();
      const { port: actual } = JSON.parse(buffered.slice(0, newline)) as { port: number };
      resolve({ child, endpoint: `http://127.0.0.1:${actual}` });
    });
  });
}

/** Closes the child's stdin (it stops itself), and kills it if it is still there after 3 s. */
async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.stdin?.end();
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await exited;
  clearTimeout(timer);
}
