/**
 * What a restore of a cluster whose `failoutProperties` do not read (`unreadableFailout`) does to its
 * drills' runs. The drill window naming the run cannot be read; the restore removes every failout of
 * the cluster, so every run of the cluster's drills still running ends in the restore's multi:
 * `replaced` with why, or the verdict of its alarm when that alarm is the run's. Before, no op was
 * added (the run stayed `running`). Against the in-memory ZooKeeper.
 */
import type { Judgement } from '../../../lib/requests/judge-request';
import { decodeDrillNode, encodeDrillNode, type DrillDefinition, type DrillRun } from '../../../lib/requests/drill-node';
import { drillEffectsOf, type DrillWriteContext } from '../../../lib/requests/drill-writes';
import type { RestoreChangeRequest } from '../../../lib/requests/schema';
import { digestAcl, OPEN_ACL, type MultiOp } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { NOW } from '../../helpers/requests';

const DRILLS = '/failout/drills';
const running: DrillRun = { runId: 'drill-weekly-1', status: 'running', at: NOW - 60_000, endsAt: NOW + 3_600_000, outcomeAlarm: 'weekly-errors', blockingAlarms: ['deploys'] };

function definition(name: string, cluster: string): DrillDefinition {
  return { name, cluster, peers: [{ cluster: 'lva1', weight: 1 }], buckets: { from: 0, to: 99 }, durationMs: 3_600_000, every: 'rate(1 days)', outcomeAlarm: `${name}-errors`, blockingAlarms: ['deploys'], blockedDates: [], blockedWindows: [], definedAt: NOW - 86_400_000, requestId: `put-${name}` };
}

const judgement: Judgement = { verdict: 'apply', path: '/d2/clusters/lor1', version: 3, beforeText: '{"clusterName":"lor1","failoutProperties":{}}', after: { clusterName: 'lor1' } as never, afterText: '{"clusterName":"lor1"}', unreadableFailout: 'malformed cluster properties: failoutProperties.failoutRedirectConfigs[0].weight must be a positive integer' };

function restore(fields: Partial<RestoreChangeRequest> = {}): RestoreChangeRequest {
  return { version: 1, requestId: 'restore-1', action: 'restore', cluster: 'lor1', ...fields } as RestoreChangeRequest;
}

let session: InMemoryZkSession;
let context: DrillWriteContext;

beforeEach(async () => {
  session = new InMemoryZk().session();
  context = { session, d2BasePath: '/d2', drillsPath: DRILLS, acl: OPEN_ACL, now: NOW };
});

async function putDrill(name: string, cluster: string, runs: readonly DrillRun[]): Promise<void> {
  await session.create(`${DRILLS}/${name}`, encodeDrillNode({ version: 1, definition: definition(name, cluster), runs }, NOW), { acl: OPEN_ACL, parents: true });
}

/** The runs each set op writes, by path. */
function runsSet(ops: readonly MultiOp[]): Record<string, readonly DrillRun[]> {
  return Object.fromEntries(ops.map((op) => (op.op === 'set' ? [op.path, decodeDrillNode(op.data).runs] : [op.path, []])));
}

it.each([
  ["an operator's restore: replaced, saying why", restore(), { status: 'replaced', detail: expect.stringMatching(/could not be read/) }],
  ["a restore by the run's outcome alarm: failed", restore({ stoppedByAlarm: 'weekly-errors', alarmAt: NOW - 1000 }), { status: 'failed', stoppedByAlarm: 'weekly-errors', alarmAt: NOW - 1000 }],
  ["a restore by the run's blocking alarm: interrupted", restore({ stoppedByAlarm: 'deploys', alarmAt: NOW - 1000 }), { status: 'interrupted', stoppedByAlarm: 'deploys' }],
  ["a restore by an alarm that is none of the run's: replaced", restore({ stoppedByAlarm: 'other-errors', alarmAt: NOW - 1000 }), { status: 'replaced' }],
])('ends the running run of the cluster’s drill, %s', async (_case, request, ended) => {
  // Prepare
  await putDrill('weekly', 'lor1', [running]);

  // Act
  const effects = await drillEffectsOf(context, request, judgement);

  // Assess
  expect(effects.rejection).toBeUndefined();
  const runs = runsSet(effects.ops)[`${DRILLS}/weekly`];
  expect(runs?.[0]).toMatchObject({ ...ended, runId: running.runId, endedAt: NOW, endedBy: 'restore-1' });
  expect(effects.ops).toEqual([expect.objectContaining({ op: 'set', path: `${DRILLS}/weekly`, version: 0 })]);
});

it('leaves the drills of other clusters, and drills with no running run, alone; no drills at all: nothing', async () => {
  // Prepare
  const effectsWithoutDrills = await drillEffectsOf(context, restore(), judgement);
  await putDrill('other', 'ltx1', [running]);
  await putDrill('ended', 'lor1', [{ ...running, status: 'replaced', endedAt: NOW - 30_000, endedBy: 'x' }]);

  // Act
  const effects = await drillEffectsOf(context, restore(), judgement);

  // Assess
  expect(effectsWithoutDrills.ops).toEqual([]);
  expect(effects.ops).toEqual([]);
});

it('passes over a drill node the worker may not read (noAuth) as one that does not decode, ending the runs of the others', async () => {
  // Prepare: the cluster's drill, and a node whose ACL gives the worker no READ
  await putDrill('weekly', 'lor1', [running]);
  await session.create(`${DRILLS}/locked`, encodeDrillNode({ version: 1, definition: definition('locked', 'lor1'), runs: [running] }, NOW), { acl: [digestAcl('someone-else', 'not-the-worker')] });

  // Act
  const effects = await drillEffectsOf(context, restore(), judgement);

  // Assess
  expect(effects.rejection).toBeUndefined();
  expect(Object.keys(runsSet(effects.ops))).toEqual([`${DRILLS}/weekly`]);
});
