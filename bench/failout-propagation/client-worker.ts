// Child process of bench/failout-propagation: runs N clients, each a ZooKeeper session with its own
// LoadBalancerState and ZooKeeperFailoutConfigProvider following one cluster, and reports per round
// when each client's routing decision flipped. Started by index.ts with `fork` + tsx's loader.
import { createLogger } from '../../lib/logging';
import { closeFailoutClients, startFailoutClient, type BenchFailoutClient } from '../lib/failout-client';
import { clock, inLanes, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import type { FromWorker, ToWorker } from './protocol';

type Init = Extract<ToWorker, { type: 'init' }>;

// One logger for every client: a pino destination per component would open thousands of handles.
const logger = createLogger('failout-propagation-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

const clients: BenchFailoutClient[] = [];
let current: { round: number; failedOut: boolean; times: number[]; remaining: number } | undefined;
let clientCount = 0;
let cluster = '';

function send(message: FromWorker): void {
  sendToParent(message);
}

/** Client `index` heard an update: record the round's time if its routing decision has flipped. */
function check(index: number): void {
  const at = clock();
  const round = current;
  const client = clients[index];
  if (!round || !client || round.times[index] !== 0) return;
  // What the redirect strategy reads on every request.
  const failedOut = client.provider.getFailoutConfig(cluster)?.isFailedOut() === true;
  if (failedOut !== round.failedOut) return;
  round.times[index] = at;
  if (--round.remaining === 0) {
    current = undefined;
    send({ type: 'flipped', round: round.round, times: round.times });
  }
}

async function startClient(init: Init, index: number): Promise<void> {
  const client = await startFailoutClient({ ...init, logger });
  clients[index] = client;
  const { state } = client;
  // Registered after the provider, so it runs after the provider has taken the update. Only the
  // cluster's `properties` change carries a failout write: host changes are not what is measured.
  state.registerClusterListener({
    onClusterChange: (change) => {
      if (change.kind === 'properties' && change.cluster === init.cluster) check(index);
    },
  });
  await state.listenToCluster(init.cluster);
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  cluster = init.cluster;
  clientCount = init.clients;
  await inLanes(init.clients, init.connectConcurrency, (index) => startClient(init, index));
  settleHeap();
  send({ type: 'ready', clients: init.clients, setupMs: clock() - started });
}

serveWorker<ToWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return setup(message);
    if (message.type === 'arm') {
      current = { round: message.round, failedOut: message.failedOut, times: new Array<number>(clientCount).fill(0), remaining: clientCount };
      send({ type: 'armed', round: message.round });
    }
  },
  close: async () => {
    current = undefined;
    await closeFailoutClients(clients);
  },
});
