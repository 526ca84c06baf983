import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { connectSession, OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { uniqueBase } from '../../helpers/zk';
import { runCli, type CliResult } from '../../helpers/cli';
import { makeTestPki, type TestPki } from '../../helpers/zk-tls';

// The CLI reads ZooKeeper over TLS with --zk-tls-ca (or ZK_TLS_CA); a wrong CA ends in exit 1 with
// the TLS reason, a CA file it cannot read in a usage error (exit 2) naming the flag.

describe('failout CLI over TLS', () => {
  let pki: TestPki;
  let server: ZooKeeperServer;
  let seeder: ZkSession;
  const d2Base = `${uniqueBase('cli-tls')}/d2`;

  function cli(env: Record<string, string>, ...argv: string[]): Promise<CliResult> {
    return runCli({ D2_BASE_PATH: d2Base, ...env }, ...argv);
  }

  function secureConnect(): string {
    if (!server.secureConnectString) throw new Error('server started without TLS');
    return server.secureConnectString;
  }

  beforeAll(async () => {
    pki = makeTestPki();
    server = await startZooKeeper({ tls: { keyStoreFile: pki.serverKeyStoreFile, trustStoreFile: pki.caFile } });
    seeder = await connectSession({ connectString: server.connectString, sessionTimeoutMs: 4000 }, 10_000);
    // One cluster with one announced host, written in plain text through the plain port.
    const cluster = serializeClusterProperties(parseClusterProperties(JSON.stringify({ clusterName: 'greetings-lor1', prioritizedSchemes: ['http'] })));
    await seeder.create(`${d2Base}/clusters/greetings-lor1`, Buffer.from(cluster), { parents: true, acl: OPEN_ACL });
    const uri = { clusterName: 'greetings-lor1', weights: { 'http://127.0.0.1:1/greetings-lor1': 1 } };
    await seeder.create(`${d2Base}/uris/greetings-lor1/host-1`, Buffer.from(JSON.stringify(uri)), { parents: true, acl: OPEN_ACL });
  });

  afterAll(async () => {
    await seeder?.close();
    await server?.close();
    pki?.remove();
  });

  it('shows a cluster read over TLS with --zk-tls-ca', async () => {
    // Act
    const status = await cli({}, 'status', 'greetings-lor1', '--zk', secureConnect(), '--zk-tls-ca', pki.caFile);

    // Assess
    expect(status).toMatchObject({ code: 0, stdout: 'greetings-lor1  serving\n' });
  });

  it('exits 1 with the TLS reason when ZK_TLS_CA is not the CA that signed the server', async () => {
    // Act
    const status = await cli({ ZK_CONNECT: secureConnect(), ZK_TLS_CA: pki.otherCaFile }, 'status', 'greetings-lor1');

    // Assess
    expect(status.code).toBe(1);
    expect(status.stderr).toMatch(/could not connect to ZooKeeper at 127\.0\.0\.1:\d+ over TLS: .*unable to verify the first certificate/);
  });

  it('exits 2 naming the flag when the CA file cannot be read', async () => {
    // Act
    const status = await cli({}, 'status', 'greetings-lor1', '--zk', secureConnect(), '--zk-tls-ca', `${pki.dir}/missing.pem`);

    // Assess
    expect(status.code).toBe(2);
    expect(status.stderr).toMatch(/--zk-tls-ca \/ ZK_TLS_CA .*missing\.pem cannot be read \(ENOENT\)/);
  });
});
