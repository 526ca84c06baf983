import { z } from 'zod';
import type { AclRoles, DigestCredential } from '../zk';
import { aclRolesFromEnv, allowOpenAclFromEnv, parseDigestCredential } from '../zk/config';
import { loadZkTlsFromEnv, ZkTlsConfigError, type ZkTlsOptions } from '../zk/config';
import { DEFAULT_MAX_PEER_LOAD_FACTOR } from './capacity';
import { parseDuration } from './duration';
import { RequestError } from './errors';
import { DEFAULT_REQUEST_LIMITS } from './schema';
import { DEFAULT_MAX_MULTI_BYTES } from './evacuation-writes';

/**
 * The request worker's configuration, from the environment (the Lambda's, or the local stack's):
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `ZK_CONNECT` | `host:port[,…]` of the ensemble | required |
 * | `D2_BASE_PATH` | D2 base path | `/d2` |
 * | `FAILOUT_REQUESTS_PATH` | parent of the request records | `/failout/requests` |
 * | `FAILOUT_DRILLS_PATH`, `FAILOUT_FABRICS_PATH`, `FAILOUT_EVACUATIONS_PATH` | parents of the drills, the fabric maps and the evacuation nodes (issue 23), as the CLI and the drill runner read them | `/failout/drills`, `/failout/fabrics`, `/failout/evacuations` |
 * | `FAILOUT_MAX_MULTI_BYTES` | byte budget of one ZooKeeper multi for an evacuation; larger ones are written as an ordered plan (keep below the ensemble's `jute.maxbuffer`) | 921600 |
 * | `MAX_FAILOUT_WINDOW` | longest window end ahead: ISO-8601 (`PT72H`) or short (`72h`) | `72h` |
 * | `MAX_REQUEST_BYTES`, `MAX_PEERS` | guard rails | 16384, 10 |
 * | `MAX_PEER_LOAD_FACTOR` | capacity guard: the most a failout may multiply a peer's load per host (lib/requests `capacity.ts`); the CLI reads it too | 2.0 |
 * | `FAILOUT_RECORD_RETENTION` | how long request records are kept before the worker prunes them: ISO-8601 (`P30D`) or short (`30d`), at least 1 day | `30d` |
 * | `ZK_SESSION_TIMEOUT_MS`, `ZK_CONNECT_TIMEOUT_MS` | session timeout, first-connect wait | 15000, 10000 |
 * | `ZK_DIGEST_SECRET_ARN` | Secrets Manager secret holding `user:password` (or JSON `{user, password}`) | — |
 * | `ZK_DIGEST` | `user:password` in plain text, for local runs | — |
 * | `ZK_TLS_CA`, `ZK_TLS_CERT`, `ZK_TLS_KEY` | PEM file paths: TLS to ZooKeeper's `secureClientPort` (also `ZK_TLS_SERVERNAME`, `ZK_TLS_VERIFY`; docs/deployers.md "ZooKeeper over TLS") | plain TCP |
 * | `ZK_ACL_BRIDGE_ID`, `ZK_ACL_ADMIN_ID` (`ZK_ACL_WRITER_ID`, `ZK_ACL_ANNOUNCER_ID`) | other roles' digest ids, for the ACLs of nodes the writer creates | — |
 * | `FAILOUT_ALLOW_OPEN_ACL` | `1`: write even into a tree anyone may change, and without a credential create open nodes | — |
 * | `FAILOUT_ALARMS_CLOUDWATCH` | `1`: read the alarms requests name from CloudWatch `DescribeAlarms` (the deployed worker) | — |
 * | `FAILOUT_ALARMS_URL` | read them over HTTP, `{"alarms":[{"name","state"}]}` (the local stack's evaluator) | — |
 *
 * At most one of the two digest variables, and of the two alarm variables; with neither alarm variable
 * the worker does not check the alarms requests name (`alarm-check.ts`). With neither, the writer refuses to start unless
 * `FAILOUT_ALLOW_OPEN_ACL=1` (see `resolveWriterAcl`).
 */
export interface RequestsConfig {
  readonly zkConnect: string;
  readonly d2BasePath: string;
  readonly requestsPath: string;
  readonly drillsPath: string;
  readonly fabricsPath: string;
  readonly evacuationsPath: string;
  /** `FAILOUT_MAX_MULTI_BYTES`: an evacuation larger than this is written as an ordered plan. */
  readonly maxMultiBytes: number;
  readonly maxWindowMs: number;
  readonly maxBodyBytes: number;
  readonly maxPeers: number;
  /** `MAX_PEER_LOAD_FACTOR`: the capacity guard's limit, at least 1 (a factor below 1 would refuse every failout). */
  readonly maxPeerLoadFactor: number;
  /** `FAILOUT_RECORD_RETENTION` in ms: records older than this are pruned (lib/requests `record-retention.ts`). */
  readonly recordRetentionMs: number;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  /** TLS to ZooKeeper from `ZK_TLS_*` (files read); undefined: plain TCP. Logs as file paths, never contents. */
  readonly tls: ZkTlsOptions | undefined;
  readonly digest: { readonly source: 'secret'; readonly arn: string } | { readonly source: 'plain'; readonly credential: DigestCredential } | { readonly source: 'none' };
  /** Other roles' identities (digest ids) for the ACLs the writer gives what it creates; its own comes from its credential. */
  readonly aclRoles: AclRoles;
  /** `FAILOUT_ALLOW_OPEN_ACL`: accept a tree anyone may change (and, without a credential, create open nodes). */
  readonly allowOpenAcl: boolean;
  /** Where the alarms requests name are read: `FAILOUT_ALARMS_CLOUDWATCH=1`, `FAILOUT_ALARMS_URL`, or nowhere. */
  readonly alarms: AlarmSourceConfig;
}

/** Where the worker reads alarm states (issue 21). */
export type AlarmSourceConfig = { readonly source: 'none' } | { readonly source: 'cloudwatch' } | { readonly source: 'http'; readonly url: string };

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const absolutePath = (fallback: string) => z.string().regex(/^\/[^\s]*$/, 'must be an absolute znode path').default(fallback);

const envSchema = z.object({
  ZK_CONNECT: z.string({ error: 'is required' }).regex(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, 'must be host:port[,host:port…]'),
  D2_BASE_PATH: absolutePath('/d2'),
  FAILOUT_REQUESTS_PATH: absolutePath('/failout/requests'),
  FAILOUT_DRILLS_PATH: absolutePath('/failout/drills'),
  FAILOUT_FABRICS_PATH: absolutePath('/failout/fabrics'),
  FAILOUT_EVACUATIONS_PATH: absolutePath('/failout/evacuations'),
  FAILOUT_MAX_MULTI_BYTES: z.coerce.number().int().min(4096, 'must be a byte count of at least 4096').default(DEFAULT_MAX_MULTI_BYTES),
  MAX_FAILOUT_WINDOW: z
    .string()
    .default('72h')
    .refine((v) => (parseDuration(v) ?? 0) > 0, 'must be a positive duration such as PT72H or 72h'),
  MAX_REQUEST_BYTES: positiveInt(DEFAULT_REQUEST_LIMITS.maxBodyBytes),
  MAX_PEERS: positiveInt(DEFAULT_REQUEST_LIMITS.maxPeers),
  MAX_PEER_LOAD_FACTOR: z.coerce.number().finite().min(1, 'must be a number of at least 1 such as 2.0').default(DEFAULT_MAX_PEER_LOAD_FACTOR),
  // At least a day: a record is what makes a redelivered message a duplicate, and SQS redelivers for
  // as long as the message is retained (the queue's retention; the README says to keep above it).
  FAILOUT_RECORD_RETENTION: z
    .string()
    .default('30d')
    .refine((v) => (parseDuration(v) ?? 0) >= 86_400_000, 'must be a duration of at least one day such as P30D or 30d'),
  ZK_SESSION_TIMEOUT_MS: positiveInt(15_000),
  ZK_CONNECT_TIMEOUT_MS: positiveInt(10_000),
  ZK_DIGEST_SECRET_ARN: z.string().min(1).optional(),
  ZK_DIGEST: z.string().regex(/^[^:]+:.+$/, 'must be user:password').optional(),
  FAILOUT_ALARMS_CLOUDWATCH: z.enum(['0', '1', 'true', 'false'], { error: 'must be 1 or 0' }).optional(),
  FAILOUT_ALARMS_URL: z
    .string()
    .trim()
    .refine((v) => /^https?:$/.test(urlProtocol(v)), 'must be an http(s) URL such as http://127.0.0.1:4566/alarms')
    // The HTTP source never fetches such a URL (its messages would show the password): refused at start.
    .refine((v) => !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*@/i.test(v), 'must have no credentials (user:password@): messages and logs would show them')
    .optional(),
});

function urlProtocol(text: string): string {
  try {
    return new URL(text).protocol;
  } catch {
    return '';
  }
}

/**
 * Reads and validates the configuration.
 * @throws RequestError `invalidConfig` naming every offending variable (`variable`: the first).
 */
export function loadRequestsConfig(env: NodeJS.ProcessEnv = process.env): RequestsConfig {
  const input = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${String(i.path[0] ?? '(environment)')} ${i.message}`);
    throw new RequestError('invalidConfig', `invalid configuration: ${problems.join('; ')}`, { variable: String(parsed.error.issues[0]?.path[0] ?? '') });
  }
  const e = parsed.data;
  const roles = aclRolesFromEnv(env);
  if (!roles.ok) throw new RequestError('invalidConfig', `invalid configuration: ${roles.variable} ${roles.message}`, { variable: roles.variable });
  const cloudWatch = e.FAILOUT_ALARMS_CLOUDWATCH === '1' || e.FAILOUT_ALARMS_CLOUDWATCH === 'true';
  if (cloudWatch && e.FAILOUT_ALARMS_URL) {
    throw new RequestError('invalidConfig', 'invalid configuration: FAILOUT_ALARMS_CLOUDWATCH and FAILOUT_ALARMS_URL name two alarm sources; set one', { variable: 'FAILOUT_ALARMS_URL' });
  }
  if (e.ZK_DIGEST_SECRET_ARN && e.ZK_DIGEST) {
    throw new RequestError('invalidConfig', 'invalid configuration: ZK_DIGEST_SECRET_ARN and ZK_DIGEST are exclusive; set one', { variable: 'ZK_DIGEST' });
  }
  return {
    zkConnect: e.ZK_CONNECT,
    d2BasePath: e.D2_BASE_PATH,
    requestsPath: e.FAILOUT_REQUESTS_PATH,
    drillsPath: e.FAILOUT_DRILLS_PATH,
    fabricsPath: e.FAILOUT_FABRICS_PATH,
    evacuationsPath: e.FAILOUT_EVACUATIONS_PATH,
    maxMultiBytes: e.FAILOUT_MAX_MULTI_BYTES,
    maxWindowMs: parseDuration(e.MAX_FAILOUT_WINDOW)!,
    maxBodyBytes: e.MAX_REQUEST_BYTES,
    maxPeers: e.MAX_PEERS,
    maxPeerLoadFactor: e.MAX_PEER_LOAD_FACTOR,
    recordRetentionMs: parseDuration(e.FAILOUT_RECORD_RETENTION)!,
    sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS,
    connectTimeoutMs: e.ZK_CONNECT_TIMEOUT_MS,
    tls: loadTls(env),
    digest: e.ZK_DIGEST_SECRET_ARN
      ? { source: 'secret', arn: e.ZK_DIGEST_SECRET_ARN }
      : e.ZK_DIGEST
        ? { source: 'plain', credential: parseDigest(e.ZK_DIGEST, 'ZK_DIGEST') }
        : { source: 'none' },
    aclRoles: roles.roles,
    allowOpenAcl: allowOpenAclFromEnv(env),
    alarms: cloudWatch ? { source: 'cloudwatch' } : e.FAILOUT_ALARMS_URL ? { source: 'http', url: e.FAILOUT_ALARMS_URL } : { source: 'none' },
  };
}

function loadTls(env: NodeJS.ProcessEnv): ZkTlsOptions | undefined {
  try {
    return loadZkTlsFromEnv(env);
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw new RequestError('invalidConfig', `invalid configuration: ${err.message}`, { variable: err.setting, cause: err });
    throw err;
  }
}

/** Fetches a secret's value (Powertools Parameters' `getSecret` in the Lambda). */
export type SecretReader = (arn: string) => Promise<unknown>;

/**
 * The writer's digest credential: from the secret (through `getSecret`, which caches), the plain
 * value, or none. @throws RequestError `invalidConfig` when the secret is empty or malformed.
 */
export async function resolveDigestCredential(config: RequestsConfig, getSecret: SecretReader): Promise<DigestCredential | undefined> {
  if (config.digest.source === 'none') return undefined;
  if (config.digest.source === 'plain') return config.digest.credential;
  const value = await getSecret(config.digest.arn);
  const text = value instanceof Uint8Array ? Buffer.from(value).toString('utf8') : value;
  if (typeof text !== 'string' || text === '') {
    throw new RequestError('invalidConfig', `secret ${config.digest.arn} has no string value`, { variable: 'ZK_DIGEST_SECRET_ARN' });
  }
  const parsed = parseDigestCredential(text);
  if (!parsed.ok) throw new RequestError('invalidConfig', `secret ${config.digest.arn} ${parsed.problem}`, { variable: 'ZK_DIGEST_SECRET_ARN' });
  return parsed.credential;
}

function parseDigest(text: string, variable: string): DigestCredential {
  const parsed = parseDigestCredential(text);
  if (!parsed.ok) throw new RequestError('invalidConfig', `${variable} ${parsed.problem}`, { variable });
  return parsed.credential;
}
