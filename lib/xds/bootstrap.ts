/**
 * gRPC xDS bootstrap parsing (gRFC A27, A47 authorities, A71 ordered xds_servers, A65 tls creds).
 *
 * Public names (stable; the client core depends on them):
 * - `Bootstrap` — `{ xdsServers, authorities, node, clientDefaultListenerResourceNameTemplate, failout }`.
 * - `XdsServerConfig` — `{ serverUri, channelCreds, serverFeatures, ignoreResourceDeletion, key, field }`.
 * - `ChannelCredsConfig` — `{ type: 'insecure' } | { type: 'tls', caCertificateFile?, certificateFile?, privateKeyFile? }`.
 * - `AuthorityConfig` — `{ xdsServers, clientListenerResourceNameTemplate }` (list already resolved:
 *   absent or empty → the top-level list; the template checked to start with `xdstp://<name>/`, A47).
 * - `NodeConfig`, `FailoutExtensions` — `{ fallbackProbeCapMs, resourceDoesNotExistTimeoutMs, fallback, fallbackWhenCached? }`.
 * - `parseBootstrap(obj)`, `parseBootstrapJson(text)`, `readBootstrapFile(path)`,
 *   `loadBootstrapFromEnv(env?)`, `loadBootstrap(source?)` — all throw `XdsError` kind 'bootstrap' with
 *   `field` naming the bad field (e.g. `xds_servers[1].server_uri`).
 * - `serversFor(bootstrap, authority?)` — the effective ordered list (only the first entry when
 *   fallback is disabled, gRFC A71 "Env var"; fallback is ON unless `GRPC_EXPERIMENTAL_XDS_FALLBACK`
 *   is `false`, as in grpc-go ≥ 1.70 and Java ≥ 1.71).
 * - `clientListenerResourceName(bootstrap, service)` — the LDS name gRPC watches for `xds:<service>` (A47).
 * - `authorityField(name)` — the field path of an authority in errors (`authorities.a`, `authorities[""]`).
 * - `channelCredentials(server)` — grpc.ChannelCredentials (insecure, or TLS from the files).
 * - `nodeMessage(node, clientFeatures?)` — the `envoy.config.core.v3.Node` to send.
 * - `DELTA_ADS_SERVER_FEATURE` ('failout_delta_ads') and `speaksDeltaAds(server)`: incremental ADS to that server.
 * - `BOOTSTRAP_EXTENSION_KEY` ('failout'), `DEFAULT_FALLBACK_PROBE_CAP_MS` (5000),
 *   `DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS` (15000), `CLIENT_FEATURES`.
 *
 * Our own settings live under the top-level key "failout"; gRPC implementations ignore unknown keys, so
 * one bootstrap also serves @grpc/grpc-js-xds.
 */
import { readFileSync } from 'node:fs';
import * as grpc from '@grpc/grpc-js';
import { assertIsError, XdsError } from './errors';
import { array, boolean, child, JsonFieldError, object, onlyKeys, optionalField, positiveInteger, requiredField, string, type FieldReader } from './json-fields';
import type { NodeMessage } from './protos';

/** The top-level key of our extensions in the bootstrap. */
export const BOOTSTRAP_EXTENSION_KEY = 'failout';
/** Cap of the retry backoff towards higher-priority servers while serving from a fallback. */
export const DEFAULT_FALLBACK_PROBE_CAP_MS = 5000;
/** xds_protocol.rst "Knowing When a Requested Resource Does Not Exist": 15 s. */
export const DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS = 15_000;
/** client_features sent in Node, as grpc-go's xdsChannel does. */
export const CLIENT_FEATURES: readonly string[] = ['envoy.lb.does_not_support_overprovisioning', 'xds.config.resource-in-sotw'];
/**
 * Our server feature: the server serves incremental ADS (`DeltaAggregatedResources`, failout's D2
 * observers do), and the client speaks it to that server instead of SotW. Opt-in per server, because
 * a server without it answers UNIMPLEMENTED; other gRPC clients ignore a feature they do not know.
 */
export const DELTA_ADS_SERVER_FEATURE = 'failout_delta_ads';
/** True when the server's bootstrap entry lists {@link DELTA_ADS_SERVER_FEATURE}: the client speaks incremental ADS to it. */
export function speaksDeltaAds(server: Pick<XdsServerConfig, 'serverFeatures'>): boolean {
  return server.serverFeatures.includes(DELTA_ADS_SERVER_FEATURE);
}
/** Server features that change behaviour, hence part of the channel de-dup key (gRFC A47). */
const KNOWN_SERVER_FEATURES: readonly string[] = ['ignore_resource_deletion', 'xds_v3', 'trusted_xds_server', DELTA_ADS_SERVER_FEATURE];

/** Supported channel credentials (the first supported entry of `channel_creds` wins). */
export type ChannelCredsConfig =
  | {
      /** Plaintext connection. */
      readonly type: 'insecure';
    }
  | {
      /** TLS (gRFC A65). */
      readonly type: 'tls';
      /** PEM file of the CA roots that verify the server (`ca_certificate_file`); the system roots when absent. */
      readonly caCertificateFile?: string;
      /** PEM client certificate file for mTLS (`certificate_file`); given together with `privateKeyFile`. */
      readonly certificateFile?: string;
      /** PEM private key file of the client certificate (`private_key_file`); given together with `certificateFile`. */
      readonly privateKeyFile?: string;
    };

/** One management server. */
export interface XdsServerConfig {
  /** The gRPC target of the management server (`server_uri`). */
  readonly serverUri: string;
  /** The first supported entry of `channel_creds`. */
  readonly channelCreds: ChannelCredsConfig;
  /** `server_features` as written (empty when absent), including ones this library does not know. */
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
  /** `client_listener_resource_name_template`; default `xdstp://<authority>/envoy.config.listener.v3.Listener/%s`. */
  readonly clientListenerResourceNameTemplate: string;
}

/** The `node` section. */
export interface NodeConfig {
  /** `node.id`; '' when absent. */
  readonly id: string;
  /** `node.cluster`; '' when absent. */
  readonly cluster: string;
  /** `node.locality`; undefined when absent. */
  readonly locality:
    | {
        /** `region`; '' when absent. */
        readonly region: string;
        /** `zone`; '' when absent. */
        readonly zone: string;
        /** `sub_zone`; '' when absent. */
        readonly subZone: string;
      }
    | undefined;
  /** `node.metadata` as JSON (sent as a google.protobuf.Struct); empty when absent. */
  readonly metadata: Readonly<Record<string, unknown>>;
}

/** Our extensions, under the "failout" key. */
export interface FailoutExtensions {
  /** Cap, in milliseconds, of the retry backoff towards higher-priority servers while serving from a fallback (default 5000). */
  readonly fallbackProbeCapMs: number;
  /** Milliseconds to wait for a requested resource before reporting it does-not-exist (default 15000). */
  readonly resourceDoesNotExistTimeoutMs: number;
  /**
   * gRFC A71: false → only the first entry of each xds_servers list is used. `failout.fallback` when
   * given; otherwise true unless `GRPC_EXPERIMENTAL_XDS_FALLBACK` is `false` (any case), which is how
   * grpc-go ≥ 1.70 and Java ≥ 1.71 read the variable (default on; only "false" turns it off).
   */
  readonly fallback: boolean;
  /**
   * True: a failure of the active server falls back even when every watched resource is cached.
   * gRFC A71 falls back only for uncached resources, because a lower-priority control plane may hold
   * a different config; D2 observers are replicas of one ZooKeeper view, so staying on the cache of
   * a dead observer would only keep failouts written meanwhile from reaching the client (issue 25).
   * Absent (false) unless `failout.fallbackWhenCached` is given.
   */
  readonly fallbackWhenCached?: boolean;
}

/** A parsed, validated bootstrap. */
export interface Bootstrap {
  /** The top-level `xds_servers`, in priority order (gRFC A71); never empty. */
  readonly xdsServers: readonly XdsServerConfig[];
  /** `authorities` by name (gRFC A47); empty when absent. */
  readonly authorities: Readonly<Record<string, AuthorityConfig>>;
  /** The `node` section, sent in the first request of each ADS/LRS stream. */
  readonly node: NodeConfig;
  /** `client_default_listener_resource_name_template`; default `%s`. */
  readonly clientDefaultListenerResourceNameTemplate: string;
  /** Our extensions under the "failout" key, with defaults applied. */
  readonly failout: FailoutExtensions;
}

/** One `channel_creds` entry as written: its type, and its config still unread (A27: only the chosen entry's is). */
interface RawCreds {
  readonly type: string;
  readonly config: unknown;
  /** Where the entry is, e.g. `xds_servers[0].channel_creds[1]`. */
  readonly field: string;
}

/** One `xds_servers` entry as written, before its credentials are chosen. */
interface RawServer {
  server_uri: string;
  channel_creds: RawCreds[];
  server_features?: string[];
}

const nonEmpty = string({ nonEmpty: true });

/** Reads an entry's `type` only; its `config` is read once the entry is chosen ({@link resolveCreds}). */
const readCreds: FieldReader<RawCreds> = (v, field) => {
  const o = object(v, field);
  return { type: requiredField(o, 'type', field, nonEmpty), config: o.config, field };
};

/** The `config` of a chosen `tls` entry (gRFC A65): optional file paths. */
function readTlsConfig(creds: RawCreds): ChannelCredsConfig {
  const at = child(creds.field, 'config');
  const co = creds.config === undefined || creds.config === null ? {} : object(creds.config, at);
  return {
    type: 'tls',
    caCertificateFile: optionalField(co, 'ca_certificate_file', at, nonEmpty),
    certificateFile: optionalField(co, 'certificate_file', at, nonEmpty),
    privateKeyFile: optionalField(co, 'private_key_file', at, nonEmpty),
  };
}

const readServer: FieldReader<RawServer> = (v, field) => {
  const o = object(v, field);
  return {
    server_uri: requiredField(o, 'server_uri', field, nonEmpty),
    channel_creds: requiredField(o, 'channel_creds', field, array(readCreds, { minItems: 1 })),
    server_features: optionalField(o, 'server_features', field, array(string())),
  };
};

function readNode(raw: Record<string, unknown>): NodeConfig {
  const o = optionalField(raw, 'node', '', object) ?? {};
  const l = optionalField(o, 'locality', 'node', object);
  const at = 'node.locality';
  return {
    id: optionalField(o, 'id', 'node', string()) ?? '',
    cluster: optionalField(o, 'cluster', 'node', string()) ?? '',
    locality: l
      ? { region: optionalField(l, 'region', at, string()) ?? '', zone: optionalField(l, 'zone', at, string()) ?? '', subZone: optionalField(l, 'sub_zone', at, string()) ?? '' }
      : undefined,
    metadata: optionalField(o, 'metadata', 'node', object) ?? {},
  };
}

const EXTENSION_KEYS: readonly string[] = ['fallbackProbeCapMs', 'resourceDoesNotExistTimeoutMs', 'fallback', 'fallbackWhenCached'];

/** Our "failout" section, with defaults; `env` supplies `GRPC_EXPERIMENTAL_XDS_FALLBACK` (see {@link FailoutExtensions.fallback}). */
function readExtensions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv): FailoutExtensions {
  const ext = optionalField(raw, BOOTSTRAP_EXTENSION_KEY, '', object) ?? {};
  onlyKeys(ext, EXTENSION_KEYS, BOOTSTRAP_EXTENSION_KEY);
  const at = BOOTSTRAP_EXTENSION_KEY;
  const envFallback = env.GRPC_EXPERIMENTAL_XDS_FALLBACK?.trim().toLowerCase();
  const whenCached = optionalField(ext, 'fallbackWhenCached', at, boolean);
  return {
    fallbackProbeCapMs: optionalField(ext, 'fallbackProbeCapMs', at, positiveInteger) ?? DEFAULT_FALLBACK_PROBE_CAP_MS,
    resourceDoesNotExistTimeoutMs: optionalField(ext, 'resourceDoesNotExistTimeoutMs', at, positiveInteger) ?? DEFAULT_RESOURCE_DOES_NOT_EXIST_TIMEOUT_MS,
    fallback: optionalField(ext, 'fallback', at, boolean) ?? envFallback !== 'false',
    // Only when given, so that a bootstrap without it reads exactly as before.
    ...(whenCached === undefined ? {} : { fallbackWhenCached: whenCached }),
  };
}

function bootstrapError(field: string, message: string, cause?: unknown): XdsError {
  return new XdsError('bootstrap', `invalid xDS bootstrap: ${field || '(root)'}: ${message}`, { field, cause });
}

/**
 * gRFC A27: the FIRST entry of a type this client supports is used; entries before it (types of other
 * implementations) are skipped without reading their config, and entries after it are not read at all.
 */
function resolveCreds(raw: RawServer, field: string): ChannelCredsConfig {
  for (const c of raw.channel_creds) {
    if (c.type === 'insecure') return { type: 'insecure' };
    if (c.type === 'tls') return readTlsConfig(c);
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

/**
 * Validates a bootstrap object. Per-authority `xds_servers` absent or empty → the top-level list
 * (gRFC A47/A71). Unknown keys are ignored, except inside "failout" where they are errors.
 */
export function parseBootstrap(obj: unknown, env: NodeJS.ProcessEnv = process.env): Bootstrap {
  try {
    return readBootstrap(obj, env);
  } catch (e) {
    if (e instanceof JsonFieldError) throw bootstrapError(e.field, e.message, e);
    throw e;
  }
}

/** The path of authority `name` in error fields: `authorities.a`, or `authorities[""]` for the empty name. */
export function authorityField(name: string): string {
  return name === '' ? 'authorities[""]' : `authorities.${name}`;
}

/**
 * One `authorities` entry (gRFC A47). Its `client_listener_resource_name_template` must start with
 * `xdstp://<name>/` (A47 "Bootstrap Changes": otherwise a parsing error), so that the listener it
 * names is fetched from this very authority.
 */
function readAuthority(name: string, value: unknown, topLevel: readonly XdsServerConfig[]): AuthorityConfig {
  const at = authorityField(name);
  const a = object(value, at);
  const own = (optionalField(a, 'xds_servers', at, array(readServer)) ?? []).map((s, i) => resolveServer(s, `${at}.xds_servers[${i}]`));
  const prefix = `xdstp://${name}/`;
  const templateField = child(at, 'client_listener_resource_name_template');
  const template = optionalField(a, 'client_listener_resource_name_template', at, string()) ?? `${prefix}envoy.config.listener.v3.Listener/%s`;
  if (!template.startsWith(prefix)) {
    throw new JsonFieldError(templateField, `must start with "${prefix}" (gRFC A47), got "${template}"`);
  }
  return { xdsServers: own.length > 0 ? own : topLevel, clientListenerResourceNameTemplate: template };
}

function readBootstrap(obj: unknown, env: NodeJS.ProcessEnv): Bootstrap {
  const raw = object(obj, '');
  const xdsServers = requiredField(raw, 'xds_servers', '', array(readServer, { minItems: 1 })).map((s, i) => resolveServer(s, `xds_servers[${i}]`));
  // fromEntries: every name, "" and "__proto__" included, becomes an own key.
  const authorities: Record<string, AuthorityConfig> = Object.fromEntries(
    Object.entries(optionalField(raw, 'authorities', '', object) ?? {}).map(([name, a]) => [name, readAuthority(name, a, xdsServers)]),
  );
  return {
    xdsServers,
    authorities,
    node: readNode(raw),
    clientDefaultListenerResourceNameTemplate: optionalField(raw, 'client_default_listener_resource_name_template', '', string()) ?? '%s',
    failout: readExtensions(raw, env),
  };
}

/** Parses bootstrap JSON text; `origin` names where it came from in errors. */
export function parseBootstrapJson(text: string, origin = 'bootstrap JSON', env: NodeJS.ProcessEnv = process.env): Bootstrap {
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch (e) {
    assertIsError(e);
    // Only the position, and no cause: V8's message quotes the text around a bad token, and a
    // bootstrap may hold credentials (channel_creds config, node metadata), as the bridge's config does.
    const position = /at position (\d+)/.exec(e.message)?.[1];
    throw new XdsError('bootstrap', `invalid xDS bootstrap: ${origin} is not valid JSON${position === undefined ? '' : ` at position ${position}`} (the text is not quoted: it may hold credentials)`, { field: '' });
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
export type BootstrapSource =
  | {
      /** A bootstrap object, as parsed from JSON. */
      config: object;
    }
  | {
      /** Bootstrap JSON text. */
      json: string;
    }
  | {
      /** Path of a bootstrap JSON file. */
      file: string;
    }
  | {
      /** Environment to read `GRPC_XDS_BOOTSTRAP` / `GRPC_XDS_BOOTSTRAP_CONFIG` from; `process.env` when absent. */
      env?: NodeJS.ProcessEnv;
    };

/** Loads a bootstrap from any {@link BootstrapSource}; the environment when none is given. */
export function loadBootstrap(source: BootstrapSource = {}): Bootstrap {
  if ('config' in source) return parseBootstrap(source.config);
  if ('json' in source) return parseBootstrapJson(source.json);
  if ('file' in source) return readBootstrapFile(source.file);
  return loadBootstrapFromEnv(source.env);
}

/**
 * The ordered servers of an authority: `bootstrap.authorities[authority]` (the empty name "" included,
 * gRFC A47 `xdstp:///` names), the top-level list when `authority` is undefined or unknown; only the
 * first entry without fallback.
 */
export function serversFor(bootstrap: Bootstrap, authority?: string): readonly XdsServerConfig[] {
  const own = authority !== undefined && Object.hasOwn(bootstrap.authorities, authority) ? bootstrap.authorities[authority] : undefined;
  const list = own?.xdsServers ?? bootstrap.xdsServers;
  return bootstrap.failout.fallback ? list : list.slice(0, 1);
}

/** RFC 3986 `pchar` plus '/': what a percent-encoded path keeps as is (A47). */
const PATH_CHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@/]$/;

/**
 * The Listener resource name a gRPC client watches for the target `xds:<service>` (no authority in the
 * target, gRFC A47): the bootstrap's `client_default_listener_resource_name_template` (default `%s`)
 * with every `%s` replaced by `service`, percent-encoded when the template is a new-style `xdstp:`
 * name (every character outside RFC 3986 section 3.3 path characters, '/' kept).
 */
export function clientListenerResourceName(bootstrap: Bootstrap, service: string): string {
  const template = bootstrap.clientDefaultListenerResourceNameTemplate;
  const replacement = template.startsWith('xdstp:')
    ? [...service].map((c) => (PATH_CHAR.test(c) ? c : encodeURIComponent(c))).join('')
    : service;
  return template.replaceAll('%s', replacement);
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
/**
 * A JSON value as `google.protobuf.Value`. Its field names are the camelCase ones: protobufjs defines
 * the well-known types itself (not from the .proto), so snake_case keys were silently dropped on the
 * wire and the node's metadata reached servers (and CSDS) as empty values.
 */
function toValue(v: unknown): object {
  if (v === null || v === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof v === 'number') return { numberValue: v };
  if (typeof v === 'string') return { stringValue: v };
  if (typeof v === 'boolean') return { boolValue: v };
  if (Array.isArray(v)) return { listValue: { values: v.map(toValue) } };
  return { structValue: toStruct(v as Record<string, unknown>) };
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
