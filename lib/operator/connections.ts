import { SQSClient } from '@aws-sdk/client-sqs';
import pino from 'pino';
import { credentialHidingLogger } from '../text';
import { ZkSession, type DigestCredential } from '../zk';
import { isZkError, loadZkTlsFiles, ZkTlsConfigError, type ZkTlsFiles, type ZkTlsOptions } from '../zk';
import { OperatorError, assertIsError, inputError } from './errors';
import type { OperatorSettings } from './settings';

/** How long the CLI waits for ZooKeeper before telling the operator. */
const ZK_CONNECT_TIMEOUT_MS = 10_000;

/** Reads the PEM files; a bad one is a usage error naming its flag and variable. */
function loadCliTls(files: ZkTlsFiles): ZkTlsOptions {
  try {
    return loadZkTlsFiles(files, { caFile: '--zk-tls-ca / ZK_TLS_CA', certFile: '--zk-tls-cert / ZK_TLS_CERT', keyFile: '--zk-tls-key / ZK_TLS_KEY' });
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw inputError(err.message);
    throw err;
  }
}

/**
 * The connections one CLI run needs, opened on first use and closed by {@link close}: a read-only
 * ZooKeeper session (no credentials: cluster nodes and records are world-readable) and an SQS client.
 */
export class OperatorConnections {
  private session: ZkSession | undefined;
  private sqsClient: SQSClient | undefined;

  constructor(private readonly settings: OperatorSettings) {}

  /**
   * The connected ZooKeeper session; `credentials` (the admin's, for `failout zk secure`) are added
   * when the session is first opened in this run.
   */
  async zk(credentials: readonly DigestCredential[] = []): Promise<ZkSession> {
    if (this.session) return this.session;
    const connectString = this.settings.zkConnect;
    if (!connectString) throw inputError('no ZooKeeper to read: set ZK_CONNECT or pass --zk host:port');
    // The session logs reconnects as JSON; an operator's terminal wants only our messages.
    const tls = this.settings.zkTls ? loadCliTls(this.settings.zkTls) : undefined;
    const session = new ZkSession({ connectString, sessionTimeoutMs: 10_000, connectWaitMs: 5000, credentials, tls, logger: pino({ level: 'silent' }) });
    try {
      await session.start(ZK_CONNECT_TIMEOUT_MS);
    } catch (err) {
      assertIsError(err);
      // The session logs nothing here (silent logger): the TLS reason reaches the operator only through this message.
      if (isZkError(err, 'tls')) throw new OperatorError('unavailable', `could not connect to ZooKeeper at ${connectString} over TLS: ${err.message}; check ZK_TLS_CA / --zk-tls-ca and the server's certificate`, { cause: err });
      throw new OperatorError('unavailable', `could not connect to ZooKeeper at ${connectString} within ${ZK_CONNECT_TIMEOUT_MS / 1000} s: check ZK_CONNECT / --zk`, { cause: err });
    }
    this.session = session;
    return session;
  }

  /** The queue URL requests go to. */
  queueUrl(): string {
    const url = this.settings.queueUrl;
    if (!url) throw inputError('no queue to send to: set FAILOUT_QUEUE_URL or pass --queue-url <url>');
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
    this.sqsClient = new SQSClient({ region, ...(sqsEndpoint ? { endpoint: sqsEndpoint } : {}), ...dummy, logger: credentialHidingLogger });
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
