/**
 * resolveWriterAcl (lib/requests/writer-access.ts) against the in-memory ZooKeeper: the ACLs the
 * request writer gives what it creates, and when it refuses to start. The same on a real server, with
 * the bridge, is in test/integration/access/refuse-open-tree.test.ts.
 */
import { type RequestLogger } from '../../../lib/requests';
import { aclFor } from '../../../lib/requests/acl';
import { resolveWriterAcl } from '../../../lib/requests/writer-access';
import { OPEN_ACL, resolveAcl, type AclRoles } from '../../../lib/zk';
import { CREDENTIALS, IDS } from '../../helpers/access';
import { InMemoryZk } from '../../helpers/in-memory-zk';

const CONFIG = { d2BasePath: '/d2', requestsPath: '/failout/requests', aclRoles: { bridge: [IDS.bridge], admin: [IDS.admin] } as AclRoles, allowOpenAcl: false };

function recordingLogger(): RequestLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, debug: () => undefined, info: () => undefined, warn: (message) => void warnings.push(message), error: () => undefined };
}

describe('resolveWriterAcl', () => {
  it('gives what the writer creates the policy ACL, with the writer identified by its own credential', async () => {
    const zk = new InMemoryZk();

    const acl = await resolveWriterAcl({ session: zk.session({ credentials: [CREDENTIALS.writer] }), config: CONFIG, credential: CREDENTIALS.writer });

    const roles = { ...CONFIG.aclRoles, requestWriter: [IDS.writer] };
    for (const path of ['/failout', '/failout/requests', '/failout/requests/r1']) expect(resolveAcl(acl, path)).toEqual(aclFor(path, roles));
  });

  it('refuses a tree it writes into that anyone may change, naming the nodes; allowOpenAcl only warns', async () => {
    const zk = new InMemoryZk();
    await zk.session().create('/d2/clusters/c1', Buffer.from('{}'), { parents: true, acl: OPEN_ACL });
    const session = zk.session({ credentials: [CREDENTIALS.writer] });
    const log = recordingLogger();

    await expect(resolveWriterAcl({ session, config: CONFIG, credential: CREDENTIALS.writer })).rejects.toMatchObject({
      name: 'RequestError',
      kind: 'access',
      message: expect.stringContaining('/d2/clusters/c1: anyone may write, create, delete, admin'),
    });
    await expect(resolveWriterAcl({ session, config: { ...CONFIG, allowOpenAcl: true }, credential: CREDENTIALS.writer, logger: log })).resolves.toBeDefined();
    expect(log.warnings).toEqual([expect.stringContaining('FAILOUT_ALLOW_OPEN_ACL')]);
  });

  it.each([
    ['a drill node (the drill runner fails out what it names)', '/failout/drills/nightly'],
    ['the view of open failouts (every judgement reads it)', '/failout/view'],
    ['a fabric map', '/failout/fabrics/lor1'],
    ['an evacuation node', '/failout/evacuations/lor1'],
  ])('refuses when %s, which it also writes into, may be changed by anyone', async (_, path) => {
    const zk = new InMemoryZk();
    await zk.session().create(path, Buffer.from('{}'), { parents: true, acl: OPEN_ACL });

    await expect(resolveWriterAcl({ session: zk.session({ credentials: [CREDENTIALS.writer] }), config: CONFIG, credential: CREDENTIALS.writer })).rejects.toMatchObject({
      name: 'RequestError',
      kind: 'access',
      message: expect.stringContaining(`${path}: anyone may`),
    });
  });

  it('refuses to start without a credential unless allowOpenAcl, which then creates open records', async () => {
    const session = new InMemoryZk().session();

    await expect(resolveWriterAcl({ session, config: CONFIG, credential: undefined })).rejects.toMatchObject({ kind: 'access', variable: 'ZK_DIGEST_SECRET_ARN' });
    expect(await resolveWriterAcl({ session, config: { ...CONFIG, allowOpenAcl: true }, credential: undefined })).toEqual(OPEN_ACL);
  });

  it('warns when the other roles\u2019 identities are unknown (what it creates would not grant them)', async () => {
    const log = recordingLogger();

    await resolveWriterAcl({ session: new InMemoryZk().session(), config: { ...CONFIG, aclRoles: {} }, credential: CREDENTIALS.writer, logger: log });

    expect(log.warnings).toEqual([expect.stringContaining('ZK_ACL_*_ID')]);
  });
});
