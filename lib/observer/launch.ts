/**
 * One observer process from its environment: the configuration (`loadObserverConfig`), the ZooKeeper
 * session, the observer and, with `OBSERVER_EMF_NAMESPACE`, its EMF reporter, and one `close()` that
 * releases them in order. The Fargate task (`functions/d2-observer/main.ts`) and `failout observer`
 * (through the CLI's composition root) both start an observer this way, so the two cannot drift.
 */
import type { Closeable } from '../lifecycle';
import { createLogger, type Logger } from '../logging';
import { connectSession } from '../zk';
import { loadObserverConfig } from './config';
import { startObserverEmfReporter } from './emf';
import { D2Observer } from './observer';

/** What a launched observer says about itself: addresses and modes, never the admin token. */
export interface LaunchedObserverSummary {
  readonly basePath: string;
  /** `host:port` of the ADS endpoint, the port as bound. */
  readonly grpcAddress: string;
  /** `none` (plain gRPC), `server` (TLS) or `mutual` (client certificates required). */
  readonly grpcTls: 'none' | 'server' | 'mutual';
  /** `host:port` of the admin HTTP, the port as bound. */
  readonly adminAddress: string;
  /** Whether the admin endpoints ask for a bearer token (`bearer`), never the token itself. */
  readonly adminAuth: 'none' | 'bearer';
  readonly zkTls: boolean;
  readonly emf: boolean;
}

/** A running observer process: {@link LaunchedObserver.close} ends the streams, then the session. */
export interface LaunchedObserver extends Closeable {
  readonly observer: D2Observer;
  readonly summary: LaunchedObserverSummary;
  /** Ends the EMF reporter, every stream (UNAVAILABLE, so clients move on) and the admin HTTP, then closes the session. Idempotent. */
  close(): Promise<void>;
}

/** How long the first ZooKeeper connection may take before the launch fails. */
const CONNECT_TIMEOUT_MS = 30_000;

/**
 * Starts an observer from `env` (the variables of `loadObserverConfig`) and logs `d2-observer started`
 * with its summary.
 * @throws ObserverError `config` for a bad setting (naming the variable, never a secret's value);
 *   ZkError when ZooKeeper cannot be reached within 30 s.
 */
export async function launchObserver(env: NodeJS.ProcessEnv, options: { readonly logger?: Logger } = {}): Promise<LaunchedObserver> {
  const log = options.logger ?? createLogger('d2-observer');
  const config = loadObserverConfig(env);
  const session = await connectSession({ connectString: config.zookeeper.connectString, tls: config.zookeeper.tls, logger: log.child({ component: 'zk-session' }) }, CONNECT_TIMEOUT_MS);
  let observer: D2Observer;
  try {
    observer = await D2Observer.start({ zk: session, basePath: config.basePath, grpc: config.grpc, admin: config.admin, lingerMs: config.lingerMs, logger: log });
  } catch (err) {
    await session.close();
    throw err;
  }
  const emf = config.emfNamespace === undefined ? undefined : startObserverEmfReporter(observer, { namespace: config.emfNamespace });
  const summary: LaunchedObserverSummary = {
    basePath: config.basePath,
    grpcAddress: `${config.grpc.host}:${observer.grpcPort}`,
    grpcTls: config.grpc.tls === undefined ? 'none' : config.grpc.tls.ca ? 'mutual' : 'server',
    adminAddress: `${config.admin.host}:${observer.adminPort ?? config.admin.port}`,
    adminAuth: config.admin.token === undefined ? 'none' : 'bearer',
    zkTls: config.zookeeper.tls !== undefined,
    emf: emf !== undefined,
  };
  log.info(summary, 'd2-observer started');
  let closing: Promise<void> | undefined;
  return {
    observer,
    summary,
    close: () => (closing ??= (async () => {
      emf?.close();
      // Streams first (clients move to another observer), then the session.
      await observer.close();
      await session.close();
    })()),
  };
}
