import { z } from 'zod';
import type { DigestCredential } from '../zk';
import { parseDuration } from './duration';
import { RequestError } from './errors';
import { DEFAULT_REQUEST_LIMITS } from './schema';

/**
 * The request worker's configuration, from the environment (the Lambda's, or the local stack's):
 *
 * | variable | meaning | default |
 * | --- | --- | --- |
 * | `ZK_CONNECT` | `host:port[,…]` of the ensemble | required |
 * | `D2_BASE_PATH` | D2 base path | `/d2` |
 * | `FAILOUT_REQUESTS_PATH` | parent of the request records | `/failout/requests` |
 * | `MAX_FAILOUT_WINDOW` | longest window end ahead: ISO-8601 (`PT72H`) or short (`72h`) | `72h` |
 * | `MAX_REQUEST_BYTES`, `MAX_PEERS` | guard rails | 16384, 10 |
 * | `ZK_SESSION_TIMEOUT_MS`, `ZK_CONNECT_TIMEOUT_MS` | session timeout, first-connect wait | 15000, 10000 |
 * | `ZK_DIGEST_SECRET_ARN` | Secrets Manager secret holding `user:password` (or JSON `{user, password}`) | — |
 * | `ZK_DIGEST` | `user:password` in plain text, for local runs | — |
 *
 * At most one of the two digest variables; with neither, the writer connects without credentials.
 */
export interface RequestsConfig {
  readonly zkConnect: string;
  readonly d2BasePath: string;
  readonly requestsPath: string;
  readonly maxWindowMs: number;
  readonly maxBodyBytes: number;
  readonly maxPeers: number;
  readonly sessionTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly digest: { readonly source: 'secret'; readonly arn: string } | { readonly source: 'plain'; readonly credential: DigestCredential } | { readonly source: 'none' };
}

const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);
const absolutePath = (fallback: string) => z.string().regex(/^\/[^\s]*$/, 'must be an absolute znode path').default(fallback);

const envSchema = z.object({
  ZK_CONNECT: z.string({ error: 'is required' }).regex(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, 'must be host:port[,host:port…]'),
  D2_BASE_PATH: absolutePath('/d2'),
  FAILOUT_REQUESTS_PATH: absolutePath('/failout/requests'),
  MAX_FAILOUT_WINDOW: z
    .string()
    .default('72h')
    .refine((v) => (parseDuration(v) ?? 0) > 0, 'must be a positive duration such as PT72H or 72h'),
  MAX_REQUEST_BYTES: positiveInt(DEFAULT_REQUEST_LIMITS.maxBodyBytes),
  MAX_PEERS: positiveInt(DEFAULT_REQUEST_LIMITS.maxPeers),
  ZK_SESSION_TIMEOUT_MS: positiveInt(15_000),
  ZK_CONNECT_TIMEOUT_MS: positiveInt(10_000),
  ZK_DIGEST_SECRET_ARN: z.string().min(1).optional(),
  ZK_DIGEST: z.string().regex(/^[^:]+:.+$/, 'must be user:password').optional(),
});

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
  if (e.ZK_DIGEST_SECRET_ARN && e.ZK_DIGEST) {
    throw new RequestError('invalidConfig', 'invalid configuration: ZK_DIGEST_SECRET_ARN and ZK_DIGEST are exclusive; set one', { variable: 'ZK_DIGEST' });
  }
  return {
    zkConnect: e.ZK_CONNECT,
    d2BasePath: e.D2_BASE_PATH,
    requestsPath: e.FAILOUT_REQUESTS_PATH,
    maxWindowMs: parseDuration(e.MAX_FAILOUT_WINDOW)!,
    maxBodyBytes: e.MAX_REQUEST_BYTES,
    maxPeers: e.MAX_PEERS,
    sessionTimeoutMs: e.ZK_SESSION_TIMEOUT_MS,
    connectTimeoutMs: e.ZK_CONNECT_TIMEOUT_MS,
    digest: e.ZK_DIGEST_SECRET_ARN
      ? { source: 'secret', arn: e.ZK_DIGEST_SECRET_ARN }
      : e.ZK_DIGEST
        ? { source: 'plain', credential: parseDigest(e.ZK_DIGEST, 'ZK_DIGEST') }
        : { source: 'none' },
  };
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
  if (text.trimStart().startsWith('{')) {
    const json = z.object({ user: z.string().min(1), password: z.string().min(1) }).safeParse(safeJson(text));
    if (!json.success) throw new RequestError('invalidConfig', `secret ${config.digest.arn} must be JSON {"user","password"} or user:password`, { variable: 'ZK_DIGEST_SECRET_ARN' });
    return json.data;
  }
  return parseDigest(text, 'ZK_DIGEST_SECRET_ARN');
}

function parseDigest(text: string, variable: string): DigestCredential {
  const colon = text.indexOf(':');
  if (colon <= 0 || colon === text.length - 1) throw new RequestError('invalidConfig', `${variable} must hold user:password`, { variable });
  return { user: text.slice(0, colon), password: text.slice(colon + 1) };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
