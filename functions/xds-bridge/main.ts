/**
 * The xds-bridge Fargate task: read the configuration (environment and files, see
 * `loadBridgeConfig`), start the bridge, and stop cleanly on SIGTERM/SIGINT — give up leadership,
 * close the xDS streams and the ZooKeeper session — within a few seconds. Logic lives in lib/bridge.
 * With `BRIDGE_EMF_NAMESPACE` set (the CDK stack sets it), one CloudWatch EMF line a minute on stdout
 * carries the gauges the alarms watch (`lib/bridge/emf.ts`).
 */
import { loadBridgeConfig, startEmfReporter, XdsBridge } from '../../lib/bridge';
import { closeOnSignal } from '../../lib/lifecycle';
import { createLogger } from '../../lib/logging';

const STOP_DEADLINE_MS = 5000;
const log = createLogger('xds-bridge');

async function main(): Promise<void> {
  // `--allow-open-acl` is FAILOUT_ALLOW_OPEN_ACL=1 on the command line (docs/deployers.md "Access control").
  const config = loadBridgeConfig(process.argv.includes('--allow-open-acl') ? { ...process.env, FAILOUT_ALLOW_OPEN_ACL: '1' } : process.env);
  const bridge = await XdsBridge.start({ config, logger: log });
  // Whether the admin endpoints ask for a token, never the token itself.
  const adminAuth = config.admin.token === undefined ? 'none' : 'bearer';
  log.info({ replicaId: config.replicaId, services: config.services.length, adminHost: config.admin.host, adminPort: bridge.adminPort, adminGrpcPort: bridge.adminGrpcPort, adminAuth, zkTls: config.zookeeper.tls !== undefined, role: bridge.role }, 'xds-bridge started');
  const namespace = process.env.BRIDGE_EMF_NAMESPACE;
  const emf = namespace ? startEmfReporter(bridge, { namespace }) : undefined;
  const stoppable = {
    close: (): Promise<void> => {
      emf?.close();
      return bridge.close();
    },
  };
  closeOnSignal(stoppable, { logger: log, deadlineMs: STOP_DEADLINE_MS });
}

main().catch((err: unknown) => {
  log.fatal({ err }, 'xds-bridge failed to start');
  process.exit(1);
});
