/**
 * The observer's configuration from the environment (its Fargate task's variables), validated at
 * the boundary:
 * | variable | meaning | default |
 * | `ZK_CONNECT` | ZooKeeper connect string | required |
 * | `D2_BASE_PATH` | the D2 tree | `/d2` |
 * | `OBSERVER_GRPC_HOST`, `OBSERVER_GRPC_PORT` | the ADS endpoint | `127.0.0.1`, `32123` |
 * | `OBSERVER_ADMIN_HOST`, `OBSERVER_ADMIN_PORT` | the admin HTTP | `127.0.0.1`, `9901` |
 * | `OBSERVER_ADMIN_TOKEN` | bearer token of the admin HTTP (needed off loopback) | none |
 * | `OBSERVER_GRPC_TLS_CERT`, `OBSERVER_GRPC_TLS_KEY` | PEM files: serve ADS over TLS (both or neither) | plain |
 * | `OBSERVER_GRPC_TLS_CA` | PEM file: also require client certificates signed by it (mTLS) | none |
 * | `OBSERVER_LINGER_MS` | how long a watch outlives its last subscriber | `10000` |
 * | `OBSERVER_EMF_NAMESPACE` | write one CloudWatch EMF line a minute to stdout in this namespace (`emf.ts`) | none |
 * | `ZK_TLS_*` | ZooKeeper over TLS (lib/zk/config) | plain TCP |
 */
import { readFileSync } from 'node:fs';
import { loadZkTlsFromEnv, type ZkTlsOptions } from '../zk/config';
import { assertAdminAccess } from './admin-access';
import type { ObserverTls } from './ads-server';
import { assertIsError, ObserverError } from './errors';

/** The observer's settings. */
export interface ObserverConfig {
  readonly zookeeper: { readonly connectString: string; readonly tls: ZkTlsOptions | undefined };
  readonly basePath: string;
  readonly grpc: { readonly host: string; readonly port: number; readonly tls: ObserverTls | undefined };
  readonly admin: { readonly host: string; readonly port: number; readonly token: string | undefined };
  readonly lingerMs: number;
  /** CloudWatch namespace of the EMF lines; none when undefined. */
  readonly emfNamespace: string | undefined;
}

/** The ADS port by default (rest.li's observers are reached on a configured port too). */
export const DEFAULT_GRPC_PORT = 32123;
/** The admin HTTP port by default. */
export const DEFAULT_ADMIN_PORT = 9901;

function port(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const text = env[name];
  if (text === undefined || text === '') return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new ObserverError('config', `must be a port number, got "${text}"`, { field: name });
  return n;
}

function pemFile(env: NodeJS.ProcessEnv, name: string): Buffer | undefined {
  const file = env[name];
  if (file === undefined || file === '') return undefined;
  try {
    return readFileSync(file);
  } catch (err) {
    assertIsError(err);
    throw new ObserverError('config', `cannot read ${file}: ${err.message}`, { field: name, cause: err });
  }
}

/** The ADS endpoint's TLS material, or undefined for plain gRPC. */
function grpcTls(env: NodeJS.ProcessEnv): ObserverTls | undefined {
  const cert = pemFile(env, 'OBSERVER_GRPC_TLS_CERT');
  const key = pemFile(env, 'OBSERVER_GRPC_TLS_KEY');
  const ca = pemFile(env, 'OBSERVER_GRPC_TLS_CA');
  if (cert === undefined && key === undefined && ca === undefined) return undefined;
  if (cert === undefined || key === undefined) throw new ObserverError('config', 'TLS needs both OBSERVER_GRPC_TLS_CERT and OBSERVER_GRPC_TLS_KEY', { field: cert === undefined ? 'OBSERVER_GRPC_TLS_CERT' : 'OBSERVER_GRPC_TLS_KEY' });
  return { cert, key, ...(ca ? { ca } : {}) };
}

/**
 * Reads the configuration from `env`.
 * @throws ObserverError `config` naming the variable at fault.
 */
export function loadObserverConfig(env: NodeJS.ProcessEnv): ObserverConfig {
  const connectString = env.ZK_CONNECT ?? '';
  if (connectString === '') throw new ObserverError('config', 'is required (host:port[,host:port…])', { field: 'ZK_CONNECT' });
  const basePath = env.D2_BASE_PATH || '/d2';
  if (!/^\/[^/]/.test(basePath) || basePath.endsWith('/')) throw new ObserverError('config', `must be an absolute znode path, got "${basePath}"`, { field: 'D2_BASE_PATH' });
  const lingerText = env.OBSERVER_LINGER_MS;
  const lingerMs = lingerText === undefined || lingerText === '' ? 10_000 : Number(lingerText);
  if (!Number.isInteger(lingerMs) || lingerMs < 0) throw new ObserverError('config', `must be a whole number of milliseconds, got "${lingerText}"`, { field: 'OBSERVER_LINGER_MS' });
  const admin = { host: env.OBSERVER_ADMIN_HOST || '127.0.0.1', port: port(env, 'OBSERVER_ADMIN_PORT', DEFAULT_ADMIN_PORT), token: env.OBSERVER_ADMIN_TOKEN || undefined };
  assertAdminAccess(admin);
  return {
    zookeeper: { connectString, tls: loadZkTlsFromEnv(env) },
    basePath,
    grpc: { host: env.OBSERVER_GRPC_HOST || '127.0.0.1', port: port(env, 'OBSERVER_GRPC_PORT', DEFAULT_GRPC_PORT), tls: grpcTls(env) },
    admin,
    lingerMs,
    emfNamespace: env.OBSERVER_EMF_NAMESPACE || undefined,
  };
}
