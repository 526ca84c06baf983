/**
 * `failout zk check` and `failout zk secure` in-process (run(argv, io)) against the shared ZooKeeper,
 * on an open D2 tree like the one rest.li services leave (world:anyone:cdrwa everywhere, servers'
 * ephemeral announcements, a directory failout does not know).
 */
import { ZooKeeperAnnouncer } from '../../../lib/d2';
import { aclFor, aclLayout } from '../../../lib/requests/acl';
import { OPEN_ACL, type AclEntry, type ZkSession } from '../../../lib/zk';
import { CREDENTIALS, IDS, ROLE_ENV, ROLES } from '../../helpers/access';
import { runCli, type CliResult } from '../../helpers/cli';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

let root: string;
let legacy: ZkSession;
let env: Record<string, string>;

function cli(extraEnv: Record<string, string>, ...argv: string[]): Promise<CliResult> {
  return runCli({ ...env, ...extraEnv }, ...argv);
}

/** The flags that put the layout under this test's root. */
function layoutFlags(): string[] {
  return ['--d2-base', `${root}/d2`, '--requests-base', `${root}/requests`, '--election-path', `${root}/election`, '--drills-path', `${root}/drills`];
}

/** Every node under the root with its ACL, as the admin reads them. */
async function snapshot(): Promise<Map<string, AclEntry[]>> {
  const admin = await openSession({ credentials: [CREDENTIALS.admin] });
  const out = new Map<string, AclEntry[]>();
  const visit = async (path: string): Promise<void> => {
    out.set(path, (await admin.getAcl(path)).acl);
    for (const child of (await admin.children(path)).children) await visit(`${path}/${child}`);
  };
  await visit(root);
  return out;
}

const ADMIN_ENV = { ZK_ADMIN_DIGEST: `${CREDENTIALS.admin.user}:${CREDENTIALS.admin.password}`, ...ROLE_ENV };

beforeEach(async () => {
  root = uniqueBase('zkcli');
  env = { ZK_CONNECT: sharedConnectString(), FAILOUT_FABRICS_PATH: `${root}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${root}/evacuations` };
  // An open tree, as rest.li services and older failout versions leave it.
  legacy = await openSession();
  const open = { parents: true, acl: OPEN_ACL };
  await legacy.create(`${root}/d2/clusters/greetings-lor1`, Buffer.from('{"clusterName":"greetings-lor1"}'), open);
  await legacy.create(`${root}/d2/services/greetings`, Buffer.from('{"serviceName":"greetings"}'), open);
  await legacy.create(`${root}/d2/uris/greetings-lor1/ephemoral-`, Buffer.from('{}'), { ...open, mode: 'ephemeralSequential' });
  await legacy.create(`${root}/d2/serviceVariants/x`, undefined, open);
  await legacy.create(`${root}/requests/old-request`, Buffer.from('{}'), open);
});

afterEach(async () => {
  const admin = await openSession({ credentials: [CREDENTIALS.admin] });
  await admin.removeRecursive(root).catch(() => undefined);
  await closeSessions();
});

describe('failout zk check', () => {
  it('lists every node anyone may change and exits 1 on an open tree; exits 0 after zk secure', async () => {
    // Act
    const before = await cli({}, 'zk', 'check', ...layoutFlags());
    const secured = await cli(ADMIN_ENV, 'zk', 'secure', ...layoutFlags());
    const after = await cli({}, 'zk', 'check', ...layoutFlags());

    // Assess
    expect(before.code).toBe(1);
    expect(before.stdout).toContain(`open       ${root}/d2/clusters/greetings-lor1  anyone may write, create, delete, admin  (world:anyone:rwcda)`);
    expect(before.stdout).toContain(`open       ${root}/requests/old-request  anyone may`);
    expect(before.stdout).toMatch(/can be changed without credentials.*failout zk secure/);
    expect(secured).toMatchObject({ code: 0 });
    expect(after).toMatchObject({ code: 0, stdout: expect.stringContaining('none can be changed without credentials') });
    expect(after.stdout).not.toContain('open ');
  });

  it('reports with --json', async () => {
    const result = await cli({}, 'zk', 'check', '--json', ...layoutFlags());

    expect(result.code).toBe(1);
    const json = JSON.parse(result.stdout) as { passed: boolean; open: { path: string }[]; roots: string[] };
    expect(json.passed).toBe(false);
    expect(json.open.map((n) => n.path)).toContain(`${root}/d2/serviceVariants/x`);
    expect(json.roots).toEqual([`${root}/d2`, `${root}/requests`, `${root}/drills`, `${root}/view`, `${root}/fabrics`, `${root}/evacuations`, `${root}/election`]);
  });
});

describe('failout zk secure', () => {
  it('--dry-run prints what it would change and changes nothing', async () => {
    // Prepare
    const before = await snapshot();

    // Act
    const result = await cli(ADMIN_ENV, 'zk', 'secure', '--dry-run', ...layoutFlags());

    // Assess
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`would set  ${root}/d2/clusters/greetings-lor1  world:anyone:rwcda → world:anyone:r`);
    expect(result.stdout).toContain(`would create  ${root}/election`);
    expect(result.stdout).toMatch(/dry run: \d+ change\(s\) would be made, 0 node\(s\) already as the table wants; nothing was changed/);
    expect(await snapshot()).toEqual(before);
  });

  it('applies the table to every node, data untouched, and a second run changes nothing', async () => {
    // Act
    const first = await cli(ADMIN_ENV, 'zk', 'secure', ...layoutFlags());
    const second = await cli(ADMIN_ENV, 'zk', 'secure', ...layoutFlags());

    // Assess
    expect(first.code).toBe(0);
    expect(second).toMatchObject({ code: 0, stdout: expect.stringMatching(/^0 change\(s\) made, \d+ node\(s\) already as the table wants\n$/) });
    const layout = aclLayout({ d2BasePath: `${root}/d2`, requestsPath: `${root}/requests`, drillsPath: `${root}/drills`, fabricsPath: `${root}/fabrics`, evacuationsPath: `${root}/evacuations`, electionPaths: [`${root}/election`] });
    const after = await snapshot();
    for (const [path, acl] of after) expect({ path, acl }).toEqual({ path, acl: aclFor(path, ROLES, layout) });
    expect([...after.keys()]).toEqual(expect.arrayContaining([`${root}/election`, `${root}/d2/uris`, `${root}/fabrics`, `${root}/evacuations`]));
    expect((await legacy.get(`${root}/d2/clusters/greetings-lor1`)).data.toString()).toBe('{"clusterName":"greetings-lor1"}');
    await expect(legacy.set(`${root}/d2/serviceVariants/x`, Buffer.from('x'))).rejects.toMatchObject({ kind: 'noAuth' });
  });

  it('adopts a rest.li tree: an authenticated announcer still announces, an unauthenticated server no longer can', async () => {
    // Act
    await cli(ADMIN_ENV, 'zk', 'secure', '--cluster', 'greetings-lva1', ...layoutFlags());
    const server = await openSession();
    const announcer = new ZooKeeperAnnouncer({ session: server, basePath: `${root}/d2`, cluster: 'greetings-lor1', uri: 'http://10.0.0.5:80', credential: CREDENTIALS.announcer });
    const stranger = new ZooKeeperAnnouncer({ session: await openSession(), basePath: `${root}/d2`, cluster: 'greetings-lva1', uri: 'http://10.0.0.6:80' });

    // Assess
    await expect(announcer.markUp()).resolves.toMatch(/ephemoral-\d{10}$/);
    await expect(stranger.markUp()).rejects.toMatchObject({ kind: 'noAuth' });
    expect(await legacy.exists(`${root}/d2/uris/greetings-lva1`)).toBeDefined();
    await announcer.close();
    await stranger.close();
  });

  it('refuses to run without the admin credential or the bridge and writer identities (exit 2), naming no secret', async () => {
    const noAdmin = await cli(ROLE_ENV, 'zk', 'secure', ...layoutFlags());
    const noWriter = await cli({ ZK_ADMIN_DIGEST: ADMIN_ENV.ZK_ADMIN_DIGEST, ZK_ACL_BRIDGE_ID: IDS.bridge }, 'zk', 'secure', ...layoutFlags());
    const badId = await cli({ ...ADMIN_ENV, ZK_ACL_WRITER_ID: 'acl-writer:writer-secret' }, 'zk', 'secure', ...layoutFlags());

    expect(noAdmin).toMatchObject({ code: 2, stderr: expect.stringContaining('ZK_ADMIN_DIGEST') });
    expect(noWriter).toMatchObject({ code: 2, stderr: expect.stringContaining('ZK_ACL_WRITER_ID') });
    expect(badId).toMatchObject({ code: 2, stderr: expect.stringContaining('ZK_ACL_WRITER_ID') });
    expect(badId.stderr).not.toContain('writer-secret');
    expect(noAdmin.stdout + noWriter.stdout + badId.stdout).toBe('');
  });
});

describe('failout zk reindex', () => {
  it('creates a missing parent of the view with the ACL the table gives that parent, so the request writer may still create its records beside it', async () => {
    // Prepare: a fresh base, where neither the view nor its parents exist yet
    const requestsBase = `${root}/fresh/failout/requests`;
    const parent = `${root}/fresh/failout`;
    const layout = aclLayout({ d2BasePath: `${root}/d2`, requestsPath: requestsBase, fabricsPath: `${root}/fabrics`, evacuationsPath: `${root}/evacuations` });

    // Act
    const reindex = await cli(ADMIN_ENV, 'zk', 'reindex', '--d2-base', `${root}/d2`, '--requests-base', requestsBase);

    // Assess
    expect(reindex).toMatchObject({ code: 0, stdout: expect.stringMatching(/^created .*\/fresh\/failout\/view: 0 open failout/) });
    const admin = await openSession({ credentials: [CREDENTIALS.admin] });
    expect((await admin.getAcl(parent)).acl).toEqual(aclFor(parent, ROLES, layout));
    expect((await admin.getAcl(`${root}/fresh`)).acl).toEqual(aclFor(`${root}/fresh`, ROLES, layout));
    expect((await admin.getAcl(`${parent}/view`)).acl).toEqual(aclFor(`${parent}/view`, ROLES, layout));
    const writer = await openSession({ credentials: [CREDENTIALS.writer] });
    await expect(writer.create(requestsBase, undefined, { acl: aclFor(requestsBase, ROLES, layout) })).resolves.toBe(requestsBase);
  });

  it('reads FAILOUT_ALLOW_OPEN_ACL as every other component does (1 or true, any case, blanks trimmed)', async () => {
    // Act
    const open = await cli({ FAILOUT_ALLOW_OPEN_ACL: ' TRUE ' }, 'zk', 'reindex', '--d2-base', `${root}/d2`, '--requests-base', `${root}/open/requests`);

    // Assess
    expect(open).toMatchObject({ code: 0, stdout: expect.stringMatching(/^created .*\/open\/view/) });
    expect((await legacy.getAcl(`${root}/open/view`)).acl).toEqual(OPEN_ACL);
  });
});

describe('failout zk --help', () => {
  it('documents both subcommands and the variables', async () => {
    const help = await cli({}, 'zk', '--help');
    const top = await cli({}, '--help');
    const secure = await cli({}, 'zk', 'secure', '--help');

    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/check \[options\]\s+list every node/);
    expect(help.stdout).toMatch(/secure \[options\]\s+apply the ACL table/);
    expect(help.stdout).toContain('ZK_ADMIN_DIGEST');
    expect(top.stdout).toMatch(/zk\s+ZooKeeper access control/);
    expect(secure.stdout).toMatch(/--dry-run/);
    expect(secure.stdout).toMatch(/--cluster <name\.\.\.>/);
  });
});
