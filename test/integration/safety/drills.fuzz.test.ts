/**
 * Issue 16, bad input for the drill actions and fields: generated `putDrill`, `deleteDrill`,
 * `skipDrill` and drill `failout` bodies (valid, near-valid with one field replaced by a hostile or
 * wrongly typed value) through the REAL handler on a real ZooKeeper, in FIFO batches of ten. For every
 * batch: no crash, no item failure (a failure would block the cluster's FIFO group), every record has
 * an outcome; and every drill node still decodes.
 */
import fc from 'fast-check';
import { decodeDrillNode } from '../../../lib/requests/drills';
import type { ZkSession } from '../../../lib/zk';
import { drillPaths, type DrillPaths } from '../../helpers/drills';
import { sqsRecord } from '../../helpers/requests';
import { directHandler, type DirectHandler } from '../../helpers/requests-handler';
import { seedClusters } from '../../helpers/requests-queue';
import { closeSessions, openSession } from '../../helpers/zk';

const BATCHES = 30;
const CLUSTERS = ['dz-a', 'dz-b'];

const hostile = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom('', 'a/b', '..', 'x'.repeat(300), '\u001b[2J', 'cron(0 14 * * TUE *)', 'cron(0 14 ? * TUE)', 'rate(0 days)', 'Mon:9-Mon:10', '2026-02-30', 'PT0S', 'P1M', -1, 1e300),
);
const drill = fc.constantFrom('dz-weekly', 'dz-daily', 'dz-ghost');
const cluster = fc.constantFrom(...CLUSTERS, 'dz-none');

const putDrill = fc.record({
  version: fc.constant(1),
  requestId: fc.uuid(),
  action: fc.constant('putDrill'),
  cluster,
  drill,
  peers: fc.constantFrom([{ cluster: 'dz-b' }], [{ cluster: 'dz-a', weight: 2 }], [{ cluster: 'dz-a' }, { cluster: 'dz-b' }], [{ cluster: 'dz-b' }, { cluster: 'dz-b' }]),
  duration: fc.constantFrom('PT30M', 'PT1H', '10m'),
  every: fc.constantFrom('cron(0 14 ? * TUE *)', 'rate(7 days)', 'cron(*/5 * * * ? *)'),
  outcomeAlarm: fc.constantFrom('dz-errors', 'dz-latency'),
  blockingAlarms: fc.option(fc.constantFrom(['deploys'], ['a', 'b', 'c', 'd', 'e'], ['dz-errors']), { nil: undefined }),
  blockedDates: fc.option(fc.constantFrom(['2026-12-24'], ['2026-13-01']), { nil: undefined }),
  blockedWindows: fc.option(fc.constantFrom(['Mon:09:00-Mon:10:00'], ['Sat:20:00-Mon:06:00'], ['Mon:09:00-Mon:09:00']), { nil: undefined }),
});
const deleteDrill = fc.record({ version: fc.constant(1), requestId: fc.uuid(), action: fc.constant('deleteDrill'), cluster, drill });
const skipDrill = fc.record({
  version: fc.constant(1),
  requestId: fc.uuid(),
  action: fc.constant('skipDrill'),
  cluster,
  drill,
  skipReason: fc.constantFrom('blockingAlarm', 'blockedDate', 'operatorFailoutActive'),
  detail: fc.option(fc.constantFrom('alarm deploys is in ALARM', 'x'.repeat(600)), { nil: undefined }),
  scheduledAt: fc.option(fc.integer({ min: 0, max: 2 ** 42 }), { nil: undefined }),
});
const drillFailout = fc.record({
  version: fc.constant(1),
  requestId: fc.uuid(),
  action: fc.constant('failout'),
  cluster,
  peers: fc.constant([{ cluster: 'dz-b' }]),
  duration: fc.constantFrom('PT10M', 'PT1H'),
  drill,
  stopAlarms: fc.constant(['dz-errors']),
});
const restore = fc.record({ version: fc.constant(1), requestId: fc.uuid(), action: fc.constant('restore'), cluster, stoppedByAlarm: fc.option(fc.constant('dz-errors'), { nil: undefined }) });

/** A body with one of its fields (not the id) replaced by a hostile value, or removed. */
function mutated(body: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const keys = Object.keys(body).filter((k) => k !== 'requestId');
  return fc.tuple(fc.constantFrom(...keys), fc.option(hostile, { nil: undefined })).map(([key, value]) => ({ ...body, [key]: value }));
}

const body = fc.oneof(putDrill, deleteDrill, skipDrill, drillFailout, restore).chain((b) => fc.oneof({ weight: 2, arbitrary: fc.constant(b as Record<string, unknown>) }, { weight: 3, arbitrary: mutated(b) }));

let session: ZkSession;
let paths: DrillPaths;
let handler: DirectHandler;

beforeAll(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, CLUSTERS);
  handler = directHandler(session, paths, { drillsPath: paths.drillsPath, retention: false });
});
afterAll(async () => {
  await closeSessions();
});

it('records every generated drill request, never fails a batch item, and leaves every drill node readable', async () => {
  // Two drills to begin with, so deletes, skips and runs meet real nodes as well as missing ones.
  const seed = [
    { version: 1, requestId: 'seed-1', action: 'putDrill', cluster: 'dz-a', drill: 'dz-weekly', peers: [{ cluster: 'dz-b' }], duration: 'PT30M', every: 'rate(7 days)', outcomeAlarm: 'dz-errors' },
    { version: 1, requestId: 'seed-2', action: 'putDrill', cluster: 'dz-b', drill: 'dz-daily', peers: [{ cluster: 'dz-a' }], duration: 'PT30M', every: 'cron(0 14 ? * * *)', outcomeAlarm: 'dz-errors' },
  ];
  expect((await handler.invoke(seed.map((b) => sqsRecord(b, b.cluster)))).batchItemFailures).toEqual([]);
  expect(handler.outcomes.map((o) => o.status)).toEqual(['applied', 'applied']);
  handler.outcomes.length = 0;
  const batches = fc.sample(fc.array(body, { minLength: 10, maxLength: 10 }), { numRuns: BATCHES, seed: 16 });
  let records = 0;
  for (const batch of batches) {
    const response = await handler.invoke(batch.map((b) => sqsRecord(b, typeof b.cluster === 'string' ? b.cluster : 'unknown')));
    expect(response.batchItemFailures).toEqual([]);
    records += batch.length;
  }
  expect(handler.outcomes).toHaveLength(records);
  const statuses = new Set(handler.outcomes.map((o) => o.status));
  expect(statuses.has('rejected') && statuses.has('applied')).toBe(true);
  const names = await session.children(paths.drillsPath).then((c) => c.children, () => [] as readonly string[]);
  const byReason: Record<string, number> = {};
  for (const o of handler.outcomes) byReason[o.reason ?? o.status] = (byReason[o.reason ?? o.status] ?? 0) + 1;
  console.info(`issue 16 drill fuzz: ${JSON.stringify({ bodies: records, drills: names.length, byReason })}`);
  expect(names.length).toBeGreaterThan(0);
  for (const name of names) {
    const node = await session.get(`${paths.drillsPath}/${name}`);
    expect(decodeDrillNode(node.data).definition.name).toBe(name);
  }
});
