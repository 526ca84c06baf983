// Child process of bench/propagation's xDS mode: runs N failout clients following one cluster (and,
// through the provider, its peers) and reports per round when each client's routing decision flipped,
// as bench/failout-propagation's worker does. The clients read D2 data either over xDS (each its own
// XdsClient, listing its observers by `observerOrder`) or, for the comparison in the same run, over
// ZooKeeper (each its own session: bench/lib/failout-client, what the ZooKeeper mode runs). Both kinds
// run in this one worker, compiled, so the two paths differ only in where the data comes from.
import type { LoadBalancerState } from '../../lib/d2';
import type { ZooKeeperFailoutConfigProvider } from '../../lib/failout';
import { createLogger } from '../../lib/logging';
import { closeFailoutClients, closeXdsFailoutClients, inLanes, startFailoutClient, startXdsFailoutClient, type BenchFailoutClient, type BenchXdsFailoutClient } from '../lib/failout-client';
import { FlipRounds } from '../lib/flip-rounds';
import { clock, memoryAfterGc, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import { clientBootstrap, observerOrder } from './assignment';
import type { FromClientWorker, ToClientWorker } from './protocol';

type Init = Extract<ToClientWorker, { type: 'init' }>;

// One logger for every client: a pino destination per component would open thousands of handles.
const logger = createLogger('propagation-client-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

/** What a round reads of a client, whichever its source. */
type RoutedClient = { readonly state: LoadBalancerState; readonly provider: ZooKeeperFailoutConfigProvider };

/** Clients this worker runs (fixed by 'init'). */
let clientCount = 0;
const zkClients: BenchFailoutClient[] = [];
const xdsClients: BenchXdsFailoutClient[] = [];

function send(message: FromClientWorker): void {
  sendToParent(message);
}

const rounds = new FlipRounds((round, times) => send({ type: 'flipped', round, times }));

async function startClient(init: Init, index: number): Promise<void> {
  const { discovery } = init;
  let client: RoutedClient;
  if (discovery.kind === 'xds') {
    const servers = observerOrder(init.first + index, discovery.observers);
    const xds = startXdsFailoutClient({ ...init, bootstrap: clientBootstrap(init.first + index, servers), logger });
    xdsClients.push(xds);
    client = xds;
  } else {
    const zk = await startFailoutClient({ ...init, connectString: discovery.connectString, sessionTimeoutMs: discovery.sessionTimeoutMs, logger });
    zkClients.push(zk);
    client = zk;
  }
  // Registered after the provider, so it runs after the provider has taken the update. Only the
  // cluster's `properties` change carries a failout write: host changes are not what is measured.
  client.state.registerClusterListener({
    onClusterChange: (change) => {
      if (change.kind === 'properties' && change.cluster === init.cluster) rounds.check(index, () => client.provider.getFailoutConfig(init.cluster)?.isFailedOut() === true);
    },
  });
  await client.state.listenToCluster(init.cluster);
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  clientCount = init.clients;
  await inLanes(init.clients, init.connectConcurrency, (index) => startClient(init, index));
  settleHeap();
  send({ type: 'ready', clients: init.clients, setupMs: clock() - started });
}

serveWorker<ToClientWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return setup(message);
    if (message.type === 'arm') {
      rounds.arm(message.round, message.failedOut, clientCount);
      send({ type: 'armed', round: message.round });
    } else if (message.type === 'memory') {
      send({ type: 'memory', ...memoryAfterGc() });
    }
  },
  close: async () => {
    rounds.clear();
    closeXdsFailoutClients(xdsClients);
    await closeFailoutClients(zkClients);
  },
});
