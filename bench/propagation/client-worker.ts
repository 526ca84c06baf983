// Child process of bench/propagation's xDS mode: runs N failout clients following one cluster (and,
// through the provider, its peers) and reports per round when each client's routing decision flipped,
// as bench/failout-propagation's worker does. The clients read D2 data either over xDS (each its own
// XdsClient, listing its observers by `observerOrder`) or, for the comparison in the same run, over
// ZooKeeper (each its own session: bench/lib/failout-client, what the ZooKeeper mode runs). Both kinds
// run in this one worker, compiled, so the two paths differ only in where the data comes from.
import type { LoadBalancerState } from '../../lib/d2';
import type { ZooKeeperFailoutConfigProvider } from '../../lib/failout';
import { createLogger } from '../../lib/logging';
import { indis, type XdsClient } from '../../lib/xds';
import { closeFailoutClients, closeXdsFailoutClients, startFailoutClient, startXdsFailoutClient, type BenchFailoutClient, type BenchXdsFailoutClient } from '../lib/failout-client';
import { FlipRounds } from '../lib/flip-rounds';
import { clock, inLanes, memoryAfterGc, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import { clientBootstrap, observerOrder } from './assignment';
import type { FromClientWorker, SotwBytes, ToClientWorker } from './protocol';

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
    const xds = startXdsFailoutClient({ ...init, bootstrap: clientBootstrap(init.first + index, servers, discovery.delta), logger });
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

/** Bytes of a length-delimited protobuf field of `length` bytes: tag, length varint, payload. */
function fieldBytes(length: number): number {
  let varint = 1;
  for (let n = length; n >= 0x80; n >>>= 7) varint++;
  return 1 + varint + length;
}

/**
 * The encoded sizes of the SotW exchange of `indis.D2Node` (the type a failout write changes: the
 * observer resends every one the client holds, and the client ACKs naming them all), from the client's
 * cached resources; versions and nonces counted as the observer's short sequence numbers.
 */
function d2NodeExchangeBytes(xds: XdsClient): SotwBytes {
  const typeUrl = indis.D2_NODE_TYPE_URL;
  const envelope = fieldBytes(typeUrl.length) + 2 * fieldBytes(8);
  let response = envelope;
  let ack = envelope;
  for (const authority of xds.dump().authorities) {
    for (const r of authority.resources) {
      if (r.typeUrl !== typeUrl) continue;
      ack += fieldBytes(r.name.length);
      if (r.raw) response += fieldBytes(fieldBytes(r.raw.type_url.length) + fieldBytes(r.raw.value.length));
    }
  }
  return { response, ack };
}

serveWorker<ToClientWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return setup(message);
    if (message.type === 'arm') {
      rounds.arm(message.round, message.failedOut, clientCount);
      send({ type: 'armed', round: message.round });
    } else if (message.type === 'memory') {
      send({ type: 'memory', ...memoryAfterGc() });
    } else if (message.type === 'sotwBytes') {
      const first = xdsClients[0];
      send({ type: 'sotwBytes', ...(first ? d2NodeExchangeBytes(first.xds) : { response: 0, ack: 0 }) });
    }
  },
  close: async () => {
    rounds.clear();
    closeXdsFailoutClients(xdsClients);
    await closeFailoutClients(zkClients);
  },
});
