/**
 * Issue 21, item 3 (drills): a run is judged by its alarms during the run, whenever the verdict reaches
 * the worker. On the real pipeline: FIFO queue (fauxqs) → poller → the real requests handler →
 * ZooKeeper; the real guard handler (createGuardHandler over a StopGuard) and the drill runner send to
 * the same queue. The worker is paused (pollers stopped) to make a verdict arrive after the window.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { startLocalSqs, type FifoQueuePair, type LocalSqs } from '../../../lib/local/sqs';
import { runStatusAt, type DrillRun } from '../../../lib/requests/drills';
import { alarmStateChangeEvent, StopGuard } from '../../../lib/safety';
import { createGuardHandler, type FailoutGuardHandler, type GuardResponse } from '../../../lib/safety/lambda';
import type { ZkSession } from '../../../lib/zk';
import { drillHandler, drillPaths, drillRunner, putDrillBody, readDrill, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { failoutBody, readCluster, readRecord, seedClusters, send, startPollers, stopPollers } from '../../helpers/requests-queue';
import { closeSessions, eventually, openSession } from '../../helpers/zk';

const CLUSTER = 'verdict-lor1';
const PEER = 'verdict-lva1';
const CONTEXT = { functionName: 'failout-guard', awsRequestId: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;
/** Never due while a test runs: runs are started by hand, the runner only evaluates them. */
const YEARLY = 'cron(0 3 1 1 ? *)';

let sqs: LocalSqs;
let alarms: AlarmServer;
let session: ZkSession;
let paths: DrillPaths;
let queue: FifoQueuePair;
let guard: FailoutGuardHandler;

beforeAll(async () => {
  sqs = await startLocalSqs();
  alarms = await startAlarmServer();
});
afterAll(async () => {
  await alarms.close();
  await sqs.close();
});
beforeEach(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, [CLUSTER, PEER]);
  queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  resumeWorker();
  const logger = new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' });
  const stopGuard = new StopGuard({
    zk: session,
    d2BasePath: paths.d2Base,
    drillsPath: paths.drillsPath,
    queueUrl: queue.queueUrl,
    send: async (message) => {
      const out = await sqs.client.send(new SendMessageCommand(message));
      return out.MessageId === undefined ? {} : { messageId: out.MessageId };
    },
    logger,
  });
  guard = createGuardHandler({ guard: stopGuard, logger, metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-guard-test' }) });
});
afterEach(async () => {
  await stopPollers();
  await closeSessions();
});

function resumeWorker(): void {
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => drillHandler(session, paths) });
}

async function apply(body: Record<string, unknown>): Promise<void> {
  await send(sqs.client, queue.queueUrl, body);
  await eventually(async () => (await readRecord(session, paths, String(body.requestId)))?.status === 'applied', 10_000, `${String(body.action)} ${String(body.requestId)} applied`);
}

/** Defines drill `name` (outcome alarm `<name>-outcome`, blocking alarm `deploys`) and starts a run of `ms`; resolves with the run as recorded. */
async function startRun(name: string, ms: number): Promise<DrillRun> {
  await apply(putDrillBody(name, CLUSTER, [PEER], { every: YEARLY, blockingAlarms: ['deploys'] }));
  const runId = `drill-${name}-${Date.now()}`;
  await apply(failoutBody(CLUSTER, [PEER], { requestId: runId, drill: name, duration: `PT${ms / 1000}S`, stopAlarms: [`${name}-outcome`, 'deploys'], requestedBy: 'failout-drills' }));
  return (await readDrill(session, paths, name))!.runs.find((r) => r.runId === runId)!;
}

async function runOf(name: string, runId: string): Promise<DrillRun> {
  return (await readDrill(session, paths, name))!.runs.find((r) => r.runId === runId)!;
}

/** Waits until the run's stored status is `status`. */
async function settles(name: string, runId: string, status: string): Promise<DrillRun> {
  await eventually(async () => (await runOf(name, runId)).status === status, 10_000, `run ${runId} ${status}`);
  return runOf(name, runId);
}

function alarmEvent(alarmName: string, at: number): Record<string, unknown> {
  return alarmStateChangeEvent({ id: randomUUID(), alarmName, state: 'ALARM', previousState: 'OK', at, reason: 'test' });
}

function restores(response: GuardResponse): readonly { cluster: string; requestId: string }[] {
  if (response.outcome !== 'handled') throw new Error(`not handled: ${JSON.stringify(response)}`);
  return response.restores;
}

async function until(ms: number): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now()) + 100));
}

/**
 * The guard's restore for `alarm`, seen in ALARM now during `run`, reaching the worker only after the
 * run's window ended (the worker paused meanwhile); resolves once it is recorded.
 */
async function lateGuardRestore(alarm: string, run: DrillRun): Promise<{ seenAt: number; restore: { requestId: string } }> {
  await stopPollers();
  const seenAt = Date.now();
  const [restore] = restores(await guard(alarmEvent(alarm, seenAt), CONTEXT));
  await until(run.endsAt!);
  resumeWorker();
  await eventually(async () => (await readRecord(session, paths, restore!.requestId)) !== undefined, 10_000, "the guard's restore");
  return { seenAt, restore: restore! };
}

describe('the guard', () => {
  it('records the run failed when its restore for the outcome alarm reaches the worker after the window ended', async () => {
    const run = await startRun('late', 2000);
    const { seenAt, restore } = await lateGuardRestore('late-outcome', run);

    const judged = await runOf('late', run.runId);
    expect(judged).toMatchObject({ status: 'failed', stoppedByAlarm: 'late-outcome', alarmAt: seenAt, endedAt: run.endsAt, endedBy: restore!.requestId });
  });

  it('stops and fails a run whose window was open when the alarm changed state, though the event is handled after the window', async () => {
    const run = await startRun('retried', 2000);
    await until(run.endsAt!);

    const sent = restores(await guard(alarmEvent('retried-outcome', run.at + 500), CONTEXT));

    expect(sent.map((r) => r.cluster)).toEqual([CLUSTER]);
    expect(await settles('retried', run.runId, 'failed')).toMatchObject({ stoppedByAlarm: 'retried-outcome', alarmAt: run.at + 500 });
  });

  it('records the run interrupted, not failed, when a blocking alarm stops it mid-run, and restores the cluster', async () => {
    const run = await startRun('deploying', 60_000);

    restores(await guard(alarmEvent('deploys', Date.now()), CONTEXT));

    expect(await settles('deploying', run.runId, 'interrupted')).toMatchObject({ stoppedByAlarm: 'deploys' });
    expect((await readCluster(session, paths, CLUSTER)).json.failoutProperties ?? null).toBeNull();
  });

  it('records the run interrupted when the blocking alarm\'s restore arrives after the window', async () => {
    const run = await startRun('late-deploy', 2000);
    await stopPollers();
    const [restore] = restores(await guard(alarmEvent('deploys', Date.now()), CONTEXT));
    await until(run.endsAt!);

    resumeWorker();
    await eventually(async () => (await readRecord(session, paths, restore!.requestId)) !== undefined, 10_000, "the guard's restore");

    expect(await runOf('late-deploy', run.runId)).toMatchObject({ status: 'interrupted', stoppedByAlarm: 'deploys' });
  });

  it('fails a run a blocking alarm stopped when its outcome alarm changed state earlier in the run, though that event is handled after the stop', async () => {
    // Prepare: the blocking alarm's restore ends the run (interrupted) and removes its window from the cluster.
    const run = await startRun('first-seen', 60_000);
    const outcomeAt = run.at + 200;
    await until(outcomeAt + 300);
    restores(await guard(alarmEvent('deploys', Date.now()), CONTEXT));
    await settles('first-seen', run.runId, 'interrupted');

    // Act: the outcome alarm's event, from before the blocking one, reaches the guard now.
    const sent = restores(await guard(alarmEvent('first-seen-outcome', outcomeAt), CONTEXT));

    // Assess: the first alarm seen in a run decides it.
    expect(sent.map((r) => r.cluster)).toEqual([CLUSTER]);
    expect(await settles('first-seen', run.runId, 'failed')).toMatchObject({ stoppedByAlarm: 'first-seen-outcome', alarmAt: outcomeAt });
    expect((await readCluster(session, paths, CLUSTER)).json.failoutProperties ?? null).toBeNull();
  });

  it('leaves a run passed when its outcome alarm changed state only after the window', async () => {
    const run = await startRun('after', 2000);
    await until(run.endsAt!);

    const sent = restores(await guard(alarmEvent('after-outcome', run.endsAt! + 50), CONTEXT));

    expect(sent).toEqual([]);
    expect(runStatusAt(await runOf('after', run.runId), Date.now())).toBe('passed');
  });
});

describe('the runner', () => {
  function runner() {
    return drillRunner(session, paths, { client: sqs.client, queueUrl: queue.queueUrl, alarmsUrl: alarms.url });
  }

  it.each([
    { what: 'its outcome alarm', which: 'outcome', status: 'failed' },
    { what: 'a blocking alarm', which: 'deploys', status: 'interrupted' },
  ] as const)('records a run $status when $what is in ALARM at an evaluation during it, though the worker takes the verdict after the window', async ({ which, status }) => {
    const name = `evaluated-${which}`;
    const alarm = which === 'outcome' ? `${name}-outcome` : 'deploys';
    alarms.set(`${name}-outcome`, 'OK');
    alarms.set('deploys', 'OK');
    const run = await startRun(name, 3000);
    expect(await runner().tick()).toEqual([{ drill: name, outcome: 'notDue' }]);
    await stopPollers();
    alarms.set(alarm, 'ALARM');

    const seenAt = Date.now();
    const [result] = await runner().tick();
    await until(run.endsAt!);
    resumeWorker();

    expect(result).toEqual({ drill: name, outcome: 'stopped', runId: run.runId, alarm, requestId: `${run.runId}-stop` });
    await eventually(async () => (await readRecord(session, paths, `${run.runId}-stop`)) !== undefined, 10_000, "the runner's restore");
    const judged = await runOf(name, run.runId);
    expect(judged).toMatchObject({ status, stoppedByAlarm: alarm, endedAt: run.endsAt });
    expect(judged.alarmAt).toBeGreaterThanOrEqual(seenAt);
    expect(judged.alarmAt).toBeLessThan(run.endsAt!);
    // Judged once: the run moves nothing any more, so later ticks send nothing for it.
    expect(await runner().tick()).toEqual([{ drill: name, outcome: 'notDue' }]);
    alarms.set(alarm, 'OK');
  });
});

describe('a run whose drill is put again, or whose failout is amended, while it runs', () => {
  function runner() {
    return drillRunner(session, paths, { client: sqs.client, queueUrl: queue.queueUrl, alarmsUrl: alarms.url });
  }

  /** Puts drill `name` again with another outcome alarm (and no blocking one) while its run moves traffic. */
  async function redefine(name: string): Promise<void> {
    await apply(putDrillBody(name, CLUSTER, [PEER], { every: YEARLY, outcomeAlarm: `${name}-new-outcome` }));
  }

  it('fails a run on the outcome alarm it started with, stopped mid-run by the guard, after the drill was put again with another', async () => {
    const run = await startRun('put-again', 60_000);
    await redefine('put-again');

    restores(await guard(alarmEvent('put-again-outcome', Date.now()), CONTEXT));

    expect(await settles('put-again', run.runId, 'failed')).toMatchObject({ stoppedByAlarm: 'put-again-outcome' });
    expect((await readCluster(session, paths, CLUSTER)).json.failoutProperties ?? null).toBeNull();
  });

  it('fails a run on the outcome alarm it started with when the restore reaches the worker after the window and after the drill was put again', async () => {
    const run = await startRun('put-again-late', 2000);
    await redefine('put-again-late');
    const { seenAt } = await lateGuardRestore('put-again-late-outcome', run);

    expect(await runOf('put-again-late', run.runId)).toMatchObject({ status: 'failed', stoppedByAlarm: 'put-again-late-outcome', alarmAt: seenAt, endedAt: run.endsAt });
  });

  it("has the runner evaluate the alarms a run started with, not those of the drill as put again since", async () => {
    alarms.set('put-again-tick-outcome', 'OK');
    alarms.set('put-again-tick-new-outcome', 'OK');
    alarms.set('deploys', 'OK');
    const run = await startRun('put-again-tick', 60_000);
    await redefine('put-again-tick');
    alarms.set('put-again-tick-outcome', 'ALARM');

    const [result] = await runner().tick();

    expect(result).toEqual({ drill: 'put-again-tick', outcome: 'stopped', runId: run.runId, alarm: 'put-again-tick-outcome', requestId: `${run.runId}-stop` });
    expect(await settles('put-again-tick', run.runId, 'failed')).toMatchObject({ stoppedByAlarm: 'put-again-tick-outcome' });
    alarms.set('put-again-tick-outcome', 'OK');
  });

  it("stops and fails a run whose failout no longer names its outcome alarm (amended away), when the runner sees that alarm in ALARM", async () => {
    alarms.set('amended-outcome', 'OK');
    alarms.set('deploys', 'OK');
    const run = await startRun('amended', 60_000);
    await apply({ version: 1, requestId: `amend-${randomUUID()}`, action: 'amend', cluster: CLUSTER, removeStopAlarms: ['amended-outcome'], requestedBy: 'oncall@example.com' });
    alarms.set('amended-outcome', 'ALARM');

    const [result] = await runner().tick();

    expect(result).toMatchObject({ drill: 'amended', outcome: 'stopped', runId: run.runId, alarm: 'amended-outcome' });
    expect(await settles('amended', run.runId, 'failed')).toMatchObject({ stoppedByAlarm: 'amended-outcome', endedBy: `${run.runId}-stop` });
    expect((await readCluster(session, paths, CLUSTER)).json.failoutProperties ?? null).toBeNull();
    alarms.set('amended-outcome', 'OK');
  });
});
