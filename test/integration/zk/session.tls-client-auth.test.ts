import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { ZkSession, isZkError, type ZkSessionOptions } from '../../../lib/zk';
import { uniqueBase } from '../../helpers/zk';
import { capturingLogger } from '../../helpers/logging';
import { makeTestPki, type TestPki } from '../../helpers/zk-tls';

// A ZooKeeper that requires a client certificate (ssl.clientAuth=need): a session presenting one the
// server's CA signed connects, and ZooKeeper's x509 provider knows it by its subject; a session
// without one is refused with the server's TLS alert as the reason.

describe('ZkSession over TLS with a client certificate', () => {
  let pki: TestPki;
  let server: ZooKeeperServer;
  const opened: ZkSession[] = [];

  function session(options: Partial<ZkSessionOptions>): ZkSession {
    const connectString = server.secureConnectString;
    if (!connectString) throw new Error('server started without TLS');
    const s = new ZkSession({ connectString, sessionTimeoutMs: 4000, logger: capturingLogger().logger, ...options });
    opened.push(s);
    return s;
  }

  beforeAll(async () => {
    pki = makeTestPki();
    server = await startZooKeeper({ tls: { keyStoreFile: pki.serverKeyStoreFile, trustStoreFile: pki.caFile, requireClientCert: true } });
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await server?.close();
    pki?.remove();
  });

  it('connects with a client certificate, and the server authenticates the session as its x509 subject', async () => {
    // Prepare
    const client = session({ tls: { ca: pki.read(pki.caFile), cert: pki.read(pki.clientCertFile), key: pki.read(pki.clientKeyFile) } });
    await client.start(10_000);
    const path = uniqueBase('x509');

    // Act: an ACL naming the certificate's subject is accepted only for a session authenticated as it.
    await client.create(path, Buffer.from('v1'), { acl: [{ scheme: 'x509', id: pki.clientSubject, perms: ['read', 'write', 'create', 'delete', 'admin'] }] });
    await client.set(path, Buffer.from('v2'));

    // Assess
    expect((await client.get(path)).data.toString()).toBe('v2');
  });

  it('is refused without a client certificate, with the TLS reason in the error', async () => {
    // Prepare
    const client = session({ tls: { ca: pki.read(pki.caFile) } });

    // Act
    const refused = await client.start(1500).then(() => undefined, (err: unknown) => err);

    // Assess
    expect(isZkError(refused, 'tls')).toBe(true);
    expect((refused as Error).message).toMatch(/TLS handshake with 127\.0\.0\.1:\d+ failed: /);
    expect(client.state).toBe('closed');
  });
});
