/**
 * Issue 16, the `failout-drills` Lambda as `cdk deploy` ships it: the esbuild bundle of
 * functions/failout-drills in a process of its own (lib/local `startLocalDrills`, as `npm start` runs
 * it), ticked with EventBridge's scheduled event and asked `{"runNow": …}`, against the shared
 * ZooKeeper, fauxqs and a loopback alarm-state server; the real handler applies what it sends.
 */
import type { LocalDrills } from '../../../lib/local/drills';
import { startLocalSqs, type LocalSqs } from '../../../lib/local/sqs';
import type { ZkSession } from '../../../lib/zk';
import { drillHandler, drillPaths, startDrillsLambda, putDrillBody, readDrill, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { readRecord, seedClusters, send, startPollers, stopPollers } from '../../helpers/requests-queue';
import { closeSessions, eventually, openSession } from '../../helpers/zk';

let sqs: LocalSqs;
let alarms: AlarmServer;
let session: ZkSession;
let paths: DrillPaths;
let drills: LocalDrills;

beforeAll(async () => {
  sqs = await startLocalSqs();
  alarms = await startAlarmServer();
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, ['lambda-lor1', 'lambda-lva1']);
  startPollers(1, { client: sqs.client, queueUrl: sqs.queueUrl, handler: () => drillHandler(session, paths) });
  drills = await startDrillsLambda(sqs, alarms.url, paths, 'drills-lambda-test');
}, 60_000);
afterAll(async () => {
  await drills.close();
  await stopPollers();
  await closeSessions();
  await alarms.close();
  await sqs.close();
});

it('ticks (nothing due yet), runs a drill now, and skips one whose blocking alarm is in ALARM', async () => {
  const put = putDrillBody('bundled', 'lambda-lor1', ['lambda-lva1'], { every: 'cron(0 3 1 1 ? *)', blockingAlarms: ['deploys'] });
  await send(sqs.client, sqs.queueUrl, put);
  await eventually(async () => (await readRecord(session, paths, String(put.requestId)))?.status === 'applied', 10_000, 'the putDrill');

  expect(await drills.tick()).toEqual({ mode: 'tick', results: [{ drill: 'bundled', outcome: 'notDue' }] });

  alarms.set('deploys', 'ALARM');
  const skipped = await drills.runNow('bundled');
  expect(skipped).toMatchObject({ mode: 'runNow', results: [{ drill: 'bundled', outcome: 'skipped', skipReason: 'blockingAlarm' }] });

  alarms.set('deploys', 'OK');
  const started = await drills.runNow('bundled');
  expect(started).toMatchObject({ mode: 'runNow', results: [{ drill: 'bundled', outcome: 'started' }] });
  const runId = (started.results[0] as { runId: string }).runId;
  await eventually(async () => (await readDrill(session, paths, 'bundled'))?.runs[0]?.runId === runId, 10_000, 'the run');
  expect((await readDrill(session, paths, 'bundled'))?.runs.map((r) => r.status)).toEqual(['running', 'skipped']);
});

it('fails the invocation for a drill that does not exist (runNow), and keeps running', async () => {
  await expect(drills.runNow('nope')).rejects.toThrow(/no drill named "nope"/);
  expect((await drills.tick()).mode).toBe('tick');
});
