/**
 * Issue 16, drills on the real pipeline: FIFO queue (fauxqs) → local poller → the real handler →
 * ZooKeeper, with the drill runner sending to the same queue and reading alarm states over HTTP (a
 * loopback server of the contract's shape). Each run's start, skip or end is written in the worker's
 * one multi with the cluster and the request record.
 */
import { startLocalSqs, type FifoQueuePair, type LocalSqs } from '../../../lib/local/sqs';
import { runStatusAt } from '../../../lib/requests/drills';
import type { ZkSession } from '../../../lib/zk';
import { closeSessions, eventually, openSession } from '../../helpers/zk';
import { drillHandler, drillPaths, drillRunner, nextMinute, putDrillBody, readDrill, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { failoutBody, queueDepth, readCluster, readRecord, restoreBody, seedClusters, send, startPollers, stopPollers } from '../../helpers/requests-queue';

let sqs: LocalSqs;
let alarms: AlarmServer;
let session: ZkSession;
let paths: DrillPaths;
let queue: FifoQueuePair;

const CLUSTER = 'drill-lor1';
const PEER = 'drill-lva1';

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
  await seedClusters(session, paths, [CLUSTER, PEER, 'other-1']);
  queue = await sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 });
  startPollers(1, { client: sqs.client, queueUrl: queue.queueUrl, handler: () => drillHandler(session, paths) });
});
afterEach(async () => {
  await stopPollers();
  await closeSessions();
});

/** Sends a body and waits for its record. */
async function apply(body: Record<string, unknown>): Promise<NonNullable<Awaited<ReturnType<typeof readRecord>>>> {
  await send(sqs.client, queue.queueUrl, body);
  let record: Awaited<ReturnType<typeof readRecord>>;
  await eventually(async () => (record = await readRecord(session, paths, String(body.requestId))) !== undefined, 10_000, `the record of ${String(body.requestId)}`);
  return record!;
}

function runner(clock: () => number) {
  return drillRunner(session, paths, { client: sqs.client, queueUrl: queue.queueUrl, alarmsUrl: alarms.url, clock });
}

/** Waits until the drill's run `runId` is recorded and returns it. */
async function runOf(name: string, runId: string) {
  await eventually(async () => (await readDrill(session, paths, name))?.runs.some((r) => r.runId === runId) === true, 10_000, `run ${runId}`);
  return (await readDrill(session, paths, name))!.runs.find((r) => r.runId === runId)!;
}

it('puts, redefines (runs kept) and deletes a drill, each through the queue with its record', async () => {
  const put = putDrillBody('weekly', CLUSTER, [PEER], { every: 'cron(0 14 ? * TUE *)', blockingAlarms: ['deploys'], blockedDates: ['2026-12-24'], blockedWindows: ['Sat:00:00-Mon:06:00'] });
  const record = await apply(put);
  expect(record).toMatchObject({ status: 'applied', action: 'putDrill', cluster: CLUSTER });
  expect(record.unchanged).toBeUndefined();
  expect((await readDrill(session, paths, 'weekly'))?.definition).toMatchObject({
    name: 'weekly',
    cluster: CLUSTER,
    peers: [{ cluster: PEER, weight: 1 }],
    durationMs: 3_600_000,
    buckets: { from: 0, to: 99 },
    every: 'cron(0 14 ? * TUE *)',
    outcomeAlarm: 'weekly-outcome',
    blockingAlarms: ['deploys'],
    blockedDates: ['2026-12-24'],
    blockedWindows: ['Sat:00:00-Mon:06:00'],
  });
  const skip = { version: 1, requestId: 'drill-weekly-1', action: 'skipDrill', cluster: CLUSTER, drill: 'weekly', skipReason: 'blockedDate', detail: 'test' };
  expect(await apply(skip)).toMatchObject({ status: 'applied', action: 'skipDrill' });
  expect(await apply(putDrillBody('weekly', CLUSTER, [PEER], { duration: 'PT30M' }))).toMatchObject({ status: 'applied' });
  const redefined = await readDrill(session, paths, 'weekly');
  expect(redefined?.definition.durationMs).toBe(1_800_000);
  expect(redefined?.runs.map((r) => r.runId)).toEqual(['drill-weekly-1']);

  expect(await apply({ version: 1, requestId: 'del-1', action: 'deleteDrill', cluster: CLUSTER, drill: 'weekly' })).toMatchObject({ status: 'applied', action: 'deleteDrill' });
  expect(await readDrill(session, paths, 'weekly')).toBeUndefined();
});

it('records bad drill requests as rejections and never blocks the cluster group', async () => {
  await apply(putDrillBody('mine', CLUSTER, [PEER]));
  const cases: [Record<string, unknown>, string][] = [
    [putDrillBody('bad-cron', CLUSTER, [PEER], { every: 'cron(0 14 * * TUE *)' }), 'badDrill'],
    [putDrillBody('bad-date', CLUSTER, [PEER], { blockedDates: ['2026-02-30'] }), 'badDrill'],
    [putDrillBody('bad-window', CLUSTER, [PEER], { blockedWindows: ['Mon:09:00-Xyz:10:00'] }), 'badDrill'],
    [putDrillBody('bad-alarm', CLUSTER, [PEER], { outcomeAlarm: '' }), 'badStopAlarm'],
    [putDrillBody('bad/name', CLUSTER, [PEER]), 'badName'],
    [putDrillBody('too-long', CLUSTER, [PEER], { duration: 'PT73H' }), 'windowTooLong'],
    [putDrillBody('no-peer', CLUSTER, ['nowhere-1']), 'unknownPeer'],
    [putDrillBody('no-cluster', 'nowhere-2', [PEER]), 'unknownCluster'],
    [putDrillBody('mine', 'other-1', [PEER]), 'badDrill'],
    [putDrillBody('extra', CLUSTER, [PEER], { surprise: 1 }), 'badSchema'],
    [{ version: 1, requestId: 'del-x', action: 'deleteDrill', cluster: CLUSTER, drill: 'nope' }, 'unknownDrill'],
    [{ version: 1, requestId: 'skip-x', action: 'skipDrill', cluster: CLUSTER, drill: 'nope', skipReason: 'blockedDate' }, 'unknownDrill'],
    [{ version: 1, requestId: 'skip-y', action: 'skipDrill', cluster: CLUSTER, drill: 'mine', skipReason: 'because' }, 'badSchema'],
    [failoutBody(CLUSTER, [PEER], { drill: 'nope' }), 'unknownDrill'],
  ];
  for (const [body] of cases) await send(sqs.client, queue.queueUrl, body, { group: String(body.cluster) });
  const next = failoutBody(CLUSTER, [PEER]);
  await send(sqs.client, queue.queueUrl, next);

  await eventually(async () => (await readRecord(session, paths, String(next.requestId))) !== undefined, 20_000, 'the request after the bad ones');
  for (const [body, reason] of cases) {
    const record = await readRecord(session, paths, String(body.requestId));
    expect({ id: body.requestId, status: record?.status, reason: record?.reason }).toEqual({ id: body.requestId, status: 'rejected', reason });
  }
  expect((await readRecord(session, paths, String(next.requestId)))?.status).toBe('applied');
  expect((await readDrill(session, paths, 'mine'))?.definition.cluster).toBe(CLUSTER);
  expect(await queueDepth(sqs.client, queue.dlqUrl)).toBe(0);
});

it('starts a due drill once: two ticks of two runners send one failout, recorded as one running run', async () => {
  await apply(putDrillBody('minutely', CLUSTER, [PEER], { blockingAlarms: ['deploys'], buckets: { from: 0, to: 49 } }));
  alarms.set('minutely-outcome', 'OK');
  const at = nextMinute(Date.now());
  const first = await runner(() => at).tick();
  const second = await runner(() => at + 5000).tick();
  const runId = `drill-minutely-${at - 1000}`;
  expect(first).toEqual([{ drill: 'minutely', outcome: 'started', runId, scheduledAt: at - 1000 }]);
  // Sent again (not yet applied) or found handled: either way one effect.
  expect(['started', 'handled']).toContain(second[0]?.outcome);

  const run = await runOf('minutely', runId);
  expect(run).toMatchObject({ status: 'running', buckets: { from: 0, to: 49 }, peers: [{ cluster: PEER, weight: 1 }] });
  await eventually(async () => (await queueDepth(sqs.client, queue.queueUrl)) === 0, 10_000, 'an empty queue');
  expect(await runner(() => at + 10_000).tick()).toEqual([{ drill: 'minutely', outcome: 'handled', runId }]);
  expect((await readDrill(session, paths, 'minutely'))!.runs).toHaveLength(1);
  const cluster = await readCluster(session, paths, CLUSTER);
  const buckets = (cluster.json.failoutProperties as { failoutBucketConfigs: Record<string, unknown>[] }).failoutBucketConfigs;
  expect(buckets).toEqual([expect.objectContaining({ drill: 'minutely', stopAlarms: ['minutely-outcome', 'deploys'], requestId: runId, bucketOfflineRange: { from: 0, to: 49 } })]);
  expect(await readRecord(session, paths, runId)).toMatchObject({ status: 'applied', action: 'failout' });
});

it.each([
  ['a blocking alarm in ALARM', { blockingAlarms: ['deploys'] }, 'blockingAlarm', /blocking alarm deploys is in ALARM/],
  ['the outcome alarm in ALARM', {}, 'outcomeAlarm', /outcome alarm .* is already in ALARM/],
  ['a blocked date', 'date', 'blockedDate', /is a blocked date/],
  ['a blocked window', 'window', 'blockedWindow', /blocked window/],
] as const)('skips a due run for %s, recorded with why', async (_what, extra, skipReason, detail) => {
  const name = `skip-${skipReason.toLowerCase()}`;
  const at = nextMinute(Date.now());
  const due = new Date(at - 1000);
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  // The whole UTC day of the due time, as a weekly window.
  const window = `${days[due.getUTCDay()]!}:00:00-${days[(due.getUTCDay() + 1) % 7]!}:00:00`;
  const overrides = extra === 'date' ? { blockedDates: [due.toISOString().slice(0, 10)] } : extra === 'window' ? { blockedWindows: [window] } : extra;
  await apply(putDrillBody(name, CLUSTER, [PEER], overrides));
  alarms.set('deploys', 'ALARM');
  alarms.set(`${name}-outcome`, skipReason === 'outcomeAlarm' ? 'ALARM' : 'OK');
  const before = await readCluster(session, paths, CLUSTER);

  const [result] = await runner(() => at).tick();
  expect(result).toMatchObject({ outcome: 'skipped', skipReason });
  const run = await runOf(name, `drill-${name}-${at - 1000}`);

  expect(run).toMatchObject({ status: 'skipped', skipReason, scheduledAt: at - 1000 });
  expect(run.detail).toMatch(detail);
  expect((await readCluster(session, paths, CLUSTER)).version).toBe(before.version);
  alarms.set('deploys', 'OK');
});

it("skips a due run while an operator's failout is active, and the worker refuses a drill's failout then (recorded as skipped)", async () => {
  await apply(putDrillBody('yield', CLUSTER, [PEER]));
  alarms.set('yield-outcome', 'OK');
  await apply(failoutBody(CLUSTER, [PEER], { requestedBy: 'oncall@example.com' }));
  const at = nextMinute(Date.now());

  const [result] = await runner(() => at).tick();
  expect(result).toMatchObject({ outcome: 'skipped', skipReason: 'operatorFailoutActive' });
  expect(await runOf('yield', `drill-yield-${at - 1000}`)).toMatchObject({ status: 'skipped', skipReason: 'operatorFailoutActive' });

  // A drill failout reaching the worker anyway (a runner that read before the operator's write).
  const late = failoutBody(CLUSTER, [PEER], { requestId: 'drill-yield-late', drill: 'yield', stopAlarms: ['yield-outcome'] });
  expect(await apply(late)).toMatchObject({ status: 'rejected', reason: 'operatorFailoutActive' });
  const run = await runOf('yield', 'drill-yield-late');
  expect(run).toMatchObject({ status: 'skipped', skipReason: 'operatorFailoutActive' });
  expect(run.detail).toMatch(/oncall@example.com/);
});

it("marks a running drill replaced by an operator's failout, and by an operator's restore", async () => {
  await apply(putDrillBody('replace', CLUSTER, [PEER]));
  alarms.set('replace-outcome', 'OK');
  const first = failoutBody(CLUSTER, [PEER], { requestId: 'drill-replace-1', drill: 'replace', stopAlarms: ['replace-outcome'] });
  expect(await apply(first)).toMatchObject({ status: 'applied' });
  const operator = failoutBody(CLUSTER, [PEER], { requestedBy: 'oncall@example.com' });
  await apply(operator);
  expect(await runOf('replace', 'drill-replace-1')).toMatchObject({ status: 'replaced', endedBy: operator.requestId });

  await apply(restoreBody(CLUSTER));
  const second = failoutBody(CLUSTER, [PEER], { requestId: 'drill-replace-2', drill: 'replace', stopAlarms: ['replace-outcome'] });
  expect(await apply(second)).toMatchObject({ status: 'applied' });
  const restore = restoreBody(CLUSTER);
  await apply(restore);
  expect(await runOf('replace', 'drill-replace-2')).toMatchObject({ status: 'replaced', endedBy: restore.requestId });
  // The first stays as it ended.
  expect(await runOf('replace', 'drill-replace-1')).toMatchObject({ status: 'replaced', endedBy: operator.requestId });
});

it("marks a drill stopped by its outcome alarm (the guard's restore) failed, and one that ran its window passed", async () => {
  await apply(putDrillBody('stopped', CLUSTER, [PEER]));
  const run = failoutBody(CLUSTER, [PEER], { requestId: 'drill-stopped-1', drill: 'stopped', stopAlarms: ['stopped-outcome'] });
  await apply(run);
  const guard = restoreBody(CLUSTER, { requestedBy: 'failout-guard', reason: 'stopped by alarm stopped-outcome', stoppedByAlarm: 'stopped-outcome' });
  expect(await apply(guard)).toMatchObject({ status: 'applied' });
  expect(await runOf('stopped', 'drill-stopped-1')).toMatchObject({ status: 'failed', stoppedByAlarm: 'stopped-outcome', endedBy: guard.requestId });
  expect((await readCluster(session, paths, CLUSTER)).json.failoutProperties ?? null).toBeNull();

  const short = failoutBody(CLUSTER, [PEER], { requestId: 'drill-stopped-2', drill: 'stopped', duration: 'PT1S', stopAlarms: ['stopped-outcome'] });
  await apply(short);
  const started = await runOf('stopped', 'drill-stopped-2');
  expect(started.status).toBe('running');
  await new Promise((resolve) => setTimeout(resolve, 1200));
  expect(runStatusAt(started, Date.now())).toBe('passed');
  // A late guard restore finds the window ended: nothing to stop, the run stays passed.
  await apply(restoreBody(CLUSTER, { stoppedByAlarm: 'stopped-outcome' }));
  expect(runStatusAt(await runOf('stopped', 'drill-stopped-2'), Date.now())).toBe('passed');
});

it('refuses to delete a drill while its run moves traffic', async () => {
  await apply(putDrillBody('busy', CLUSTER, [PEER]));
  await apply(failoutBody(CLUSTER, [PEER], { requestId: 'drill-busy-1', drill: 'busy', stopAlarms: ['busy-outcome'] }));
  expect(await apply({ version: 1, requestId: 'del-busy', action: 'deleteDrill', cluster: CLUSTER, drill: 'busy' })).toMatchObject({ status: 'rejected', reason: 'drillRunning' });
  expect(await readDrill(session, paths, 'busy')).toBeDefined();
});

it("moves a running drill's end with an extend, and keeps it running", async () => {
  await apply(putDrillBody('longer', CLUSTER, [PEER]));
  await apply(failoutBody(CLUSTER, [PEER], { requestId: 'drill-longer-1', drill: 'longer', duration: 'PT10M', stopAlarms: ['longer-outcome'] }));
  const before = await runOf('longer', 'drill-longer-1');
  const extend = { version: 1, requestId: 'ext-longer', action: 'extend', cluster: CLUSTER, duration: 'PT1H' };
  expect(await apply(extend)).toMatchObject({ status: 'applied' });
  const after = await runOf('longer', 'drill-longer-1');
  expect(after.status).toBe('running');
  expect(after.endsAt! - before.endsAt!).toBeGreaterThan(45 * 60_000);
});

it.each([
  ['on a blocked date (due the evening before, ticked after midnight)', 'date'],
  ['overlapping a blocked window (due before it, ticked late enough to reach it)', 'window'],
] as const)('skips a run the runner would start %s, within the grace period', async (_what, kind) => {
  const days = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
  const hhmm = (t: Date): string => `${String(t.getUTCHours()).padStart(2, '0')}:${String(t.getUTCMinutes()).padStart(2, '0')}`;
  // Due at 23:59 UTC (date) or at the next whole minute (window); the tick comes 8 minutes late.
  const now = Date.now();
  const lastMinuteToday = Math.floor(now / 86_400_000) * 86_400_000 + 86_400_000 - 60_000;
  const due = kind === 'date' ? (lastMinuteToday > now ? lastMinuteToday : lastMinuteToday + 86_400_000) : nextMinute(now) - 1000;
  const tick = due + 8 * 60_000;
  const name = `late-${kind}`;
  const d = new Date(due);
  // The run lasts 30 minutes: [due, due + 30m) misses the window at due + 35m, [tick, tick + 30m) reaches it.
  const blockedAt = new Date(due + 35 * 60_000);
  const blockedEnd = new Date(due + 60 * 60_000);
  const overrides =
    kind === 'date'
      ? { blockedDates: [new Date(tick).toISOString().slice(0, 10)] }
      : { blockedWindows: [`${days[blockedAt.getUTCDay()]!}:${hhmm(blockedAt)}-${days[blockedEnd.getUTCDay()]!}:${hhmm(blockedEnd)}`] };
  await apply(putDrillBody(name, CLUSTER, [PEER], { every: `cron(${d.getUTCMinutes()} ${d.getUTCHours()} * * ? *)`, duration: 'PT30M', ...overrides }));
  alarms.set(`${name}-outcome`, 'OK');
  const before = await readCluster(session, paths, CLUSTER);

  const [result] = await runner(() => tick).tick();

  expect(result).toMatchObject({ outcome: 'skipped', skipReason: kind === 'date' ? 'blockedDate' : 'blockedWindow' });
  expect(await runOf(name, `drill-${name}-${due}`)).toMatchObject({ status: 'skipped', scheduledAt: due });
  expect((await readCluster(session, paths, CLUSTER)).version).toBe(before.version);
});

it('ignores a due time older than the grace period (10 minutes), and starts one within it', async () => {
  const due = nextMinute(Date.now()) - 1000;
  const d = new Date(due);
  await apply(putDrillBody('late', CLUSTER, [PEER], { every: `cron(${d.getUTCMinutes()} ${d.getUTCHours()} * * ? *)` }));
  alarms.set('late-outcome', 'OK');

  expect(await runner(() => due + 11 * 60_000).tick()).toEqual([{ drill: 'late', outcome: 'notDue' }]);
  expect(await runner(() => due + 9 * 60_000).tick()).toEqual([{ drill: 'late', outcome: 'started', runId: `drill-late-${due}`, scheduledAt: due }]);
  expect(await runOf('late', `drill-late-${due}`)).toMatchObject({ status: 'running' });
});
