/**
 * Issue 21, "Alarms that can act", through the worker: a RequestWriter on the shared ZooKeeper reading
 * alarm states from an HTTP source on loopback (the local evaluator's shape). A failout whose stop
 * alarm fires already is refused (`stopAlarmFiring`), one naming an alarm the source does not know
 * (`unknownAlarm`); a drill's run refused so is recorded skipped on its drill; a `putDrill` whose
 * outcome alarm does not exist is refused. A source that cannot be read blocks nothing: the request
 * is applied, the record says `alarmsUnchecked`, and the writer warns once per request.
 */
import { HttpAlarmStates } from '../../../lib/alarms';
import { RequestWriter } from '../../../lib/requests';
import { createRequestWriter } from '../../../lib/requests/writer-source';
import { pinoRequestLogger } from '../../../lib/requests/logger';
import { type RequestWriterOptions } from '../../../lib/requests/request-writer';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { drillPaths, putDrillBody, readDrill, startAlarmServer, type AlarmServer, type DrillPaths } from '../../helpers/drills';
import { capturingLogger, type LogLine } from '../../helpers/logging';
import { failoutInput, restoreInput } from '../../helpers/requests';
import { readCluster, readRecord, seedClusters } from '../../helpers/requests-queue';
import { closeSessions, openSession, sharedConnectString } from '../../helpers/zk';

const LOR1 = 'greetings-lor1';
const LVA1 = 'greetings-lva1';
const PEERS = [{ cluster: LVA1, weight: 1 }];

let alarms: AlarmServer;
let session: ZkSession;
let paths: DrillPaths;
let lines: LogLine[];

beforeAll(async () => {
  alarms = await startAlarmServer();
});
afterAll(async () => {
  await alarms.close();
});
beforeEach(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, [LOR1, LVA1]);
});
afterEach(async () => {
  await closeSessions();
});

function writer(options: Partial<RequestWriterOptions> = {}): RequestWriter {
  const captured = capturingLogger();
  lines = captured.lines;
  return new RequestWriter({
    session,
    d2BasePath: paths.d2Base,
    requestsPath: paths.requestsPath,
    drillsPath: paths.drillsPath,
    recordAcl: OPEN_ACL,
    alarms: new HttpAlarmStates(alarms.url),
    logger: pinoRequestLogger(captured.logger),
    ...options,
  });
}

const body = (input: Record<string, unknown>): string => JSON.stringify(input);
const meta = { messageId: 'm-1' };

it.each([
  ['in ALARM already', 'ALARM', 'stopAlarmFiring', /stopAlarms\[0\]: "lva1-[a-z0-9-]+" is in ALARM already/],
  ['unknown to the alarm source', undefined, 'unknownAlarm', /stopAlarms\[0\]: the alarm source has no alarm "lva1-[a-z0-9-]+"/],
] as const)('refuses a failout whose stop alarm is %s, and leaves the cluster as it was', async (_what, state, reason, message) => {
  // Prepare
  const alarm = `lva1-${reason.toLowerCase()}-${Date.now()}`;
  if (state !== undefined) alarms.set(alarm, state);
  const before = await readCluster(session, paths, LOR1);
  const input = failoutInput({ cluster: LOR1, peers: PEERS, stopAlarms: [alarm] });

  // Act
  const outcome = await writer().process(body(input), meta);

  // Assess
  expect(outcome).toMatchObject({ status: 'rejected', reason });
  expect(await readRecord(session, paths, String(input.requestId))).toMatchObject({ status: 'rejected', reason, message: expect.stringMatching(message) });
  expect(await readCluster(session, paths, LOR1)).toEqual(before);
});

it('applies a failout whose stop alarms exist and do not fire, and the record says nothing of alarms', async () => {
  // Prepare
  alarms.set('lva1-errors', 'OK');
  alarms.set('lva1-latency', 'INSUFFICIENT_DATA');
  const input = failoutInput({ cluster: LOR1, peers: PEERS, stopAlarms: ['lva1-errors', 'lva1-latency'] });

  // Act
  const outcome = await writer().process(body(input), meta);

  // Assess
  expect(outcome.status).toBe('applied');
  expect(outcome.record).not.toHaveProperty('alarmsUnchecked');
});

it('applies the request when the alarm source cannot be read: the record says alarmsUnchecked, the writer warns with the names', async () => {
  // Prepare
  const input = failoutInput({ cluster: LOR1, peers: PEERS, stopAlarms: ['lva1-errors'] });

  // Act
  const outcome = await writer({ alarms: new HttpAlarmStates('http://127.0.0.1:1/alarms', 1000) }).process(body(input), meta);

  // Assess
  expect(outcome.status).toBe('applied');
  expect(await readRecord(session, paths, String(input.requestId))).toMatchObject({ status: 'applied', alarmsUnchecked: true });
  const warnings = lines.filter((l) => l.level === 'warn');
  expect(warnings).toHaveLength(1);
  expect(warnings[0]!.msg).toMatch(/^alarms not checked/);
  expect(warnings[0]!.record).toMatchObject({ requestId: input.requestId, cluster: LOR1, alarms: ['lva1-errors'], alarmSourceErrorKind: 'alarmStatesUnavailable', alarmSourceError: expect.stringMatching(/127\.0\.0\.1:1/) });
});

it('never reads the source for a restore (nothing to check, nothing to wait for)', async () => {
  // Prepare: a source that would fail every read
  const restore = restoreInput({ cluster: LOR1 });

  // Act
  const outcome = await writer({ alarms: new HttpAlarmStates('http://127.0.0.1:1/alarms', 1000) }).process(body(restore), meta);

  // Assess
  expect(outcome.status).toBe('applied');
  expect(outcome.record).not.toHaveProperty('alarmsUnchecked');
  expect(lines.filter((l) => l.level === 'warn')).toEqual([]);
});

it("refuses a putDrill whose outcome alarm does not exist, and a drill's run whose outcome alarm fired since the runner looked: recorded skipped on the drill", async () => {
  // Prepare
  const w = writer();
  alarms.set('weekly-outcome', 'OK');
  const typo = putDrillBody('typo', LOR1, [LVA1], { outcomeAlarm: 'weekly-outcom' });
  const put = putDrillBody('weekly', LOR1, [LVA1], { outcomeAlarm: 'weekly-outcome' });

  // Act
  const refusedPut = await w.process(body(typo), meta);
  const acceptedPut = await w.process(body(put), meta);
  alarms.set('weekly-outcome', 'ALARM');
  const run = failoutInput({ requestId: `drill-weekly-${Date.now()}`, cluster: LOR1, peers: PEERS, duration: 'PT1H', drill: 'weekly', stopAlarms: ['weekly-outcome'], requestedBy: 'failout-drills' });
  const refusedRun = await w.process(body(run), meta);

  // Assess
  expect(refusedPut).toMatchObject({ status: 'rejected', reason: 'unknownAlarm' });
  expect(refusedPut.record.message).toMatch(/^outcomeAlarm: the alarm source has no alarm "weekly-outcom"/);
  expect(await readDrill(session, paths, 'typo')).toBeUndefined();
  expect(acceptedPut.status).toBe('applied');
  expect(refusedRun).toMatchObject({ status: 'rejected', reason: 'stopAlarmFiring' });
  const runs = (await readDrill(session, paths, 'weekly'))!.runs;
  expect(runs).toEqual([expect.objectContaining({ runId: run.requestId, status: 'skipped', skipReason: 'rejected', detail: expect.stringMatching(/^stopAlarmFiring: stopAlarms\[0\]: "weekly-outcome" is in ALARM already/) })]);
  expect((await readCluster(session, paths, LOR1)).json.failoutProperties ?? null).toBeNull();
  alarms.set('weekly-outcome', 'OK');
});

it('is wired from the environment: FAILOUT_ALARMS_URL makes the writer check the alarms (createRequestWriter, as the Lambda and the local stack build it)', async () => {
  // Prepare
  alarms.set('lva1-errors', 'ALARM');
  const captured = capturingLogger();
  const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: paths.d2Base, FAILOUT_REQUESTS_PATH: paths.requestsPath, FAILOUT_ALLOW_OPEN_ACL: '1', FAILOUT_ALARMS_URL: alarms.url };
  const built = await createRequestWriter({ env, getSecret: async () => undefined, logger: pinoRequestLogger(captured.logger) });
  const input = failoutInput({ cluster: LOR1, peers: PEERS, stopAlarms: ['lva1-errors'] });

  try {
    // Act
    const outcome = await built.process(body(input), meta);

    // Assess
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'stopAlarmFiring' });
    expect(captured.lines.find((l) => l.msg === 'zookeeper session ready')?.record).toMatchObject({ alarmSource: 'http' });
  } finally {
    alarms.set('lva1-errors', 'OK');
    // createRequestWriter opens its own session and offers no close (a Lambda container keeps it): close it here.
    await (built as unknown as { session: ZkSession }).session.close();
  }
});
