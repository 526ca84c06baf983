// Child process of bench/console: the failout console server alone in its own process (so that the
// CPU the benchmark reads is the server's, not the browser's nor ZooKeeper's), started as
// `failout console` starts it (lib/console's `startConsole`: the same options from flags and
// environment), on a free loopback port without a queue (the page shows state; nothing is sent).
// Started by index.ts with `fork`; reports its URL, and its CPU time on request. The console comes
// from the checkout the parent names (`--console-from`: e.g. the last commit's, to compare the
// console before and after a change in one run of the same benchmark).
import { join } from 'node:path';
import type { ConsoleServer } from '../../lib/console';
import { createLogger } from '../../lib/logging';
import { clock, sendToParent, serveWorker } from '../lib/workers';
import type { FromConsoleWorker, ToConsoleWorker } from './protocol';

const logger = createLogger('bench-console-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

let server: ConsoleServer | undefined;

function send(message: FromConsoleWorker): void {
  sendToParent(message);
}

async function start(connectString: string, d2Base: string, requestsBase: string, consoleRoot: string): Promise<void> {
  if (server) throw new Error('console already started');
  const { startConsole } = (await import(join(consoleRoot, 'lib', 'console', 'index.ts'))) as typeof import('../../lib/console');
  const env = { ZK_CONNECT: connectString, D2_BASE_PATH: d2Base, FAILOUT_REQUESTS_PATH: requestsBase, FAILOUT_USER: 'bench' };
  server = await startConsole({ port: '0', listen: '127.0.0.1' }, env, logger);
  send({ type: 'started', url: server.url, pid: process.pid });
}

serveWorker<ToConsoleWorker>({
  onMessage: async (message) => {
    if (message.type === 'start') await start(message.connectString, message.d2Base, message.requestsBase, message.consoleRoot);
    else if (message.type === 'cpu') {
      const usage = process.cpuUsage();
      send({ type: 'cpu', id: message.id, userUs: usage.user, systemUs: usage.system, at: clock() });
    }
  },
  close: async () => {
    await server?.close();
  },
});
