/**
 * Issue 23, fabric evacuation through the real RequestWriter on the shared ZooKeeper: one judged plan,
 * one multi (or an ordered plan that a redelivery continues after a crash), reverse-order restore,
 * and the refusals, each writing nothing but the record. Fabrics: services `greetings` and `hello`
 * in `lor1`, `lva1`, `ltx1` (the naming rule), ACLs from the table's policy (writer identity).
 */
import { isFailedOutAt, parseClusterProperties, type FailoutProperties } from '../../../lib/d2/data';
import { RequestWriter, type RequestWriterOptions } from '../../../lib/requests/request-writer';
import { decodeRequestRecord } from '../../../lib/requests/request-record';
import { newRequestId } from '../../../lib/requests';
import { decodeEvacuationNode } from '../../../lib/requests/evacuation-node';
import { decodeFailoutView } from '../../../lib/requests/failout-view';
import { decodeDrillNode, type DrillRun } from '../../../lib/requests/drill-node';
import { aclLayout, policyAcl } from '../../../lib/requests/acl-table';
import { digestAcl, ZkError, type MultiOp, type ZkSession } from '../../../lib/zk';
import { CREDENTIALS, ROLES } from '../../helpers/access';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const NOW = Date.parse('2026-12-02T10:00:00Z');

let base: string;
let session: ZkSession;
let clock: number;

const d2 = (): string => `${base}/d2`;
const layout = () => aclLayout({ d2BasePath: d2(), requestsPath: `${base}/requests`, drillsPath: `${base}/drills`, fabricsPath: `${base}/fabrics`, evacuationsPath: `${base}/evacuations`, electionPaths: [`${base}/election`] });

function writerWith(options: Partial<RequestWriterOptions> = {}, on: ZkSession = session): RequestWriter {
  return new RequestWriter({
    session: on,
    d2BasePath: d2(),
    requestsPath: `${base}/requests`,
    drillsPath: `${base}/drills`,
    fabricsPath: `${base}/fabrics`,
    evacuationsPath: `${base}/evacuations`,
    recordAcl: policyAcl(ROLES, layout()),
    clock: () => clock,
    retention: false,
    ...options,
  });
}

async function seed(admin: ZkSession, services: Record<string, Record<string, number>>): Promise<void> {
  const acl = policyAcl(ROLES, layout());
  for (const [service, clusters] of Object.entries(services)) {
    await admin.create(`${d2()}/services/${service}`, Buffer.from(JSON.stringify({ serviceName: service, clusterName: Object.keys(clusters)[0], path: `/${service}` })), { parents: true, acl });
    for (const [cluster, hosts] of Object.entries(clusters)) {
      await admin.create(`${d2()}/clusters/${cluster}`, Buffer.from(JSON.stringify({ clusterName: cluster, kept: { unknown: true } })), { parents: true, acl });
      await admin.ensurePath(`${d2()}/uris/${cluster}`, acl);
      for (let i = 1; i <= hosts; i++) {
        await admin.create(`${d2()}/uris/${cluster}/h${i}`, Buffer.from(JSON.stringify({ clusterName: cluster, weights: { [`http://10.0.0.${i}:1/${cluster}`]: 1 } })), { acl });
      }
    }
  }
}

const THREE = (hosts: [number, number, number] = [2, 2, 2]) => ({
  greetings: { 'greetings-lor1': hosts[0], 'greetings-lva1': hosts[1], 'greetings-ltx1': hosts[2] },
  hello: { 'hello-lor1': hosts[0], 'hello-lva1': hosts[1], 'hello-ltx1': hosts[2] },
});

/** True when both clusters of lor1 are failed out at the test's clock. */
async function allOut(): Promise<boolean> {
  return (await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => isFailedOutAt(await failout(c), clock)))).every(Boolean);
}

async function failout(cluster: string): Promise<FailoutProperties | null> {
  return parseClusterProperties((await session.get(`${d2()}/clusters/${cluster}`)).data).failoutProperties;
}

function evacuate(requestId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 1, requestId, action: 'evacuate', fabric: 'lor1', duration: 'PT2H', requestedBy: 'oncall', reason: 'INC-1', ...extra });
}

function restore(requestId: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ version: 1, requestId, action: 'restoreFabric', fabric: 'lor1', requestedBy: 'oncall', ...extra });
}

/** The writer's session, with `before` run on every multi first (it may throw to fail the multi). */
function withMulti(before: (ops: readonly MultiOp[]) => void): ZkSession {
  return new Proxy(session, {
    get(target, prop, receiver) {
      if (prop === 'multi') {
        return async (ops: readonly MultiOp[]) => {
          before(ops);
          return target.multi(ops);
        };
      }
      const value = Reflect.get(target, prop, receiver) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** A session that loses its connection on its second multi writing clusters (a worker killed mid-plan). */
function diesAfterOneStep(): ZkSession {
  let steps = 0;
  return withMulti((ops) => {
    if (ops.some((op) => op.path.includes('/clusters/')) && ++steps > 1) throw new ZkError('connectionLoss', 'killed mid-plan');
  });
}

let admin: ZkSession;

beforeEach(async () => {
  base = uniqueBase('evac');
  clock = NOW;
  admin = await openSession({ credentials: [CREDENTIALS.admin] });
  session = await openSession({ credentials: [CREDENTIALS.writer] });
});

afterEach(async () => {
  await admin.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('evacuate: one judged plan in one multi', () => {
  it('moves every cluster of the fabric to the same service elsewhere, by capacity, with the view, the node and the record in one step; a resend is a duplicate', async () => {
    await seed(admin, THREE([2, 3, 1]));
    const writer = writerWith();

    const outcome = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'applied', cluster: null, record: { action: 'evacuate', fabric: 'lor1', evacuation: { mode: 'multi', clusters: 2, stages: 1 } } });
    for (const service of ['greetings', 'hello']) {
      const props = await failout(`${service}-lor1`);
      // By capacity: each peer weighted by its eligible hosts.
      expect(props?.redirects).toEqual([
        { peer: `${service}-ltx1`, weight: 1 },
        { peer: `${service}-lva1`, weight: 3 },
      ]);
      expect(props?.buckets).toEqual([expect.objectContaining({ evacuation: 'lor1', requestId: 'ev-1', offlineAt: NOW, onlineAt: NOW + 2 * HOUR, requestedBy: 'oncall', reason: 'INC-1' })]);
      expect(isFailedOutAt(props, NOW)).toBe(true);
      expect(await failout(`${service}-lva1`)).toBeNull();
    }
    const node = decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data);
    expect(node).toMatchObject({ status: 'applied', mode: 'multi', requestId: 'ev-1', written: 2 });
    expect(node.plan.receivers.map((r) => r.cluster)).toEqual(['greetings-ltx1', 'greetings-lva1', 'hello-ltx1', 'hello-lva1']);
    const view = decodeFailoutView((await session.get(`${base}/view`)).data);
    expect([...view.keys()].sort()).toEqual(['greetings-lor1', 'hello-lor1']);
    // The unknown keys of the cluster document are kept.
    expect(JSON.parse((await session.get(`${d2()}/clusters/greetings-lor1`)).data.toString()).kept).toEqual({ unknown: true });

    const again = await writer.process(evacuate('ev-1'), { messageId: 'm-2' });
    expect(again).toMatchObject({ status: 'duplicate', record: { messageId: 'm-1' } });
  });

  it('acknowledges a redelivery whose record cannot be read as a duplicate, saying why, and evacuates nothing', async () => {
    // Prepare: the first delivery's record, unreadable (a hand edit)
    await seed(admin, THREE());
    await admin.create(`${base}/requests/ev-bad`, Buffer.from('{"requestId":'), { parents: true, acl: policyAcl(ROLES, layout()) });

    // Act
    const outcome = await writerWith().process(evacuate('ev-bad'), { messageId: 'm-2' });

    // Assess
    expect(outcome).toMatchObject({ status: 'duplicate', requestId: 'ev-bad', cluster: null, unreadableRecord: expect.stringContaining('not JSON'), record: { status: 'duplicate', fabric: 'lor1', action: 'evacuate', messageId: 'm-2' } });
    expect(await failout('greetings-lor1')).toBeNull();
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
    expect((await session.get(`${base}/requests/ev-bad`)).data.toString()).toBe('{"requestId":');
  });

  it('uses the given target fabrics and weights', async () => {
    await seed(admin, THREE());
    const outcome = await writerWith().process(evacuate('ev-1', { targets: [{ fabric: 'lva1', weight: 2 }] }), { messageId: 'm-1' });
    expect(outcome.status).toBe('applied');
    expect((await failout('greetings-lor1'))?.redirects).toEqual([{ peer: 'greetings-lva1', weight: 2 }]);
  });

  it('restores the fabric, and a second restore changes nothing', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    clock = NOW + 10 * MINUTE;

    const back = await writer.process(restore('rs-1'), { messageId: 'm-2' });
    const none = await writer.process(restore('rs-2'), { messageId: 'm-3' });

    expect(back).toMatchObject({ status: 'applied', record: { action: 'restoreFabric', fabric: 'lor1', evacuation: { mode: 'multi', clusters: 2 } } });
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'restored', endedAt: clock, endedByRequest: 'rs-1', endedBy: 'oncall' });
    expect(none).toMatchObject({ status: 'applied', record: { unchanged: true } });
    // The fabric may be evacuated again once restored.
    expect((await writer.process(evacuate('ev-2'), { messageId: 'm-4' })).status).toBe('applied');
  });
});

describe('given weights with two clusters of a service in one target fabric (a fabric map)', () => {
  it("splits the fabric's weight between them by their hosts, so each fabric gets its given share", async () => {
    // Prepare: greetings has two clusters in lva1 (4 and 2 hosts), one in ltx1.
    await seed(admin, { greetings: { 'greetings-lor1': 2, 'greetings-lva1': 4, 'greetings-lva1b': 2, 'greetings-ltx1': 2 }, hello: THREE().hello });
    const writer = writerWith();
    const map = { version: 1, requestId: 'map-1', action: 'putFabric', fabric: 'lva1', clusters: [
      { cluster: 'greetings-lva1', service: 'greetings' },
      { cluster: 'greetings-lva1b', service: 'greetings' },
      { cluster: 'hello-lva1', service: 'hello' },
    ] };
    expect((await writer.process(JSON.stringify(map), { messageId: 'm-0' })).status).toBe('applied');

    // Act: lva1 takes 2 parts, ltx1 1
    const outcome = await writer.process(evacuate('ev-1', { targets: [{ fabric: 'lva1', weight: 2 }, { fabric: 'ltx1', weight: 1 }] }), { messageId: 'm-1' });

    // Assess: greetings' lva1 clusters share 2/3 by hosts (4:2), ltx1 has 1/3; hello as given.
    expect(outcome.status).toBe('applied');
    const weights = Object.fromEntries(((await failout('greetings-lor1'))?.redirects ?? []).map((r) => [r.peer, r.weight ?? 1]));
    const total = Object.values(weights).reduce((a, b) => a + b, 0);
    expect({ lva1: (weights['greetings-lva1']! + weights['greetings-lva1b']!) / total, ltx1: weights['greetings-ltx1']! / total }).toEqual({ lva1: 2 / 3, ltx1: 1 / 3 });
    expect(weights['greetings-lva1']! / weights['greetings-lva1b']!).toBe(2);
    expect((await failout('hello-lor1'))?.redirects).toEqual([{ peer: 'hello-ltx1', weight: 1 }, { peer: 'hello-lva1', weight: 2 }]);
  });
});

describe('stop alarms end the whole evacuation', () => {
  it('a guard restore naming a stop or gate alarm ends every cluster of it, stage by stage in reverse, and says why; another alarm changes nothing', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await writer.process(evacuate('ev-1', { stopAlarms: ['lor1-errors'], stages: [{ clusters: ['greetings-lor1'], gateAlarms: ['fe-gate'] }], hold: 'PT1M', restoreGap: 'PT1M' }), { messageId: 'm-1' });
    expect((await failout('hello-lor1'))?.buckets[0]?.stopAlarms).toEqual(['lor1-errors', 'fe-gate']);
    clock = NOW + 2 * MINUTE;

    const other = await writer.process(restore('gd-0', { requestedBy: 'failout-guard', stoppedByAlarm: 'unrelated' }), { messageId: 'm-2' });
    const stopped = await writer.process(restore('gd-1', { requestedBy: 'failout-guard', stoppedByAlarm: 'fe-gate', alarmAt: clock }), { messageId: 'm-3' });

    expect(other).toMatchObject({ status: 'applied', record: { unchanged: true } });
    expect(stopped).toMatchObject({ status: 'applied', record: { stoppedByAlarm: 'fe-gate', evacuation: { clusters: 2 } } });
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'stopped', stoppedByAlarm: 'fe-gate', endedBy: 'failout-guard' });
    // The last stage (the rest: hello) is home now; the first (greetings) one gap later.
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(true);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock + MINUTE)).toBe(false);
  });
});

describe("a guard's restore that reaches the worker late (a DLQ redrive)", () => {
  it('does not stop an evacuation made after its alarm changed state', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    // The alarm fired 20 minutes before this evacuation was made (and went back to OK since).
    const id = newRequestId(NOW);
    expect((await writer.process(evacuate(id, { stopAlarms: ['lor1-errors'] }), { messageId: 'm-1' })).status).toBe('applied');
    clock = NOW + MINUTE;

    const stale = await writer.process(restore('gd-1', { requestedBy: 'failout-guard', stoppedByAlarm: 'lor1-errors', alarmAt: NOW - 20 * MINUTE }), { messageId: 'm-2' });

    expect(stale).toMatchObject({ status: 'applied', record: { unchanged: true, stoppedByAlarm: 'lor1-errors' } });
    expect(await allOut()).toBe(true);
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applied', requestId: id });
  });
});

describe('a member whose evacuation windows an operator extended past the evacuation', () => {
  // greetings-lor1's windows (evacuation lor1) were extended with `failout extend`: they outlive the
  // evacuation's own end, and still name its stop alarm.
  async function extendedPastTheEnd(writer: RequestWriter): Promise<void> {
    expect((await writer.process(evacuate('ev-1', { duration: 'PT1H', stopAlarms: ['lor1-errors'] }), { messageId: 'm-1' })).status).toBe('applied');
    clock = NOW + 10 * MINUTE;
    const extend = JSON.stringify({ version: 1, requestId: 'ex-1', action: 'extend', cluster: 'greetings-lor1', duration: 'PT3H', requestedBy: 'oncall', reason: 'still bad' });
    expect((await writer.process(extend, { messageId: 'm-2' })).status).toBe('applied');
    clock = NOW + 90 * MINUTE;
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(true);
  }

  it("is stopped by the evacuation's stop alarm after the evacuation's own end (the guard's restoreFabric)", async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await extendedPastTheEnd(writer);

    const stopped = await writer.process(restore('gd-1', { requestedBy: 'failout-guard', stoppedByAlarm: 'lor1-errors', alarmAt: clock }), { messageId: 'm-3' });

    expect(stopped).toMatchObject({ status: 'applied', record: { stoppedByAlarm: 'lor1-errors' } });
    expect(stopped.record.unchanged).toBeUndefined();
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
    expect(decodeFailoutView((await session.get(`${base}/view`)).data).has('greetings-lor1')).toBe(false);
  });

  it('comes home with `failout restore --fabric` after the evacuation\'s own end', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await extendedPastTheEnd(writer);

    const restored = await writer.process(restore('rs-1'), { messageId: 'm-3' });

    expect(restored).toMatchObject({ status: 'applied' });
    expect(restored.record.unchanged).toBeUndefined();
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
  });
});

describe('`failout amend` of a member whose windows name the stop and gate alarms (more than 5)', () => {
  it('takes one alarm off, though more than 5 are left', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    const stopAlarms = ['s1', 's2', 's3', 's4', 's5'];
    expect((await writer.process(evacuate('ev-1', { stopAlarms, stages: [{ clusters: ['greetings-lor1'], gateAlarms: ['g1', 'g2'] }], hold: 'PT1M' }), { messageId: 'm-1' })).status).toBe('applied');
    expect((await failout('greetings-lor1'))?.buckets[0]?.stopAlarms).toEqual([...stopAlarms, 'g1', 'g2']);
    clock = NOW + MINUTE;

    const amend = JSON.stringify({ version: 1, requestId: 'am-1', action: 'amend', cluster: 'greetings-lor1', removeStopAlarms: ['s5'], requestedBy: 'oncall', reason: 'flapping' });
    const outcome = await writer.process(amend, { messageId: 'm-2' });

    expect(outcome).toMatchObject({ status: 'applied' });
    expect((await failout('greetings-lor1'))?.buckets[0]?.stopAlarms).toEqual(['s1', 's2', 's3', 's4', 'g1', 'g2']);
  });
});

describe('a stop alarm an operator added to one member with `failout amend`', () => {
  it("stops that member when it fires (the guard's restoreFabric), and the rest of the evacuation goes on", async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    expect((await writer.process(evacuate('ev-1', { stopAlarms: ['lor1-errors'] }), { messageId: 'm-1' })).status).toBe('applied');
    clock = NOW + 10 * MINUTE;
    const amend = JSON.stringify({ version: 1, requestId: 'am-1', action: 'amend', cluster: 'greetings-lor1', addStopAlarms: ['greetings-lva1-errors'], requestedBy: 'oncall', reason: 'watch lva1' });
    expect((await writer.process(amend, { messageId: 'm-2' })).status).toBe('applied');
    expect((await failout('greetings-lor1'))?.buckets[0]?.stopAlarms).toEqual(['lor1-errors', 'greetings-lva1-errors']);
    clock = NOW + 20 * MINUTE;

    const stopped = await writer.process(restore('gd-1', { requestedBy: 'failout-guard', stoppedByAlarm: 'greetings-lva1-errors', alarmAt: clock }), { messageId: 'm-3' });

    expect(stopped).toMatchObject({ status: 'applied', record: { stoppedByAlarm: 'greetings-lva1-errors' } });
    expect(stopped.record.unchanged).toBeUndefined();
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
    // Only the member that named it: the evacuation goes on.
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(true);
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applied' });
  });
});

describe('an evacuation node that does not decode', () => {
  it('refuses a new evacuation, and an operator\'s restore brings the clusters home and removes the node', async () => {
    await seed(admin, THREE([2, 4, 4]));
    const writer = writerWith();
    await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    await admin.set(`${base}/evacuations/lor1`, Buffer.from('{"version":1,"garbage'));
    clock = NOW + MINUTE;

    const refused = await writer.process(JSON.stringify({ version: 1, requestId: 'ev-2', action: 'evacuate', fabric: 'ltx1', duration: 'PT1H' }), { messageId: 'm-2' });
    const restored = await writer.process(restore('rs-1'), { messageId: 'm-3' });
    const again = await writer.process(evacuate('ev-3'), { messageId: 'm-4' });

    expect(refused).toMatchObject({ status: 'rejected', reason: 'evacuationOpen', record: { message: expect.stringContaining('cannot be read') } });
    expect(restored).toMatchObject({ status: 'applied', record: { action: 'restoreFabric', evacuation: { clusters: 2 } } });
    expect(again.status).toBe('applied');
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ requestId: 'ev-3', status: 'applied' });
  });

  it('is one the worker may not read (noAuth): refused evacuations name it, and an operator\'s restore removes it, instead of failing every fabric request until the DLQ', async () => {
    // Prepare: an open evacuation whose node then gets an ACL the worker has no READ in
    await seed(admin, THREE([2, 4, 4]));
    const writer = writerWith();
    await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    await admin.setAcl(`${base}/evacuations/lor1`, [digestAcl('someone-else', 'not-the-worker')]);
    clock = NOW + MINUTE;

    // Act
    const refused = await writer.process(JSON.stringify({ version: 1, requestId: 'ev-2', action: 'evacuate', fabric: 'ltx1', duration: 'PT1H' }), { messageId: 'm-2' });
    const restored = await writer.process(restore('rs-1'), { messageId: 'm-3' });

    // Assess
    expect(refused).toMatchObject({ status: 'rejected', reason: 'evacuationOpen', record: { message: expect.stringMatching(/cannot be read.*no READ permission/) } });
    expect(restored).toMatchObject({ status: 'applied', record: { action: 'restoreFabric' } });
    expect(await allOut()).toBe(false);
    expect(await session.exists(`${base}/evacuations/lor1`)).toBeUndefined();
  });

  it('brings home on a guard\'s restore only what names its alarm, and changes nothing for another alarm', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await writer.process(evacuate('ev-1', { stopAlarms: ['a1'] }), { messageId: 'm-1' });
    await admin.set(`${base}/evacuations/lor1`, Buffer.from('not json'));
    clock = NOW + MINUTE;

    const other = await writer.process(restore('gd-0', { requestedBy: 'failout-guard', stoppedByAlarm: 'zz' }), { messageId: 'm-2' });
    expect(other).toMatchObject({ status: 'applied', record: { unchanged: true } });
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(true);

    const stopped = await writer.process(restore('gd-1', { requestedBy: 'failout-guard', stoppedByAlarm: 'a1' }), { messageId: 'm-3' });

    expect(stopped).toMatchObject({ status: 'applied', record: { stoppedByAlarm: 'a1', evacuation: { clusters: 2 } } });
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
  });
});

describe('stages', () => {
  it('staggers the stages by tier and hold, returns them in reverse order, and restores the last stage first', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    const map = { version: 1, requestId: 'map-1', action: 'putFabric', fabric: 'lor1', clusters: [
      { cluster: 'greetings-lor1', service: 'greetings', tier: 'frontend' },
      { cluster: 'hello-lor1', service: 'hello', tier: 'storage' },
    ] };
    expect((await writer.process(JSON.stringify(map), { messageId: 'm-0' })).status).toBe('applied');

    const outcome = await writer.process(evacuate('ev-1', { stages: [{ tier: 'frontend' }, { tier: 'storage' }], hold: 'PT5M', restoreGap: 'PT1M', ramp: [{ percent: 50, duration: 'PT2M' }, { percent: 100 }] }), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'applied', record: { evacuation: { stages: 2 } } });
    const front = (await failout('greetings-lor1'))!;
    const store = (await failout('hello-lor1'))!;
    // Stage 1 ramps from now; stage 2 starts when stage 1 is fully out (2 m) plus the hold (5 m).
    expect(front.buckets.map((b) => b.offlineAt)).toEqual([NOW, NOW + 2 * MINUTE]);
    expect(store.buckets.map((b) => b.offlineAt)).toEqual([NOW + 7 * MINUTE, NOW + 9 * MINUTE]);
    // Back in reverse: storage at the end, frontend one gap later.
    expect(store.buckets.every((b) => b.onlineAt === NOW + 2 * HOUR)).toBe(true);
    expect(front.buckets.every((b) => b.onlineAt === NOW + 2 * HOUR + MINUTE)).toBe(true);

    clock = NOW + 10 * MINUTE;
    await writer.process(restore('rs-1'), { messageId: 'm-2' });
    expect(isFailedOutAt(await failout('hello-lor1'), clock)).toBe(false);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock)).toBe(true);
    expect(isFailedOutAt(await failout('greetings-lor1'), clock + MINUTE)).toBe(false);
  });

  it('drops the windows of a stage not started yet on restore', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    await writer.process(evacuate('ev-1', { stages: [{ clusters: ['greetings-lor1'] }], hold: 'PT30M' }), { messageId: 'm-1' });
    expect((await failout('hello-lor1'))?.buckets[0]?.offlineAt).toBe(NOW + 30 * MINUTE);

    clock = NOW + MINUTE;
    await writer.process(restore('rs-1'), { messageId: 'm-2' });

    expect(await failout('hello-lor1')).toBeNull();
  });

  it.each([
    ['a hold past the end', { stages: [{ clusters: ['greetings-lor1'] }], hold: 'PT3H' }],
    ['a later stage ramping past the end', { stages: [{ clusters: ['greetings-lor1'] }], hold: 'PT50M', ramp: [{ percent: 50, duration: 'PT40M' }, { percent: 100 }] }],
  ])('refuses stages that could not move before the evacuation ends (%s), naming the stage, and writes nothing but the record', async (_what, extra) => {
    // Stage 2 would start (or finish its ramp) after the 2 h window: its windows would end before they begin.
    await seed(admin, THREE());
    const before = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => (await session.get(`${d2()}/clusters/${c}`)).stat.version));

    const outcome = await writerWith().process(evacuate('ev-1', extra), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badStages', record: { message: expect.stringMatching(/stage 2 \(rest\)/) } });
    const after = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => (await session.get(`${d2()}/clusters/${c}`)).stat.version));
    expect(after).toEqual(before);
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
    expect((await session.read(`${base}/view`)).exists).toBe(false);
  });

  it.each([
    ['a tier, then a list naming one of its clusters', [{ tier: 'frontend' }, { clusters: ['greetings-lor1'] }]],
    ['a list, then the tier of one of its clusters', [{ clusters: ['greetings-lor1'] }, { tier: 'frontend' }]],
  ])('refuses a cluster in two stages (%s), naming it, and writes nothing but the record', async (_what, stages) => {
    await seed(admin, THREE());
    const writer = writerWith();
    const map = { version: 1, requestId: 'map-1', action: 'putFabric', fabric: 'lor1', clusters: [{ cluster: 'greetings-lor1', service: 'greetings', tier: 'frontend' }] };
    expect((await writer.process(JSON.stringify(map), { messageId: 'm-0' })).status).toBe('applied');

    const outcome = await writer.process(evacuate('ev-1', { stages }), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badStages', record: { message: expect.stringMatching(/"greetings-lor1" is in two stages/) } });
    expect(await failout('greetings-lor1')).toBeNull();
    expect(await failout('hello-lor1')).toBeNull();
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
  });

  it('refuses a tier no cluster of the fabric has, naming it, and writes nothing', async () => {
    await seed(admin, THREE());
    const outcome = await writerWith().process(evacuate('ev-1', { stages: [{ tier: 'midtier' }] }), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badStages', record: { message: expect.stringContaining('"midtier"') } });
    expect(await failout('greetings-lor1')).toBeNull();
  });
});

describe('refusals write nothing but the record', () => {
  it.each([
    ['an unknown fabric', { fabric: 'xyz9' }, 'unknownFabric', /"xyz9" has no cluster/],
    ['a target that is the fabric', { targets: [{ fabric: 'lor1' }] }, 'badTargets', /is the fabric being evacuated/],
    ['a weight out of range', { targets: [{ fabric: 'lva1', weight: 101 }] }, 'badTargets', /from 1 to 100/],
    ['an unknown target fabric', { targets: [{ fabric: 'nope1' }] }, 'unknownFabric', /"nope1"/],
    ['a hostile fabric name', { fabric: '../\u001b[2J' }, 'badName', /fabric:/],
    // The end is 72 h ahead (the maximum window); stage 1 returns a 24 h restore gap after stage 2 (rest).
    ['stages whose return a restore gap puts past the maximum window', { duration: 'PT72H', stages: [{ clusters: ['greetings-lor1'] }], restoreGap: '24h' }, 'windowTooLong', /^stage 1 would return at 2026-12-06T10:00:00\.000Z, 24h after the end .*past the maximum window, which ends at 2026-12-05T10:00:00\.000Z/],
  ])('%s', async (_what, extra, reason, message) => {
    await seed(admin, THREE());
    const outcome = await writerWith().process(evacuate('ev-1', extra), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason });
    expect(outcome.record.message).toMatch(message);
    expect(await failout('greetings-lor1')).toBeNull();
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
  });

  it('refuses to restore a fabric that has no cluster and no evacuation (a typo), naming the fabrics; a known fabric with none open changes nothing', async () => {
    await seed(admin, THREE());
    const writer = writerWith();

    const typo = await writer.process(restore('rs-1', { fabric: 'lro1' }), { messageId: 'm-1' });
    const known = await writer.process(restore('rs-2', { fabric: 'lva1' }), { messageId: 'm-2' });

    expect(typo).toMatchObject({ status: 'rejected', reason: 'unknownFabric' });
    expect(typo.record.message).toMatch(/"lro1" has no cluster and no evacuation \(fabrics with clusters: lor1, ltx1, lva1\); nothing to restore/);
    expect((await session.read(`${base}/evacuations/lro1`)).exists).toBe(false);
    expect(known).toMatchObject({ status: 'applied', record: { unchanged: true } });
  });

  it('names a service with no cluster outside the fabric, and moves the rest once it is excluded', async () => {
    await seed(admin, { ...THREE(), solo: { 'solo-lor1': 2 } });
    const writer = writerWith();

    const refused = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    const excluded = await writer.process(evacuate('ev-2', { exclude: ['solo'] }), { messageId: 'm-2' });

    expect(refused).toMatchObject({ status: 'rejected', reason: 'noTargetForService', record: { message: expect.stringContaining('solo (solo-lor1') } });
    expect(excluded.status).toBe('applied');
    expect(await failout('solo-lor1')).toBeNull();
    expect(isFailedOutAt(await failout('greetings-lor1'), NOW)).toBe(true);
  });

  it('refuses a second evacuation while one is open, saying which', async () => {
    await seed(admin, THREE([2, 4, 4]));
    const writer = writerWith();
    await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    const second = await writer.process(JSON.stringify({ version: 1, requestId: 'ev-2', action: 'evacuate', fabric: 'ltx1', duration: 'PT1H' }), { messageId: 'm-2' });
    expect(second).toMatchObject({ status: 'rejected', reason: 'evacuationOpen', record: { message: expect.stringMatching(/"lor1" is being evacuated \(request ev-1/) } });
    expect(await failout('greetings-ltx1')).toBeNull();
  });

  it('refuses a plan over the capacity guard, and force applies it and says so', async () => {
    // lor1 carries 4 hosts' traffic; lva1 and ltx1 have one host each: 3× their load per host.
    await seed(admin, THREE([4, 1, 1]));
    const writer = writerWith();

    const refused = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });
    const forced = await writer.process(evacuate('ev-2', { force: true }), { messageId: 'm-2' });

    expect(refused).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity', record: { message: expect.stringMatching(/receiving cluster "greetings-l(tx|va)1" would carry 3× its load per host/) } });
    expect(forced).toMatchObject({ status: 'applied', record: { forced: ['capacity'] } });
  });

  it("stamps a forced evacuation's windows with what force overrode, as its record says (docs: force is audited on every window it wrote)", async () => {
    // Found by the fleet model test: the record said forced, the windows did not, so `failout status` showed no force.
    await seed(admin, THREE([4, 1, 1]));
    const writer = writerWith();

    const forced = await writer.process(evacuate('ev-1', { force: true }), { messageId: 'm-1' });

    expect(forced).toMatchObject({ status: 'applied', record: { forced: ['capacity'] } });
    for (const cluster of ['greetings-lor1', 'hello-lor1']) expect((await failout(cluster))!.buckets.map((b) => b.forced)).toEqual([['capacity']]);
    const view = decodeFailoutView((await session.get(`${base}/view`)).data);
    expect(view.get('greetings-lor1')!.buckets.map((b) => b.forced)).toEqual([['capacity']]);
  });

  it('does not target a failed-out cluster, and refuses when that strands another failout', async () => {
    await seed(admin, THREE());
    const writer = writerWith();
    // greetings-lva1 is failed out to greetings-lor1 only: evacuating lor1 would leave it no peer.
    const out = { version: 1, requestId: 'fo-1', action: 'failout', cluster: 'greetings-lva1', peers: [{ cluster: 'greetings-lor1' }], duration: 'PT1H' };
    expect((await writer.process(JSON.stringify(out), { messageId: 'm-0' })).status).toBe('applied');

    const refused = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(refused).toMatchObject({ status: 'rejected', reason: 'strandsFailout', record: { message: expect.stringContaining('"greetings-lva1"') } });
    expect((await session.read(`${base}/evacuations/lor1`)).exists).toBe(false);
    expect(await failout('greetings-lor1')).toBeNull();
  });
});

describe('drill runs in the way of an operator\'s evacuation give way, as they do to an operator\'s failout', () => {
  /** Puts drill `d-<cluster>` of `cluster` to `peer` and starts its run at the test's clock. */
  async function runDrill(writer: RequestWriter, cluster: string, peer: string): Promise<void> {
    const name = `d-${cluster}`;
    const put = { version: 1, requestId: `put-${name}`, action: 'putDrill', cluster, drill: name, peers: [{ cluster: peer }], duration: 'PT30M', every: 'rate(7 days)', outcomeAlarm: `${name}-outcome` };
    expect((await writer.process(JSON.stringify(put), { messageId: `m-put-${name}` })).status).toBe('applied');
    const runBody = { version: 1, requestId: `drill-${name}-${NOW}`, action: 'failout', cluster, drill: name, peers: put.peers, duration: 'PT30M', requestedBy: 'failout-drills', stopAlarms: [`${name}-outcome`] };
    expect((await writer.process(JSON.stringify(runBody), { messageId: `m-run-${name}` })).status).toBe('applied');
  }
  const runOf = async (cluster: string): Promise<DrillRun | undefined> => decodeDrillNode((await session.get(`${base}/drills/d-${cluster}`)).data).runs[0];

  it.each([
    // greetings-lva1's drill sends its traffic to greetings-lor1 only: the evacuation would strand it.
    ['whose only peer it evacuates (strandsFailout)', 'greetings-lor1'],
    // greetings-lva1's drill sends its traffic to greetings-ltx1 (2 hosts: 2.0×); the evacuation would add lor1's (3.0×).
    ["whose traffic would push a receiving cluster over the limit with the evacuation's", 'greetings-ltx1'],
  ])('ends a drill run of another fabric %s, instead of refusing the evacuation', async (_what, drillPeer) => {
    await seed(admin, THREE());
    const writer = writerWith();
    await runDrill(writer, 'greetings-lva1', drillPeer);
    clock = NOW + MINUTE;

    const outcome = await writer.process(evacuate('ev-1', { targets: [{ fabric: 'ltx1' }] }), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'applied' });
    expect(await allOut()).toBe(true);
    expect(await failout('greetings-lva1')).toBeNull();
    expect(await runOf('greetings-lva1')).toMatchObject({ status: 'replaced', endedBy: 'ev-1' });
  });

  it('refuses when it strands a failout that names an evacuated cluster through a D2 symlink ($ peer)', async () => {
    await seed(admin, THREE());
    for (const dir of ['clusters', 'uris']) await admin.create(`${d2()}/${dir}/$greetingsMaster`, Buffer.from(`${d2()}/${dir}/greetings-lor1`), { acl: policyAcl(ROLES, layout()) });
    const writer = writerWith();
    // greetings-ltx1 is failed out to $greetingsMaster, that is greetings-lor1, only: evacuating lor1 would leave it no peer.
    const out = { version: 1, requestId: 'fo-1', action: 'failout', cluster: 'greetings-ltx1', peers: [{ cluster: '$greetingsMaster' }], duration: 'PT1H' };
    expect((await writer.process(JSON.stringify(out), { messageId: 'm-0' })).status).toBe('applied');

    const refused = await writer.process(evacuate('ev-1', { targets: [{ fabric: 'lva1' }] }), { messageId: 'm-1' });

    expect(refused).toMatchObject({ status: 'rejected', reason: 'strandsFailout', record: { message: expect.stringContaining('"greetings-ltx1"') } });
    expect(await failout('greetings-lor1')).toBeNull();
  });
});

describe('an ordered plan when one multi is too large', () => {
  it('writes the plan in steps and says so in the record', async () => {
    await seed(admin, THREE());
    const outcome = await writerWith({ maxMultiBytes: 1500 }).process(evacuate('ev-1'), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan', clusters: 2, steps: 2 } } });
    expect(outcome.record.evacuation?.multiBytes).toBeGreaterThan(1500);
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applied', mode: 'plan', written: 2 });
    expect(isFailedOutAt(await failout('hello-lor1'), NOW)).toBe(true);
  });

  it('writes the stages in their order, the first stage first', async () => {
    await seed(admin, THREE());
    const written: string[] = [];
    const recording = withMulti((ops) => void written.push(...ops.filter((op) => op.path.includes('/clusters/')).map((op) => op.path.slice(op.path.lastIndexOf('/') + 1))));

    // hello-lor1 is stage 1, greetings-lor1 the rest (stage 2); a step holds one cluster.
    const outcome = await writerWith({ maxMultiBytes: 1500 }, recording).process(evacuate('ev-1', { stages: [{ clusters: ['hello-lor1'] }], hold: '0s' }), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan', steps: 2 } } });
    // (A step may be sent twice: the first record on a fresh tree creates its parent and sends it again.)
    expect([...new Set(written)]).toEqual(['hello-lor1', 'greetings-lor1']);
  });

  it('keeps every step within the byte budget, the growth of the view included', async () => {
    const services = Object.fromEntries(['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((s) => [s, { [`${s}-lor1`]: 2, [`${s}-lva1`]: 2, [`${s}-ltx1`]: 2 }]));
    await seed(admin, services);
    const sizes: number[] = [];
    const measuring = withMulti((ops) => void sizes.push(ops.reduce((n, op) => n + op.path.length + ('data' in op && op.data !== undefined ? op.data.length : 0), 0)));
    const budget = 7_000;

    const outcome = await writerWith({ maxMultiBytes: budget }, measuring).process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(outcome).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan', clusters: 8 } } });
    expect(outcome.record.evacuation?.steps).toBeGreaterThan(1);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(budget);
    for (const s of Object.keys(services)) expect(isFailedOutAt(await failout(`${s}-lor1`), NOW)).toBe(true);
  });

  it('continues after a worker died between steps, writing each cluster once', async () => {
    await seed(admin, THREE());
    // A session that loses its connection after the plan node and the first step (of one cluster).
    const dying = diesAfterOneStep();

    await expect(writerWith({ maxMultiBytes: 1500 }, dying).process(evacuate('ev-1'), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError' });
    // Half written: the plan is recorded, one cluster carries the evacuation, the other not yet.
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applying' });
    const carrying = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => isFailedOutAt(await failout(c), NOW)));
    expect(carrying.filter(Boolean)).toHaveLength(1);
    const versions = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => (await session.get(`${d2()}/clusters/${c}`)).stat.version));

    const redelivered = await writerWith({ maxMultiBytes: 1500 }).process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(redelivered).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan' } } });
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applied', written: 2 });
    const after = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => (await session.get(`${d2()}/clusters/${c}`)).stat.version));
    // The cluster written before the crash is not written again; the other once.
    expect(after.map((v, i) => v - versions[i]!).sort()).toEqual([0, 1]);
    expect(decodeRequestRecord((await session.get(`${base}/requests/ev-1`)).data)).toMatchObject({ status: 'applied' });
  });

  it('keeps what force overrode when it continues a forced plan after a crash: on every window and on the record', async () => {
    // The plan node kept no `forced`, so the continuation wrote the rest of the windows and the record without it.
    await seed(admin, THREE([4, 1, 1]));
    const dying = diesAfterOneStep();
    await expect(writerWith({ maxMultiBytes: 1500 }, dying).process(evacuate('ev-1', { force: true }), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError' });

    const redelivered = await writerWith({ maxMultiBytes: 1500 }).process(evacuate('ev-1', { force: true }), { messageId: 'm-1' });

    expect(redelivered).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan' }, forced: ['capacity'] } });
    for (const cluster of ['greetings-lor1', 'hello-lor1']) expect((await failout(cluster))!.buckets.map((b) => b.forced)).toEqual([['capacity']]);
    const view = decodeFailoutView((await session.get(`${base}/view`)).data);
    expect(['greetings-lor1', 'hello-lor1'].map((c) => view.get(c)!.buckets.map((b) => b.forced))).toEqual([[['capacity']], [['capacity']]]);
  });

  it("leaves a cluster an operator restored between a crash and the redelivery serving: the continuation writes only what the plan had not written", async () => {
    // A plan cut short after its first step; the operator restores the cluster that step moved (a
    // cluster request travels in its own FIFO group, so it is applied before the evacuation's redelivery).
    await seed(admin, THREE());
    const dying = diesAfterOneStep();
    await expect(writerWith({ maxMultiBytes: 1500 }, dying).process(evacuate('ev-1'), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError' });
    const moved = (await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => ((await failout(c)) === null ? [] : [c])))).flat();
    expect(moved).toHaveLength(1);
    // The node says how far the steps got.
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'applying', written: 1 });
    const [restored] = moved as [string];
    const other = restored === 'greetings-lor1' ? 'hello-lor1' : 'greetings-lor1';
    const writer = writerWith({ maxMultiBytes: 1500 });
    clock = NOW + MINUTE;
    const body = JSON.stringify({ version: 1, requestId: 'rs-c', action: 'restore', cluster: restored, requestedBy: 'oncall', reason: 'that one is fine' });
    expect((await writer.process(body, { messageId: 'm-2' })).status).toBe('applied');

    const redelivered = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(redelivered).toMatchObject({ status: 'applied', record: { evacuation: { mode: 'plan' } } });
    // The operator's restore stands; the cluster the crash left out is moved.
    expect(isFailedOutAt(await failout(restored), clock)).toBe(false);
    expect(isFailedOutAt(await failout(other), clock)).toBe(true);
    expect(decodeFailoutView((await session.get(`${base}/view`)).data).has(restored)).toBe(false);
  });

  it("marks the drill runs of the clusters it moves replaced, each with its cluster's write, when a crash cuts the plan short", async () => {
    // Both members are in a run of their own drill; the evacuation replaces them (an operator takes precedence).
    await seed(admin, THREE());
    const writer = writerWith();
    for (const cluster of ['greetings-lor1', 'hello-lor1']) {
      const name = `d-${cluster}`;
      const put = { version: 1, requestId: `put-${name}`, action: 'putDrill', cluster, drill: name, peers: [{ cluster: cluster.replace('lor1', 'lva1') }], duration: 'PT30M', every: 'rate(7 days)', outcomeAlarm: `${name}-outcome` };
      expect((await writer.process(JSON.stringify(put), { messageId: `m-put-${name}` })).status).toBe('applied');
      const runBody = { version: 1, requestId: `drill-${name}-${NOW}`, action: 'failout', cluster, drill: name, peers: put.peers, duration: 'PT30M', requestedBy: 'failout-drills', stopAlarms: [`${name}-outcome`] };
      expect((await writer.process(JSON.stringify(runBody), { messageId: `m-run-${name}` })).status).toBe('applied');
    }
    clock = NOW + MINUTE;
    const dying = diesAfterOneStep();
    await expect(writerWith({ maxMultiBytes: 1500 }, dying).process(evacuate('ev-1'), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError' });
    const runOf = async (cluster: string): Promise<DrillRun | undefined> => decodeDrillNode((await session.get(`${base}/drills/d-${cluster}`)).data).runs[0];
    // The cluster the first step moved: its run ended with it; the other still runs (its cluster is not written yet).
    const states = await Promise.all(['greetings-lor1', 'hello-lor1'].map(async (c) => [(await failout(c))?.buckets[0]?.evacuation === 'lor1', (await runOf(c))?.status] as const));
    expect(states.map(([moved, status]) => (moved ? status === 'replaced' : status === 'running'))).toEqual([true, true]);

    const redelivered = await writerWith({ maxMultiBytes: 1500 }).process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(redelivered).toMatchObject({ status: 'applied' });
    for (const cluster of ['greetings-lor1', 'hello-lor1']) {
      expect((await failout(cluster))?.buckets.map((b) => b.evacuation)).toEqual(['lor1']);
      expect(await runOf(cluster)).toMatchObject({ status: 'replaced', endedBy: 'ev-1' });
    }
  });

  it('never evacuates again when a plan cut short by a crash was restored before its redelivery', async () => {
    await seed(admin, THREE());
    const dying = diesAfterOneStep();
    await expect(writerWith({ maxMultiBytes: 1500 }, dying).process(evacuate('ev-1'), { messageId: 'm-1' })).rejects.toMatchObject({ name: 'TransientRequestError' });
    const writer = writerWith({ maxMultiBytes: 1500 });
    clock = NOW + MINUTE;
    expect((await writer.process(restore('rs-1'), { messageId: 'm-2' })).status).toBe('applied');

    const redelivered = await writer.process(evacuate('ev-1'), { messageId: 'm-1' });

    expect(redelivered).toMatchObject({ status: 'applied', record: { unchanged: true } });
    for (const cluster of ['greetings-lor1', 'hello-lor1']) expect(isFailedOutAt(await failout(cluster), clock)).toBe(false);
    expect(decodeEvacuationNode((await session.get(`${base}/evacuations/lor1`)).data)).toMatchObject({ status: 'restored' });
  });
});
