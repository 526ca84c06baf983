// Child process of bench/propagation's xDS mode: one D2 observer (lib/observer) on its own ZooKeeper
// session and its own event loop, serving ADS on loopback, as one replica of the observer tier runs.
// Reports its memory on request (after a full GC when started with --expose-gc) and its CPU from a
// round's 'arm' to the parent's 'cpu' (sent once every client has the change), so the parent can
// divide the observer's cost by the clients it serves. Started by xds.ts with `fork`, compiled.
import { createLogger } from '../../lib/logging';
import { D2Observer } from '../../lib/observer';
import { connectSession, type ZkSession } from '../../lib/zk';
import { cpuSince, memoryAfterGc, sendToParent, serveWorker, sleep } from '../lib/workers';
import type { FromObserverWorker, ToObserverWorker } from './protocol';

type Init = Extract<ToObserverWorker, { type: 'init' }>;

const logger = createLogger('propagation-observer-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

let session: ZkSession | undefined;
let observer: D2Observer | undefined;
let armed: { round: number; cpu: NodeJS.CpuUsage } | undefined;

function send(message: FromObserverWorker): void {
  sendToParent(message);
}

async function start(init: Init): Promise<void> {
  session = await connectSession({ connectString: init.connectString, sessionTimeoutMs: init.sessionTimeoutMs, logger });
  observer = await D2Observer.start({ zk: session, basePath: init.basePath, grpc: { host: '127.0.0.1', port: 0 }, lingerMs: init.lingerMs, logger });
  // Ready as the observer's /readyz says: an observer that has not read the base path yet takes no clients.
  while (!observer.ready) await sleep(10);
  send({ type: 'ready', address: `127.0.0.1:${observer.grpcPort}` });
}

serveWorker<ToObserverWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return start(message);
    if (message.type === 'memory') {
      const status = observer?.status();
      send({ type: 'memory', ...memoryAfterGc(), streams: status?.streams ?? 0, subscriptions: status?.subscriptions ?? 0 });
    } else if (message.type === 'arm') {
      armed = { round: message.round, cpu: process.cpuUsage() };
      send({ type: 'armed', round: message.round });
    } else if (message.type === 'cpu') {
      send({ type: 'cpu', round: message.round, cpuMs: armed?.round === message.round ? cpuSince(armed.cpu) : 0 });
    }
  },
  close: async () => {
    await observer?.close();
    await session?.close();
  },
});
