// Child process of bench/evacuate: runs N failout clients (bench/lib/failout-client: a session, a
// LoadBalancerState and a ZooKeeperFailoutConfigProvider each, as bench/failout-propagation runs
// them), each following F services through `listenToService`, as a D2 client of those services
// does. Per round it reports when each client routes EVERY service it follows as the round says:
// evacuated (the service's lor1 cluster failed out in all 100 buckets, to peers all outside the
// fabric) or home (not failed out). Started by index.ts with `fork` + tsx's loader.
import { createLogger } from '../../lib/logging';
import { closeFailoutClients, startFailoutClient, type BenchFailoutClient } from '../lib/failout-client';
import { clock, cpuSince, inLanes, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import { evacuatedCluster, followedServices, serviceName } from './fabric';
import { FIRST_MEASURED_ROUND, type FromWorker, type ToClientWorker } from './protocol';
import { evacuatedAt, homeAt, nextBoundary } from './routing';

type Init = Extract<ToClientWorker, { type: 'init' }>;

const logger = createLogger('evacuate-client-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

const clients: BenchFailoutClient[] = [];
/** Per client: the clusters of the services it follows (fixed after setup). */
const followed: ReadonlySet<string>[] = [];
/** The evacuated fabric. */
let fabric = '';
/** The round being measured: per client, the followed clusters not yet routed as wanted. */
let current: { round: number; evacuated: boolean; times: number[]; pending: Set<string>[]; remaining: number; cpu: NodeJS.CpuUsage } | undefined;
/** Re-checks at a window boundary, for a window that starts or ends later than its write arrives. */
const rechecks = new Map<string, NodeJS.Timeout>();

function send(message: FromWorker): void {
  sendToParent(message);
}

/** Client `index` heard an update of `cluster` (or a boundary passed): count it if it routes as the round wants. */
function check(index: number, cluster: string): void {
  const at = clock();
  const round = current;
  const client = clients[index];
  if (!round || !client || round.times[index] !== 0 || !round.pending[index]?.has(cluster)) return;
  const now = Date.now();
  const config = client.provider.getFailoutConfig(cluster);
  const routed = round.evacuated ? evacuatedAt(config, now, fabric) : homeAt(config, now);
  if (!routed) {
    const boundary = nextBoundary(config, now);
    const key = `${index}/${cluster}`;
    if (boundary !== undefined && !rechecks.has(key)) rechecks.set(key, setTimeout(() => (rechecks.delete(key), check(index, cluster)), boundary - now + 1));
    return;
  }
  const pending = round.pending[index]!;
  pending.delete(cluster);
  if (pending.size > 0) return;
  round.times[index] = at;
  if (--round.remaining === 0) {
    current = undefined;
    send({ type: 'done', round: round.round, times: round.times, cpuMs: cpuSince(round.cpu) });
  }
}

async function startClient(init: Init, index: number): Promise<void> {
  const client = await startFailoutClient({ ...init, logger });
  clients[index] = client;
  const services = followedServices(init.first + index, init.services, init.follow);
  const clusters = new Set(services.map(evacuatedCluster));
  followed[index] = clusters;
  // Registered after the provider, so it runs after the provider has taken the update. Only a
  // cluster's `properties` carry a failout write: host changes and the peers' updates are not measured.
  client.state.registerClusterListener({
    onClusterChange: (change) => {
      if (change.kind === 'properties' && clusters.has(change.cluster)) check(index, change.cluster);
    },
  });
  for (const service of services) await client.state.listenToService(serviceName(service));
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  fabric = init.fabric;
  await inLanes(init.count, init.connectConcurrency, (index) => startClient(init, index));
  settleHeap();
  send({ type: 'ready', count: init.count, setupMs: clock() - started });
}

function arm(round: number, evacuated: boolean): void {
  // Settled again before the last warm-up round (see FIRST_MEASURED_ROUND).
  if (round === FIRST_MEASURED_ROUND - 1) settleHeap();
  for (const timer of rechecks.values()) clearTimeout(timer);
  rechecks.clear();
  current = { round, evacuated, times: new Array<number>(clients.length).fill(0), pending: followed.map((f) => new Set(f)), remaining: clients.length, cpu: process.cpuUsage() };
  send({ type: 'armed', round });
}

serveWorker<ToClientWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return setup(message);
    if (message.type === 'arm') arm(message.round, message.evacuated);
  },
  close: async () => {
    current = undefined;
    for (const timer of rechecks.values()) clearTimeout(timer);
    await closeFailoutClients(clients);
  },
});
