/**
 * How the `failout-drills` Lambda (and the local stack's timer) gets its {@link DrillRunner}:
 * configuration from the environment → a read-only ZooKeeper session (TLS when configured, no
 * credential: drills, records and clusters are world-readable), an SQS client, alarm states
 * (`FAILOUT_ALARMS_URL` when set, else CloudWatch) → the runner. Made on the first tick, not at import,
 * so a cold start with ZooKeeper down fails that tick (the next one tries again); reused afterwards.
 */
import { z } from 'zod';
import { lazySource, parseDuration, type RequestLogger } from '../requests';
import { alarmStatesFromEnv } from './alarm-states';
import { DEFAULT_DRILL_GRACE_MS, DrillRunner } from './drill-runner';
import { SafetyError } from './errors';
import { absolutePath, parseLambdaEnv, queueUrlVar, sqsSender, startReadOnlySession, zkConnectVar, zkTimeoutVars, type ReadOnlySessionConfig } from './lambda-source';

/**
 * The runner's configuration:
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `ZK_CONNECT` | `host:port[,…]` of the ensemble | required |
 * | `FAILOUT_QUEUE_URL` | the request queue (FIFO) the runs go to | required |
 * | `D2_BASE_PATH`, `FAILOUT_REQUESTS_PATH`, `FAILOUT_DRILLS_PATH` | where clusters, records and drills live | `/d2`, `/failout/requests`, `/failout/drills` |
 * | `FAILOUT_FABRICS_PATH`, `FAILOUT_EVACUATIONS_PATH` | fabric maps and evacuation nodes (drain tests, issue 23) | `/failout/fabrics`, `/failout/evacuations` |
 * | `FAILOUT_ALARMS_URL` | alarm states over HTTP (the local stack); unset: CloudWatch `DescribeAlarms` | CloudWatch |
 * | `DRILL_GRACE` | a due time older than this is ignored (not caught up) | `10m` |
 * | `ZK_SESSION_TIMEOUT_MS`, `ZK_CONNECT_TIMEOUT_MS` | session timeout, first-connect wait | 15000, 10000 |
 * | `ZK_TLS_CA`, `ZK_TLS_CERT`, `ZK_TLS_KEY`, `ZK_TLS_SERVERNAME`, `ZK_TLS_VERIFY` | TLS to ZooKeeper | plain TCP |
 */
export interface DrillRunnerConfig extends ReadOnlySessionConfig {
  readonly queueUrl: string;
  readonly d2BasePath: string;
  readonly requestsPath: string;
  readonly drillsPath: string;
  readonly fabricsPath: string;
  readonly evacuationsPath: string;
  readonly graceMs: number;
}

const envSchema = z.object({
  ZK_CONNECT: zkConnectVar(),
  FAILOUT_QUEUE_URL: queueUrlVar(),
  D2_BASE_PATH: absolutePath('/d2'),
  FAILOUT_REQUESTS_PATH: absolutePath('/failout/requests'),
  FAILOUT_DRILLS_PATH: absolutePath('/failout/drills'),
  FAILOUT_FABRICS_PATH: absolutePath('/failout/fabrics'),
  FAILOUT_EVACUATIONS_PATH: absolutePath('/failout/evacuations'),
  DRILL_GRACE: z
    .string()
    .refine((t) => (parseDuration(t) ?? 0) > 0, 'must be a positive duration such as 10m or PT10M')
    .optional(),
  ...zkTimeoutVars(),
});

/** Reads and validates the runner's configuration. @throws SafetyError `invalidConfig` naming every offending variable. */
export function loadDrillRunnerConfig(env: Readonly<Record<string, string | undefined>>): DrillRunnerConfig {
  const { vars: e, tls } = parseLambdaEnv(envSchema, env, (message, options) => new SafetyError('invalidConfig', message, options));
  return {
    zkConnect: e.ZK_CONNECT,
    queueUrl: e.FAILOUT_QUEUE_URL,
    d2BasePath: e.D2_BASE_PATH,
    requestsPath: e.FAILOUT_REQUESTS_PATH,
    drillsPath: e.FAILOUT_DRILLS_PATH,
    fabricsPath: e.FAILOUT_FABRICS_PATH,
    evacuationsPath: e.FAILOUT_EVACUATIONS_PATH,
    graceMs: e.DRILL_GRACE === undefined ? DEFAULT_DRILL_GRACE_MS : parseDuration(e.DRILL_GRACE)!,
    sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS,
    connectTimeoutMs: e.ZK_CONNECT_TIMEOUT_MS,
    tls,
  };
}

/** Options of {@link drillRunnerSource}. */
export interface DrillRunnerSourceOptions {
  /** The environment (`process.env` in the Lambda). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: RequestLogger;
}

/** Builds a runner over a started session. @throws SafetyError `invalidConfig`; ZkError when ZooKeeper is out of reach. */
export async function createDrillRunner(options: DrillRunnerSourceOptions): Promise<DrillRunner> {
  const config = loadDrillRunnerConfig(options.env);
  const session = await startReadOnlySession(config, options.logger);
  return new DrillRunner({
    zk: session,
    d2BasePath: config.d2BasePath,
    requestsPath: config.requestsPath,
    drillsPath: config.drillsPath,
    fabricsPath: config.fabricsPath,
    evacuationsPath: config.evacuationsPath,
    queueUrl: config.queueUrl,
    send: sqsSender(),
    alarms: alarmStatesFromEnv(options.env),
    logger: options.logger,
    graceMs: config.graceMs,
  });
}

/**
 * One runner per process (a Lambda container), made on the first tick and reused; a failed attempt is
 * forgotten so the next tick tries again; concurrent first calls share one attempt.
 */
export function drillRunnerSource(options: DrillRunnerSourceOptions): () => Promise<DrillRunner> {
  return lazySource(() => createDrillRunner(options));
}
