/**
 * gRPC xDS bootstrap parsing (gRFC A27, A47 authorities, A71 ordered xds_servers, A65 tls creds).
 *
 * Public names (stable; the client core depends on them):
 * - `Bootstrap` — `{ xdsServers, authorities, node, clientDefaultListenerResourceNameTemplate, failout }`.
 * - `XdsServerConfig` — `{ serverUri, channelCreds, serverFeatures, ignoreResourceDeletion, key, field }`.
 * - `ChannelCredsConfig` — `{ type: 'insecure' } | { type: 'tls', caCertificateFile?, certificateFile?, privateKeyFile? }`.
 * - `AuthorityConfig` — `{ xdsServers, clientListenerResourceNameTemplate }` (list already resolved:
 *   absent or empty → the top-level list).
 * - `NodeConfig`, `FailoutExtensions` — `{ fallbackProbeCapMs, resourceDoesNotExistTimeoutMs, fallback }`.
 * - `parseBootstrap(obj)`, `parseBootstrapJson(text)`, `readBootstrapFile(path)`,
 *   `loadBootstrapFromEnv(env?)`, `loadBootstrap(source?)` — all throw `XdsError` kind 'bootstrap' with
 *   `field` naming the bad field (e.g. `xds_servers[1].server_uri`).
 * - `serversFor(bootstrap, authority?)` — the effective ordered list (only the first entry when
 *   fallback is disabled, gRFC A71 "Env var").
 * - `channelCredentials(server)` — grpc.ChannelCredentials (insecure, or TLS from the files).
 * - `nodeMessage(node, clientFeatures?)` — the `envoy.config.core.v3.Node` to send.
 * - `BOOTSTRAP_EXTENSION_KEY` ('failout'), `DEFAULT_FALLBACK_PROBE_CAP_MS` (5000),
 *   `DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS` (15000), `CLIENT_FEATURES`.
 *
 * Our own settings live under the top-level key "failout"; gRPC implementations ignore unknown keys, so
 * one bootstrap also serves @grpc/grpc-js-xds.
 */
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { z } from 'zod';
import { assertIsError, XdsError } from './errors';
import type { NodeMessage } from './protos';

/** The top-level key of our extensions in the bootstrap. */
export const BOOTSTRAP_EXTENSION_KEY = 'failout';
/** Cap of the retry backoff towards higher-priority servers while serving from a fallback. */
export const DEFAULT_FALLBACK_PROBE_CAP_MS = 5000;
/** xds_protocol.rst "Knowing When a Requested Resource Does Not Exist": 15 s. */
export const DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS = 15_000;
/** client_features sent in Node, as grpc-go's xdsChannel does. */
export const CLIENT_FEATURES: readonly string[] = ['envoy.lb.does_not_support_overprovisioning', 'xds.config.resource-in-sotw'];
/** Server features that change behaviour, hence part of the channel de-dup key (gRFC A47). */
const KNOWN_SERVER_FEATURES: readonly string[] = ['ignore_resource_deletion', 'xds_v3', 'trusted_xds_server'];

/** Supported channel credentials (the first supported entry of `channel_creds` wins). */
export type ChannelCredsConfig =
  | { readonly type: 'insecure' }
  | { readonly type: 'tls'; readonly caCertificateFile?: string; readonly certificateFile?: string; readonly privateKeyFile?: string };

/** One management server. */
export interface XdsServerConfig {
  readonly serverUri: string;
  readonly channelCreds: ChannelCredsConfig;
  readonly serverFeatures: readonly string[];
  /** gRFC A53: keep resources absent from a SotW LDS/CDS response. */
  readonly ignoreResourceDeletion: boolean;
  /** De-dup key for shared channels: URI + creds + known features (gRFC A47 "Server Channel Map"). */
  readonly key: string;
  /** Where this entry came from, e.g. `xds_servers[1]` or `authorities.a.xds_servers[0]`. */
  readonly field: string;
}

/** One authority (gRFC A47). */
export interface AuthorityConfig {
  /** Ordered; the top-level list when the bootstrap's list is absent or empty. */
  readonly xdsServers: readonly XdsServerConfig[];
  readonly clientListenerResourceNameTemplate: string;
}

/** The `node` section. */
export interface NodeConfig {
  readonly id: string;
  readonly cluster: string;
  readonly locality: { readonly region: string; readonly zone: string; readonly subZone: string } | undefined;
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Our extensions, under the "failout" key. */
export interface FailoutExtensions {
  readonly fallbackProbeCapMs: number;
  readonly resourceDoesNotExistTimeoutMs: number;
  /** gRFC A71: false → only the first entry of each xds_servers list is used. */
  readonly fallback: boolean;
}

/** A parsed, validated bootstrap. */
export interface Bootstrap {
  readonly xdsServers: readonly XdsServerConfig[];
  readonly authorities: Readonly<Record<string, AuthorityConfig>>;
  readonly node: NodeConfig;
  readonly clientDefaultListenerResourceNameTemplate: string;
  readonly failout: FailoutExtensions;
}

const filePath = z.string().min(1).optional();
const credsSchema = z.object({
  type: z.string().min(1),
  config: z.object({ ca_certificate_file: filePath, certificate_file: filePath, private_key_file: filePath }).optional(),
});
const serverSchema = z.object({
  server_uri: z.string().min(1),
  channel_creds: z.array(credsSchema).min(1),
  server_features: z.array(z.string()).optional(),
});
const bootstrapSchema = z.object({
  xds_servers: z.array(serverSchema).min(1),
  node: z
    .object({
      id: z.string().optional(),
      cluster: z.string().optional(),
      locality: z.object({ region: z.string().optional(), zone: z.string().optional(), sub_zone: z.string().optional() }).optional(),
      metadata: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  authorities: z
    .record(
      z.string(),
      z.object({ client_listener_resource_name_template: z.string().optional(), xds_servers: z.array(serverSchema).optional() }),
    )
    .optional(),
  client_default_listener_resource_name_template: z.string().optional(),
  [BOOTSTRAP_EXTENSION_KEY]: z
    .strictObject({
      fallbackProbeCapMs: z.number().int().positive().optional(),
      resourceDoesNotExistTimeoutMs: z.number().int().positive().optional(),
      fallback: z.boolean().optional(),
    })
    .optional(),
});
type RawServer = z.infer<typeof serverSchema>;

/** `['xds_servers', 1, 'server_uri']` → `xds_servers[1].server_uri`. */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  return path.reduce<string>((acc, p) => (typeof p === 'number' ? `${acc}[${p}]` : acc ? `${acc}.${String(p)}` : String(p)), '');
}

function bootstrapError(field: string, message: string, cause?: unknown): XdsError {
  return new XdsError('bootstrap', `invalid xDS bootstrap: ${field || '(root)'}: ${message}`, { field, cause });
}

function resolveCreds(raw: RawServer, field: string): ChannelCredsConfig {
  for (const c of raw.channel_creds) {
    if (c.type === 'insecure') return { type: 'insecure' };
    if (c.type === 'tls') {
      const cfg = c.config ?? {};
      return { type: 'tls', caCertificateFile: cfg.ca_certificate_file, certificateFile: cfg.certificate_file, privateKeyFile: cfg.private_key_file };
    }
  }
  const types = raw.channel_creds.map((c) => c.type).join(', ');
  throw bootstrapError(`${field}.channel_creds`, `no supported channel_creds type (have ${types}; supported: insecure, tls)`);
}

function resolveServer(raw: RawServer, field: string): XdsServerConfig {
  const channelCreds = resolveCreds(raw, field);
  if (channelCreds.type === 'tls' && !channelCreds.certificateFile !== !channelCreds.privateKeyFile) {
    throw bootstrapError(`${field}.channel_creds`, 'tls certificate_file and private_key_file must be given together');
  }
  const serverFeatures = raw.server_features ?? [];
  const known = serverFeatures.filter((f) => KNOWN_SERVER_FEATURES.includes(f)).sort();
  return {
    serverUri: raw.server_uri,
    channelCreds,
    serverFeatures,
    ignoreResourceDeletion: serverFeatures.includes('ignore_resource_deletion'),
    key: JSON.stringify([raw.server_uri, channelCreds, known]),
    field,
  };
}

function resolveNode(raw: z.infer<typeof bootstrapSchema>['node']): NodeConfig {
  const l = raw?.locality;
  return {
    id: raw?.id ?? '',
    cluster: raw?.cluster ?? '',
    locality: l ? { region: l.region ?? '', zone: l.zone ?? '', subZone: l.sub_zone ?? '' } : undefined,
    metadata: raw?.metadata ?? {},
  };
}

/**
 * Validates a bootstrap object. Per-authority `xds_servers` absent or empty → the top-level list
 * (gRFC A47/A71). Unknown keys are ignored, except inside "failout" where they are errors.
 */
export function parseBootstrap(obj: unknown, env: NodeJS.ProcessEnv = process.env): Bootstrap {
  const parsed = bootstrapSchema.safeParse(obj);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const keys = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    throw bootstrapError(fieldPath(issue.path), `${issue.message}${keys}`, parsed.error);
  }
  const raw = parsed.data;
  const xdsServers = raw.xds_servers.map((s, i) => resolveServer(s, `xds_servers[${i}]`));
  const authorities: Record<string, AuthorityConfig> = {};
  for (const [name, a] of Object.entries(raw.authorities ?? {})) {
    const own = (a.xds_servers ?? []).map((s, i) => resolveServer(s, `authorities.${name}.xds_servers[${i}]`));
    authorities[name] = {
      xdsServers: own.length > 0 ? own : xdsServers,
      clientListenerResourceNameTemplate: a.client_listener_resource_name_template ?? `xdstp://${name}/envoy.config.listener.v3.Listener/%s`,
    };
  }
  const ext = raw[BOOTSTRAP_EXTENSION_KEY] ?? {};
  const envFallback = env.GRPC_EXPERIMENTAL_XDS_FALLBACK?.trim().toLowerCase();
  return {
    xdsServers,
    authorities,
    node: resolveNode(raw.node),
    clientDefaultListenerResourceNameTemplate: raw.client_default_listener_resource_name_template ?? '%s',
    failout: {
      fallbackProbeCapMs: ext.fallbackProbeCapMs ?? DEFAULT_FALLBACK_PROBE_CAP_MS,
      resourceDoesNotExistTimeoutMs: ext.resourceDoesNotExistTimeoutMs ?? DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS,
      fallback: ext.fallback ?? envFallback !== 'false',
    },
  };
}

/** Parses bootstrap JSON text; `origin` names where it came from in errors. */
export function parseBootstrapJson(text: string, origin = 'bootstrap JSON', env: NodeJS.ProcessEnv = process.env): Bootstrap {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    assertIsError(e);
    throw new XdsError('bootstrap', `invalid xDS bootstrap: ${origin} is not valid JSON: ${e.message}`, { field: '', cause: e });
  }
  return parseBootstrap(obj, env);
}

/** Reads and parses a bootstrap file. */
export function readBootstrapFile(path: string, env: NodeJS.ProcessEnv = process.env): Bootstrap {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    assertIsError(e);
    throw new XdsError('bootstrap', `cannot read xDS bootstrap file ${path}: ${e.message}`, { field: '', cause: e });
  }
  return parseBootstrapJson(text, path, env);
}

/** `GRPC_XDS_BOOTSTRAP` (a file path) wins over `GRPC_XDS_BOOTSTRAP_CONFIG` (JSON text), as in gRPC. */
export function loadBootstrapFromEnv(env: NodeJS.ProcessEnv = process.env): Bootstrap {
  if (env.GRPC_XDS_BOOTSTRAP) return readBootstrapFile(env.GRPC_XDS_BOOTSTRAP, env);
  if (env.GRPC_XDS_BOOTSTRAP_CONFIG) return parseBootstrapJson(env.GRPC_XDS_BOOTSTRAP_CONFIG, 'GRPC_XDS_BOOTSTRAP_CONFIG', env);
  throw new XdsError('bootstrap', 'no xDS bootstrap: set GRPC_XDS_BOOTSTRAP or GRPC_XDS_BOOTSTRAP_CONFIG', { field: '' });
}

/** Where to read the bootstrap from: an object, JSON text, a file, or (default) the environment. */
export type BootstrapSource = { config: object } | { json: string } | { file: string } | { env?: NodeJS.ProcessEnv };

/** Loads a bootstrap from any {@link BootstrapSource}; the environment when none is given. */
export function loadBootstrap(source: BootstrapSource = {}): Bootstrap {
  if ('config' in source) return parseBootstrap(source.config);
  if ('json' in source) return parseBootstrapJson(source.json);
  if ('file' in source) return readBootstrapFile(source.file);
  return loadBootstrapFromEnv(source.env);
}

/** The ordered servers for an authority (top-level when undefined or unknown); first only without fallback. */
export function serversFor(bootstrap: Bootstrap, authority?: string): readonly XdsServerConfig[] {
  const list = (authority !== undefined ? bootstrap.authorities[authority]?.xdsServers : undefined) ?? bootstrap.xdsServers;
  return bootstrap.failout.fallback ? list : list.slice(0, 1);
}

function readCredFile(file: string | undefined, field: string): Buffer | null {
  if (!file) return null;
  try {
    return readFileSync(file);
  } catch (e) {
    assertIsError(e);
    throw bootstrapError(field, `cannot read ${file}: ${e.message}`, e);
  }
}

/** Channel credentials for a server: insecure, or TLS with the CA / cert / key files (read now). */
export function channelCredentials(server: XdsServerConfig): grpc.ChannelCredentials {
  const creds = server.channelCreds;
  if (creds.type === 'insecure') return grpc.credentials.createInsecure();
  const at = `${server.field}.channel_creds.config`;
  return grpc.credentials.createSsl(
    readCredFile(creds.caCertificateFile, `${at}.ca_certificate_file`),
    readCredFile(creds.privateKeyFile, `${at}.private_key_file`),
    readCredFile(creds.certificateFile, `${at}.certificate_file`),
  );
}

/** google.protobuf.Value from JSON (proto-loader object form). */
function toValue(v: unknown): object {
  if (v === null || v === undefined) return { null_value: 'NULL_VALUE' };
  if (typeof v === 'number') return { number_value: v };
  if (typeof v === 'string') return { string_value: v };
  if (typeof v === 'boolean') return { bool_value: v };
  if (Array.isArray(v)) return { list_value: { values: v.map(toValue) } };
  return { struct_value: toStruct(v as Record<string, unknown>) };
}

function toStruct(obj: Readonly<Record<string, unknown>>): object {
  return { fields: Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, toValue(v)])) };
}

/** The Node message for the first request of each ADS/LRS stream. */
export function nodeMessage(node: NodeConfig, clientFeatures: readonly string[] = CLIENT_FEATURES): NodeMessage {
  return {
    id: node.id,
    cluster: node.cluster,
    locality: node.locality ? { region: node.locality.region, zone: node.locality.zone, sub_zone: node.locality.subZone } : null,
    metadata: toStruct(node.metadata),
    user_agent_name: 'failout',
    user_agent_version: '0.1.0',
    client_features: [...clientFeatures],
  };
}
