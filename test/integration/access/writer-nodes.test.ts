/**
 * "Nothing is created without an ACL" (ARCHITECTURE "ZooKeeper layout"), for every kind of node the
 * request writer makes beyond a failout's record: fabric maps, drills, evacuations (their node, the
 * view) and the records' prune mark, each with its parents, on a tree that starts empty but for the
 * D2 data. The writer runs under its own identity with the ACLs `resolveWriterAcl` decides; then an
 * unauthenticated session may change nothing, and every node the writer made carries the table's ACL.
 */
import { RequestWriter } from '../../../lib/requests';
import { aclFor, aclLayout, classifyPath, policyAcl } from '../../../lib/requests/acl-table';
import { resolveWriterAcl } from '../../../lib/requests/writer-access';
import { auditAcls, type ZkSession } from '../../../lib/zk';
import { sameAcl } from '../../../lib/zk/acl-policy';
import { CREDENTIALS, IDS, ROLES, treeOf } from '../../helpers/access';
import { putDrillBody } from '../../helpers/drills';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

const DAY = 86_400_000;

let base: string;
let admin: ZkSession;

beforeEach(async () => {
  base = uniqueBase('writer-acl');
  admin = await openSession({ credentials: [CREDENTIALS.admin] });
});

afterEach(async () => {
  await admin.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('the request writer creates every node with its ACL', () => {
  it('gives fabric maps, drills, evacuations, the view and the prune mark (and their parents) the table ACL, none writable without credentials', async () => {
    // Prepare: D2 data only (services greetings and hello in lor1 and lva1, two hosts each), made by the admin with the policy
    const paths = { d2BasePath: `${base}/d2`, requestsPath: `${base}/failout/requests`, drillsPath: `${base}/failout/drills`, fabricsPath: `${base}/failout/fabrics`, evacuationsPath: `${base}/failout/evacuations` };
    const layout = aclLayout(paths);
    const seedAcl = policyAcl(ROLES, layout);
    for (const service of ['greetings', 'hello']) {
      await admin.create(`${paths.d2BasePath}/services/${service}`, Buffer.from(JSON.stringify({ serviceName: service, clusterName: `${service}-lor1`, path: `/${service}` })), { parents: true, acl: seedAcl });
      for (const fabric of ['lor1', 'lva1']) {
        const cluster = `${service}-${fabric}`;
        await admin.create(`${paths.d2BasePath}/clusters/${cluster}`, Buffer.from(JSON.stringify({ clusterName: cluster })), { parents: true, acl: seedAcl });
        await admin.ensurePath(`${paths.d2BasePath}/uris/${cluster}`, seedAcl);
        for (const i of [1, 2]) await admin.create(`${paths.d2BasePath}/uris/${cluster}/h${i}`, Buffer.from(JSON.stringify({ clusterName: cluster, weights: { [`http://10.0.${i}.1:1/${cluster}`]: 1 } })), { acl: seedAcl });
      }
    }
    const session = await openSession({ credentials: [CREDENTIALS.writer] });
    const config = { ...paths, aclRoles: { bridge: [IDS.bridge], announcer: [IDS.announcer], admin: [IDS.admin] }, allowOpenAcl: false };
    const recordAcl = await resolveWriterAcl({ session, config, credential: CREDENTIALS.writer });
    let clock = Date.parse('2026-12-02T10:00:00Z');
    const writer = new RequestWriter({ session, ...paths, recordAcl, clock: () => clock, retention: { retentionMs: DAY, intervalMs: 1, maxDeletes: 10 } });
    const send = async (body: Record<string, unknown>): Promise<void> => {
      const outcome = await writer.process(JSON.stringify({ version: 1, requestedBy: 'oncall', ...body }), { messageId: `m-${String(body.requestId)}` });
      if (outcome.status !== 'applied') throw new Error(`${String(body.requestId)}: ${JSON.stringify(outcome)}`);
    };

    // Act: a fabric map, a drill, an evacuation and its restore; a day later, a sweep that leaves its prune mark
    await send({ requestId: 'fab-1', action: 'putFabric', fabric: 'legacy', clusters: [{ cluster: 'legacy-a', service: 'frontend' }] });
    await send({ ...putDrillBody('weekly', 'greetings-lva1', ['greetings-lor1']), requestId: 'drill-1' });
    await send({ requestId: 'evac-1', action: 'evacuate', fabric: 'lor1', duration: 'PT2H', reason: 'INC-1' });
    await send({ requestId: 'evac-2', action: 'restoreFabric', fabric: 'lor1' });
    clock += 2 * DAY;
    await send({ requestId: 'evac-3', action: 'evacuate', fabric: 'lor1', duration: 'PT2H', reason: 'INC-2' });
    await writer.sweepIfDue();

    // Assess: every kind of node is there
    const nodes = await treeOf(admin, `${base}/failout`);
    const kinds = new Set(nodes.map((n) => classifyPath(n, layout)));
    expect(nodes).toContain(`${paths.requestsPath}/.prune-mark`);
    expect([...kinds].sort()).toEqual(['ancestor', 'drill', 'drills', 'evacuation', 'evacuations', 'fabricMap', 'fabrics', 'record', 'requests', 'view'].sort());
    // Assess: none writable without credentials (what `failout zk check` reports) …
    const anonymous = await openSession();
    const audit = await auditAcls(anonymous, [`${base}/failout`]);
    expect(audit.open).toEqual([]);
    expect(audit.unreadable).toEqual([]);
    // … and each with the ACL of its row of the table
    const wrong: string[] = [];
    for (const node of nodes) {
      const { acl } = await admin.getAcl(node);
      if (!sameAcl(acl, aclFor(node, { ...ROLES }, layout))) wrong.push(`${node}: ${JSON.stringify(acl)}`);
    }
    expect(wrong).toEqual([]);
  }, 60_000);
});
