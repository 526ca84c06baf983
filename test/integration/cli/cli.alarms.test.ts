/**
 * Issue 21, "Alarms that can act", through the CLI in-process (run(argv, io)) against fauxqs and the
 * shared ZooKeeper: with an alarm source (FAILOUT_ALARMS_URL, a loopback server of the evaluator's
 * shape) `failout out --stop-alarm` naming a firing alarm is refused before sending
 * (`stopAlarmFiring`, exit 1), an alarm the source does not know too (`unknownAlarm`), in `--dry-run`
 * as well; without a source the CLI says it could not check the alarms and sends, and the worker
 * (reading the same source) refuses it.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import { HttpAlarmStates } from '../../../lib/alarms';
import { RequestWriter } from '../../../lib/requests';
import { createHandler } from '../../../lib/requests/lambda';
import { OPEN_ACL } from '../../../lib/zk';
import { runCli, useCliQueueTestbed } from '../../helpers/cli';
import { startAlarmServer, type AlarmServer } from '../../helpers/drills';
import { queueDepth, startPollers } from '../../helpers/requests-queue';

const bed = useCliQueueTestbed();
let alarms: AlarmServer;

beforeAll(async () => {
  alarms = await startAlarmServer();
  alarms.set('lva1-errors', 'OK');
  alarms.set('lva1-latency', 'ALARM');
});
afterAll(async () => {
  await alarms.close();
});

const OUT = ['out', 'greetings-lor1', '--peer', 'greetings-lva1', '--for', '2h'];

/** The CLI with the alarm source in its environment. */
const withSource = (...argv: string[]) => runCli({ ...bed.env, FAILOUT_ALARMS_URL: alarms.url }, ...argv);

it.each([
  ['in ALARM already', 'lva1-latency', 'stopAlarmFiring', /stopAlarms\[1\]: "lva1-latency" is in ALARM already/],
  ['the source does not know', 'lva1-errros', 'unknownAlarm', /stopAlarms\[1\]: the alarm source has no alarm "lva1-errros"/],
])('refuses `out --stop-alarm` naming an alarm %s before sending (exit 1), nothing queued', async (_what, alarm, reason, message) => {
  // Act
  const out = await withSource(...OUT, '--stop-alarm', 'lva1-errors', '--stop-alarm', alarm);

  // Assess
  expect(out.code).toBe(1);
  expect(out.stdout).toMatch(new RegExp(`REJECTED \\(failout greetings-lor1\\): ${reason} — `));
  expect(out.stdout).toMatch(message);
  expect(out.stdout).toMatch(/nothing was sent/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it('refuses it in --dry-run too, as the worker would, and JSON says why', async () => {
  // Act
  const text = await withSource(...OUT, '--stop-alarm', 'lva1-latency', '--dry-run');
  const json = await withSource(...OUT, '--stop-alarm', 'lva1-latency', '--dry-run', '--json');

  // Assess
  expect(text).toMatchObject({ code: 1, stdout: expect.stringMatching(/^dry run: request would be REJECTED: stopAlarmFiring — stopAlarms\[0\]: "lva1-latency" is in ALARM already/) });
  expect(json.code).toBe(1);
  expect(JSON.parse(json.stdout)).toMatchObject({ dryRun: true, ok: false, rejection: { reason: 'stopAlarmFiring' } });
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it('sends `out --stop-alarm` whose alarms exist and do not fire, silently about alarms', async () => {
  // Act
  const out = await withSource(...OUT, '--stop-alarm', 'lva1-errors');

  // Assess
  expect(out.code).toBe(0);
  expect(out.stderr).not.toMatch(/alarm/);
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(1);
});

it('says it could not check the alarms without a source (and with one it cannot read), sends anyway, and the worker refuses the firing alarm', async () => {
  // Prepare: the worker reads the source the CLI was not given.
  const writer = new RequestWriter({ session: bed.session, d2BasePath: bed.paths.d2Base, requestsPath: bed.paths.requestsPath, recordAcl: OPEN_ACL, alarms: new HttpAlarmStates(alarms.url) });
  const handler = () => createHandler({ writer, logger: new Logger({ logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'failout-test' }) });
  startPollers(1, { client: bed.sqs.client, queueUrl: bed.queue.queueUrl, handler });

  // Act
  const unconfigured = await bed.cli(...OUT, '--stop-alarm', 'lva1-latency', '--wait');
  const unreadable = await runCli({ ...bed.env, FAILOUT_ALARMS_URL: 'http://127.0.0.1:1/alarms' }, ...OUT, '--stop-alarm', 'lva1-latency', '--dry-run');

  // Assess
  expect(unconfigured.stderr).toMatch(/^could not check the alarms \(lva1-latency\): no alarm source; set FAILOUT_ALARMS_URL, or pass --cloudwatch-alarms .*; sending it/m);
  expect(unconfigured.code).toBe(1);
  expect(unconfigured.stdout).toMatch(/REJECTED \(failout greetings-lor1\): stopAlarmFiring — /);
  expect(unreadable.stderr).toMatch(/^could not check the alarms \(lva1-latency\) with http:\/\/127\.0\.0\.1:1\/alarms: could not read alarm states .*; the dry run did not check them/m);
  expect(unreadable.code).toBe(0);
});

it('does not say it is sending a request with unchecked alarms that the judgement then refuses: it says the alarms were not checked, and nothing was sent', async () => {
  // Act: no alarm source; greetings-lor1 has no failout to amend, and lva1-errors is unknown to greetings-nope's judgement
  const amend = await bed.cli('amend', 'greetings-lor1', '--stop-alarm', 'lva1-latency');
  const out = await bed.cli('out', 'greetings-nope', '--peer', 'greetings-lva1', '--for', '2h', '--stop-alarm', 'lva1-latency');

  // Assess
  for (const refused of [amend, out]) {
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/REJECTED .*\n {2}nothing was sent/);
    expect(refused.stderr).toMatch(/^could not check the alarms \(lva1-latency\): no alarm source; .*; not checked before the request was refused/m);
    expect(refused.stderr).not.toMatch(/sending it/);
  }
  expect(await queueDepth(bed.sqs.client, bed.queue.queueUrl)).toBe(0);
});

it('refuses two alarm sources at once as a usage error (exit 2)', async () => {
  // Act
  const out = await withSource(...OUT, '--stop-alarm', 'lva1-errors', '--alarms-url', alarms.url, '--cloudwatch-alarms');

  // Assess
  expect(out.code).toBe(2);
  expect(out.stderr).toMatch(/--alarms-url and --cloudwatch-alarms name two sources/);
});
