/**
 * The mechanism of access control (lib/zk/acl-policy.ts): grants made into an ACL, what an
 * unauthenticated client may do under an ACL, and the identities. The table of which role may change
 * which path is lib/requests' (test/unit/requests/acl-table.test.ts).
 */
import { aclFromGrants, aclRolesFromEnv, digestId, withOwnIdentity, type AclEntry, type AclRoles, type Permission } from '../../../lib/zk';
import { openPermissions } from '../../../lib/zk/acl-policy';

const BRIDGE = digestId('bridge', 'b-secret');
const WRITER = digestId('writer', 'w-secret');
const ANNOUNCER = digestId('announcer', 'a-secret');
const ADMIN = digestId('admin', 'm-secret');
const ROLES: AclRoles = { bridge: [BRIDGE], requestWriter: [WRITER], announcer: [ANNOUNCER], admin: [ADMIN] };

const ALL: Permission[] = ['read', 'write', 'create', 'delete', 'admin'];
const world: AclEntry = { scheme: 'world', id: 'anyone', perms: ['read'] };
const admin: AclEntry = { scheme: 'digest', id: ADMIN, perms: ALL };
const digest = (id: string, ...perms: Permission[]): AclEntry => ({ scheme: 'digest', id, perms });

describe('aclFromGrants', () => {
  it('gives world read, each role with an identity its grants, and the admin everything', () => {
    const acl = aclFromGrants({ bridge: ['write'], announcer: ['create', 'delete'] }, ROLES);

    expect(acl).toEqual([world, ...[digest(ADMIN, ...ALL), digest(ANNOUNCER, 'create', 'delete'), digest(BRIDGE, 'write')].sort((a, b) => a.id.localeCompare(b.id))]);
  });

  it('leaves out roles without a configured identity, and never gives anyone but the admin `admin`', () => {
    expect(aclFromGrants({ bridge: ['write'], requestWriter: ['write'] }, { bridge: [BRIDGE] })).toEqual([world, digest(BRIDGE, 'write')]);
    expect(aclFromGrants({ bridge: ALL.filter((p) => p !== 'admin') }, { ...ROLES, admin: [] }).filter((e) => e.perms.includes('admin'))).toEqual([]);
  });

  it('merges one identity that holds two roles into one entry', () => {
    expect(aclFromGrants({ bridge: ['write'], requestWriter: ['create'] }, { bridge: [BRIDGE], requestWriter: [BRIDGE] })).toEqual([world, digest(BRIDGE, 'write', 'create')]);
  });

  it('gives a row without grants world read and the admin only', () => {
    expect(aclFromGrants({}, ROLES)).toEqual([world, admin]);
  });
});

describe('openPermissions', () => {
  it.each<[string, AclEntry[], Permission[]]>([
    ['world:anyone:cdrwa', [{ scheme: 'world', id: 'anyone', perms: ALL }], ['write', 'create', 'delete', 'admin']],
    ['world:anyone:r', [world], []],
    ['an ip entry (no credentials needed)', [{ scheme: 'ip', id: '10.0.0.0/8', perms: ['read', 'write'] }], ['write']],
    ['a digest entry', [digest(BRIDGE, 'write', 'create')], []],
    ['world read plus a digest writer', [world, digest(WRITER, ...ALL)], []],
  ])('%s gives an unauthenticated client %j', (_name, acl, perms) => {
    expect(openPermissions(acl)).toEqual(perms);
  });
});

describe('identities from the environment', () => {
  it('reads each role from its variable, comma-separated', () => {
    const result = aclRolesFromEnv({ ZK_ACL_BRIDGE_ID: BRIDGE, ZK_ACL_WRITER_ID: `${WRITER}, ${ADMIN}`, ZK_ACL_ADMIN_ID: '' });

    expect(result).toEqual({ ok: true, roles: { bridge: [BRIDGE], requestWriter: [WRITER, ADMIN] } });
  });

  it('refuses what is not a digest id without echoing it (a password pasted by mistake stays out of logs)', () => {
    const result = aclRolesFromEnv({ ZK_ACL_ANNOUNCER_ID: 'announcer:hunter2' });

    expect(result).toMatchObject({ ok: false, variable: 'ZK_ACL_ANNOUNCER_ID' });
    expect(JSON.stringify(result)).not.toContain('hunter2');
  });

  it('adds a component its own identity, derived from its credential', () => {
    const roles = withOwnIdentity({ requestWriter: [WRITER] }, 'bridge', [{ user: 'bridge', password: 'b-secret' }]);

    expect(roles).toEqual({ requestWriter: [WRITER], bridge: [BRIDGE] });
  });
});
