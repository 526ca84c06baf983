/**
 * Issue 21, item 3 through the `failout-drills` Lambda as `cdk deploy` ships it (lib/local
 * `startLocalDrills`: the esbuild bundle in a process of its own, ticked with EventBridge's scheduled
 * event): a tick during a run evaluates its alarms, and one in ALARM gives the run its verdict even
 * when the worker (the real handler behind a poller, paused here) takes it after the window ended.
 */
import type { LocalDrills } from '../../../lib/local/drills';
import { startLocalSqs, type LocalSqs } from '../../../lib/local/sqs';
import type { ZkSession } from '../../../lib/zk';
import { drillHandler, drillPaths, startDrillsLambda, putDrillBody, readDrill, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { failoutBody, readRecord, seedClusters, send, startPollers, stopPollers } from '../../helpers/requests-queue';
import { closeSessions, eventually, openSession } from '../../helpers/zk';

let sqs: LocalSqs;
let alarms: AlarmServer;
let session: ZkSession;
let paths: DrillPaths;
let drills: LocalDrills;

function startWorker(): void {
  startPollers(1, { client: sqs.client, queueUrl: sqs.queueUrl, handler: () => drillHandler(session, paths) });
}

beforeAll(async () => {
  sqs = await startLocalSqs();
  alarms = await startAlarmServer();
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, ['verdict-lor1', 'verdict-lva1']);
  startWorker();
  drills = await startDrillsLambda(sqs, alarms.url, paths, 'drills-lambda-verdict-test');
}, 60_000);
afterAll(async () => {
  await drills.close();
  await stopPollers();
  await closeSessions();
  await alarms.close();
  await sqs.close();
});

async function apply(body: Record<string, unknown>): Promise<void> {
  await send(sqs.client, sqs.queueUrl, body);
  await eventually(async () => (await readRecord(session, paths, String(body.requestId)))?.status === 'applied', 10_000, `${String(body.action)} applied`);
}

it('fails a run whose outcome alarm a tick saw in ALARM during it, though the worker takes the verdict after the window', async () => {
  await apply(putDrillBody('bundled', 'verdict-lor1', ['verdict-lva1'], { every: 'cron(0 3 1 1 ? *)' }));
  alarms.set('bundled-outcome', 'OK');
  const runId = `drill-bundled-${Date.now()}`;
  await apply(failoutBody('verdict-lor1', ['verdict-lva1'], { requestId: runId, drill: 'bundled', duration: 'PT3S', stopAlarms: ['bundled-outcome'], requestedBy: 'failout-drills' }));
  const run = (await readDrill(session, paths, 'bundled'))!.runs[0]!;
  await stopPollers();
  alarms.set('bundled-outcome', 'ALARM');

  const tick = await drills.tick();
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, run.endsAt! - Date.now()) + 200));
  startWorker();
  await eventually(async () => (await readRecord(session, paths, `${runId}-stop`)) !== undefined, 10_000, "the runner's restore");

  expect(tick).toEqual({ mode: 'tick', results: [{ drill: 'bundled', outcome: 'stopped', runId, alarm: 'bundled-outcome', requestId: `${runId}-stop` }] });
  expect((await readDrill(session, paths, 'bundled'))!.runs[0]).toMatchObject({ runId, status: 'failed', stoppedByAlarm: 'bundled-outcome', endedAt: run.endsAt });
  alarms.set('bundled-outcome', 'OK');
});
