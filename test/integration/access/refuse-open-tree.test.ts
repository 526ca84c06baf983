/**
 * The bridge and the request writer refuse to start writing into a tree that `failout zk check` would
 * fail (docs/deployers.md "Access control"), say which nodes and what to run, start when told to
 * (`allowOpenAcl`), and start as they should once the tree is secured.
 */
import { XdsBridge } from '../../../lib/bridge';
import { aclLayout, secureAcls } from '../../../lib/requests/acl';
import { resolveWriterAcl } from '../../../lib/requests/writer-access';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { CREDENTIALS, IDS, ROLES } from '../../helpers/access';
import { bridgeConfig, startBridge, stopBridges, worldSnapshot } from '../../helpers/bridge';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

const WORLD = {
  services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }],
  clusters: [{ name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }] }],
};

describe('refusing to write into a tree anyone may change', () => {
  let xds: XdsManagementServer;
  let root: string;
  let d2: string;
  /** An unconstrained writer: what an open, pre-existing tree looks like (rest.li's default ACL). */
  let legacy: ZkSession;

  beforeEach(async () => {
    xds = await startXdsServer();
    xds.setSnapshot('*', worldSnapshot('1', WORLD));
    root = uniqueBase('refuse');
    d2 = `${root}/d2`;
    legacy = await openSession();
    await legacy.create(`${d2}/clusters/greetings-lor1`, Buffer.from('{"clusterName":"greetings-lor1"}'), { parents: true, acl: OPEN_ACL });
  });

  afterEach(async () => {
    await stopBridges();
    await xds.close();
    const admin = await openSession({ credentials: [CREDENTIALS.admin] });
    await admin.removeRecursive(root).catch(() => undefined);
    await closeSessions();
  });

  function config(overrides: Record<string, unknown> = {}): ReturnType<typeof bridgeConfig> {
    return bridgeConfig([xds.uri], ['greetings'], d2, {
      zookeeper: { connectString: 'unused:1', basePath: d2, electionPath: `${root}/election`, sessionTimeoutMs: 4000, credentials: [CREDENTIALS.bridge] },
      acl: { requestWriter: IDS.writer, admin: IDS.admin },
      allowOpenAcl: false,
      ...overrides,
    });
  }

  it('the bridge refuses, naming the open nodes and `failout zk secure`, and writes nothing', async () => {
    // Act
    const started = XdsBridge.start({ config: config(), session: await openSession({ credentials: [CREDENTIALS.bridge] }), admin: false });

    // Assess
    await expect(started).rejects.toMatchObject({ name: 'BridgeError', kind: 'access' });
    const error = (await started.catch((err: unknown) => err)) as Error;
    expect(error.message).toContain(`${d2}/clusters/greetings-lor1: anyone may write, create, delete, admin`);
    expect(error.message).toContain(`${root}: anyone may`);
    expect(error.message).toContain('failout zk secure');
    expect(error.message).not.toContain(CREDENTIALS.bridge.password);
    expect(await legacy.exists(`${root}/election`)).toBeUndefined();
    expect(await legacy.exists(`${d2}/services`)).toBeUndefined();
  });

  it('the bridge refuses without a credential, unless allowOpenAcl', async () => {
    // Prepare
    const noCredential = config({ zookeeper: { connectString: 'unused:1', basePath: `${root}/fresh`, electionPath: `${root}/fresh-election`, sessionTimeoutMs: 4000 } });

    // Act
    const refused = XdsBridge.start({ config: noCredential, session: await openSession(), admin: false });

    // Assess
    await expect(refused).rejects.toMatchObject({ name: 'BridgeError', kind: 'access', message: expect.stringContaining('ZK_CREDENTIALS') });
    expect(await legacy.exists(`${root}/fresh-election`)).toBeUndefined();
  });

  it('the bridge starts on the open tree when told to (allowOpenAcl), with its own nodes still protected', async () => {
    // Act
    const { bridge } = await startBridge(config({ allowOpenAcl: true }), await openSession({ credentials: [CREDENTIALS.bridge] }));
    await eventually(() => bridge.role === 'leader' && bridge.ready, 15_000, 'bridge leading');

    // Assess: the node it created is not open; the one it found stays as it was (secure fixes it)
    await expect(legacy.set(`${d2}/services/greetings`, Buffer.from('x'))).rejects.toMatchObject({ kind: 'noAuth' });
    expect((await legacy.getAcl(`${d2}/clusters/greetings-lor1`)).acl).toEqual(OPEN_ACL);
  });

  it('the request writer refuses an open tree, and both start once `secure` applied the ACLs', async () => {
    // Prepare
    const writerSession = await openSession({ credentials: [CREDENTIALS.writer] });
    const writerConfig = { d2BasePath: d2, requestsPath: `${root}/requests`, aclRoles: { bridge: [IDS.bridge] }, allowOpenAcl: false };

    // Act
    const refused = resolveWriterAcl({ session: writerSession, config: writerConfig, credential: CREDENTIALS.writer });

    // Assess
    await expect(refused).rejects.toMatchObject({ name: 'RequestError', kind: 'access', message: expect.stringContaining(`${d2}/clusters/greetings-lor1`) });
    await expect(resolveWriterAcl({ session: writerSession, config: { ...writerConfig, allowOpenAcl: true }, credential: CREDENTIALS.writer })).resolves.toBeDefined();
    await expect(resolveWriterAcl({ session: writerSession, config: writerConfig, credential: undefined })).rejects.toMatchObject({ kind: 'access', variable: 'ZK_DIGEST_SECRET_ARN' });

    // Act: the admin secures the tree (the open nodes still let anyone change their ACL)
    const admin = await openSession({ credentials: [CREDENTIALS.admin] });
    const layout = aclLayout({ d2BasePath: d2, requestsPath: `${root}/requests`, electionPaths: [`${root}/election`] });
    const report = await secureAcls(admin, { roles: ROLES, layout });

    // Assess
    expect(report.failures).toEqual([]);
    await expect(resolveWriterAcl({ session: writerSession, config: writerConfig, credential: CREDENTIALS.writer })).resolves.toBeDefined();
    const { bridge } = await startBridge(config(), await openSession({ credentials: [CREDENTIALS.bridge] }));
    await eventually(() => bridge.role === 'leader' && bridge.ready, 15_000, 'bridge leading');
    await expect(legacy.set(`${d2}/clusters/greetings-lor1`, Buffer.from('x'))).rejects.toMatchObject({ kind: 'noAuth' });
  });
});
