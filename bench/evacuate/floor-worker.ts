// Child process of bench/evacuate: the ZooKeeper fan-out floor for an evacuation. N watchers, one
// session each (as bench/zk-fanout's), each following the mirror nodes of the same F clusters a client
// with its index follows, with the product's persistent watch (`watchData`: every event re-arms and
// re-reads). Per round it reports when each watcher has read the round's value back from EVERY node
// it follows. Started by index.ts with `fork` + tsx's loader.
import { createLogger } from '../../lib/logging';
import { connectSession, type ZkSession } from '../../lib/zk';
import { clock, cpuSince, inLanes, sendToParent, serveWorker, settleHeap } from '../lib/workers';
import { evacuatedCluster, followedServices } from './fabric';
import { FIRST_MEASURED_ROUND, type FromWorker, type ToFloorWorker } from './protocol';

type Init = Extract<ToFloorWorker, { type: 'init' }>;

const logger = createLogger('evacuate-floor-worker');
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

const sessions: ZkSession[] = [];
/** Per watcher: how many nodes it follows (fixed after setup). */
const follows: number[] = [];
/** The round being measured: per watcher, the nodes (by slot) that have not read back the token yet. */
let current: { round: number; token: Buffer; times: number[]; pending: boolean[][]; left: number[]; remaining: number; cpu: NodeJS.CpuUsage } | undefined;

function send(message: FromWorker): void {
  sendToParent(message);
}

function onData(index: number, slot: number, data: Buffer | undefined): void {
  const at = clock();
  const round = current;
  if (!round || !data || round.times[index] !== 0 || !round.pending[index]?.[slot]) return;
  if (data.length < round.token.length || !data.subarray(0, round.token.length).equals(round.token)) return;
  round.pending[index]![slot] = false;
  if (--round.left[index]! > 0) return;
  round.times[index] = at;
  if (--round.remaining === 0) {
    current = undefined;
    send({ type: 'done', round: round.round, times: round.times, cpuMs: cpuSince(round.cpu) });
  }
}

async function startWatcher(init: Init, index: number): Promise<void> {
  const session = await connectSession({ connectString: init.connectString, sessionTimeoutMs: init.sessionTimeoutMs, logger });
  sessions[index] = session;
  const clusters = followedServices(init.first + index, init.services, init.follow).map(evacuatedCluster);
  follows[index] = clusters.length;
  const watches = clusters.map((cluster, slot) => session.watchData(`${init.floorPath}/${cluster}`, (state) => onData(index, slot, state.exists ? state.data : undefined)));
  await Promise.all(watches.map((w) => w.ready));
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  await inLanes(init.count, init.connectConcurrency, (index) => startWatcher(init, index));
  settleHeap();
  send({ type: 'ready', count: init.count, setupMs: clock() - started });
}

function arm(round: number, token: string): void {
  // Settled again before the last warm-up round, as the clients are (see FIRST_MEASURED_ROUND).
  if (round === FIRST_MEASURED_ROUND - 1) settleHeap();
  current = {
    round,
    token: Buffer.from(token, 'utf8'),
    times: new Array<number>(follows.length).fill(0),
    pending: follows.map((n) => new Array<boolean>(n).fill(true)),
    left: [...follows],
    remaining: follows.length,
    cpu: process.cpuUsage(),
  };
  send({ type: 'armed', round });
}

serveWorker<ToFloorWorker>({
  onMessage: (message) => {
    if (message.type === 'init') return setup(message);
    if (message.type === 'arm') arm(message.round, message.token);
  },
  close: async () => {
    current = undefined;
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
  },
});
