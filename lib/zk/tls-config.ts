import { readFileSync } from 'node:fs';
import { inspect } from 'node:util';

/**
 * TLS for a ZooKeeper session: ZooKeeper 3.5+'s `secureClientPort` (issue 14). PEM contents, not
 * paths; {@link loadZkTlsFiles} and {@link loadZkTlsFromEnv} read the files. The transport that uses
 * it is `tls-transport.ts`.
 */
export interface ZkTlsOptions {
  /** PEM CA certificate(s) that verify the servers' certificates. Default: Node's built-in root CAs. */
  readonly ca?: string | Buffer | readonly (string | Buffer)[];
  /** PEM client certificate (chain) for servers that require one (`ssl.clientAuth=need`); needs `key`. */
  readonly cert?: string | Buffer;
  /** PEM private key of `cert` (unencrypted). Never logged. */
  readonly key?: string | Buffer;
  /** Name the server certificate must carry (also sent as SNI) instead of the connect-string host. */
  readonly servername?: string;
  /**
   * Verify the server's certificate (default true). `false` still encrypts but trusts any server, so a
   * man in the middle can read the digest credential: for a test bench only; the session warns.
   */
  readonly verify?: boolean;
}

/**
 * Where the PEM files are: the form configuration holds (the bridge's JSON `zookeeper.tls`, the
 * CLI's flags, the `ZK_TLS_*` variables). {@link loadZkTlsFiles} turns it into {@link ZkTlsOptions}.
 */
export interface ZkTlsFiles {
  /** PEM file of the CA certificate(s); absent: Node's built-in root CAs. */
  readonly caFile?: string;
  /** PEM file of the client certificate; needs `keyFile`. */
  readonly certFile?: string;
  /** PEM file of the client certificate's private key; needs `certFile`. */
  readonly keyFile?: string;
  /** See {@link ZkTlsOptions.servername}. */
  readonly servername?: string;
  /** See {@link ZkTlsOptions.verify}. */
  readonly verify?: boolean;
}

/**
 * A TLS setting that cannot be used, naming the setting at fault (`ZK_TLS_CA`,
 * `zookeeper.tls.certFile`, …) so a caller reports it without reading the message. Thrown while
 * reading configuration, before any session exists. Not a `ZkError` on purpose: this file is the pure
 * `lib/zk/config` face (no node-zookeeper-client, which errors.ts loads), for configuration readers
 * such as the bridge's contract that the CDK app loads at synth. Its `kind` matches ZkError's `tls`.
 */
export class ZkTlsConfigError extends Error {
  /** Always `ZkTlsConfigError`. */
  override readonly name = 'ZkTlsConfigError';
  /** As a ZkError's kind: TLS is misconfigured. */
  readonly kind = 'tls' as const;

  constructor(
    /** The variable, flag or field at fault; the message starts with it. */
    readonly setting: string,
    /** What is wrong with it (the message without the setting's name in front). */
    readonly detail: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${setting} ${detail}`, { cause: options.cause });
  }
}

/** The environment variables {@link zkTlsFilesFromEnv} reads, by the field they fill. */
export const ZK_TLS_VARIABLES = {
  /** PEM file of the CA certificate(s). */
  caFile: 'ZK_TLS_CA',
  /** PEM file of the client certificate. */
  certFile: 'ZK_TLS_CERT',
  /** PEM file of the client certificate's private key. */
  keyFile: 'ZK_TLS_KEY',
  /** Name the servers' certificates carry. */
  servername: 'ZK_TLS_SERVERNAME',
  /** `false` (or `0`) skips server verification. */
  verify: 'ZK_TLS_VERIFY',
} as const satisfies Record<keyof ZkTlsFiles, string>;

/** The settings that name PEM files. */
export type ZkTlsFileField = 'caFile' | 'certFile' | 'keyFile';

const DEFAULT_LABELS: Record<ZkTlsFileField, string> = { caFile: 'CA file', certFile: 'client certificate file', keyFile: 'client key file' };

/**
 * The TLS files the environment names, or undefined when no `ZK_TLS_*` variable is set (plain TCP).
 * Any one of them turns TLS on, so a half-done TLS setup never silently talks plain text.
 * @throws ZkTlsConfigError for a `ZK_TLS_VERIFY` other than true/false/1/0.
 */
export function zkTlsFilesFromEnv(env: Readonly<Record<string, string | undefined>>): ZkTlsFiles | undefined {
  const value = (name: string): string | undefined => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const files = {
    caFile: value(ZK_TLS_VARIABLES.caFile),
    certFile: value(ZK_TLS_VARIABLES.certFile),
    keyFile: value(ZK_TLS_VARIABLES.keyFile),
    servername: value(ZK_TLS_VARIABLES.servername),
    verify: parseVerify(value(ZK_TLS_VARIABLES.verify)),
  };
  if (Object.values(files).every((v) => v === undefined)) return undefined;
  return Object.fromEntries(Object.entries(files).filter(([, v]) => v !== undefined)) as ZkTlsFiles;
}

function parseVerify(text: string | undefined): boolean | undefined {
  if (text === undefined) return undefined;
  if (/^(true|1)$/i.test(text)) return true;
  if (/^(false|0)$/i.test(text)) return false;
  throw new ZkTlsConfigError(ZK_TLS_VARIABLES.verify, `must be true or false, not ${JSON.stringify(text)}`);
}

/**
 * Reads the PEM files into {@link ZkTlsOptions}. The result logs (JSON or `inspect`) as the file
 * paths, never the contents, so a configuration that holds it can be logged whole.
 * @param labels how errors name each file setting (default "CA file", …; the env loader passes the
 * variables, the bridge its JSON fields).
 * @throws ZkTlsConfigError naming the setting: unreadable, not PEM, or a certificate without its key.
 */
export function loadZkTlsFiles(files: ZkTlsFiles, labels: Record<ZkTlsFileField, string> = DEFAULT_LABELS): ZkTlsOptions {
  if (Boolean(files.certFile) !== Boolean(files.keyFile)) {
    const missing: ZkTlsFileField = files.certFile ? 'keyFile' : 'certFile';
    throw new ZkTlsConfigError(labels[missing], `is missing: a client certificate needs both ${labels.certFile} and ${labels.keyFile}`);
  }
  const tls: ZkTlsOptions = {
    ...(files.caFile ? { ca: readPem(files.caFile, labels.caFile, 'CERTIFICATE') } : {}),
    ...(files.certFile ? { cert: readPem(files.certFile, labels.certFile, 'CERTIFICATE') } : {}),
    ...(files.keyFile ? { key: readPem(files.keyFile, labels.keyFile, 'PRIVATE KEY') } : {}),
    ...(files.servername ? { servername: files.servername } : {}),
    ...(files.verify !== undefined ? { verify: files.verify } : {}),
  };
  // Non-enumerable, so comparisons and spreads see only the options; loggers see only the paths.
  const shown = { ...files };
  Object.defineProperty(tls, 'toJSON', { value: () => shown, enumerable: false });
  Object.defineProperty(tls, inspect.custom, { value: () => shown, enumerable: false });
  return tls;
}

/**
 * TLS options from the `ZK_TLS_*` variables (file paths: `ZK_TLS_CA`, `ZK_TLS_CERT`, `ZK_TLS_KEY`;
 * `ZK_TLS_SERVERNAME`; `ZK_TLS_VERIFY=false` to skip verification), the files read; undefined when
 * none is set.
 * @throws ZkTlsConfigError naming the variable at fault.
 */
export function loadZkTlsFromEnv(env: Readonly<Record<string, string | undefined>>): ZkTlsOptions | undefined {
  const files = zkTlsFilesFromEnv(env);
  if (!files) return undefined;
  return loadZkTlsFiles(files, { caFile: ZK_TLS_VARIABLES.caFile, certFile: ZK_TLS_VARIABLES.certFile, keyFile: ZK_TLS_VARIABLES.keyFile });
}

/**
 * Checks options given in code (the session's constructor calls it).
 * @throws ZkTlsConfigError for a certificate without its key or the other way round.
 */
export function assertZkTlsOptions(tls: ZkTlsOptions): void {
  if (Boolean(tls.cert) !== Boolean(tls.key)) throw new ZkTlsConfigError(tls.cert ? 'tls.key' : 'tls.cert', 'is missing: tls.cert and tls.key go together, give both or neither');
}

function readPem(file: string, label: string, kind: 'CERTIFICATE' | 'PRIVATE KEY'): Buffer {
  let content: Buffer;
  try {
    content = readFileSync(file);
  } catch (err) {
    // Not assertIsError: fs errors can come from another realm (jest's vm), failing instanceof Error.
    const code = typeof err === 'object' && err !== null && 'code' in err ? String(err.code) : String(err);
    throw new ZkTlsConfigError(label, `${file} cannot be read (${code})`, { cause: err });
  }
  // Only the shape is checked here (Node parses at connect); the message never quotes the content.
  const text = content.toString('latin1');
  if (!new RegExp(`-----BEGIN [A-Z0-9 ]*${kind}-----`).test(text)) {
    throw new ZkTlsConfigError(label, `${file} holds no PEM ${kind.toLowerCase()} (-----BEGIN …${kind}-----)`);
  }
  return content;
}
