/**
 * The one role → path → permission table (lib/requests/acl-table.ts): which node class a path belongs
 * to, the ACL each class gets for the configured identities, and the docs' copy of the table.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { D2_DIRECTORIES, URI_NODE_GRANTS } from '../../../lib/d2/data';
import { ACL_TABLE, aclFor, aclLayout, classifyPath, DEFAULT_ACL_LAYOUT, policyAcl } from '../../../lib/requests/acl-table';
import { DEFAULT_REQUESTS_PATH } from '../../../lib/requests/request-record';
import { digestId, isZkError, type AclEntry, type AclRoles, type Permission } from '../../../lib/zk';
import { openPermissions, sameAcl } from '../../../lib/zk/acl-policy';

const BRIDGE = digestId('bridge', 'b-secret');
const WRITER = digestId('writer', 'w-secret');
const ANNOUNCER = digestId('announcer', 'a-secret');
const ADMIN = digestId('admin', 'm-secret');
const ROLES: AclRoles = { bridge: [BRIDGE], requestWriter: [WRITER], announcer: [ANNOUNCER], admin: [ADMIN] };

const ALL: Permission[] = ['read', 'write', 'create', 'delete', 'admin'];
const world: AclEntry = { scheme: 'world', id: 'anyone', perms: ['read'] };
const admin: AclEntry = { scheme: 'digest', id: ADMIN, perms: ALL };
const digest = (id: string, ...perms: Permission[]): AclEntry => ({ scheme: 'digest', id, perms });

describe('classifyPath', () => {
  it.each([
    ['/failout', 'ancestor'],
    ['/failout/bridge', 'ancestor'],
    ['/d2', 'd2Base'],
    ['/d2/services', 'd2Directory'],
    ['/d2/clusters', 'd2Directory'],
    ['/d2/uris', 'd2Directory'],
    ['/d2/services/greetings', 'service'],
    ['/d2/clusters/greetings-lor1', 'cluster'],
    ['/d2/uris/greetings-lor1', 'clusterUris'],
    ['/d2/uris/greetings-lor1/ephemoral-0000000001', 'uri'],
    ['/d2/uris/greetings-lor1/xds-bridge-10.0.0.1-80', 'uri'],
    ['/d2/serviceVariants', 'd2Other'],
    ['/d2/clusters/greetings-lor1/odd', 'd2Other'],
    ['/failout/bridge/leader', 'election'],
    ['/failout/bridge/leader/0b7c-n_0000000003', 'candidate'],
    ['/failout/requests', 'requests'],
    ['/failout/requests/b6f1', 'record'],
    ['/failout/drills', 'drills'],
    ['/failout/drills/weekly', 'drill'],
    ['/failout/drills/weekly/run-1', 'drill'],
  ])('puts %s in class %s', (path, kind) => {
    expect(classifyPath(path, DEFAULT_ACL_LAYOUT)).toBe(kind);
  });

  it.each(['/', '/zookeeper', '/zookeeper/quota', '/d2x', '/failout/other', '/other/d2'])('leaves %s outside the layout', (path) => {
    expect(classifyPath(path, DEFAULT_ACL_LAYOUT)).toBeUndefined();
  });

  it('follows a configured layout, trailing slashes stripped', () => {
    const layout = aclLayout({ d2BasePath: '/t-1/d2/', requestsPath: '/t-1/requests', electionPaths: ['/t-1-election'] });

    expect(classifyPath('/t-1', layout)).toBe('ancestor');
    expect(classifyPath('/t-1/d2/clusters/c1', layout)).toBe('cluster');
    expect(classifyPath('/t-1/requests/r', layout)).toBe('record');
    expect(classifyPath('/t-1-election/x-n_0000000001', layout)).toBe('candidate');
    expect(classifyPath('/d2/clusters/c1', layout)).toBeUndefined();
  });

  it('refuses the root as the D2 base, which would put the whole ensemble in the layout', () => {
    expect(() => aclLayout({ d2BasePath: '/' })).toThrow(/root/);
  });

  it('spells the D2 directories and the records path as lib/d2 and lib/requests do', () => {
    expect(Object.values(D2_DIRECTORIES).map((d) => classifyPath(`/d2/${d}`, DEFAULT_ACL_LAYOUT))).toEqual(['d2Directory', 'd2Directory', 'd2Directory']);
    expect(DEFAULT_ACL_LAYOUT.requestsPath).toBe(DEFAULT_REQUESTS_PATH);
  });

  it("takes the URI nodes' row from lib/d2, which the announcer creates its nodes with", () => {
    expect(ACL_TABLE.uri.grants).toBe(URI_NODE_GRANTS);
  });
});

describe('aclFor', () => {
  it.each<[string, AclEntry[]]>([
    ['/failout', [digest(BRIDGE, 'create'), digest(WRITER, 'create')]],
    ['/d2', [digest(BRIDGE, 'create')]],
    ['/d2/clusters', [digest(BRIDGE, 'create', 'delete')]],
    ['/d2/services/greetings', [digest(BRIDGE, 'write')]],
    ['/d2/clusters/greetings-lor1', [digest(BRIDGE, 'write'), digest(WRITER, 'write')]],
    ['/d2/uris/greetings-lor1', [digest(ANNOUNCER, 'create', 'delete'), digest(BRIDGE, 'create', 'delete')]],
    ['/d2/uris/greetings-lor1/ephemoral-0000000001', [digest(BRIDGE, 'write')]],
    ['/d2/serviceVariants', []],
    ['/failout/bridge/leader', [digest(BRIDGE, 'create', 'delete')]],
    ['/failout/bridge/leader/x-n_0000000001', []],
    ['/failout/requests', [digest(WRITER, 'create', 'delete')]],
    ['/failout/requests/b6f1', []],
    ['/failout/drills', [digest(WRITER, 'create', 'delete')]],
    ['/failout/drills/weekly', [digest(WRITER, 'write', 'create', 'delete')]],
  ])('gives %s: world read, the admin everything, and its roles their permissions', (path, grants) => {
    expect(sameAcl(aclFor(path, ROLES), [world, admin, ...grants])).toBe(true);
  });

  it('leaves out roles without a configured identity, and never gives anyone but the admin `admin`', () => {
    const acl = aclFor('/d2/clusters/c1', { bridge: [BRIDGE] });

    expect(sameAcl(acl, [world, digest(BRIDGE, 'write')])).toBe(true);
    for (const path of ['/failout', '/d2', '/d2/uris/c', '/failout/requests', '/failout/drills/x']) {
      expect(aclFor(path, { ...ROLES, admin: [] }).filter((e) => e.perms.includes('admin'))).toEqual([]);
    }
  });

  it('merges one identity that holds two roles into one entry', () => {
    const acl = aclFor('/d2/clusters/c1', { bridge: [BRIDGE], requestWriter: [BRIDGE] });

    expect(acl).toEqual([world, digest(BRIDGE, 'write')]);
  });

  it('lets nobody without credentials change any node of the layout', () => {
    const paths = ['/failout', '/d2', '/d2/uris', '/d2/services/s', '/d2/clusters/c', '/d2/uris/c', '/d2/uris/c/h', '/failout/bridge/leader', '/failout/requests/r', '/failout/drills/d'];

    expect(paths.flatMap((p) => openPermissions(aclFor(p, ROLES)))).toEqual([]);
  });

  it('refuses a path outside the layout with a typed error', () => {
    expect(() => aclFor('/zookeeper', ROLES)).toThrow(expect.objectContaining({ name: 'ZkError', kind: 'invalidAcl' }));
    let caught: unknown;
    try {
      aclFor('/elsewhere/x', ROLES);
    } catch (err) {
      caught = err;
    }
    expect(isZkError(caught, 'invalidAcl')).toBe(true);
  });

  it('is what policyAcl gives every creator', () => {
    const acl = policyAcl(ROLES, DEFAULT_ACL_LAYOUT);

    expect(acl('/d2/clusters/c1')).toEqual(aclFor('/d2/clusters/c1', ROLES));
  });
});

describe('the deployers\' page', () => {
  const page = readFileSync(join(__dirname, '../../../docs/deployers.md'), 'utf8');

  it.each(Object.entries(ACL_TABLE))('lists the %s row of the table as the code has it', (_kind, row) => {
    const cell = (perms: readonly Permission[] | undefined): string => (perms && perms.length > 0 ? perms.map((p) => p[0]).join('') : '–');
    const line = `| ${row.pattern} | ${cell(row.grants.bridge)} | ${cell(row.grants.requestWriter)} | ${cell(row.grants.announcer)} |`;

    expect(page).toContain(line);
  });
});
