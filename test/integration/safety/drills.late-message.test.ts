/**
 * A drill run's message that reaches the worker late (its cluster's FIFO group held up behind a
 * retried request, a DLQ redrive): the run moves traffic only within the window the runner checked
 * when it sent it (its blocked dates and windows, docs/operators.md "Drills": "no run starts whose
 * window would overlap one"; a due time past the grace is not caught up). Runner and worker on a real
 * ZooKeeper; the runner's message is handed to the real handler at a later worker clock.
 */
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import type { AlarmState } from '../../../lib/alarms';
import { DrillRunner } from '../../../lib/safety';
import { silentRequestLogger } from '../../../lib/requests/logger';
import type { ZkSession } from '../../../lib/zk';
import { drillPaths, nextMinute, putDrillBody, readDrill, type DrillPaths } from '../../helpers/drills';
import { sqsRecord } from '../../helpers/requests';
import { directHandler, type DirectHandler } from '../../helpers/requests-handler';
import { readCluster, readRecord, seedClusters } from '../../helpers/requests-queue';
import { closeSessions, openSession } from '../../helpers/zk';

const CLUSTER = 'late-lor1';
const PEER = 'late-lva1';
const MINUTE = 60_000;
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];

let session: ZkSession;
let paths: DrillPaths;
let clock: number;
let worker: DirectHandler;

beforeEach(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, [CLUSTER, PEER]);
  clock = Date.now();
  worker = directHandler(session, paths, { drillsPath: paths.drillsPath, clock: () => clock });
});
afterEach(async () => {
  await closeSessions();
});

/** `Ddd:HH:MM` (UTC) of an instant, as a blocked window's end is written. */
function weekly(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getUTCDay()]!}:${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

async function apply(body: Record<string, unknown> | string): Promise<void> {
  const response = await worker.invoke([sqsRecord(body, CLUSTER)]);
  expect(response).toEqual({ batchItemFailures: [] });
}

/** The runner's tick at `at`: the message it sends (captured, not queued). */
async function tickAt(at: number): Promise<{ body: string; runId: string }> {
  const sent: SendMessageCommandInput[] = [];
  const ok = new Map<string, AlarmState>();
  const runner = new DrillRunner({
    zk: session,
    d2BasePath: paths.d2Base,
    requestsPath: paths.requestsPath,
    drillsPath: paths.drillsPath,
    queueUrl: 'http://127.0.0.1:1/000000000000/failout-requests.fifo',
    send: async (message) => {
      sent.push(message);
      return {};
    },
    alarms: { states: async (names) => new Map(names.map((n) => [n, ok.get(n) ?? 'OK'])) },
    logger: silentRequestLogger,
    clock: () => at,
  });
  const [result] = await runner.tick();
  expect(result).toMatchObject({ outcome: 'started' });
  expect(sent).toHaveLength(1);
  return { body: sent[0]!.MessageBody!, runId: (result as { runId: string }).runId };
}

describe('a drill run applied late', () => {
  it('moves traffic no later than the window the runner checked: it does not run into a blocked window that window missed', async () => {
    const at = nextMinute(clock);
    // A blocked window from 40 minutes after the run's due time: a 30-minute run sent then misses it.
    const blocked = `${weekly(at + 40 * MINUTE)}-${weekly(at + 100 * MINUTE)}`;
    await apply(putDrillBody('late', CLUSTER, [PEER], { duration: 'PT30M', blockedWindows: [blocked] }));
    const { body, runId } = await tickAt(at);

    // The worker gets it 20 minutes later.
    clock = at + 20 * MINUTE;
    await apply(body);

    expect(await readRecord(session, paths, runId)).toMatchObject({ status: 'applied' });
    const buckets = ((await readCluster(session, paths, CLUSTER)).json.failoutProperties as { failoutBucketConfigs: { onlineAt: number }[] }).failoutBucketConfigs;
    expect(buckets).toHaveLength(1);
    expect(buckets[0]!.onlineAt).toBeLessThanOrEqual(at + 30 * MINUTE);
  });

  it('starts no run when it arrives after the window the runner checked has ended (a DLQ redrive): its record says why and the cluster is untouched', async () => {
    const at = nextMinute(clock);
    await apply(putDrillBody('redriven', CLUSTER, [PEER], { duration: 'PT30M' }));
    const { body, runId } = await tickAt(at);
    const before = await readCluster(session, paths, CLUSTER);

    clock = at + 3 * 60 * MINUTE;
    await apply(body);

    expect(await readRecord(session, paths, runId)).toMatchObject({ status: 'rejected', reason: 'badWindow', message: expect.stringMatching(/already past/) });
    expect((await readCluster(session, paths, CLUSTER)).version).toBe(before.version);
    expect((await readDrill(session, paths, 'redriven'))?.runs.some((r) => r.runId === runId && r.status === 'running')).toBe(false);
  });
});
