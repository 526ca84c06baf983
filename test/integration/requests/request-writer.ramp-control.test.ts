/**
 * Issue 24, item 6, through the worker on the shared ZooKeeper: `rampHold`, `rampResume`,
 * `rampAdvance` and `amend` are judged and written by the RequestWriter in one multi with their
 * record, exactly once on redelivery; rejections are recorded; an amend's added alarms are checked as
 * a failout's stop alarms are; holding one cluster's ramp leaves another's alone.
 */
import type { AlarmReader, AlarmReading } from '../../../lib/alarms';
import { clusterPath, parseClusterProperties } from '../../../lib/d2';
import { RequestWriter } from '../../../lib/requests';
import { type RequestWriterOptions } from '../../../lib/requests/request-writer';
import { readableByAllWritableBy, type ZkSession } from '../../../lib/zk';
import { put, putUri } from '../../helpers/d2';
import { failoutInput } from '../../helpers/requests';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

const WRITER = { user: 'failout-writer', password: 'secret-1' };
const NOW = Date.parse('2026-11-30T16:00:00Z');
const MINUTE = 60_000;
const RAMP = [{ percent: 10, duration: 'PT5M' }, { percent: 50, duration: 'PT10M' }, { percent: 100 }];
const CLUSTERS = ['greetings-lor1', 'hello-lor1'];

let base: string;
let d2Base: string;
let session: ZkSession;
let now: number;

const alarmStates = new Map<string, AlarmReading>([['lor1-5xx', 'OK'], ['lor1-p99', 'ALARM']]);
const alarms: AlarmReader = { read: async (names) => new Map(names.map((n) => [n, alarmStates.get(n) ?? 'unknown'])) };

function writer(options: Partial<RequestWriterOptions> = {}): RequestWriter {
  return new RequestWriter({ session, d2BasePath: d2Base, requestsPath: `${base}/requests`, recordAcl: readableByAllWritableBy([WRITER]), clock: () => now, alarms, retention: false, ...options });
}

const body = (action: string, id: string, cluster = 'greetings-lor1', extra: Record<string, unknown> = {}) =>
  JSON.stringify({ version: 1, requestId: id, action, cluster, requestedBy: 'oncall@example.com', reason: 'INC-4711', ...extra });

async function failoutOf(cluster = 'greetings-lor1') {
  const node = await session.get(clusterPath(d2Base, cluster));
  return { props: parseClusterProperties(node.data).failoutProperties, version: node.stat.version };
}

beforeEach(async () => {
  base = uniqueBase('ramp-ctl');
  d2Base = `${base}/d2`;
  now = NOW;
  session = await openSession({ credentials: [WRITER] });
  for (const cluster of [...CLUSTERS, 'greetings-lva1', 'hello-lva1']) {
    await put(session, clusterPath(d2Base, cluster), JSON.stringify({ clusterName: cluster, keep: { me: true } }));
    await putUri(session, d2Base, cluster, 'host-1', `http://${cluster}-1:8080/`);
  }
  const w = writer();
  for (const [cluster, peer] of [['greetings-lor1', 'greetings-lva1'], ['hello-lor1', 'hello-lva1']] as const) {
    const outcome = await w.process(JSON.stringify(failoutInput({ requestId: `out-${cluster}`, cluster, peers: [{ cluster: peer }], ramp: RAMP, stopAlarms: ['lor1-5xx'] })), { messageId: `m-out-${cluster}` });
    expect(outcome.status).toBe('applied');
  }
});

afterEach(async () => {
  await session.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('RequestWriter: ramp hold, resume, advance', () => {
  it("holds one cluster's ramp in one write with its record, and leaves the other cluster alone", async () => {
    now = NOW + 2 * MINUTE;
    const other = await failoutOf('hello-lor1');
    const before = await failoutOf();
    const outcome = await writer().process(body('rampHold', 'hold-1'), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'applied', requestId: 'hold-1', cluster: 'greetings-lor1' });
    expect(outcome.record).toMatchObject({ action: 'rampHold', requestedBy: 'oncall@example.com', requestReason: 'INC-4711', clusterVersion: before.version + 1 });
    const after = await failoutOf();
    expect(after.version).toBe(before.version + 1);
    expect(after.props!.buckets).toHaveLength(1);
    expect(after.props!.rampHold).toMatchObject({ heldAt: NOW + 2 * MINUTE, requestId: 'hold-1' });
    expect(await failoutOf('hello-lor1')).toEqual(other);
    const node = JSON.parse((await session.get(clusterPath(d2Base, 'greetings-lor1'))).data.toString('utf8'));
    expect(node.keep).toEqual({ me: true });
  });

  it('applies a redelivered hold once: the second delivery is a duplicate and writes nothing', async () => {
    now = NOW + 2 * MINUTE;
    const w = writer();
    await w.process(body('rampHold', 'hold-2'), { messageId: 'm-1' });
    const once = await failoutOf();
    now += MINUTE;
    const again = await w.process(body('rampHold', 'hold-2'), { messageId: 'm-2' });
    expect(again).toMatchObject({ status: 'duplicate', requestId: 'hold-2' });
    expect(again.record).toMatchObject({ status: 'applied', action: 'rampHold', messageId: 'm-1' });
    expect(await failoutOf()).toEqual(once);
  });

  it('resumes shifted by the time held, and advances a held step; each recorded once', async () => {
    const w = writer();
    now = NOW + 2 * MINUTE;
    await w.process(body('rampHold', 'h'), { messageId: 'm-1' });
    now = NOW + 12 * MINUTE;
    expect((await w.process(body('rampAdvance', 'a'), { messageId: 'm-2' })).status).toBe('applied');
    expect((await w.process(body('rampAdvance', 'a'), { messageId: 'm-3' })).status).toBe('duplicate');
    let { props } = await failoutOf();
    expect(props!.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + 12 * MINUTE]);
    expect(props!.rampHold!.buckets.map((b) => b.offlineAt)).toEqual([NOW + 15 * MINUTE]);
    now = NOW + 22 * MINUTE;
    expect((await w.process(body('rampResume', 'r'), { messageId: 'm-4' })).record).toMatchObject({ status: 'applied', action: 'rampResume' });
    ({ props } = await failoutOf());
    expect(props!.rampHold).toBeUndefined();
    expect(props!.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + 12 * MINUTE, NOW + 35 * MINUTE]);
  });

  it.each([
    ['rampResume', 'rampNotHeld'],
    ['rampHold', 'rampComplete'],
    ['rampAdvance', 'rampComplete'],
  ])('records a %s it cannot apply as rejected (%s) and writes nothing', async (action, reason) => {
    now = action === 'rampResume' ? NOW + MINUTE : NOW + 20 * MINUTE;
    const before = await failoutOf();
    const outcome = await writer().process(body(action, `rej-${action}`), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason });
    expect(outcome.record).toMatchObject({ action, status: 'rejected', reason });
    expect(await failoutOf()).toEqual(before);
  });

  it('rejects a hold of an unknown cluster as unknownCluster', async () => {
    const outcome = await writer().process(body('rampHold', 'unknown', 'nope-lor1'), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'unknownCluster' });
  });
});

describe('RequestWriter: amend', () => {
  it('adds and removes stop alarms on every open window, once', async () => {
    const w = writer();
    now = NOW + MINUTE;
    const outcome = await w.process(body('amend', 'am-1', 'greetings-lor1', { addStopAlarms: ['lor1-p50'], removeStopAlarms: ['lor1-5xx'] }), { messageId: 'm-1' });
    // lor1-p50 is unknown to the source.
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'unknownAlarm' });
    alarmStates.set('lor1-p50', 'OK');
    const applied = await w.process(body('amend', 'am-2', 'greetings-lor1', { addStopAlarms: ['lor1-p50'], removeStopAlarms: ['lor1-5xx'] }), { messageId: 'm-2' });
    expect(applied.record).toMatchObject({ status: 'applied', action: 'amend' });
    const { props } = await failoutOf();
    expect(props!.buckets.map((b) => b.stopAlarms)).toEqual([['lor1-p50'], ['lor1-p50'], ['lor1-p50']]);
    expect((await w.process(body('amend', 'am-2', 'greetings-lor1', { addStopAlarms: ['lor1-p50'], removeStopAlarms: ['lor1-5xx'] }), { messageId: 'm-3' })).status).toBe('duplicate');
    expect(await w.process(body('amend', 'am-3', 'greetings-lor1', { addStopAlarms: ['lor1-p50'] }), { messageId: 'm-4' })).toMatchObject({ status: 'rejected', reason: 'amendsNothing' });
  });

  it('refuses to add a stop alarm that fires already (stopAlarmFiring)', async () => {
    const outcome = await writer().process(body('amend', 'am-f', 'greetings-lor1', { addStopAlarms: ['lor1-p99'] }), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'stopAlarmFiring' });
  });
});
