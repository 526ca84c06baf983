// Child process of bench/zk-fanout: runs N watchers, each on its own ZooKeeper session, and reports per
// round when each one's listener got the new value. Started by index.ts with `fork` + tsx's loader.
import { createLogger } from '../../lib/logging';
import { connectSession, type ZkSession } from '../../lib/zk';
import { clock, type FromWorker, type ToWorker } from './protocol';
import { sendToParent, serveWorker, settleHeap } from '../lib/workers';

type Init = Extract<ToWorker, { type: 'init' }>;

const logger = createLogger('zk-fanout-worker');
// 1,000 "session established" lines would drown the table; FAILOUT_LOG_LEVEL still overrides.
if (!process.env.FAILOUT_LOG_LEVEL) logger.level = 'warn';

const sessions: ZkSession[] = [];
/** The round being measured, or undefined between rounds. */
let current: { round: number; value: Buffer; times: number[]; remaining: number } | undefined;

function send(message: FromWorker): void {
  sendToParent(message);
}

function onState(index: number, data: Buffer | undefined): void {
  const at = clock();
  const round = current;
  if (!round || !data || !data.equals(round.value) || round.times[index] !== 0) return;
  round.times[index] = at;
  if (--round.remaining === 0) {
    current = undefined;
    send({ type: 'notified', round: round.round, times: round.times });
  }
}

async function startWatcher(init: Init, index: number): Promise<void> {
  const session = await connectSession({ connectString: init.connectString, sessionTimeoutMs: init.sessionTimeoutMs, logger });
  sessions.push(session);
  // The product's persistent watch: every event re-arms with exists() and re-reads with getData()
  // before the listener runs, so the measured time includes that re-read.
  const watch = session.watchData(init.path, (state) => onState(index, state.exists ? state.data : undefined));
  await watch.ready;
}

async function setup(init: Init): Promise<void> {
  const started = clock();
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < init.watchers) await startWatcher(init, next++);
  };
  await Promise.all(Array.from({ length: Math.min(init.connectConcurrency, init.watchers) }, lane));
  settleHeap();
  send({ type: 'ready', watchers: init.watchers, setupMs: clock() - started });
}

let watcherCount = 0;
serveWorker<ToWorker>({
  onMessage: (message) => {
    if (message.type === 'init') {
      watcherCount = message.watchers;
      return setup(message);
    }
    if (message.type === 'arm') {
      current = { round: message.round, value: Buffer.from(message.value), times: new Array<number>(watcherCount).fill(0), remaining: watcherCount };
      send({ type: 'armed', round: message.round });
    }
  },
  close: async () => {
    current = undefined;
    await Promise.all(sessions.map((s) => s.close().catch(() => undefined)));
  },
});
