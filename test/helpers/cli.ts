import type { CliIo } from '../../lib/cli/io';
import { run } from '../../lib/cli/program';
import { startLocalSqs, type FifoQueuePair, type LocalSqs } from '../../lib/local/sqs';
import type { ZkSession } from '../../lib/zk';
import { seedClusters, stopPollers, testPaths, type TestPaths } from './requests-queue';
import { closeSessions, openSession, sharedConnectString } from './zk';

/** What one in-process CLI run printed, and its exit code. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the `failout` CLI in-process (`run(argv, io)`) with `env` as its whole environment, capturing its output. */
export async function runCli(env: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), env, now: () => Date.now() };
  const code = await run(argv, io);
  return { code, stdout, stderr };
}

/** What a {@link useCliQueueTestbed} test reaches: fauxqs, a fresh queue pair, a ZooKeeper session, paths and the CLI's environment. */
export interface CliQueueTestbed {
  readonly sqs: LocalSqs;
  readonly queue: FifoQueuePair;
  readonly session: ZkSession;
  readonly paths: TestPaths;
  readonly env: Record<string, string>;
  /** Runs the CLI in-process with {@link CliQueueTestbed.env}. */
  cli(...argv: string[]): Promise<CliResult>;
}

/**
 * Registers the hooks of a CLI test over the real pipeline: fauxqs for the file; per test a fresh
 * queue pair, a ZooKeeper session, a fresh tree with `clusters` seeded, and the CLI's environment
 * pointing at them; pollers and sessions stopped after each test. Read the fields inside tests only.
 */
export function useCliQueueTestbed(clusters: readonly string[] = ['greetings-lor1', 'greetings-lva1']): CliQueueTestbed {
  let sqs: LocalSqs | undefined;
  let current: Omit<CliQueueTestbed, 'sqs' | 'cli'> | undefined;
  const now = (): Omit<CliQueueTestbed, 'sqs' | 'cli'> => {
    if (!current) throw new Error('the testbed is set up in beforeEach: read it inside a test');
    return current;
  };
  beforeAll(async () => {
    sqs = await startLocalSqs();
  });
  afterAll(async () => {
    await sqs?.close();
  });
  beforeEach(async () => {
    const session = await openSession();
    const paths = testPaths();
    await seedClusters(session, paths, [...clusters]);
    const queue = await sqs!.createFifoQueuePair();
    const env = {
      FAILOUT_QUEUE_URL: queue.queueUrl,
      ZK_CONNECT: sharedConnectString(),
      SQS_ENDPOINT: sqs!.endpoint,
      D2_BASE_PATH: paths.d2Base,
      FAILOUT_REQUESTS_PATH: paths.requestsPath,
      FAILOUT_USER: 'oncall@example.com',
    };
    current = { queue, session, paths, env };
  });
  afterEach(async () => {
    await stopPollers();
    await closeSessions();
    current = undefined;
  });
  return {
    get sqs() {
      if (!sqs) throw new Error('the testbed is set up in beforeAll: read it inside a test');
      return sqs;
    },
    get queue() {
      return now().queue;
    },
    get session() {
      return now().session;
    },
    get paths() {
      return now().paths;
    },
    get env() {
      return now().env;
    },
    cli: (...argv) => runCli(now().env, ...argv),
  };
}
