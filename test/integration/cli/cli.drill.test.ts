/**
 * Issue 16, `failout drill …` through the CLI in-process (run(argv, io)) against fauxqs and the shared
 * ZooKeeper, with the real handler (writing drills under the test's own path) behind a poller and a
 * loopback alarm-state server as FAILOUT_ALARMS_URL.
 */
import { runCli } from '../../helpers/cli';
import { useCliQueueTestbed } from '../../helpers/cli';
import { drillHandler, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { queueDepth, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed(['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']);
let alarms: AlarmServer;

beforeAll(async () => {
  alarms = await startAlarmServer();
});
afterAll(async () => {
  await alarms.close();
});

function paths(): DrillPaths {
  return { ...bed.paths, drillsPath: bed.paths.d2Base.replace(/\/d2$/, '/drills') };
}

function cli(...argv: string[]) {
  return runCli({ ...bed.env, FAILOUT_DRILLS_PATH: paths().drillsPath, FAILOUT_ALARMS_URL: alarms.url }, ...argv);
}

const PUT = ['drill', 'put', 'weekly', '--cluster', 'greetings-lor1', '--peer', 'greetings-lva1:2', '--peer', 'greetings-ltx1', '--for', '30m', '--every', 'cron(0 14 ? * TUE *)', '--outcome-alarm', 'lor1-errors'];

it('puts, lists, runs now (passing the checks), shows the history and deletes a drill', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => drillHandler(bed.session, paths()) });
  alarms.set('lor1-errors', 'OK');
  // Every alarm a drill names must exist (issue 21: a typo would never fire).
  alarms.set('deploys', 'OK');
  // A blocked window three days from today: never overlapping a run started now.
  const day = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'][(new Date().getUTCDay() + 3) % 7]!;
  const put = await cli(...PUT, '--blocking-alarm', 'deploys', '--blocked-dates', '2026-12-24,2026-12-31', '--blocked-windows', `${day}:00:00-${day}:06:00`, '--share', '50', '--wait');
  expect(put).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(putDrill greetings-lor1\)/) });
  expect(put.stdout).not.toMatch(/already serving/);

  const list = JSON.parse((await cli('drill', 'list', '--json')).stdout) as { drills: Record<string, unknown>[] };
  expect(list.drills).toEqual([
    expect.objectContaining({ name: 'weekly', cluster: 'greetings-lor1', every: 'cron(0 14 ? * TUE *)', sharePct: 50, blockingAlarms: ['deploys'], blockedDates: ['2026-12-24', '2026-12-31'], lastRun: null }),
  ]);
  expect(new Date(String(list.drills[0]!.nextDueAt)).getUTCDay()).toBe(2);
  expect((await cli('drill', 'list')).stdout).toMatch(/^weekly: greetings-lor1 → greetings-lva1×2, greetings-ltx1×1, 50% for 1800 s, cron\(0 14 \? \* TUE \*\); outcome alarm lor1-errors, blocking deploys; next 20\d\d-.*; no runs yet/);

  const run = await cli('drill', 'run-now', 'weekly', '--wait');
  expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/run drill-weekly-\d+ sent/) });
  const history = JSON.parse((await cli('drill', 'history', 'weekly', '--json')).stdout) as { runs: Record<string, unknown>[] };
  expect(history.runs[0]).toMatchObject({ status: 'running', buckets: { from: 0, to: 49 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }, { cluster: 'greetings-ltx1', weight: 1 }] });
  expect((await cli('drill', 'history', 'weekly')).stdout).toMatch(/drill-weekly-\d+ {2}RUNNING {2}at .*; moved 50% to greetings-lva1×2, greetings-ltx1×1; until /);
  const status = JSON.parse((await cli('status', 'greetings-lor1', '--json')).stdout) as { clusters: { stopAlarms?: string[]; drills?: unknown[] }[] };
  expect(status.clusters[0]?.stopAlarms).toEqual(['lor1-errors', 'deploys']);
  expect(status.clusters[0]?.drills).toEqual([expect.objectContaining({ name: 'weekly', running: true, lastOutcome: 'running' })]);
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/ {2}drills {3}weekly: RUNNING \(drill-weekly-\d+\)/);
  // Refused while its run moves traffic; an operator's restore replaces the run.
  expect(await cli('drill', 'delete', 'weekly', '--wait')).toMatchObject({ code: 1, stdout: expect.stringMatching(/drillRunning/) });
  expect((await cli('restore', 'greetings-lor1', '--wait')).code).toBe(0);
  expect(JSON.parse((await cli('drill', 'history', 'weekly', '--json')).stdout).runs[0]).toMatchObject({ status: 'replaced' });
  expect((await cli('status', 'greetings-lor1')).stdout).toMatch(/ {2}drills {3}weekly: last replaced at /);
  expect(await cli('drill', 'delete', 'weekly', '--wait')).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(deleteDrill greetings-lor1\)/) });
  expect((await cli('drill', 'list', '--json')).stdout).toMatch(/"drills": \[\]/);
});

it('skips a run-now while a blocking alarm is in ALARM, and history says why', async () => {
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler: () => drillHandler(bed.session, paths()) });
  alarms.set('deploys', 'ALARM');
  expect((await cli(...PUT, '--blocking-alarm', 'deploys', '--wait')).code).toBe(0);
  const run = await cli('drill', 'run-now', 'weekly', '--wait');
  expect(run).toMatchObject({ code: 0, stdout: expect.stringMatching(/skipped: blockingAlarm — blocking alarm deploys is in ALARM/) });
  expect((await cli('drill', 'history', 'weekly')).stdout).toMatch(/SKIPPED .*blockingAlarm: blocking alarm deploys is in ALARM/);
  alarms.set('deploys', 'OK');
});

it.each([
  ['no cluster', ['drill', 'put', 'd', '--peer', 'greetings-lva1', '--for', '30m', '--every', 'rate(7 days)', '--outcome-alarm', 'a'], /--cluster/],
  ['no schedule', ['drill', 'put', 'd', '--cluster', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--outcome-alarm', 'a'], /--every/],
  ['no outcome alarm', ['drill', 'put', 'd', '--cluster', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '30m', '--every', 'rate(7 days)'], /--outcome-alarm/],
  ['a bad schedule', [...PUT.slice(0, 12), 'cron(0 14 * * TUE *)', '--outcome-alarm', 'a'], /badDrill.*exactly one of day-of-month and day-of-week/],
  ['a bad blocked date', [...PUT, '--blocked-dates', '2026-02-30'], /badDrill.*not a calendar date/],
  ['a bad blocked window', [...PUT, '--blocked-windows', 'Mon:09-Mon:10'], /badDrill.*Day:HH:MM-Day:HH:MM/],
  ['a bad duration', [...PUT.slice(0, 10), 'soon', ...PUT.slice(11)], /--for "soon" is not a duration/],
])('refuses a drill put with %s as a usage error, sending nothing (exit 2)', async (_what, argv, message) => {
  const out = await cli(...argv);
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(message);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it('refuses a drill of an unknown cluster before sending (exit 1), and history of an unknown drill', async () => {
  alarms.set('a', 'OK');
  const put = await cli('drill', 'put', 'd', '--cluster', 'nowhere-1', '--peer', 'greetings-lva1', '--for', '30m', '--every', 'rate(7 days)', '--outcome-alarm', 'a');
  expect(put.code).toBe(1);
  expect(put.stdout).toMatch(/unknownCluster/);
  expect(await cli('drill', 'history', 'nope')).toMatchObject({ code: 1, stderr: expect.stringMatching(/no drill named nope/) });
  expect(await cli('drill', 'run-now', 'nope')).toMatchObject({ code: 1, stderr: expect.stringMatching(/no drill named "nope"/) });
});
