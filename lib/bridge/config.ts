/**
 * The bridge's configuration: which services to follow, where their xDS data comes from (a gRPC
 * bootstrap), where D2 data goes (ZooKeeper), how fast it may be written, and the admin port.
 * Validated once at start with zod; every error names the offending field.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { z } from 'zod';
import { assertNodeName } from '../d2/data';
import { clientListenerResourceName, isXdsError, parseBootstrap, type Bootstrap } from '../xds';
import type { AclRoles } from '../zk';
import { ACL_ROLE_VARIABLES, aclRolesFromEnv, allowOpenAclFromEnv, parseAclRoles, parseDigestCredential } from '../zk/config';
import { loadZkTlsFiles, zkTlsFilesFromEnv, ZkTlsConfigError, type ZkTlsFiles, type ZkTlsOptions } from '../zk/config';
import { assertAdminToken } from './admin-access';
import { assertIsError, BridgeError } from './errors';

/** One followed service, with its defaults filled in. */
export interface ServiceConfig {
  /** The D2 service name, also the name matched against virtual host domains. */
  readonly name: string;
  /**
   * The LDS resource to watch. Default: the one a gRPC client of `xds:<name>` watches, i.e. the
   * bootstrap's `client_default_listener_resource_name_template` applied to `name` (gRFC A47; `name`
   * itself with the default template `%s`).
   */
  readonly listener: string;
  /** The D2 service `path`. Default: `/<name>`. */
  readonly path: string;
  /** The D2 service `loadBalancerStrategyList`. Default `['degraderV3']`. */
  readonly loadBalancerStrategyList: readonly string[];
}

/** Limits on ZooKeeper writes. */
export interface WriteBudget {
  /** Operations per multi (ZooKeeper's jute.maxbuffer bounds a request at about 1 MB). */
  readonly maxOpsPerMulti: number;
  /** Payload bytes per multi. */
  readonly maxBytesPerMulti: number;
  /** Sustained write operations per second (token bucket, one second of burst). */
  readonly maxOpsPerSecond: number;
}

/** A validated bridge configuration. */
export interface BridgeConfig {
  /** This replica's name in the leader election and in `/status`. */
  readonly replicaId: string;
  readonly bootstrap: Bootstrap;
  readonly services: readonly ServiceConfig[];
  readonly zookeeper: {
    readonly connectString: string;
    /** D2 base path, default `/d2`. */
    readonly basePath: string;
    /** Parent of the election candidates, default `/failout/bridge/leader`. */
    readonly electionPath: string;
    readonly sessionTimeoutMs: number;
    readonly credentials: readonly { user: string; password: string }[];
    /** TLS to the ensemble's `secureClientPort` (docs/deployers.md "ZooKeeper over TLS"); plain TCP when undefined. */
    readonly tls: ZkTlsOptions | undefined;
  };
  readonly writeBudget: WriteBudget;
  /**
   * The identities (digest ids, never passwords) the ACLs of the bridge's nodes grant (docs/deployers.md "Access
   * control"): `requestWriter` may set cluster nodes, `announcer` may announce under `/d2/uris/<cluster>`,
   * `admin` may do everything. The ids of `zookeeper.credentials` join `bridge` at start.
   */
  readonly acl: AclRoles;
  /**
   * Start even when ZooKeeper holds nodes of the bridge's tree that anyone could change, and, without
   * credentials, create nodes with an open ACL. Default false: the bridge refuses and says which nodes.
   */
  readonly allowOpenAcl: boolean;
  /** Scheme of the URIs written for endpoints. */
  readonly uriScheme: 'http' | 'https';
  /** How long a resource must stay does-not-exist before its D2 data is removed. */
  readonly deletionGraceMs: number;
  /** xDS does-not-exist timer (default: the bootstrap's). */
  readonly watchExpiryMs: number | undefined;
  /** Retry cap towards the primary while on a fallback server (default: the bootstrap's). */
  readonly fallbackProbeCapMs: number | undefined;
  /**
   * The admin endpoints: HTTP on `port` (default 9901) and gRPC on `grpcPort` (default 9902; CSDS,
   * gRFC A40; undefined when configured `null`: no gRPC admin server), both on `host`. `host` defaults to
   * loopback; any other address needs `token` (`BRIDGE_ADMIN_TOKEN`, at least 32 characters), which every
   * HTTP path but `/healthz` and every gRPC call (metadata `authorization: Bearer …`) then require
   * (`admin-access.ts`).
   */
  readonly admin: { readonly host: string; readonly port: number; readonly grpcPort: number | undefined; readonly token: string | undefined };
}

const name = z.string().min(1);
const serviceSchema = z.union([
  name,
  z.strictObject({
    name,
    listener: name.optional(),
    path: z.string().optional(),
    loadBalancerStrategyList: z.array(name).min(1).optional(),
  }),
]);
const positiveInt = z.number().int().positive();
const port = z.number().int().min(0).max(65535);
const digestIds = z.union([z.string(), z.array(z.string())]).optional();
const ACL_FIELDS = { bridge: 'acl.bridge', requestWriter: 'acl.requestWriter', announcer: 'acl.announcer', admin: 'acl.admin' } as const;

const configSchema = z.strictObject({
  replicaId: name.optional(),
  bootstrap: z.union([z.strictObject({ file: name }), z.record(z.string(), z.unknown())]),
  services: z.array(serviceSchema).min(1),
  zookeeper: z.strictObject({
    connectString: name,
    basePath: z.string().default('/d2'),
    electionPath: z.string().regex(/^\/./, 'must be an absolute znode path').default('/failout/bridge/leader'),
    sessionTimeoutMs: positiveInt.default(15_000),
    credentials: z.array(z.strictObject({ user: name, password: name })).default([]),
    // PEM file paths (read at start), as lib/zk's ZkTlsFiles; the ZK_TLS_* variables override field by field.
    tls: z.strictObject({ caFile: name.optional(), certFile: name.optional(), keyFile: name.optional(), servername: name.optional(), verify: z.boolean().optional() }).optional(),
  }),
  writeBudget: z
    .strictObject({
      maxOpsPerMulti: positiveInt.max(10_000).default(200),
      maxBytesPerMulti: positiveInt.max(1_000_000).default(512 * 1024),
      maxOpsPerSecond: positiveInt.default(2000),
    })
    .default({ maxOpsPerMulti: 200, maxBytesPerMulti: 512 * 1024, maxOpsPerSecond: 2000 }),
  acl: z.strictObject({ bridge: digestIds, requestWriter: digestIds, announcer: digestIds, admin: digestIds }).default({}),
  allowOpenAcl: z.boolean().default(false),
  uriScheme: z.enum(['http', 'https']).default('http'),
  deletionGraceMs: z.number().int().nonnegative().default(30_000),
  watchExpiryMs: positiveInt.optional(),
  fallbackProbeCapMs: positiveInt.optional(),
  // Loopback by default (issue 14): /status, /config_dump and CSDS show the whole xDS view.
  admin: z
    .strictObject({ host: name.default('127.0.0.1'), port: port.default(9901), grpcPort: port.nullable().default(9902), token: z.string().optional() })
    .default({ host: '127.0.0.1', port: 9901, grpcPort: 9902 }),
});

/** zod's issue path as `services[1].name`. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

function normalizeService(raw: z.infer<typeof serviceSchema>, index: number, bootstrap: Bootstrap): ServiceConfig {
  const s = typeof raw === 'string' ? { name: raw } : raw;
  try {
    assertNodeName(s.name, 'service name');
  } catch (err) {
    throw new BridgeError('config', 'is not a valid znode name', { field: `services[${index}]${typeof raw === 'string' ? '' : '.name'}`, cause: err });
  }
  return {
    name: s.name,
    listener: s.listener ?? clientListenerResourceName(bootstrap, s.name),
    path: s.path ?? `/${s.name}`,
    loadBalancerStrategyList: s.loadBalancerStrategyList ?? ['degraderV3'],
  };
}

function loadBootstrapField(raw: z.infer<typeof configSchema>['bootstrap']): Bootstrap {
  let object: unknown = raw;
  if ('file' in raw && typeof raw.file === 'string' && Object.keys(raw).length === 1) {
    try {
      object = JSON.parse(readFileSync(raw.file, 'utf8'));
    } catch (err) {
      assertIsError(err);
      throw new BridgeError('config', `cannot read bootstrap file ${raw.file}: ${err.message}`, { field: 'bootstrap.file', cause: err });
    }
  }
  try {
    return parseBootstrap(object);
  } catch (err) {
    if (isXdsError(err, 'bootstrap')) throw new BridgeError('config', err.message, { field: `bootstrap${err.field ? `.${err.field}` : ''}`, cause: err });
    throw err;
  }
}

/**
 * Validates a configuration object and fills in defaults.
 * @throws BridgeError `config` whose `field` names the first bad field (`zookeeper.connectString`,
 * `services[2]`, `bootstrap.xds_servers[0].server_uri`, …).
 */
export function parseBridgeConfig(input: unknown): BridgeConfig {
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new BridgeError('config', issue.message, { field: fieldPath(issue.path) || '(root)', cause: parsed.error });
  }
  const c = parsed.data;
  const roles = parseAclRoles(c.acl, ACL_FIELDS);
  if (!roles.ok) throw new BridgeError('config', roles.message, { field: roles.variable });
  assertAdminToken(c.admin.token);
  const bootstrap = loadBootstrapField(c.bootstrap);
  const services = c.services.map((s, i) => normalizeService(s, i, bootstrap));
  const seen = new Set<string>();
  services.forEach((s, i) => {
    if (seen.has(s.name)) throw new BridgeError('config', `duplicate service ${s.name}`, { field: `services[${i}]` });
    seen.add(s.name);
  });
  return {
    replicaId: c.replicaId ?? `${hostname()}-${process.pid}`,
    bootstrap,
    services,
    zookeeper: { ...c.zookeeper, tls: c.zookeeper.tls ? loadZooKeeperTls(c.zookeeper.tls) : undefined },
    writeBudget: c.writeBudget,
    acl: roles.roles,
    allowOpenAcl: c.allowOpenAcl,
    uriScheme: c.uriScheme,
    deletionGraceMs: c.deletionGraceMs,
    watchExpiryMs: c.watchExpiryMs,
    fallbackProbeCapMs: c.fallbackProbeCapMs,
    admin: { host: c.admin.host, port: c.admin.port, grpcPort: c.admin.grpcPort ?? undefined, token: c.admin.token },
  };
}

/** Reads the PEM files of `zookeeper.tls`; a bad one is a config error naming its field. */
function loadZooKeeperTls(files: ZkTlsFiles): ZkTlsOptions {
  try {
    return loadZkTlsFiles(files, { caFile: 'zookeeper.tls.caFile', certFile: 'zookeeper.tls.certFile', keyFile: 'zookeeper.tls.keyFile' });
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw new BridgeError('config', err.detail, { field: err.setting, cause: err });
    throw err;
  }
}

/**
 * Reads the configuration the way the Fargate task gets it: JSON from `XDS_BRIDGE_CONFIG_FILE` or
 * `XDS_BRIDGE_CONFIG`, then environment overrides — `ZK_CONNECT`, `ZK_CREDENTIALS` (`user:password`),
 * `ZK_ACL_WRITER_ID` / `ZK_ACL_ANNOUNCER_ID` / `ZK_ACL_ADMIN_ID` / `ZK_ACL_BRIDGE_ID` (digest ids, see
 * lib/zk `acl-config.ts`), `FAILOUT_ALLOW_OPEN_ACL=1`,
 * `ZK_TLS_CA` / `ZK_TLS_CERT` / `ZK_TLS_KEY` (PEM file paths) / `ZK_TLS_SERVERNAME` / `ZK_TLS_VERIFY` (TLS to
 * ZooKeeper, over `zookeeper.tls` field by field),
 * `ADMIN_HOST`, `ADMIN_PORT`, `ADMIN_GRPC_PORT`, `BRIDGE_ADMIN_TOKEN` (the admin bearer token, from a secret), `BRIDGE_REPLICA_ID`,
 * and `GRPC_XDS_BOOTSTRAP` (a bootstrap file) when the JSON has none.
 * @throws BridgeError `config` naming the field (or the variable) at fault.
 */
export function loadBridgeConfig(env: NodeJS.ProcessEnv = process.env): BridgeConfig {
  const raw = readRawConfig(env);
  const zookeeper = { ...(raw.zookeeper as Record<string, unknown> | undefined) };
  if (env.ZK_CONNECT) zookeeper.connectString = env.ZK_CONNECT;
  if (env.ZK_CREDENTIALS) {
    // The same rule as the worker's secret: user:password or JSON {user, password} (never quoted back).
    const parsed = parseDigestCredential(env.ZK_CREDENTIALS);
    if (!parsed.ok) throw new BridgeError('config', parsed.problem, { field: 'ZK_CREDENTIALS' });
    zookeeper.credentials = [parsed.credential];
  }
  const tlsFromEnv = zkTlsFilesFromEnvOrThrow(env);
  if (tlsFromEnv) zookeeper.tls = { ...(zookeeper.tls as Record<string, unknown> | undefined), ...tlsFromEnv };
  const merged: Record<string, unknown> = { ...raw, zookeeper };
  // ZK_ACL_* (one per role, comma-separated digest ids) override the JSON's `acl` role by role.
  const fromEnv = aclRolesFromEnv(env);
  if (!fromEnv.ok) throw new BridgeError('config', fromEnv.message, { field: fromEnv.variable });
  const acl: Record<string, unknown> = { ...(raw.acl as Record<string, unknown> | undefined) };
  for (const [role, variable] of Object.entries(ACL_ROLE_VARIABLES)) if (env[variable]) acl[role] = env[variable];
  merged.acl = acl;
  if (allowOpenAclFromEnv(env)) merged.allowOpenAcl = true;
  if (env.ADMIN_PORT) merged.admin = { ...(raw.admin as object | undefined), port: Number(env.ADMIN_PORT) };
  if (env.ADMIN_GRPC_PORT) merged.admin = { ...(merged.admin as object | undefined), grpcPort: Number(env.ADMIN_GRPC_PORT) };
  if (env.ADMIN_HOST) merged.admin = { ...(merged.admin as object | undefined), host: env.ADMIN_HOST };
  if (env.BRIDGE_ADMIN_TOKEN) merged.admin = { ...(merged.admin as object | undefined), token: env.BRIDGE_ADMIN_TOKEN };
  if (env.BRIDGE_REPLICA_ID) merged.replicaId = env.BRIDGE_REPLICA_ID;
  if (merged.bootstrap === undefined && env.GRPC_XDS_BOOTSTRAP) merged.bootstrap = { file: env.GRPC_XDS_BOOTSTRAP };
  return parseBridgeConfig(merged);
}

function zkTlsFilesFromEnvOrThrow(env: NodeJS.ProcessEnv): ZkTlsFiles | undefined {
  try {
    return zkTlsFilesFromEnv(env);
  } catch (err) {
    if (err instanceof ZkTlsConfigError) throw new BridgeError('config', err.detail, { field: err.setting, cause: err });
    throw err;
  }
}

function readRawConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const [field, text] = env.XDS_BRIDGE_CONFIG_FILE
    ? ['XDS_BRIDGE_CONFIG_FILE', readConfigFile(env.XDS_BRIDGE_CONFIG_FILE)]
    : ['XDS_BRIDGE_CONFIG', env.XDS_BRIDGE_CONFIG ?? '{}'];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    assertIsError(err);
    // No cause and no message of JSON.parse: V8 quotes the text around the bad token, and this text may
    // hold zookeeper.credentials or admin.token (the main logs the error with its causes).
    throw new BridgeError('config', `invalid JSON${jsonErrorPosition(err)} (the text is not quoted: it may hold credentials)`, { field });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new BridgeError('config', 'invalid JSON: not a JSON object', { field });
  return value as Record<string, unknown>;
}

/** ` at position 58` when JSON.parse's message gives one (only the position: the message may quote the text). */
function jsonErrorPosition(err: Error): string {
  const position = /at position (\d+)/.exec(err.message)?.[1];
  return position === undefined ? '' : ` at position ${position}`;
}

function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (err) {
    assertIsError(err);
    throw new BridgeError('config', `cannot read ${path}: ${err.message}`, { field: 'XDS_BRIDGE_CONFIG_FILE', cause: err });
  }
}
