/**
 * The d2-observer Fargate task: read the configuration from the environment (`loadObserverConfig`),
 * open the ZooKeeper session, serve the D2 tree over ADS, and stop cleanly on SIGTERM/SIGINT (streams
 * end UNAVAILABLE so clients move to another observer, then the session closes) within a few
 * seconds. Logic lives in lib/observer.
 */
import { closeOnSignal } from '../../lib/lifecycle';
import { createLogger } from '../../lib/logging';
import { D2Observer, loadObserverConfig } from '../../lib/observer';
import { connectSession } from '../../lib/zk';

const STOP_DEADLINE_MS = 5000;
const log = createLogger('d2-observer');

async function main(): Promise<void> {
  const config = loadObserverConfig(process.env);
  const session = await connectSession({ connectString: config.zookeeper.connectString, tls: config.zookeeper.tls, logger: log.child({ component: 'zk-session' }) });
  const observer = await D2Observer.start({ zk: session, basePath: config.basePath, grpc: config.grpc, admin: config.admin, lingerMs: config.lingerMs, logger: log });
  // Whether the admin endpoints ask for a token, never the token itself.
  const adminAuth = config.admin.token === undefined ? 'none' : 'bearer';
  log.info({ basePath: config.basePath, grpcHost: config.grpc.host, grpcPort: observer.grpcPort, adminHost: config.admin.host, adminPort: observer.adminPort, adminAuth, grpcTls: config.grpc.tls === undefined ? 'none' : config.grpc.tls.ca ? 'mutual' : 'server', zkTls: config.zookeeper.tls !== undefined }, 'd2-observer started');
  // Streams first (clients move to another observer), then the session.
  closeOnSignal({ close: () => observer.close().then(() => session.close()) }, { logger: log, deadlineMs: STOP_DEADLINE_MS });
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'd2-observer failed to start');
  process.exit(1);
});
