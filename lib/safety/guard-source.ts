/**
 * How the `failout-guard` Lambda gets its {@link StopGuard}, in AWS and locally alike (the local stack
 * runs the same bundle with a local environment): configuration from the environment → a read-only
 * ZooKeeper session (TLS when configured, no credential: cluster nodes are world-readable) and an SQS
 * client → the guard. Made on the first event, not at import, so a cold start with ZooKeeper down
 * fails the event (EventBridge retries it) instead of the init; reused afterwards.
 */
import { z } from 'zod';
import { lazySource, type RequestLogger } from '../requests';
import { SafetyError } from './errors';
import { absolutePath, parseLambdaEnv, queueUrlVar, sqsSender, startReadOnlySession, zkConnectVar, zkTimeoutVars, type ReadOnlySessionConfig } from './lambda-source';
import { StopGuard, type GuardCounter } from './stop-guard';

/**
 * The guard's configuration:
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `ZK_CONNECT` | `host:port[,…]` of the ensemble | required |
 * | `D2_BASE_PATH` | D2 base path | `/d2` |
 * | `FAILOUT_DRILLS_PATH` | where drills live (a run's late verdict: StopGuard `drillsPath`) | `/failout/drills` |
 * | `FAILOUT_QUEUE_URL` | the request queue (FIFO) the restores go to | required |
 * | `ZK_SESSION_TIMEOUT_MS`, `ZK_CONNECT_TIMEOUT_MS` | session timeout, first-connect wait | 15000, 10000 |
 * | `ZK_TLS_CA`, `ZK_TLS_CERT`, `ZK_TLS_KEY`, `ZK_TLS_SERVERNAME`, `ZK_TLS_VERIFY` | TLS to ZooKeeper | plain TCP |
 *
 * The SQS endpoint is the SDK's (`AWS_ENDPOINT_URL_SQS` locally).
 */
export interface GuardConfig extends ReadOnlySessionConfig {
  readonly d2BasePath: string;
  readonly drillsPath: string;
  readonly queueUrl: string;
}

const envSchema = z.object({
  ZK_CONNECT: zkConnectVar(),
  D2_BASE_PATH: absolutePath('/d2'),
  FAILOUT_DRILLS_PATH: absolutePath('/failout/drills'),
  FAILOUT_QUEUE_URL: queueUrlVar(),
  ...zkTimeoutVars(),
});

/** Reads and validates the guard's configuration. @throws SafetyError `invalidConfig` naming every offending variable. */
export function loadGuardConfig(env: Readonly<Record<string, string | undefined>>): GuardConfig {
  const { vars: e, tls } = parseLambdaEnv(envSchema, env, (message, options) => new SafetyError('invalidConfig', message, options));
  return { zkConnect: e.ZK_CONNECT, d2BasePath: e.D2_BASE_PATH, drillsPath: e.FAILOUT_DRILLS_PATH, queueUrl: e.FAILOUT_QUEUE_URL, sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS, connectTimeoutMs: e.ZK_CONNECT_TIMEOUT_MS, tls };
}

/** Options of {@link stopGuardSource}. */
export interface StopGuardSourceOptions {
  /** The environment (`process.env` in the Lambda). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: RequestLogger;
  /** Adds to a counter (Powertools metrics in the Lambda). */
  readonly count?: (counter: GuardCounter, value: number) => void;
}

/** Builds a guard over a started session. @throws SafetyError `invalidConfig`; ZkError when ZooKeeper is out of reach. */
export async function createStopGuard(options: StopGuardSourceOptions): Promise<StopGuard> {
  const config = loadGuardConfig(options.env);
  const session = await startReadOnlySession(config, options.logger);
  return new StopGuard({
    zk: session,
    d2BasePath: config.d2BasePath,
    drillsPath: config.drillsPath,
    queueUrl: config.queueUrl,
    send: sqsSender(),
    logger: options.logger,
    ...(options.count === undefined ? {} : { count: options.count }),
  });
}

/**
 * One guard per process (a Lambda container), made on the first event and reused; a failed attempt is
 * forgotten so the next event tries again; concurrent first calls share one attempt.
 */
export function stopGuardSource(options: StopGuardSourceOptions): () => Promise<StopGuard> {
  return lazySource(() => createStopGuard(options));
}
