/**
 * How the request worker gets its writer, in AWS and locally alike (issue 14: "the deployed wiring is
 * the tested wiring"): configuration from the environment → the digest credential from its secret →
 * a ZooKeeper session (with TLS when configured) → the access check and the records' ACL → the
 * `RequestWriter`. The Lambda's `functions/commons/request-writer.ts` is one call of
 * {@link requestWriterSource}; the local stack runs that very Lambda bundle.
 */
import { HttpAlarmStates, type AlarmReader } from '../alarms';
import { ZkSession } from '../zk';
import { loadRequestsConfig, resolveDigestCredential, type AlarmSourceConfig, type SecretReader } from './config';
import { RequestError } from './errors';
import { lazySource } from './lazy-source';
import type { RequestLogger } from './logger';
import { RequestWriter } from './request-writer';
import { resolveWriterAcl } from './writer-access';

/** Options of {@link createRequestWriter} and {@link requestWriterSource}. */
export interface RequestWriterSourceOptions {
  /** The environment the configuration is read from (`process.env` in the Lambda); see `loadRequestsConfig`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Reads a secret by ARN (Powertools Parameters' `getSecret` in the Lambda, with its cache). */
  readonly getSecret: SecretReader;
  /** Where the writer and its session start log. */
  readonly logger: RequestLogger;
  /**
   * Makes the CloudWatch alarm reader when the configuration asks for it (`FAILOUT_ALARMS_CLOUDWATCH=1`):
   * the Lambda passes lib/alarms/cloudwatch's `CloudWatchAlarmStates`, so that this face never loads
   * the AWS SDK. Without it that configuration is refused (`invalidConfig`).
   */
  readonly cloudWatchAlarms?: () => AlarmReader;
}

/** The alarm reader the configuration names, or undefined for none. @throws RequestError `invalidConfig`. */
export function alarmReaderOf(config: AlarmSourceConfig, cloudWatchAlarms: (() => AlarmReader) | undefined): AlarmReader | undefined {
  if (config.source === 'http') return new HttpAlarmStates(config.url);
  if (config.source === 'none') return undefined;
  if (!cloudWatchAlarms) throw new RequestError('invalidConfig', 'invalid configuration: FAILOUT_ALARMS_CLOUDWATCH=1, but this process has no CloudWatch client to read alarms with', { variable: 'FAILOUT_ALARMS_CLOUDWATCH' });
  return cloudWatchAlarms();
}

/**
 * Builds a started writer from the environment. On any failure after the session started, the
 * session is closed before the error is rethrown, so a retry starts clean.
 * @throws RequestError `invalidConfig` (environment, secret) or `access` (open tree); ZkError when
 *   ZooKeeper cannot be reached within `ZK_CONNECT_TIMEOUT_MS` (kind `tls` for a refused handshake).
 */
export async function createRequestWriter(options: RequestWriterSourceOptions): Promise<RequestWriter> {
  const { logger } = options;
  const config = loadRequestsConfig(options.env);
  const alarms = alarmReaderOf(config.alarms, options.cloudWatchAlarms);
  const credential = await resolveDigestCredential(config, options.getSecret);
  const session = new ZkSession({
    connectString: config.zkConnect,
    sessionTimeoutMs: config.sessionTimeoutMs,
    credentials: credential ? [credential] : [],
    // ZK_TLS_*: a refused handshake fails start() with a `tls` ZkError naming the reason (the record is retried).
    tls: config.tls,
  });
  try {
    await session.start(config.connectTimeoutMs);
    logger.info('zookeeper session ready', { zkConnect: config.zkConnect, digest: config.digest.source, tls: config.tls !== undefined, alarmSource: config.alarms.source });
    const recordAcl = await resolveWriterAcl({ session, config, credential, logger });
    return new RequestWriter({
      session,
      d2BasePath: config.d2BasePath,
      requestsPath: config.requestsPath,
      drillsPath: config.drillsPath,
      fabricsPath: config.fabricsPath,
      evacuationsPath: config.evacuationsPath,
      maxMultiBytes: config.maxMultiBytes,
      limits: { maxWindowMs: config.maxWindowMs, maxBodyBytes: config.maxBodyBytes, maxPeers: config.maxPeers },
      judge: { maxPeerLoadFactor: config.maxPeerLoadFactor },
      retention: { retentionMs: config.recordRetentionMs },
      recordAcl,
      logger,
      ...(alarms === undefined ? {} : { alarms }),
    });
  } catch (err) {
    await session.close();
    throw err;
  }
}

/**
 * One writer per process (a Lambda container), made on the first record rather than at import — so a
 * cold start with ZooKeeper down fails records, which SQS retries, instead of failing the init — and
 * reused by every later invocation. The session inside reconnects and replaces itself after expiry
 * on its own. A failed attempt is forgotten, so the next record tries again; concurrent first calls
 * share one attempt.
 */
export function requestWriterSource(options: RequestWriterSourceOptions): () => Promise<RequestWriter> {
  return lazySource(() => createRequestWriter(options));
}
