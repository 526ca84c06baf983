/**
 * Issue 23's fuzz test: generated `evacuate` and `restoreFabric` bodies (valid, near-valid and hostile)
 * through the REAL handler (createHandler over a RequestWriter) on a real ZooKeeper, in FIFO batches of
 * ten. Services `f` and `g` run in fabrics lor1, lva1, ltx1; `solo` only in lor1 (it has no target
 * unless excluded). After every batch:
 * - no crash and no item failure (each would be a permanent problem turned into a retry, blocking the
 *   fabrics' FIFO group);
 * - every rejection is recorded (at most MAX_RECORD_BYTES);
 * - no write for rejected input: the cluster versions move by exactly the clusters the applied records
 *   say they wrote;
 * - never half an evacuation: at most one is open, and every cluster of an open one carries it.
 */
import fc from 'fast-check';
import type { SQSRecord } from 'aws-lambda';
import { clusterPath, parseClusterProperties } from '../../../lib/d2/data';
import { readStoredEvacuations, isEvacuationOpen } from '../../../lib/requests/evacuation-node';
import { carriesEvacuation } from '../../../lib/requests/evacuation-plan';
import { MAX_RECORD_BYTES } from '../../../lib/requests/request-record';
import type { Outcome } from '../../../lib/requests/request-writer';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { sqsRecord } from '../../helpers/requests';
import { directHandler } from '../../helpers/requests-handler';
import { seedClusters, testPaths, type TestPaths } from '../../helpers/requests-queue';
import { closeSessions, openSession } from '../../helpers/zk';

const BATCHES = 110;
const BATCH_SIZE = 10;
const FABRICS = ['lor1', 'lva1', 'ltx1'];
const CLUSTERS = ['f-lor1', 'f-lva1', 'f-ltx1', 'g-lor1', 'g-lva1', 'g-ltx1', 'solo-lor1'];

const controlChar = fc.integer({ min: 0, max: 0x9f }).filter((c) => c < 0x20 || c >= 0x7f).map((c) => String.fromCharCode(c));
const hostileText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.array(fc.oneof(controlChar, fc.constantFrom('\u001b[2J', '\u202e', '\u2028', '\ud800', '<script>')), { maxLength: 6 }).map((p) => p.join('')),
  fc.integer({ min: 1_000, max: 20_000 }).map((n) => 'x'.repeat(n)),
);
const hostileName = fc.oneof(fc.constantFrom('..', '.', '/', 'a/b', '../lor1', '', ' ', 'lor1 ', 'x'.repeat(200), 'grüße', '__proto__', 'constructor'), hostileText);
const fabric = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...FABRICS) }, { weight: 1, arbitrary: fc.constant('xyz9') }, { weight: 1, arbitrary: hostileName });
const wrongType = fc.jsonValue({ maxDepth: 3 });

const target = fc.record({ fabric, weight: fc.option(fc.oneof({ weight: 6, arbitrary: fc.integer({ min: 1, max: 100 }) }, { weight: 1, arbitrary: fc.constantFrom(0, 101, -1, 1.5) }), { nil: undefined }) });
const stage = fc.oneof(
  fc.record({ tier: fc.constantFrom('frontend', 'storage', 'nope') }),
  fc.record({ clusters: fc.shuffledSubarray(CLUSTERS, { minLength: 1, maxLength: 3 }), gateAlarms: fc.option(fc.constantFrom(['gate-1'], ['gate-1', 'gate-2']), { nil: undefined }) }),
);
const evacuate = fc.record(
  {
    version: fc.constant(1),
    requestId: fc.uuid(),
    action: fc.constant('evacuate'),
    fabric,
    targets: fc.option(fc.array(target, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    duration: fc.constantFrom('PT1H', 'PT30M', 'PT2H', '90m'),
    stages: fc.option(fc.array(stage, { minLength: 1, maxLength: 3 }), { nil: undefined }),
    hold: fc.option(fc.constantFrom('PT1M', '0s', '5m'), { nil: undefined }),
    restoreGap: fc.option(fc.constantFrom('PT10S', '0s'), { nil: undefined }),
    ramp: fc.option(fc.constantFrom([{ percent: 50, duration: 'PT1M' }, { percent: 100 }], [{ percent: 100 }]), { nil: undefined }),
    stopAlarms: fc.option(fc.constantFrom(['evac-errors'], ['a', 'b']), { nil: undefined }),
    exclude: fc.oneof({ weight: 3, arbitrary: fc.constant(['solo']) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom(['f'], ['nosuch']) }),
    requestedBy: fc.option(fc.constantFrom('oncall@example.com', 'José'), { nil: undefined }),
    reason: fc.option(fc.constantFrom('INC-1', 'Störung 🔥'), { nil: undefined }),
    force: fc.option(fc.boolean(), { nil: undefined }),
  },
  { requiredKeys: ['version', 'requestId', 'action', 'fabric', 'duration'] },
);
const restore = fc.record(
  { version: fc.constant(1), requestId: fc.uuid(), action: fc.constant('restoreFabric'), fabric, stoppedByAlarm: fc.option(fc.constantFrom('evac-errors', 'gate-1', 'other'), { nil: undefined }) },
  { requiredKeys: ['version', 'requestId', 'action', 'fabric'] },
);
const nearValid = fc
  .tuple(
    fc.oneof(evacuate, restore),
    fc.constantFrom('version', 'requestId', 'action', 'fabric', 'targets', 'offlineAt', 'onlineAt', 'duration', 'stages', 'hold', 'restoreGap', 'ramp', 'stopAlarms', 'exclude', 'force', 'cluster', 'extra'),
    fc.oneof(hostileText, hostileName, wrongType, fc.constant(undefined), fc.constantFrom(-1, 1e300, '9999-12-31T23:59:59.999Z', '1969-12-31T23:00:00Z')),
  )
  .map(([b, key, value]) => JSON.stringify({ ...b, [key]: value }));
const hostileBody = fc.oneof(
  fc.string({ maxLength: 200 }),
  wrongType.map((v) => JSON.stringify(v) ?? 'null'),
  fc.integer({ min: 100, max: 20_000 }).map((n) => JSON.stringify({ version: 1, requestId: `t-${n}`, action: 'evacuate', fabric: 'lor1', duration: 'PT1H', targets: Array(n).fill({ fabric: 'lva1' }) })),
  fc.integer({ min: 10, max: 20_000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
);

type Kind = 'valid' | 'nearValid' | 'hostile';
const body: fc.Arbitrary<{ kind: Kind; text: string }> = fc.oneof(
  { weight: 5, arbitrary: fc.oneof({ weight: 3, arbitrary: evacuate }, { weight: 2, arbitrary: restore }).map((b) => ({ kind: 'valid' as const, text: JSON.stringify(b) })) },
  { weight: 3, arbitrary: nearValid.map((text) => ({ kind: 'nearValid' as const, text })) },
  { weight: 2, arbitrary: hostileBody.map((text) => ({ kind: 'hostile' as const, text })) },
);

let session: ZkSession;
let paths: TestPaths;
let evacuationsPath: string;

beforeAll(async () => {
  session = await openSession({ sessionTimeoutMs: 20_000 });
  paths = testPaths();
  evacuationsPath = `${paths.d2Base.replace(/\/d2$/, '')}/evacuations`;
  for (const service of ['f', 'g', 'solo']) {
    await session.create(`${paths.d2Base}/services/${service}`, Buffer.from(JSON.stringify({ serviceName: service, path: `/${service}` })), { parents: true, acl: OPEN_ACL });
  }
  await seedClusters(session, paths, CLUSTERS);
});
afterAll(async () => {
  await session.removeRecursive(paths.d2Base.replace(/\/d2$/, '')).catch(() => undefined);
  await closeSessions();
});

async function versions(): Promise<Map<string, number>> {
  return new Map(await Promise.all(CLUSTERS.map(async (c) => [c, (await session.get(clusterPath(paths.d2Base, c))).stat.version] as const)));
}

it(`keeps every invariant for ${BATCHES * BATCH_SIZE} generated evacuation bodies`, async () => {
  const figures = { bodies: 0, byKind: { valid: 0, nearValid: 0, hostile: 0 } as Record<Kind, number>, byStatus: {} as Record<string, number>, byReason: {} as Record<string, number>, evacuated: 0, restored: 0, largestRecordBytes: 0 };
  const root = paths.d2Base.replace(/\/d2$/, '');
  const h = directHandler(session, paths, { fabricsPath: `${root}/fabrics`, evacuationsPath: `${root}/evacuations`, drillsPath: `${root}/drills`, retention: false });

  await fc.assert(
    fc.asyncProperty(fc.array(body, { minLength: BATCH_SIZE, maxLength: BATCH_SIZE }), async (batch) => {
      const records: SQSRecord[] = batch.map((b) => sqsRecord(b.text, 'failout/fabrics'));
      const before = await versions();
      const seen = h.outcomes.length;
      const response = await h.invoke(records);
      const outcomes: Outcome[] = h.outcomes.slice(seen);
      const after = await versions();
      figures.bodies += batch.length;
      for (const b of batch) figures.byKind[b.kind]++;
      expect(response.batchItemFailures).toEqual([]);
      expect(outcomes).toHaveLength(records.length);

      let written = 0;
      for (const o of outcomes) {
        figures.byStatus[o.status] = (figures.byStatus[o.status] ?? 0) + 1;
        if (o.status === 'applied' && o.record.unchanged !== true && o.record.evacuation !== undefined) {
          written += o.record.evacuation.clusters;
          if (o.record.action === 'evacuate') figures.evacuated++;
          else figures.restored++;
        }
        if (o.status !== 'rejected') continue;
        figures.byReason[o.reason ?? '?'] = (figures.byReason[o.reason ?? '?'] ?? 0) + 1;
        expect(o.reason).not.toBe('unjudgeable');
        const node = await session.read(`${paths.requestsPath}/${o.requestId}`);
        expect(node.exists && JSON.parse(node.data.toString('utf8')).status).toBe('rejected');
        if (node.exists) figures.largestRecordBytes = Math.max(figures.largestRecordBytes, node.data.length);
      }
      const moved = CLUSTERS.reduce((sum, c) => sum + after.get(c)! - before.get(c)!, 0);
      expect({ moved }).toEqual({ moved: written });

      const now = Date.now();
      const open = (await readStoredEvacuations(session, evacuationsPath)).filter((e) => e.node !== undefined && isEvacuationOpen(e.node, now));
      expect(open.length).toBeLessThanOrEqual(1);
      for (const e of open) {
        for (const c of e.node!.plan.clusters) {
          const props = parseClusterProperties((await session.get(clusterPath(paths.d2Base, c.cluster))).data).failoutProperties;
          expect({ cluster: c.cluster, carries: carriesEvacuation(props, e.fabric, e.node!.requestId, now) }).toEqual({ cluster: c.cluster, carries: true });
        }
      }
      expect(figures.largestRecordBytes).toBeLessThanOrEqual(MAX_RECORD_BYTES);
    }),
    { numRuns: BATCHES, seed: Number(process.env.FUZZ_SEED ?? 20261202), endOnFailure: true },
  );

  console.info(`issue 23 evacuate fuzz: ${JSON.stringify(figures)}`);
  expect(figures.bodies).toBeGreaterThanOrEqual(1000);
  expect(Math.min(...Object.values(figures.byKind))).toBeGreaterThan(100);
  // Both ends of the funnel were reached: evacuations applied and restored, and refusals.
  expect(figures.evacuated).toBeGreaterThan(5);
  expect(figures.restored).toBeGreaterThan(5);
  expect(figures.byStatus.rejected).toBeGreaterThan(200);
}, 240_000);
