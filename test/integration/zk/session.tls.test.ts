import { createServer, type Socket } from 'node:net';
import { createClient } from 'node-zookeeper-client';
import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { OPEN_ACL, ZkError, ZkSession, connectSession, isZkError, type DataState, type ZkSessionOptions } from '../../../lib/zk';
import { eventually, uniqueBase } from '../../helpers/zk';
import { capturingLogger } from '../../helpers/logging';
import { makeTestPki, type TestPki } from '../../helpers/zk-tls';

// ZooKeeper over TLS (issue 14): one ZooKeeper per file serving both its plain port and a
// secureClientPort whose certificate a CA made at test time signs. Sessions connect and watch over
// TLS; a wrong CA, a wrong name and a plain-text server are refused with the TLS reason; plain
// sessions keep working beside TLS ones.

describe('ZkSession over TLS (secureClientPort)', () => {
  let pki: TestPki;
  let server: ZooKeeperServer;
  const opened: ZkSession[] = [];

  function secureConnect(): string {
    const connect = server.secureConnectString;
    if (!connect) throw new Error('server started without TLS');
    return connect;
  }

  /** A session tracked for closing in afterEach; not started. */
  function track(options: ZkSessionOptions): ZkSession {
    const session = new ZkSession({ sessionTimeoutMs: 4000, ...options });
    opened.push(session);
    return session;
  }

  beforeAll(async () => {
    pki = makeTestPki();
    server = await startZooKeeper({ sessionTimeouts: { minMs: 1000, maxMs: 20000 }, tls: { keyStoreFile: pki.serverKeyStoreFile, trustStoreFile: pki.caFile } });
  });

  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
  });

  afterAll(async () => {
    await server?.close();
    pki?.remove();
  });

  it('connects, writes and reads over TLS, and a data watch fires on a change', async () => {
    // Prepare
    const { logger, lines } = capturingLogger();
    const session = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.caFile) }, logger });
    await session.start(10_000);
    const path = `${uniqueBase('tls')}/node`;
    await session.create(path, Buffer.from('v1'), { parents: true, acl: OPEN_ACL });
    const states: DataState[] = [];
    const watch = session.watchData(path, (s) => states.push(s));
    await watch.ready;

    // Act
    await session.set(path, Buffer.from('v2'));

    // Assess
    await eventually(() => states.some((s) => s.exists && s.data.toString() === 'v2'), 5000, 'the watch to see v2');
    expect(states.map((s) => (s.exists ? s.data.toString() : null))).toEqual(['v1', 'v2']);
    const handshake = lines.find((l) => l.msg === 'zookeeper TLS handshake done');
    expect(handshake?.record).toMatchObject({ server: secureConnect(), protocol: expect.stringMatching(/^TLSv1\.[23]$/) });
    expect(session.lastTlsFailure).toBeUndefined();
  });

  it('sends a digest credential over TLS without the plain-TCP warning (issue 21)', async () => {
    // Prepare
    const { logger, lines } = capturingLogger();
    const session = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.caFile) }, credentials: [{ user: 'writer', password: 'tls-test' }], logger });

    // Act
    await session.start(10_000);

    // Assess
    expect(session.state).toBe('connected');
    expect(lines.filter((l) => /plain TCP/.test(l.msg))).toEqual([]);
  });

  it('verifies the name given as servername instead of the connect-string host', async () => {
    // Prepare: the certificate names localhost and 127.0.0.1, not zk.example.
    const good = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.caFile), servername: 'localhost' } });
    const wrong = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.caFile), servername: 'zk.example' }, logger: capturingLogger().logger });

    // Act
    await good.start(10_000);
    const refused = await wrong.start(1500).then(() => undefined, (err: unknown) => err);

    // Assess
    expect(await good.exists('/')).toBeDefined();
    expect(refused).toBeInstanceOf(ZkError);
    expect(refused).toMatchObject({ kind: 'tls', message: expect.stringContaining('zk.example') });
    expect((refused as ZkError).cause).toMatchObject({ code: 'ERR_TLS_CERT_ALTNAME_INVALID' });
  });

  it('refuses a server whose certificate another CA signed: start() rejects with the TLS reason, logged, backed off, never connected', async () => {
    // Prepare
    const { logger, lines } = capturingLogger();
    const session = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.otherCaFile) }, logger });
    const states: string[] = [];
    session.on((e) => states.push(e));

    // Act
    const startedAt = Date.now();
    const refused = await session.start(3000).then(() => undefined, (err: unknown) => err);

    // Assess: a typed error carrying the reason, the session closed, never connected.
    expect(isZkError(refused, 'tls')).toBe(true);
    expect((refused as ZkError).message).toMatch(/not connected within 3000 ms: TLS handshake with 127\.0\.0\.1:\d+ failed: unable to verify the first certificate/);
    expect((refused as ZkError).cause).toMatchObject({ code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' });
    expect(Date.now() - startedAt).toBeLessThan(5000);
    expect(session.state).toBe('closed');
    expect(states).not.toContain('connected');
    // Logged at once at error level with the reason, and repeats are summarised, not one line each.
    const errors = lines.filter((l) => l.level === 'error' && l.msg === 'zookeeper TLS handshake failed');
    expect(errors).toHaveLength(1);
    expect(errors[0]!.record).toMatchObject({ server: secureConnect(), code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', reason: 'unable to verify the first certificate' });
    // Backed off (250 ms doubling), not the client's ~10 handshakes a second: about 4 in 3 s.
    const attempts = session.lastTlsFailure?.attempts ?? 0;
    expect(attempts).toBeGreaterThanOrEqual(2);
    expect(attempts).toBeLessThanOrEqual(8);
  });

  it('refuses a plain-text server (the plain client port) with a clear TLS error', async () => {
    // Prepare
    const session = track({ connectString: server.connectString, tls: { ca: pki.read(pki.caFile) }, logger: capturingLogger().logger });

    // Act
    const refused = await session.start(1500).then(() => undefined, (err: unknown) => err);

    // Assess
    expect(isZkError(refused, 'tls')).toBe(true);
    expect((refused as ZkError).message).toMatch(/TLS handshake with 127\.0\.0\.1:\d+ failed: .*(before secure TLS connection was established|wrong version number)/);
    expect(session.state).toBe('closed');
  });

  it('gives up a handshake the server never answers, and says so when start() times out', async () => {
    // Prepare: a server that accepts TCP and then says nothing (a JVM still starting, a half-open proxy).
    const held: Socket[] = [];
    const silent = createServer((socket) => void held.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const session = track({ connectString: `127.0.0.1:${port}`, sessionTimeoutMs: 2000, tls: { ca: pki.read(pki.caFile) }, logger: capturingLogger().logger });

    // Act
    const refused = await session.start(2000).then(() => undefined, (err: unknown) => err);
    held.forEach((s) => s.destroy());
    await new Promise<void>((resolve) => silent.close(() => resolve()));

    // Assess
    expect(isZkError(refused, 'tls')).toBe(true);
    expect((refused as ZkError).message).toMatch(/TLS handshake with 127\.0\.0\.1:\d+ failed: the TLS handshake did not finish \(timed out\)/);
  });

  it('keeps plain sessions working beside TLS ones: the TLS transport belongs to its own client only', async () => {
    // Prepare
    const tlsSession = track({ connectString: secureConnect(), tls: { ca: pki.read(pki.caFile) } });
    await tlsSession.start(10_000);

    // Act: a plain session and a bare node-zookeeper-client made after the TLS one.
    const plain = await connectSession({ connectString: server.connectString, sessionTimeoutMs: 4000 }, 10_000);
    opened.push(plain);
    const path = `${uniqueBase('tls-plain')}`;
    await plain.create(path, Buffer.from('from plain'), { acl: OPEN_ACL });
    const bare = createClient(server.connectString);
    const bareConnect = (bare as unknown as { connectionManager: { connect: unknown } }).connectionManager.connect;
    const tlsConnect = (tlsSession as unknown as { client: { connectionManager: { connect: unknown } } }).client.connectionManager.connect;

    // Assess
    expect((await tlsSession.get(path)).data.toString()).toBe('from plain');
    expect(bareConnect).not.toBe(tlsConnect);
    expect(Object.prototype.hasOwnProperty.call((bare as unknown as { connectionManager: object }).connectionManager, 'connect')).toBe(false);
  });

  it('reconnects over TLS after the server restarts, and the watch sees the change made meanwhile', async () => {
    // Prepare
    const session = track({ connectString: secureConnect(), sessionTimeoutMs: 15_000, tls: { ca: pki.read(pki.caFile) } });
    await session.start(10_000);
    const path = `${uniqueBase('tls-restart')}`;
    await session.create(path, Buffer.from('before'), { acl: OPEN_ACL });
    const states: DataState[] = [];
    await session.watchData(path, (s) => states.push(s)).ready;
    const sessionId = session.sessionId;

    // Act
    await server.halt();
    await server.start();
    const writer = await connectSession({ connectString: server.connectString, sessionTimeoutMs: 4000 }, 10_000);
    opened.push(writer);
    await writer.set(path, Buffer.from('after'));

    // Assess: same session (restart shorter than its timeout), over TLS again.
    await eventually(() => states.some((s) => s.exists && s.data.toString() === 'after'), 15_000, 'the watch to see the write after the restart');
    expect(session.state).toBe('connected');
    expect(session.sessionId).toBe(sessionId);
  });
});
