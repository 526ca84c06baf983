/**
 * Issue 23, item 5: drain tests (a drill of a fabric) on the real pieces over the shared ZooKeeper:
 * the real RequestWriter, the real DrillRunner (its `failout-drills` logic) and the real StopGuard,
 * their queue replaced by a sender that hands each message to the writer at once (the FIFO group is
 * asserted on every message). Fabrics: services `greetings` and `hello` in `lor1`, `lva1`, `ltx1` (the
 * naming rule), ACLs from the table's policy (writer identity). Time is the test's clock.
 */
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { isFailedOutAt, parseClusterProperties, type FailoutProperties } from '../../../lib/d2/data';
import { RequestWriter, type Outcome } from '../../../lib/requests/request-writer';
import { decodeRequestRecord, type RequestRecord } from '../../../lib/requests/request-record';
import { decodeEvacuationNode, type EvacuationNode } from '../../../lib/requests/evacuation-node';
import { decodeDrillNode, runStatusAt, type DrillNode, type DrillRun } from '../../../lib/requests/drill-node';
import { aclLayout, policyAcl } from '../../../lib/requests/acl-table';
import { silentRequestLogger } from '../../../lib/requests/logger';
import { alarmStateChangeEvent, DrillRunner, StopGuard, type AlarmState } from '../../../lib/safety';
import { resolveSettings } from '../../../lib/operator';
import { buildFabricBody, judgeFabricBody } from '../../../lib/operator/fabric-requests';
import type { ZkSession } from '../../../lib/zk';
import { CREDENTIALS, ROLES } from '../../helpers/access';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
/** A Wednesday, 14:00:30 UTC: a `cron(* * ? * * *)` drill defined at NOW is due at 14:01:00. */
const NOW = Date.parse('2026-12-02T14:00:30Z');
const DUE = Date.parse('2026-12-02T14:01:00Z');
const EVERY_MINUTE = 'cron(* * ? * * *)';
const LOR1 = ['greetings-lor1', 'hello-lor1'];

let base: string;
let admin: ZkSession;
let session: ZkSession;
let clock: number;
let writer: RequestWriter;
let alarms: Map<string, AlarmState>;
/** Every message the runner and the guard sent, in order. */
let sent: SendMessageCommandInput[];
let outcomes: Outcome[];

const d2 = (): string => `${base}/d2`;
const paths = () => ({ d2BasePath: d2(), requestsPath: `${base}/requests`, drillsPath: `${base}/drills`, fabricsPath: `${base}/fabrics`, evacuationsPath: `${base}/evacuations` });
const layout = () => aclLayout({ ...paths(), electionPaths: [`${base}/election`] });

/** The queue: each message goes to the writer as soon as it is sent (one at a time, as one FIFO group would). */
async function deliver(message: SendMessageCommandInput): Promise<{ messageId: string }> {
  sent.push(message);
  const messageId = `m-${sent.length}`;
  outcomes.push(await writer.process(message.MessageBody!, { messageId }));
  return { messageId };
}

function runner(): DrillRunner {
  return new DrillRunner({ zk: session, ...paths(), queueUrl: 'http://queue.test/failout.fifo', send: deliver, alarms: { states: async (names) => new Map(names.map((n) => [n, alarms.get(n) ?? 'OK'])) }, logger: silentRequestLogger, clock: () => clock });
}

function guard(): StopGuard {
  return new StopGuard({ zk: session, d2BasePath: d2(), queueUrl: 'http://queue.test/failout.fifo', send: deliver, logger: silentRequestLogger, clock: () => clock });
}

/** The guard's handling of `alarm` going to ALARM at `at`. */
async function fires(alarm: string, at: number = clock): Promise<void> {
  await guard().handle(alarmStateChangeEvent({ id: `ev-${alarm}-${at}`, alarmName: alarm, state: 'ALARM', previousState: 'OK', at, reason: 'test' }));
}

/** A request straight to the writer (an operator's, through the same parse and record). */
async function apply(body: Record<string, unknown>): Promise<Outcome> {
  return writer.process(JSON.stringify({ version: 1, requestedBy: 'oncall@example.com', ...body }), { messageId: `op-${String(body.requestId)}` });
}

function putDrain(name: string, extra: Record<string, unknown> = {}): Promise<Outcome> {
  return apply({ requestId: `put-${name}-${clock}`, action: 'putDrill', fabric: 'lor1', drill: name, duration: 'PT1H', every: EVERY_MINUTE, outcomeAlarm: `${name}-outcome`, blockingAlarms: ['deploys'], ...extra });
}

async function seed(): Promise<void> {
  const acl = policyAcl(ROLES, layout());
  for (const service of ['greetings', 'hello']) {
    await admin.create(`${d2()}/services/${service}`, Buffer.from(JSON.stringify({ serviceName: service, clusterName: `${service}-lor1`, path: `/${service}` })), { parents: true, acl });
    for (const fabric of ['lor1', 'lva1', 'ltx1']) {
      const cluster = `${service}-${fabric}`;
      await admin.create(`${d2()}/clusters/${cluster}`, Buffer.from(JSON.stringify({ clusterName: cluster })), { parents: true, acl });
      await admin.ensurePath(`${d2()}/uris/${cluster}`, acl);
      for (let i = 1; i <= 2; i++) await admin.create(`${d2()}/uris/${cluster}/h${i}`, Buffer.from(JSON.stringify({ clusterName: cluster, weights: { [`http://10.0.0.${i}:1/${cluster}`]: 1 } })), { acl });
    }
  }
}

async function failout(cluster: string): Promise<FailoutProperties | null> {
  return parseClusterProperties((await session.get(`${d2()}/clusters/${cluster}`)).data).failoutProperties;
}

async function drill(name: string): Promise<DrillNode> {
  return decodeDrillNode((await session.get(`${base}/drills/${name}`)).data);
}

async function run(name: string, runId: string): Promise<DrillRun> {
  const found = (await drill(name)).runs.find((r) => r.runId === runId);
  if (found === undefined) throw new Error(`no run ${runId} in drill ${name}`);
  return found;
}

async function evacuation(fabric: string): Promise<EvacuationNode> {
  return decodeEvacuationNode((await session.get(`${base}/evacuations/${fabric}`)).data);
}

async function record(requestId: string): Promise<RequestRecord> {
  return decodeRequestRecord((await session.get(`${base}/requests/${requestId}`)).data);
}

/** True when every cluster of `clusters` is failed out at `at`. */
async function allOut(clusters: readonly string[], at: number = clock): Promise<boolean> {
  return (await Promise.all(clusters.map(async (c) => isFailedOutAt(await failout(c), at)))).every(Boolean);
}

/** True when no cluster of `clusters` is failed out at `at`. */
async function allHome(clusters: readonly string[], at: number = clock): Promise<boolean> {
  return (await Promise.all(clusters.map(async (c) => !isFailedOutAt(await failout(c), at)))).every(Boolean);
}

beforeEach(async () => {
  base = uniqueBase('drain');
  clock = NOW;
  alarms = new Map();
  sent = [];
  outcomes = [];
  admin = await openSession({ credentials: [CREDENTIALS.admin] });
  session = await openSession({ credentials: [CREDENTIALS.writer] });
  writer = new RequestWriter({ session, ...paths(), recordAcl: policyAcl(ROLES, layout()), clock: () => clock, retention: false });
  await seed();
});

afterEach(async () => {
  await admin.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('a drill of a fabric (drain test) is defined like a cluster drill', () => {
  it('puts it through the worker in the fabric group, and refuses an unknown fabric or target, or a name a cluster drill holds', async () => {
    // Act
    const put = await putDrain('drain', { targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1' }], hold: 'PT1M', blockedDates: ['2026-12-24'] });
    const unknown = await apply({ requestId: 'put-x', action: 'putDrill', fabric: 'nope1', drill: 'x', duration: 'PT1H', every: EVERY_MINUTE, outcomeAlarm: 'o' });
    const target = await putDrain('y', { targets: [{ fabric: 'nope2' }] });
    const clusterDrill = await apply({ requestId: 'put-c', action: 'putDrill', cluster: 'greetings-lor1', drill: 'drain', peers: [{ cluster: 'greetings-lva1' }], duration: 'PT1H', every: EVERY_MINUTE, outcomeAlarm: 'o' });

    // Assess
    expect(put).toMatchObject({ status: 'applied', cluster: null, record: { action: 'putDrill', fabric: 'lor1', cluster: null } });
    expect((await drill('drain')).definition).toMatchObject({ name: 'drain', fabric: 'lor1', evacuation: { targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1', weight: 1 }], holdMs: MINUTE, restoreGapMs: 30_000, exclude: [] }, durationMs: HOUR, outcomeAlarm: 'drain-outcome', blockingAlarms: ['deploys'], blockedDates: ['2026-12-24'] });
    expect(unknown).toMatchObject({ status: 'rejected', reason: 'unknownFabric' });
    expect(target).toMatchObject({ status: 'rejected', reason: 'unknownFabric', record: { message: expect.stringContaining('"nope2"') } });
    expect(clusterDrill).toMatchObject({ status: 'rejected', reason: 'badDrill', record: { message: expect.stringContaining('is a drill of fabric "lor1"') } });
  });

  it('refuses stages every run would refuse: one a one-hour run could not move before it returns', async () => {
    // Act: stage 2 (rest) would start after stage 1 is held for 2 h, past the run's 1 h end
    const late = await putDrain('late', { stages: [{ clusters: ['greetings-lor1'] }], hold: 'PT2H' });
    const fits = await putDrain('fits', { stages: [{ clusters: ['greetings-lor1'] }], hold: 'PT10M' });

    // Assess
    expect(late).toMatchObject({ status: 'rejected', reason: 'badStages', record: { message: expect.stringMatching(/stage 2 \(rest\) would start 2h into a run, not before it returns 1h into a run/) } });
    expect((await session.read(`${base}/drills/late`)).exists).toBe(false);
    expect(fits.status).toBe('applied');
  });

  it('refuses a restore gap that would bring every run\'s first stage home after the maximum window (72 h)', async () => {
    // Act: a 72 h run; stage 1 returns a 24 h restore gap after stage 2 (rest), 96 h into the run
    const long = await putDrain('long', { duration: 'PT72H', stages: [{ clusters: ['greetings-lor1'] }], restoreGap: '24h' });
    const fits = await putDrain('fits', { duration: 'PT71H', stages: [{ clusters: ['greetings-lor1'] }], restoreGap: '1h' });

    // Assess
    expect(long).toMatchObject({ status: 'rejected', reason: 'windowTooLong', record: { message: expect.stringMatching(/^stage 1 would return 96h into a run, 24h after the end .*past the maximum window, which ends 72h into a run/) } });
    expect((await session.read(`${base}/drills/long`)).exists).toBe(false);
    expect(fits.status).toBe('applied');
  });

  it('deletes it by fabric, and refuses while a run evacuates the fabric', async () => {
    // Prepare
    await putDrain('drain');
    await runner().runNow('drain');

    // Act
    const busy = await apply({ requestId: 'del-1', action: 'deleteDrill', fabric: 'lor1', drill: 'drain' });
    const wrong = await apply({ requestId: 'del-2', action: 'deleteDrill', cluster: 'greetings-lor1', drill: 'drain' });
    await apply({ requestId: 'rs-1', action: 'restoreFabric', fabric: 'lor1' });
    const deleted = await apply({ requestId: 'del-3', action: 'deleteDrill', fabric: 'lor1', drill: 'drain' });

    // Assess
    expect(busy).toMatchObject({ status: 'rejected', reason: 'drillRunning' });
    expect(wrong).toMatchObject({ status: 'rejected', reason: 'unknownDrill' });
    expect(deleted).toMatchObject({ status: 'applied', record: { action: 'deleteDrill', fabric: 'lor1' } });
    expect((await session.read(`${base}/drills/drain`)).exists).toBe(false);
  });
});

describe('a run is an evacuation of the fabric', () => {
  it('starts when due: every cluster of the fabric moves, with the drill and its alarms on every window; the run is running; its window ends it passed', async () => {
    // Prepare
    await putDrain('drain', { targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1' }] });
    clock = DUE + 5000;

    // Act
    const [tick] = await runner().tick();

    // Assess
    const runId = `drill-drain-${DUE}`;
    expect(tick).toEqual({ drill: 'drain', outcome: 'started', runId, scheduledAt: DUE });
    expect(sent.map((m) => [JSON.parse(m.MessageBody!).action, m.MessageGroupId])).toEqual([['evacuate', 'failout/fabrics']]);
    expect(await record(runId)).toMatchObject({ status: 'applied', action: 'evacuate', fabric: 'lor1', requestedBy: 'failout-drills' });
    for (const cluster of LOR1) {
      const props = (await failout(cluster))!;
      expect(props.redirects.map((r) => r.peer).sort()).toEqual([cluster.replace('lor1', 'ltx1'), cluster.replace('lor1', 'lva1')]);
      expect(props.buckets).toEqual([expect.objectContaining({ drill: 'drain', evacuation: 'lor1', requestId: runId, stopAlarms: ['drain-outcome', 'deploys'], onlineAt: clock + HOUR })]);
    }
    expect(await run('drain', runId)).toMatchObject({ status: 'running', clusters: 2, endsAt: clock + HOUR });
    expect((await evacuation('lor1')).plan).toMatchObject({ drill: 'drain', requestId: runId });
    // The same due time again: handled, nothing sent.
    expect(await runner().tick()).toEqual([{ drill: 'drain', outcome: 'handled', runId }]);
    expect(sent).toHaveLength(1);
    // The window ends: the run passed, the fabric serves again.
    clock += HOUR + 1;
    expect(runStatusAt(await run('drain', runId), clock)).toBe('passed');
    expect(await allHome(LOR1)).toBe(true);
  });

  it('is failed when its outcome alarm fires: the guard restores the fabric with the verdict, and every cluster comes home', async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += 5 * MINUTE;

    // Act
    await fires('drain-outcome');

    // Assess
    const restore = JSON.parse(sent.at(-1)!.MessageBody!) as Record<string, unknown>;
    expect(restore).toMatchObject({ action: 'restoreFabric', fabric: 'lor1', stoppedByAlarm: 'drain-outcome', alarmAt: clock, drill: 'drain' });
    expect(sent.at(-1)!.MessageGroupId).toBe('failout/fabrics');
    expect(await run('drain', runId)).toMatchObject({ status: 'failed', stoppedByAlarm: 'drain-outcome', alarmAt: clock, endedAt: clock, endedBy: restore.requestId });
    expect(await allHome(LOR1)).toBe(true);
    expect(await evacuation('lor1')).toMatchObject({ status: 'stopped', stoppedByAlarm: 'drain-outcome' });
  });

  it('goes on when an alarm an operator added to one of its clusters (`failout amend`) fires: that cluster comes home, the run takes no verdict', async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;
    expect(await apply({ requestId: 'am-1', action: 'amend', cluster: 'hello-lor1', addStopAlarms: ['hello-extra'] })).toMatchObject({ status: 'applied' });
    clock += MINUTE;

    // Act
    await fires('hello-extra');

    // Assess
    expect(JSON.parse(sent.at(-1)!.MessageBody!)).toMatchObject({ action: 'restoreFabric', fabric: 'lor1', stoppedByAlarm: 'hello-extra', drill: 'drain' });
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(true);
    expect(await run('drain', runId)).toMatchObject({ status: 'running' });
    expect(await evacuation('lor1')).toMatchObject({ status: 'applied' });
  });

  it("is interrupted when a blocking alarm fires mid-run, seen by the runner's tick", async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;
    alarms.set('deploys', 'ALARM');

    // Act
    const [tick] = await runner().tick();

    // Assess
    expect(tick).toMatchObject({ outcome: 'stopped', runId, alarm: 'deploys', requestId: `${runId}-stop` });
    expect(await run('drain', runId)).toMatchObject({ status: 'interrupted', stoppedByAlarm: 'deploys', endedBy: `${runId}-stop` });
    expect(await allHome(LOR1)).toBe(true);
  });

  it('takes a verdict that reaches the worker after its window ended: the run that held the alarm is failed', async () => {
    // Prepare
    await putDrain('drain', { duration: 'PT10M' });
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    const seenAt = clock + 5 * MINUTE;
    clock += 15 * MINUTE;
    expect(runStatusAt(await run('drain', runId), clock)).toBe('passed');

    // Act
    await fires('drain-outcome', seenAt);

    // Assess
    expect(JSON.parse(sent.at(-1)!.MessageBody!)).toMatchObject({ action: 'restoreFabric', drill: 'drain', alarmAt: seenAt });
    expect(await run('drain', runId)).toMatchObject({ status: 'failed', stoppedByAlarm: 'drain-outcome', alarmAt: seenAt, endedAt: NOW + 10 * MINUTE });
  });
});

describe('a run that may not start is skipped and recorded, as a cluster drill run is', () => {
  it.each([
    ['a blocking alarm in ALARM', {}, 'deploys', 'blockingAlarm', /blocking alarm deploys is in ALARM/],
    ['a blocked date', { blockedDates: ['2026-12-02'] }, undefined, 'blockedDate', /2026-12-02 is a blocked date/],
    ['a blocked window', { blockedWindows: ['Wed:14:30-Wed:15:30'] }, undefined, 'blockedWindow', /Wed:14:30-Wed:15:30/],
  ])('for %s', async (_what, extra, firing, skipReason, detail) => {
    // Prepare
    await putDrain('drain', extra);
    if (firing !== undefined) alarms.set(firing, 'ALARM');
    clock = DUE + 5000;

    // Act
    const [tick] = await runner().tick();

    // Assess
    expect(tick).toMatchObject({ outcome: 'skipped', skipReason });
    expect(sent.map((m) => [JSON.parse(m.MessageBody!).action, m.MessageGroupId])).toEqual([['skipDrill', 'failout/fabrics']]);
    const skipped = await run('drain', `drill-drain-${DUE}`);
    expect(skipped).toMatchObject({ status: 'skipped', skipReason, scheduledAt: DUE });
    expect(skipped.detail).toMatch(detail);
    expect(await allHome(LOR1)).toBe(true);
  });

  it("for an operator's failout of one of the fabric's clusters (the runner's check), and the worker refuses a run that arrives anyway", async () => {
    // Prepare
    await putDrain('drain');
    await apply({ requestId: 'fo-1', action: 'failout', cluster: 'hello-lor1', peers: [{ cluster: 'hello-lva1' }], duration: 'PT2H' });

    // Act
    const now = await runner().runNow('drain');
    const late = await apply({ requestId: 'drill-drain-late', requestedBy: 'failout-drills', action: 'evacuate', fabric: 'lor1', duration: 'PT1H', drill: 'drain', stopAlarms: ['drain-outcome'] });

    // Assess
    expect(now).toMatchObject({ outcome: 'skipped', skipReason: 'operatorFailoutActive', detail: expect.stringContaining('hello-lor1 is failed out by oncall@example.com') });
    expect(late).toMatchObject({ status: 'rejected', reason: 'operatorFailoutActive' });
    expect(await run('drain', 'drill-drain-late')).toMatchObject({ status: 'skipped', skipReason: 'operatorFailoutActive', detail: expect.stringContaining('hello-lor1') });
    expect(await failout('greetings-lor1')).toBeNull();
  });

  it("for an operator's evacuation of another fabric (operatorFailoutActive), and another drain test's run (drillRunning)", async () => {
    // Prepare
    await putDrain('drain');
    await apply({ requestId: 'put-other', action: 'putDrill', fabric: 'ltx1', drill: 'other', duration: 'PT1H', every: EVERY_MINUTE, outcomeAlarm: 'other-outcome' });
    await apply({ requestId: 'ev-op', action: 'evacuate', fabric: 'lva1', duration: 'PT1H' });

    // Act
    const operator = await runner().runNow('drain');
    const worker = await apply({ requestId: 'drill-drain-late', requestedBy: 'failout-drills', action: 'evacuate', fabric: 'lor1', duration: 'PT1H', drill: 'drain' });
    await apply({ requestId: 'rs-op', action: 'restoreFabric', fabric: 'lva1' });
    clock += MINUTE;
    expect(await runner().runNow('other')).toMatchObject({ outcome: 'started' });
    const drain = await runner().runNow('drain');

    // Assess
    expect(operator).toMatchObject({ outcome: 'skipped', skipReason: 'operatorFailoutActive', detail: expect.stringContaining('fabric lva1 is being evacuated by an operator') });
    expect(worker).toMatchObject({ status: 'rejected', reason: 'operatorFailoutActive' });
    expect(drain).toMatchObject({ outcome: 'skipped', skipReason: 'drillRunning', detail: expect.stringContaining('run of drill other') });
    expect((await drill('drain')).runs.map((r) => r.skipReason)).toEqual(['drillRunning', 'operatorFailoutActive', 'operatorFailoutActive']);
  });
});

describe('an operator takes precedence over a running drain test', () => {
  it("an operator's evacuation of another fabric ends it in the same multi: its clusters come home, its run is replaced, and the operator's evacuation applies", async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;

    // Act
    const operator = await apply({ requestId: 'ev-op', action: 'evacuate', fabric: 'lva1', targets: [{ fabric: 'lor1' }], duration: 'PT1H' });

    // Assess
    expect(operator).toMatchObject({ status: 'applied', record: { action: 'evacuate', fabric: 'lva1', evacuation: { mode: 'multi', clusters: 2 } } });
    expect(await run('drain', runId)).toMatchObject({ status: 'replaced', endedAt: clock, endedBy: 'ev-op' });
    expect(await allHome(LOR1)).toBe(true);
    // lva1's traffic goes to lor1, which the drain test had emptied.
    expect((await failout('greetings-lva1'))?.redirects).toEqual([{ peer: 'greetings-lor1', weight: 1 }]);
    expect(await allOut(['greetings-lva1', 'hello-lva1'])).toBe(true);
    expect(await evacuation('lor1')).toMatchObject({ status: 'restored', endedByRequest: 'ev-op', endedBy: 'oncall@example.com' });
    expect(await evacuation('lva1')).toMatchObject({ status: 'applied', requestId: 'ev-op' });
  });

  it("an operator's evacuation of the drilled fabric itself takes its clusters over, and the run is replaced", async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;

    // Act
    const operator = await apply({ requestId: 'ev-op', action: 'evacuate', fabric: 'lor1', targets: [{ fabric: 'ltx1' }], duration: 'PT2H', reason: 'INC-9' });

    // Assess
    expect(operator).toMatchObject({ status: 'applied' });
    expect(await run('drain', runId)).toMatchObject({ status: 'replaced', endedBy: 'ev-op' });
    for (const cluster of LOR1) expect((await failout(cluster))?.buckets).toEqual([expect.objectContaining({ requestId: 'ev-op', evacuation: 'lor1', onlineAt: clock + 2 * HOUR, reason: 'INC-9' })]);
    expect((await failout('greetings-lor1'))?.buckets[0]?.drill).toBeUndefined();
    expect(await evacuation('lor1')).toMatchObject({ status: 'applied', requestId: 'ev-op' });
    // An operator's evacuation still refuses another operator's while open.
    expect(await apply({ requestId: 'ev-2', action: 'evacuate', fabric: 'ltx1', duration: 'PT1H' })).toMatchObject({ status: 'rejected', reason: 'evacuationOpen' });
  });

  it("ends it first, in steps, when its end and the operator's evacuation do not fit one multi; then the evacuation applies as a plan", async () => {
    // Prepare: a multi budget that holds about one cluster.
    writer = new RequestWriter({ session, ...paths(), recordAcl: policyAcl(ROLES, layout()), clock: () => clock, retention: false, maxMultiBytes: 1500 });
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    expect(await run('drain', runId)).toMatchObject({ status: 'running', clusters: 2 });
    expect(await record(runId)).toMatchObject({ evacuation: { mode: 'plan' } });
    clock += MINUTE;

    // Act
    const operator = await apply({ requestId: 'ev-op', action: 'evacuate', fabric: 'lva1', targets: [{ fabric: 'lor1' }], duration: 'PT1H' });

    // Assess
    expect(operator).toMatchObject({ status: 'applied', record: { fabric: 'lva1', evacuation: { mode: 'plan', clusters: 2 } } });
    expect(await run('drain', runId)).toMatchObject({ status: 'replaced', endedBy: 'ev-op' });
    expect(await evacuation('lor1')).toMatchObject({ status: 'restored', endedByRequest: 'ev-op' });
    expect(await allHome(LOR1)).toBe(true);
    expect(await allOut(['greetings-lva1', 'hello-lva1'])).toBe(true);
  });

  it("an operator's restore of any fabric ends it (replaced), and so does the restore of its own fabric", async () => {
    // Prepare
    await putDrain('drain');
    const first = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;

    // Act
    const other = await apply({ requestId: 'rs-lva1', action: 'restoreFabric', fabric: 'lva1' });
    clock += MINUTE;
    const second = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;
    const own = await apply({ requestId: 'rs-lor1', action: 'restoreFabric', fabric: 'lor1' });

    // Assess
    expect(other).toMatchObject({ status: 'applied', record: { fabric: 'lva1', evacuation: { clusters: 2 } } });
    expect(await run('drain', first.runId)).toMatchObject({ status: 'replaced', endedBy: 'rs-lva1', detail: expect.stringContaining("an operator's restore of fabric lva1") });
    expect(own).toMatchObject({ status: 'applied', record: { fabric: 'lor1' } });
    expect(await run('drain', second.runId)).toMatchObject({ status: 'replaced', endedBy: 'rs-lor1' });
    expect(await allHome(LOR1)).toBe(true);
  });

  it("is named by the console's Check of an operator's restore of another fabric, as the worker then ends it (not 'would change nothing')", async () => {
    // Prepare: a drain test's run evacuates lor1; lva1 has no evacuation of its own
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;
    const settings = resolveSettings({}, { D2_BASE_PATH: d2(), FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_FABRICS_PATH: `${base}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${base}/evacuations` });
    const body = buildFabricBody('restoreFabric', 'lva1', {}, { requestId: 'rs-lva1', now: clock, requestedBy: 'oncall@example.com' });

    // Act: the Check, then the request it checked
    const check = await judgeFabricBody(settings, {}, body, { now: clock, session });
    const applied = await apply({ requestId: 'rs-lva1', action: 'restoreFabric', fabric: 'lva1' });

    // Assess: the Check says what the worker did
    expect(check).toMatchObject({ kind: 'ready', judged: true, evacuation: { fabric: 'lor1', open: true }, judgement: expect.stringMatching(/ends drill "drain"'s evacuation of lor1 OPEN: [^]*its 2 clusters of lor1 come home/) });
    expect(check).not.toMatchObject({ judgement: expect.stringContaining('would change nothing') });
    expect(applied).toMatchObject({ status: 'applied', record: { fabric: 'lva1', evacuation: { clusters: 2 } } });
    expect(await run('drain', runId)).toMatchObject({ status: 'replaced', endedBy: 'rs-lva1' });
    expect(await allHome(LOR1)).toBe(true);
  });

  it("shows in the console's Check of a restore of a name that is no fabric the worker's refusal, word for word", async () => {
    // Prepare: nothing evacuated; "lro1" is a typo of lor1
    const settings = resolveSettings({}, { D2_BASE_PATH: d2(), FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_FABRICS_PATH: `${base}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${base}/evacuations` });
    const typo = buildFabricBody('restoreFabric', 'lro1', {}, { requestId: 'rs-lro1', now: clock, requestedBy: 'oncall@example.com' });
    const known = buildFabricBody('restoreFabric', 'lva1', {}, { requestId: 'rs-lva1', now: clock, requestedBy: 'oncall@example.com' });

    // Act
    const checkTypo = await judgeFabricBody(settings, {}, typo, { now: clock, session });
    const checkKnown = await judgeFabricBody(settings, {}, known, { now: clock, session });
    const applied = await apply({ requestId: 'rs-lro1', action: 'restoreFabric', fabric: 'lro1' });

    // Assess: the Check shows the worker's refusal, word for word; a known fabric stays a no-op
    expect(checkTypo).toMatchObject({ kind: 'rejected', reason: 'unknownFabric', message: expect.stringMatching(/^fabric: "lro1" has no cluster and no evacuation \(fabrics with clusters: lor1, .*\); nothing to restore$/) });
    expect(applied).toMatchObject({ status: 'rejected', reason: 'unknownFabric' });
    expect(applied.record.message).toBe((checkTypo as { message: string }).message);
    expect(checkKnown).toMatchObject({ kind: 'ready', judgement: expect.stringContaining('would change nothing') });
  });

  it("an operator's failout to a cluster of the drilled fabric takes that cluster back; the rest of the run goes on", async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;

    // Act
    const operator = await apply({ requestId: 'fo-1', action: 'failout', cluster: 'greetings-lva1', peers: [{ cluster: 'greetings-lor1' }], duration: 'PT1H' });

    // Assess
    expect(operator).toMatchObject({ status: 'applied' });
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
    expect(await allOut(['hello-lor1', 'greetings-lva1'])).toBe(true);
    expect(await run('drain', runId)).toMatchObject({ status: 'running' });
  });

  it("an operator's restore of one cluster of the fabric ends that cluster's drill window; the rest of the run goes on", async () => {
    // Prepare
    await putDrain('drain');
    const { runId } = (await runner().runNow('drain')) as { runId: string };
    clock += MINUTE;

    // Act
    const restored = await apply({ requestId: 'rs-hello', action: 'restore', cluster: 'hello-lor1' });

    // Assess
    expect(restored).toMatchObject({ status: 'applied' });
    expect(await failout('hello-lor1')).toBeNull();
    expect(await allOut(['greetings-lor1'])).toBe(true);
    expect(await run('drain', runId)).toMatchObject({ status: 'running' });
    // The drain test's end leaves the operator's cluster alone.
    await apply({ requestId: 'rs-lor1', action: 'restoreFabric', fabric: 'lor1' });
    expect(await allHome(LOR1)).toBe(true);
  });
});

describe("an operator's evacuation takes precedence over a cluster drill run on a receiving cluster", () => {
  it.each([
    ['in the same multi', undefined, 'multi'],
    ['first, when the evacuation is written as an ordered plan', 1500, 'plan'],
  ])('ends the run (its cluster comes home and receives) %s, instead of refusing the evacuation', async (_how, maxMultiBytes, mode) => {
    // Prepare: a drill run moves greetings-lva1 to greetings-ltx1; evacuating lor1 around it would put 3× on greetings-ltx1
    const put = await apply({ requestId: 'put-c', action: 'putDrill', cluster: 'greetings-lva1', drill: 'lva1-drill', peers: [{ cluster: 'greetings-ltx1' }], duration: 'PT1H', every: EVERY_MINUTE, outcomeAlarm: 'o' });
    expect(put.status).toBe('applied');
    const { runId } = (await runner().runNow('lva1-drill')) as { runId: string };
    expect(isFailedOutAt(await failout('greetings-lva1'), clock)).toBe(true);
    clock += MINUTE;

    writer = new RequestWriter({ session, ...paths(), recordAcl: policyAcl(ROLES, layout()), clock: () => clock, retention: false, ...(maxMultiBytes === undefined ? {} : { maxMultiBytes }) });

    // Act
    const evacuated = await apply({ requestId: 'ev-op', action: 'evacuate', fabric: 'lor1', duration: 'PT1H' });

    // Assess
    expect(evacuated).toMatchObject({ status: 'applied', record: { fabric: 'lor1', evacuation: { mode, clusters: 2 } } });
    expect(isFailedOutAt(await failout('greetings-lva1'), clock)).toBe(false);
    expect((await failout('greetings-lor1'))?.redirects.map((r) => r.peer).sort()).toEqual(['greetings-ltx1', 'greetings-lva1']);
    expect(await run('lva1-drill', runId)).toMatchObject({ status: 'replaced', endedBy: 'ev-op' });
  });
});

it('keeps every outcome in the history, newest first', async () => {
  // Prepare: a run that fails, one that is skipped, one replaced by an operator, one that passes.
  await putDrain('drain', { duration: 'PT10M' });
  const failed = (await runner().runNow('drain')) as { runId: string };
  clock += MINUTE;
  await fires('drain-outcome');
  clock += MINUTE;
  alarms.set('deploys', 'ALARM');
  const skipped = (await runner().runNow('drain')) as { runId: string };
  alarms.set('deploys', 'OK');
  clock += MINUTE;
  const replaced = (await runner().runNow('drain')) as { runId: string };
  clock += MINUTE;
  await apply({ requestId: 'rs-1', action: 'restoreFabric', fabric: 'lor1' });
  clock += MINUTE;
  const passed = (await runner().runNow('drain')) as { runId: string };
  clock += 11 * MINUTE;

  // Act
  const runs = (await drill('drain')).runs.map((r) => [r.runId, runStatusAt(r, clock)]);

  // Assess
  expect(runs).toEqual([
    [passed.runId, 'passed'],
    [replaced.runId, 'replaced'],
    [skipped.runId, 'skipped'],
    [failed.runId, 'failed'],
  ]);
  expect(outcomes.every((o) => o.status === 'applied')).toBe(true);
});
