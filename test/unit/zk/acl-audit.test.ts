/**
 * auditAcls and applyAclPolicy (lib/zk/acl-audit.ts; applied through lib/requests' `secureAcls`, which
 * gives it the access table) against the in-memory ZooKeeper, whose ACL checks
 * are ZooKeeper's: which nodes they walk, what counts as open, what an audit cannot vouch for, and
 * what secure does where it may not change an ACL. The CLI over a real server is in
 * test/integration/cli/cli.zk.test.ts.
 */
import { aclFor, aclLayout, secureAcls } from '../../../lib/requests/acl';
import { auditAcls, describeAudit, OPEN_ACL, worldAcl, type AclEntry } from '../../../lib/zk';
import { CREDENTIALS, IDS, ROLES } from '../../helpers/access';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const LAYOUT = aclLayout({ d2BasePath: '/t/d2', requestsPath: '/t/requests', drillsPath: '/t/drills', fabricsPath: '/t/fabrics', evacuationsPath: '/t/evacuations', electionPaths: ['/t/election'] });
const ROOTS = ['/t/d2', '/t/requests', '/t/drills', '/t/fabrics', '/t/evacuations', '/t/election'];

let zk: InMemoryZk;
let legacy: InMemoryZkSession;
let admin: InMemoryZkSession;

beforeEach(async () => {
  zk = new InMemoryZk({ clock: () => 1_000 });
  // An unconstrained writer: the open tree to audit and secure.
  legacy = zk.session();
  admin = zk.session({ credentials: [CREDENTIALS.admin] });
  await legacy.create('/t/d2/clusters/c1', Buffer.from('{}'), { parents: true, acl: OPEN_ACL });
  await legacy.create('/t/elsewhere/x', undefined, { parents: true, acl: OPEN_ACL });
});

describe('auditAcls', () => {
  it('walks the roots and their ancestors (not the ancestors\u2019 other children), listing what anyone may change', async () => {
    const audit = await auditAcls(legacy, ROOTS);

    expect(audit.open.map((n) => n.path)).toEqual(['/t', '/t/d2', '/t/d2/clusters', '/t/d2/clusters/c1']);
    expect(audit.checked).toBe(4);
    expect(audit.open[0]).toEqual({ path: '/t', perms: ['write', 'create', 'delete', 'admin'], acl: [...OPEN_ACL] });
  });

  it('counts an ip entry as open, and reports what it cannot read instead of vouching for it', async () => {
    const ipOnly: AclEntry[] = [worldAcl(['read']), { scheme: 'ip', id: '10.0.0.0/8', perms: ['write'] }];
    const sealed: AclEntry[] = [{ scheme: 'digest', id: IDS.admin, perms: ['read', 'admin'] }];
    await admin.setAcl('/t/d2/clusters/c1', ipOnly);
    await admin.setAcl('/t/d2/clusters', sealed);

    const audit = await auditAcls(legacy, ['/t/d2']);

    expect(audit.unreadable).toEqual([{ path: '/t/d2/clusters', kind: 'noAuth' }]);
    expect(describeAudit(audit)).toEqual(['/t: anyone may write, create, delete, admin', '/t/d2: anyone may write, create, delete, admin', '/t/d2/clusters: cannot read its ACL or children (noAuth)']);
    expect((await auditAcls(admin, ['/t/d2'])).open.map((n) => [n.path, n.perms])).toContainEqual(['/t/d2/clusters/c1', ['write']]);
  });

  it('finds nothing in a missing tree', async () => {
    expect(await auditAcls(legacy, ['/nothing/here'])).toEqual({ checked: 0, open: [], unreadable: [] });
  });
});

describe('secureAcls', () => {
  it('creates the layout\u2019s missing parents and sets every node to the policy, leaving other trees alone', async () => {
    const report = await secureAcls(admin, { roles: ROLES, layout: LAYOUT });

    expect(report.failures).toEqual([]);
    expect(report.changes.filter((c) => c.action === 'create').map((c) => c.path)).toEqual(['/t/requests', '/t/drills', '/t/view', '/t/fabrics', '/t/evacuations', '/t/election', '/t/d2/services', '/t/d2/uris']);
    for (const path of ['/t', '/t/d2', '/t/d2/clusters', '/t/d2/clusters/c1', '/t/requests', '/t/fabrics', '/t/evacuations', '/t/election']) {
      expect({ path, acl: (await admin.getAcl(path)).acl }).toEqual({ path, acl: aclFor(path, ROLES, LAYOUT) });
    }
    expect((await admin.getAcl('/t/elsewhere/x')).acl).toEqual(OPEN_ACL);
    expect(await auditAcls(legacy, ROOTS)).toMatchObject({ open: [], unreadable: [] });
    expect(await secureAcls(admin, { roles: ROLES, layout: LAYOUT })).toMatchObject({ changes: [], failures: [] });
  });

  it('in a dry run reports the same changes and makes none', async () => {
    const before = zk.tree.lastZxid;

    const dry = await secureAcls(admin, { roles: ROLES, layout: LAYOUT, dryRun: true });

    expect(zk.tree.lastZxid).toBe(before);
    expect(dry.changes.map((c) => `${c.action} ${c.path}`)).toEqual((await secureAcls(admin, { roles: ROLES, layout: LAYOUT })).changes.map((c) => `${c.action} ${c.path}`));
  });

  it('reports a node the admin may not change and goes on with the rest', async () => {
    const owner = zk.session({ credentials: [CREDENTIALS.bridge] });
    await owner.setAcl('/t/d2/clusters/c1', [worldAcl(['read']), { scheme: 'digest', id: IDS.bridge, perms: ['read', 'write', 'admin'] }]);

    const report = await secureAcls(admin, { roles: ROLES, layout: LAYOUT });

    expect(report.failures.map((f) => [f.path, f.error.kind])).toEqual([['/t/d2/clusters/c1', 'noAuth']]);
    expect((await admin.getAcl('/t/d2/clusters')).acl).toEqual(aclFor('/t/d2/clusters', ROLES, LAYOUT));
  });

  it('creates the extra cluster directories it is asked for, with the announcers\u2019 ACL', async () => {
    await secureAcls(admin, { roles: ROLES, layout: LAYOUT, ensure: ['/t/d2/uris/c9'] });

    expect((await admin.getAcl('/t/d2/uris/c9')).acl).toEqual(aclFor('/t/d2/uris/c9', ROLES, LAYOUT));
    expect((await admin.getAcl('/t/d2/uris/c9')).acl.find((e) => e.id === IDS.announcer)?.perms).toEqual(['create', 'delete']);
  });
});
