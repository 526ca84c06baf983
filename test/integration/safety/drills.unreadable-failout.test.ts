/**
 * A drill's run moves a cluster's traffic, then another tool writes the cluster's `failoutProperties`
 * unreadable, and a restore removes them (the operator's, the runner's stopping one, a guard's). An
 * operator's restore of a drilled cluster ends the run in the worker's one multi (`replaced`, or the
 * verdict of the alarm a stopping restore carries); the restore of an unreadable failout did not: the
 * worker found the run by the failout's drill window, which it could not read, so the run stayed
 * `running` until its window's end (then read `passed`), and `drill delete` was refused meanwhile.
 * Now every run of the cluster's drills that is running ends in the same multi as the restore and its
 * record: `replaced` with why, or the verdict of a stopping restore's alarm when the alarm is the run's.
 * The real handler over a real writer on ZooKeeper.
 */
import type { Context } from 'aws-lambda';
import { clusterPath } from '../../../lib/d2';
import { requestRecordPath, type RequestRecord } from '../../../lib/requests';
import { runningRun, type DrillRun } from '../../../lib/requests/drills';
import type { Outcome } from '../../../lib/requests/request-writer';
import type { ZkSession } from '../../../lib/zk';
import { drillHandler, drillPaths, putDrillBody, readDrill, type DrillPaths } from '../../helpers/drills';
import { failoutBody, readCluster, restoreBody, seedClusters } from '../../helpers/requests-queue';
import { sqsRecord } from '../../helpers/requests';
import { closeSessions, openSession } from '../../helpers/zk';

const context = { functionName: 'failout-requests', awsRequestId: 'aws-req-1', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
const CLUSTER = 'drill-lor1';
const PEER = 'drill-lva1';
/** Another cluster with a drill of its own, failed out to a peer of its own. */
const OTHER = 'drill-ltx1';
const OTHER_PEER = 'drill-lhr1';
const DRILL = 'weekly';
const RUN_ID = 'drill-weekly-1';

let session: ZkSession;
let paths: DrillPaths;
let outcomes: Outcome[];
let handler: ReturnType<typeof drillHandler>;

beforeEach(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, [CLUSTER, PEER, OTHER, OTHER_PEER]);
  outcomes = [];
  handler = drillHandler(session, paths, outcomes);
});

afterEach(async () => {
  await closeSessions();
});

/** Applies one request through the handler and returns its record. */
async function apply(body: Record<string, unknown>): Promise<RequestRecord> {
  const response = await handler({ Records: [sqsRecord(body, String(body.cluster))] }, context);
  expect(response).toEqual({ batchItemFailures: [] });
  return outcomes.at(-1)!.record;
}

async function runOf(runId: string): Promise<DrillRun | undefined> {
  return (await readDrill(session, paths, DRILL))?.runs.find((r) => r.runId === runId);
}

/** A drill run in place on CLUSTER, then its failoutProperties made unreadable by another tool (a weight of 0). */
async function runThenBreak(): Promise<void> {
  expect(await apply(putDrillBody(DRILL, CLUSTER, [PEER], { blockingAlarms: ['deploys'] }))).toMatchObject({ status: 'applied' });
  expect(await apply(failoutBody(CLUSTER, [PEER], { requestId: RUN_ID, drill: DRILL, stopAlarms: [`${DRILL}-outcome`, 'deploys'], requestedBy: 'failout-drills' }))).toMatchObject({ status: 'applied' });
  expect(await runOf(RUN_ID)).toMatchObject({ status: 'running' });
  const { json } = await readCluster(session, paths, CLUSTER);
  const failout = json.failoutProperties as { failoutRedirectConfigs: { weight: number }[] };
  failout.failoutRedirectConfigs[0]!.weight = 0;
  await session.set(clusterPath(paths.d2Base, CLUSTER), Buffer.from(JSON.stringify(json)));
}

it.each([
  ["an operator's restore", {}, { status: 'replaced', detail: expect.stringMatching(/could not be read/) }],
  ["the runner's stopping restore, by the run's outcome alarm", { requestedBy: 'failout-drills', stoppedByAlarm: `${DRILL}-outcome`, drill: DRILL }, { status: 'failed', stoppedByAlarm: `${DRILL}-outcome` }],
  ["a guard's restore, by the run's blocking alarm", { requestedBy: 'failout-guard', stoppedByAlarm: 'deploys' }, { status: 'interrupted', stoppedByAlarm: 'deploys' }],
  ["a guard's restore, by an alarm that is none of the run's", { requestedBy: 'failout-guard', stoppedByAlarm: 'other-errors' }, { status: 'replaced', detail: expect.stringMatching(/could not be read/) }],
] as const)('%s of the unreadable failout ends the running run in its own multi', async (_case, fields, ended) => {
  // Prepare
  await runThenBreak();
  const alarmAt = Date.now();
  const restore = restoreBody(CLUSTER, { ...fields, ...('stoppedByAlarm' in fields ? { alarmAt } : {}) });

  // Act
  const record = await apply(restore);

  // Assess
  expect(record).toMatchObject({ status: 'applied', action: 'restore', unreadableFailout: expect.stringMatching(/weight/) });
  const run = await runOf(RUN_ID);
  expect(run).toMatchObject({ ...ended, endedBy: restore.requestId, endedAt: expect.any(Number) });
  expect(runningRun((await readDrill(session, paths, DRILL))!, Date.now())).toBeUndefined();
  // One multi: the cluster, the drill node and the record were written by one transaction.
  const [cluster, drill, recorded] = await Promise.all([clusterPath(paths.d2Base, CLUSTER), `${paths.drillsPath}/${DRILL}`, requestRecordPath(paths.requestsPath, String(restore.requestId))].map((p) => session.exists(p)));
  expect(drill?.mzxid).toBe(recorded?.czxid);
  expect(cluster?.mzxid).toBe(recorded?.czxid);
});

it("leaves alone a running run of another cluster's drill", async () => {
  // Prepare
  expect(await apply(putDrillBody('other-drill', OTHER, [OTHER_PEER]))).toMatchObject({ status: 'applied' });
  expect(await apply(failoutBody(OTHER, [OTHER_PEER], { requestId: 'drill-other-drill-1', drill: 'other-drill', stopAlarms: ['other-drill-outcome'] }))).toMatchObject({ status: 'applied' });
  const otherRun = (await readDrill(session, paths, 'other-drill'))!.runs[0];
  expect(otherRun).toMatchObject({ status: 'running' });
  await runThenBreak();

  // Act
  await apply(restoreBody(CLUSTER));

  // Assess
  expect((await readDrill(session, paths, 'other-drill'))!.runs[0]).toEqual(otherRun);
  expect(await runOf(RUN_ID)).toMatchObject({ status: 'replaced' });
});
