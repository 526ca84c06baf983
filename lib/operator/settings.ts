import { zkTlsFilesFromEnv, ZkTlsConfigError, type ZkTlsFiles } from '../zk/config';
import { DEFAULT_EVACUATIONS_PATH, DEFAULT_MAX_PEER_LOAD_FACTOR } from '../requests';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { inputError, type OperatorEnv } from './errors';

/** Connection flags every command accepts; each overrides its environment variable. */
export interface ConnectionFlags {
  queueUrl?: string;
  zk?: string;
  sqsEndpoint?: string;
  d2Base?: string;
  requestsBase?: string;
  zkTlsCa?: string;
  zkTlsCert?: string;
  zkTlsKey?: string;
}

/** Default port of the console (a fixed one, so an ssh tunnel can be set up once). */
export const DEFAULT_CONSOLE_PORT = 8300;

/**
 * The console's own options, as text: the `failout console` flags (lib/cli) that lib/console starts
 * from, each over its variable. One shape for both, kept here because neither imports the other.
 */
export interface ConsoleStartOptions extends ConnectionFlags {
  port?: string;
  listen?: string;
  token?: string;
  bridgeAdmin?: string[];
  bridgeToken?: string;
  metrics?: string[];
  trafficMetric?: string;
  alarmsUrl?: string;
  cloudwatchAlarms?: boolean;
}

/** Where the CLI sends requests and reads state, after flags and environment are merged. */
export interface OperatorSettings {
  /** `--queue-url` / `FAILOUT_QUEUE_URL`. */
  readonly queueUrl: string | undefined;
  /** `--zk` / `ZK_CONNECT`. */
  readonly zkConnect: string | undefined;
  /**
   * TLS to ZooKeeper: `--zk-tls-ca` / `ZK_TLS_CA`, `--zk-tls-cert` / `ZK_TLS_CERT`, `--zk-tls-key` /
   * `ZK_TLS_KEY` (PEM file paths, read when the session opens), `ZK_TLS_SERVERNAME`, `ZK_TLS_VERIFY`.
   * Undefined: plain TCP.
   */
  readonly zkTls: ZkTlsFiles | undefined;
  /** `--sqs-endpoint` / `SQS_ENDPOINT`: a local SQS (fauxqs); unset means AWS. */
  readonly sqsEndpoint: string | undefined;
  /** `AWS_REGION`, else the region in an AWS queue URL, else `us-east-1`. */
  readonly region: string;
  /** `--d2-base` / `D2_BASE_PATH` (as the worker reads it), default `/d2`. */
  readonly d2Base: string;
  /** `--requests-base` / `FAILOUT_REQUESTS_PATH` (as the worker reads it), default `/failout/requests`. */
  readonly requestsBase: string;
  /**
   * `FAILOUT_FABRICS_PATH`: the parent of the fabric maps (`<path>/<fabric>`), default `/failout/fabrics`.
   * Checked by the reads that use it (`readFabrics`), so a bad value never stops another command.
   */
  readonly fabricsBase: string;
  /**
   * `FAILOUT_EVACUATIONS_PATH`: the parent of the evacuation nodes (`<path>/<fabric>`, issue 23), default
   * `/failout/evacuations`, as the worker keeps them.
   */
  readonly evacuationsBase: string;
  /**
   * `MAX_PEER_LOAD_FACTOR` (as the worker reads it; set it to the deployment's value so the checks
   * before sending and `--dry-run` agree with the worker), default 2.0.
   */
  readonly maxPeerLoadFactor: number;
}

/** Default paths, as the request worker uses them. */
export const DEFAULT_D2_BASE = '/d2';
export const DEFAULT_REQUESTS_BASE = '/failout/requests';

/** Merges flags over environment (flags win; empty strings count as unset). */
export function resolveSettings(flags: ConnectionFlags, env: OperatorEnv): OperatorSettings {
  const pick = (flag: string | undefined, variable: string): string | undefined => nonEmpty(flag) ?? nonEmpty(env[variable]);
  const queueUrl = pick(flags.queueUrl, 'FAILOUT_QUEUE_URL');
  return {
    queueUrl,
    zkConnect: pick(flags.zk, 'ZK_CONNECT'),
    zkTls: resolveZkTls(flags, env, pick),
    sqsEndpoint: pick(flags.sqsEndpoint, 'SQS_ENDPOINT'),
    region: nonEmpty(env.AWS_REGION) ?? nonEmpty(env.AWS_DEFAULT_REGION) ?? regionOfQueueUrl(queueUrl) ?? 'us-east-1',
    d2Base: pick(flags.d2Base, 'D2_BASE_PATH') ?? DEFAULT_D2_BASE,
    requestsBase: pick(flags.requestsBase, 'FAILOUT_REQUESTS_PATH') ?? DEFAULT_REQUESTS_BASE,
    fabricsBase: nonEmpty(env.FAILOUT_FABRICS_PATH) ?? DEFAULT_FABRICS_PATH,
    evacuationsBase: nonEmpty(env.FAILOUT_EVACUATIONS_PATH) ?? DEFAULT_EVACUATIONS_PATH,
    maxPeerLoadFactor: resolveMaxPeerLoadFactor(nonEmpty(env.MAX_PEER_LOAD_FACTOR)),
  };
}

/** `MAX_PEER_LOAD_FACTOR` by the worker's rule (a number of at least 1). @throws OperatorError `usage` otherwise. */
function resolveMaxPeerLoadFactor(text: string | undefined): number {
  if (text === undefined) return DEFAULT_MAX_PEER_LOAD_FACTOR;
  const value = Number(text);
  if (!Number.isFinite(value) || value < 1) throw inputError(`MAX_PEER_LOAD_FACTOR must be a number of at least 1 such as 2.0, not ${JSON.stringify(text)}`);
  return value;
}

/** The ZK_TLS_* settings with the flags over the variables. @throws OperatorError `usage` for a bad ZK_TLS_VERIFY. */
function resolveZkTls(flags: ConnectionFlags, env: OperatorEnv, pick: (flag: string | undefined, variable: string) => string | undefined): ZkTlsFiles | undefined {
  try {
    return zkTlsFilesFromEnv({
      ...env,
      ZK_TLS_CA: pick(flags.zkTlsCa, 'ZK_TLS_CA'),
      ZK_TLS_CERT: pick(flags.zkTlsCert, 'ZK_TLS_CERT'),
      ZK_TLS_KEY: pick(flags.zkTlsKey, 'ZK_TLS_KEY'),
    });
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw inputError(err.message);
    throw err;
  }
}

/** `https://sqs.eu-west-1.amazonaws.com/…` → `eu-west-1`; undefined for other URLs. */
export function regionOfQueueUrl(queueUrl: string | undefined): string | undefined {
  if (!queueUrl) return undefined;
  try {
    return /^sqs\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?$/.exec(new URL(queueUrl).hostname)?.[1];
  } catch {
    return undefined;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}
