import { digestAcl, isZkError, OPEN_ACL, readableByAllWritableBy, worldAcl, type ZkSession } from '../../../lib/zk';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

// lib/zk has no default ACL: this test plays an unconstrained writer and passes the open ACL explicitly
// (access control itself is tested in test/integration/access/ and test/unit/zk/acl-*.test.ts).

describe('session operations', () => {
  let session: ZkSession;
  let base: string;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('ops');
    await session.ensurePath(base, OPEN_ACL);
  });

  afterEach(async () => {
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('compare-and-set fails with badVersion when the node changed since the read', async () => {
    // Prepare
    const path = `${base}/cas`;
    await session.create(path, Buffer.from('v0'), { acl: OPEN_ACL });
    const { stat } = await session.get(path);
    await session.set(path, Buffer.from('other writer'), stat.version);

    // Act
    const stale = session.set(path, Buffer.from('mine'), stat.version);

    // Assess
    await expect(stale).rejects.toMatchObject({ name: 'ZkError', kind: 'badVersion', path });
    expect((await session.get(path)).data.toString()).toBe('other writer');
  });

  it('creates missing parents and reports nodeExists and noNode by kind', async () => {
    // Act
    await session.create(`${base}/a/b/c`, Buffer.from('deep'), { parents: true, acl: OPEN_ACL });

    // Assess
    expect((await session.get(`${base}/a/b/c`)).data.toString()).toBe('deep');
    await expect(session.create(`${base}/a/b/c`, undefined, { acl: OPEN_ACL })).rejects.toMatchObject({ kind: 'nodeExists' });
    await expect(session.get(`${base}/missing`)).rejects.toMatchObject({ kind: 'noNode' });
    expect(await session.read(`${base}/missing`)).toEqual({ exists: false });
  });

  it('removes a tree deeper than two levels', async () => {
    // Prepare
    for (const leaf of ['x/y/z/1', 'x/y/z/2', 'x/y/w', 'x/q']) await session.create(`${base}/${leaf}`, undefined, { parents: true, acl: OPEN_ACL });

    // Act
    await session.removeRecursive(`${base}/x`);

    // Assess
    expect(await session.exists(`${base}/x`)).toBeUndefined();
  });

  it('applies a multi atomically and names the failing operation', async () => {
    // Prepare
    const node = `${base}/m`;
    await session.create(node, Buffer.from('1'), { acl: OPEN_ACL });
    const { stat } = await session.get(node);

    // Act: a good multi, then one whose version check is stale.
    await session.multi([
      { op: 'check', path: node, version: stat.version },
      { op: 'set', path: node, data: Buffer.from('2'), version: stat.version },
      { op: 'create', path: `${base}/record-1`, data: Buffer.from('r1'), acl: OPEN_ACL },
    ]);
    const failed = session.multi([
      { op: 'check', path: node, version: stat.version },
      { op: 'set', path: node, data: Buffer.from('3'), version: -1 },
      { op: 'create', path: `${base}/record-2`, acl: OPEN_ACL },
    ]);

    // Assess
    await expect(failed).rejects.toMatchObject({ kind: 'badVersion', opIndex: 0 });
    expect((await session.get(node)).data.toString()).toBe('2');
    expect(await session.exists(`${base}/record-1`)).toBeDefined();
    expect(await session.exists(`${base}/record-2`)).toBeUndefined();
  });

  it('denies writes to a digest-protected node to a client without the credential', async () => {
    // Prepare
    const writer = { user: 'writer', password: 's3cret' };
    const owner = await openSession({ credentials: [writer] });
    const path = `${base}/protected`;
    await owner.create(path, Buffer.from('v1'), { acl: readableByAllWritableBy([writer]) });
    const stranger = await openSession();

    // Act
    const write = stranger.set(path, Buffer.from('evil'));

    // Assess
    await expect(write).rejects.toMatchObject({ kind: 'noAuth' });
    expect((await stranger.get(path)).data.toString()).toBe('v1');
    await owner.set(path, Buffer.from('v2'));
    expect((await stranger.get(path)).data.toString()).toBe('v2');
    await owner.remove(path);
  });

  it('builds digest ACL entries as ZooKeeper expects', () => {
    expect(digestAcl('super', 'test')).toEqual({
      perms: ['read', 'write', 'create', 'delete', 'admin'],
      scheme: 'digest',
      id: 'super:D/InIHSb7yEEbrWz8b9l71RjZJU=',
    });
    expect(worldAcl()).toEqual({ perms: ['read'], scheme: 'world', id: 'anyone' });
    expect(isZkError(new Error('x'))).toBe(false);
  });
});
