import { SQSClient } from '@aws-sdk/client-sqs';
import pino from 'pino';
import { ZkSession } from '../zk';
import { CliError, assertIsError, usageError } from './errors';
import type { CliSettings } from './settings';

/** How long the CLI waits for ZooKeeper before telling the operator. */
const ZK_CONNECT_TIMEOUT_MS = 10_000;

/**
 * The connections one CLI run needs, opened on first use and closed by {@link close}: a read-only
 * ZooKeeper session (no credentials: cluster nodes and records are world-readable) and an SQS client.
 */
export class CliConnections {
  private session: ZkSession | undefined;
  private sqsClient: SQSClient | undefined;

  constructor(private readonly settings: CliSettings) {}

  /** The connected ZooKeeper session. */
  async zk(): Promise<ZkSession> {
    if (this.session) return this.session;
    const connectString = this.settings.zkConnect;
    if (!connectString) throw usageError('no ZooKeeper to read: set ZK_CONNECT or pass --zk host:port');
    // The session logs reconnects as JSON; an operator's terminal wants only our messages.
    const session = new ZkSession({ connectString, sessionTimeoutMs: 10_000, connectWaitMs: 5000, logger: pino({ level: 'silent' }) });
    try {
      await session.start(ZK_CONNECT_TIMEOUT_MS);
    } catch (err) {
      assertIsError(err);
      throw new CliError('unavailable', `could not connect to ZooKeeper at ${connectString} within ${ZK_CONNECT_TIMEOUT_MS / 1000} s: check ZK_CONNECT / --zk`, { cause: err });
    }
    this.session = session;
    return session;
  }

  /** The queue URL requests go to. */
  queueUrl(): string {
    const url = this.settings.queueUrl;
    if (!url) throw usageError('no queue to send to: set FAILOUT_QUEUE_URL or pass --queue-url <url>');
    return url;
  }

  /**
   * The SQS client. With a local endpoint and no AWS credentials in the environment it uses dummy
   * ones (fauxqs does not check them); against AWS the SDK's default chain applies.
   */
  sqs(env: Readonly<Record<string, string | undefined>>): SQSClient {
    if (this.sqsClient) return this.sqsClient;
    const { sqsEndpoint, region } = this.settings;
    const dummy = sqsEndpoint && !env.AWS_ACCESS_KEY_ID ? { credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {};
    this.sqsClient = new SQSClient({ region, ...(sqsEndpoint ? { endpoint: sqsEndpoint } : {}), ...dummy });
    return this.sqsClient;
  }

  /** Closes whatever was opened. */
  async close(): Promise<void> {
    this.sqsClient?.destroy();
    this.sqsClient = undefined;
    const session = this.session;
    this.session = undefined;
    await session?.close();
  }
}
