/**
 * Issue 23, fabric maps written through the queue: `putFabric` / `deleteFabric` through the real
 * RequestWriter on the shared ZooKeeper, with the ACL table's policy (writer identity) as recordAcl.
 */
import { decodeFabricMap, encodeFabricMap } from '../../../lib/fabrics';
import { decodeRequestRecord, RequestWriter } from '../../../lib/requests';
import { aclLayout, policyAcl } from '../../../lib/requests/acl-table';
import type { ZkSession } from '../../../lib/zk';
import { CREDENTIALS, ROLES } from '../../helpers/access';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

let base: string;
let session: ZkSession;
let writer: RequestWriter;
let writerOptions: ConstructorParameters<typeof RequestWriter>[0];

const fabrics = (): string => `${base}/fabrics`;
const put = (requestId: string, fabric: string, clusters: unknown[]): string => JSON.stringify({ version: 1, requestId, action: 'putFabric', fabric, clusters, requestedBy: 'oncall' });

beforeEach(async () => {
  base = uniqueBase('fabw');
  session = await openSession({ credentials: [CREDENTIALS.writer] });
  const layout = aclLayout({ d2BasePath: `${base}/d2`, requestsPath: `${base}/requests`, drillsPath: `${base}/drills`, fabricsPath: fabrics(), electionPaths: [`${base}/election`] });
  writerOptions = { session, d2BasePath: `${base}/d2`, requestsPath: `${base}/requests`, fabricsPath: fabrics(), recordAcl: policyAcl(ROLES, layout) };
  writer = new RequestWriter(writerOptions);
});

afterEach(async () => {
  const admin = await openSession({ credentials: [CREDENTIALS.admin] });
  await admin.removeRecursive(base).catch(() => undefined);
  await closeSessions();
});

describe('fabric maps through the request writer', () => {
  it('writes the map with the writer ACL and the record in one step, and answers a resend from the record', async () => {
    // Act
    const outcome = await writer.process(put('fab-1', 'lor1', [{ cluster: 'legacy-a', service: 'frontend', tier: 'web' }]), { messageId: 'm-1' });
    // Assess
    expect(outcome).toMatchObject({ status: 'applied', requestId: 'fab-1', cluster: null, record: { action: 'putFabric', fabric: 'lor1', clusterVersion: 0 } });
    const node = await session.get(`${fabrics()}/lor1`);
    expect(decodeFabricMap('lor1', node.data)).toEqual({ fabric: 'lor1', clusters: [{ cluster: 'legacy-a', service: 'frontend', tier: 'web' }] });
    const acl = (await session.getAcl(`${fabrics()}/lor1`)).acl;
    // The table's row: everyone reads, the request writer writes.
    expect(acl).toEqual(expect.arrayContaining([{ scheme: 'world', id: 'anyone', perms: ['read'] }, { scheme: 'digest', id: expect.stringMatching(/^acl-writer:/), perms: ['write'] }]));
    expect(decodeRequestRecord((await session.get(`${base}/requests/fab-1`)).data)).toMatchObject({ status: 'applied', fabric: 'lor1', requestedBy: 'oncall' });

    const again = await writer.process(put('fab-1', 'lor1', [{ cluster: 'other', service: 'x' }]), { messageId: 'm-2' });
    expect(again).toMatchObject({ status: 'duplicate', record: { messageId: 'm-1' } });
    expect(decodeFabricMap('lor1', (await session.get(`${fabrics()}/lor1`)).data).clusters).toEqual([{ cluster: 'legacy-a', service: 'frontend', tier: 'web' }]);
  });

  it('replaces a map at its version', async () => {
    await writer.process(put('fab-1', 'lor1', [{ cluster: 'a', service: 's' }]), { messageId: 'm-1' });
    const outcome = await writer.process(put('fab-2', 'lor1', [{ cluster: 'b', service: 's' }]), { messageId: 'm-2' });
    expect(outcome).toMatchObject({ status: 'applied', record: { clusterVersion: 1 } });
    expect(decodeFabricMap('lor1', (await session.get(`${fabrics()}/lor1`)).data).clusters).toEqual([{ cluster: 'b', service: 's' }]);
  });

  it('rejects a map naming a cluster another map names, says which fabric, and writes only the record', async () => {
    await writer.process(put('fab-1', 'lor1', [{ cluster: 'shared', service: 's' }]), { messageId: 'm-1' });
    const before = await session.read(fabrics());

    const outcome = await writer.process(put('fab-2', 'lva1', [{ cluster: 'own', service: 's' }, { cluster: 'shared', service: 's' }]), { messageId: 'm-2' });

    expect(outcome).toMatchObject({ status: 'rejected', reason: 'fabricConflict', record: { message: expect.stringMatching(/"shared" is in fabric "lor1"/) } });
    expect((await session.read(`${fabrics()}/lva1`)).exists).toBe(false);
    const after = await session.read(fabrics());
    expect(after.exists && before.exists && after.stat.version).toBe(before.exists ? before.stat.version : -1);
  });

  it("rejects (badFabric) a map its codec will not write, more than MAX_FABRIC_MAP_BYTES under a raised body limit, and writes only the record", async () => {
    // Prepare: a deployment that takes bodies of up to 1 MiB; 2,000 clusters with long names make a map over 256 KiB
    const large = new RequestWriter({ ...writerOptions, limits: { maxBodyBytes: 1024 * 1024 } });
    const clusters = Array.from({ length: 2000 }, (_, i) => ({ cluster: `c${String(i).padStart(4, '0')}-${'x'.repeat(120)}`, service: `s-${'y'.repeat(120)}` }));

    // Act
    const outcome = await large.process(put('fab-big', 'lor1', clusters), { messageId: 'm-big' });

    // Assess
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badFabric', record: { message: expect.stringMatching(/more than 262144/) } });
    expect((await session.read(`${fabrics()}/lor1`)).exists).toBe(false);
  });

  it('records a hostile body as rejected and writes no map', async () => {
    const outcome = await writer.process(put('fab-9', '..', [{ cluster: 'a\u001b[2J', service: 's' }]), { messageId: 'm-9' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badName', record: { action: 'putFabric' } });
    expect((await session.read(fabrics())).exists).toBe(false);
  });

  it('deletes a map, and a delete of a fabric without one is applied and changes nothing', async () => {
    await session.ensurePath(fabrics(), policyAcl(ROLES, aclLayout({ fabricsPath: fabrics() })));
    await writer.process(put('fab-1', 'lor1', [{ cluster: 'a', service: 's' }]), { messageId: 'm-1' });

    const deleted = await writer.process(JSON.stringify({ version: 1, requestId: 'fab-2', action: 'deleteFabric', fabric: 'lor1' }), { messageId: 'm-2' });
    const none = await writer.process(JSON.stringify({ version: 1, requestId: 'fab-3', action: 'deleteFabric', fabric: 'ltx1' }), { messageId: 'm-3' });

    expect(deleted).toMatchObject({ status: 'applied', record: { action: 'deleteFabric', fabric: 'lor1', clusterVersion: null } });
    expect((await session.read(`${fabrics()}/lor1`)).exists).toBe(false);
    expect(none).toMatchObject({ status: 'applied', record: { unchanged: true, fabric: 'ltx1' } });
    // Written by the worker's codec: the map another reader decodes is the one sent.
    expect(encodeFabricMap({ fabric: 'x', clusters: [] }).length).toBeGreaterThan(0);
  });
});
