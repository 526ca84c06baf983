/**
 * What the `failout-guard` and `failout-drills` Lambdas share in getting their worker: the environment
 * checked with zod (every offending variable named, TLS from `ZK_TLS_*`), a read-only ZooKeeper session
 * (no credential: what they read is world-readable) and an SQS sender to the request queue.
 */
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { z } from 'zod';
import type { RequestLogger } from '../requests';
import { credentialHidingLogger } from '../text';
import { loadZkTlsFromEnv, ZkSession, ZkTlsConfigError, type ZkTlsOptions } from '../zk';
import type { MessageSender } from './stop-guard';

/** A positive integer variable, `fallback` when unset. */
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
/** An absolute znode path variable, `fallback` when unset. */
export const absolutePath = (fallback: string) => z.string().regex(/^\/[^\s]*$/, 'must be an absolute znode path').default(fallback);
/** `ZK_CONNECT`: `host:port[,host:port…]`, required. */
export const zkConnectVar = () => z.string({ error: 'is required' }).regex(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, 'must be host:port[,host:port…]');
/**
 * `FAILOUT_QUEUE_URL`: an http(s) URL with a path. Not `z.url()`: fauxqs' queue URLs
 * (`http://sqs.us-east-1.127.0.0.1:<port>/…`) have a host that ends in a number, which WHATWG parsing
 * refuses, yet the SDK sends to them.
 */
export const queueUrlVar = () => z.string({ error: 'is required' }).regex(/^https?:\/\/[^\s/]+\/\S+$/, 'must be the http(s) URL of the request queue');
/** `ZK_SESSION_TIMEOUT_MS` and `ZK_CONNECT_TIMEOUT_MS`, spread last into a schema. */
export const zkTimeoutVars = () => ({ ZK_SESSION_TIMEOUT_MS: positiveInt(15_000), ZK_CONNECT_TIMEOUT_MS: positiveInt(10_000) });

/**
 * The environment (unset and empty variables alike left out) parsed by `schema`, and the ZooKeeper TLS
 * options. @throws what `configError` makes of `invalid configuration: <VARIABLE> <problem>; …`.
 */
export function parseLambdaEnv<S extends z.ZodType>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  configError: (message: string, options?: ErrorOptions) => Error,
): { readonly vars: z.output<S>; readonly tls: ZkTlsOptions | undefined } {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(input);
  if (!parsed.success) throw configError(`invalid configuration: ${parsed.error.issues.map((i) => `${String(i.path[0] ?? '(environment)')} ${i.message}`).join('; ')}`);
  try {
    return { vars: parsed.data, tls: loadZkTlsFromEnv(env) };
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw configError(`invalid configuration: ${err.message}`, { cause: err });
    throw err;
  }
}

/** Where and how the read-only session connects. */
export interface ReadOnlySessionConfig {
  /** `host:port[,…]` of the ensemble (`ZK_CONNECT`). */
  readonly zkConnect: string;
  /** `ZK_SESSION_TIMEOUT_MS`. */
  readonly sessionTimeoutMs: number;
  /** How long the first connect may take (`ZK_CONNECT_TIMEOUT_MS`). */
  readonly connectTimeoutMs: number;
  /** From `ZK_TLS_*`; undefined for plain TCP. */
  readonly tls: ZkTlsOptions | undefined;
}

/** A started session without credential; closed again when the first connect fails. @throws ZkError when ZooKeeper is out of reach. */
export async function startReadOnlySession(config: ReadOnlySessionConfig, logger: RequestLogger): Promise<ZkSession> {
  const session = new ZkSession({ connectString: config.zkConnect, sessionTimeoutMs: config.sessionTimeoutMs, tls: config.tls });
  try {
    await session.start(config.connectTimeoutMs);
  } catch (err) {
    await session.close();
    throw err;
  }
  logger.info('zookeeper session ready', { zkConnect: config.zkConnect, tls: config.tls !== undefined });
  return session;
}

/** Sends with one SDK client (the SDK's endpoint: `AWS_ENDPOINT_URL_SQS` locally). */
export function sqsSender(): MessageSender {
  const sqs = new SQSClient({ logger: credentialHidingLogger });
  return async (message) => {
    const out = await sqs.send(new SendMessageCommand(message));
    return out.MessageId === undefined ? {} : { messageId: out.MessageId };
  };
}
