/**
 * How the `failout-guard` Lambda gets its {@link StopGuard}, in AWS and locally alike (the local stack
 * runs the same bundle with a local environment): configuration from the environment → a read-only
 * ZooKeeper session (TLS when configured, no credential: cluster nodes are world-readable) and an SQS
 * client → the guard. Made on the first event, not at import, so a cold start with ZooKeeper down
 * fails the event (EventBridge retries it) instead of the init; reused afterwards.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { RequestLogger } from '../requests';
import { loadZkTlsFromEnv, ZkSession, ZkTlsConfigError, type ZkTlsOptions } from '../zk';
import { StopGuard, type GuardCounter } from './stop-guard';

/**
 * The guard's configuration:
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `ZK_CONNECT` | `host:port[,…]` of the ensemble | required |
 * | `D2_BASE_PATH` | D2 base path | `/d2` |
 * | `FAILOUT_QUEUE_URL` | the request queue (FIFO) the restores go to | required |
 * | `ZK_SESSION_TIMEOUT_MS`, `ZK_CONNECT_TIMEOUT_MS` | session timeout, first-connect wait | 15000, 10000 |
 * | `ZK_TLS_CA`, `ZK_TLS_CERT`, `ZK_TLS_KEY`, `ZK_TLS_SERVERNAME`, `ZK_TLS_VERIFY` | TLS to ZooKeeper | plain TCP |
 *
 * The SQS endpoint is the SDK's (`AWS_ENDPOINT_URL_SQS` locally).
 */
export interface GuardConfig {
  readonly zkConnect: string;
  readonly d2BasePath: string;
  readonly queueUrl: string;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly tls: ZkTlsOptions | undefined;
}

/** A configuration the guard cannot run with; names the variable. */
export class GuardConfigError extends Error {
  override readonly name = 'GuardConfigError';
  readonly kind = 'invalidConfig' as const;
}

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  ZK_CONNECT: z.string({ error: 'is required' }).regex(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, 'must be host:port[,host:port…]'),
  D2_BASE_PATH: z.string().regex(/^\/[^\s]*$/, 'must be an absolute znode path').default('/d2'),
  // Not z.url(): fauxqs' queue URLs (`http://sqs.us-east-1.127.0.0.1:<port>/…`) have a host it refuses.
  FAILOUT_QUEUE_URL: z.string({ error: 'is required' }).regex(/^https?:\/\/[^\s/]+\/\S+$/, 'must be the http(s) URL of the request queue'),
  ZK_SESSION_TIMEOUT_MS: positiveInt(15_000),
  ZK_CONNECT_TIMEOUT_MS: positiveInt(10_000),
});

/** Reads and validates the guard's configuration. @throws GuardConfigError naming every offending variable. */
export function loadGuardConfig(env: Readonly<Record<string, string | undefined>>): GuardConfig {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    throw new GuardConfigError(`invalid configuration: ${parsed.error.issues.map((i) => `${String(i.path[0] ?? '(environment)')} ${i.message}`).join('; ')}`);
  }
  let tls: ZkTlsOptions | undefined;
  try {
    tls = loadZkTlsFromEnv(env);
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw new GuardConfigError(`invalid configuration: ${err.message}`, { cause: err });
    throw err;
  }
  const e = parsed.data;
  return { zkConnect: e.ZK_CONNECT, d2BasePath: e.D2_BASE_PATH, queueUrl: e.FAILOUT_QUEUE_URL, sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS, connectTimeoutMs: e.ZK_CONNECT_TIMEOUT_MS, tls };
}

/** Options of {@link stopGuardSource}. */
export interface StopGuardSourceOptions {
  /** The environment (`process.env` in the Lambda). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: RequestLogger;
  /** Adds to a counter (Powertools metrics in the Lambda). */
  readonly count?: (counter: GuardCounter, value: number) => void;
}

/** Builds a guard over a started session. @throws GuardConfigError; ZkError when ZooKeeper is out of reach. */
export async function createStopGuard(options: StopGuardSourceOptions): Promise<StopGuard> {
  const config = loadGuardConfig(options.env);
  const session = new ZkSession({ connectString: config.zkConnect, sessionTimeoutMs: config.sessionTimeoutMs, tls: config.tls });
  try {
    await session.start(config.connectTimeoutMs);
  } catch (err) {
    await session.close();
    throw err;
  }
  options.logger.info('zookeeper session ready', { zkConnect: config.zkConnect, tls: config.tls !== undefined });
  const sqs = new SQSClient({});
  return new StopGuard({
    zk: session,
    d2BasePath: config.d2BasePath,
    queueUrl: config.queueUrl,
    send: async (message) => {
      const out = await sqs.send(new SendMessageCommand(message));
      return out.MessageId === undefined ? {} : { messageId: out.MessageId };
    },
    logger: options.logger,
    ...(options.count === undefined ? {} : { count: options.count }),
  });
}

/**
 * One guard per process (a Lambda container), made on the first event and reused; a failed attempt is
 * forgotten so the next event tries again; concurrent first calls share one attempt.
 */
export function stopGuardSource(options: StopGuardSourceOptions): () => Promise<StopGuard> {
  let pending: Promise<StopGuard> | undefined;
  return () => {
    pending ??= createStopGuard(options).catch((err: unknown) => {
      pending = undefined;
      throw err;
    });
    return pending;
  };
}
