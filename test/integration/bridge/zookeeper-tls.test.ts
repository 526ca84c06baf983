import { XdsBridge } from '../../../lib/bridge';
import { parseServiceProperties } from '../../../lib/d2';
import { startZooKeeper, type ZooKeeperServer } from '../../../lib/local/zookeeper';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { connectSession, type ZkSession } from '../../../lib/zk';
import { bridgeConfig, paths, readNode, worldSnapshot } from '../../helpers/bridge';
import { capturingLogger } from '../../helpers/logging';
import { startXdsServer } from '../../helpers/xds-chain';
import { eventually, uniqueBase } from '../../helpers/zk';
import { makeTestPki, type TestPki } from '../../helpers/zk-tls';

// The bridge makes its own ZooKeeper session over TLS when `zookeeper.tls` names a CA, and syncs D2
// through the server's secureClientPort. (Refusals are the session's: test/integration/zk/session.tls.)

describe('xds-bridge over ZooKeeper TLS', () => {
  let pki: TestPki;
  let server: ZooKeeperServer;
  let xds: XdsManagementServer;
  let reader: ZkSession;
  const base = uniqueBase('bridge-tls');

  function config(caFile: string): ReturnType<typeof bridgeConfig> {
    if (!server.secureConnectString) throw new Error('server started without TLS');
    return bridgeConfig([xds.uri], ['greetings'], base, {
      zookeeper: { connectString: server.secureConnectString, basePath: base, electionPath: `${base}-election`, sessionTimeoutMs: 4000, tls: { caFile } },
    });
  }

  beforeAll(async () => {
    pki = makeTestPki();
    server = await startZooKeeper({ tls: { keyStoreFile: pki.serverKeyStoreFile, trustStoreFile: pki.caFile } });
    xds = await startXdsServer();
    xds.setSnapshot('*', worldSnapshot('1', { services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }], clusters: [{ name: 'greetings-lor1', endpoints: [{ address: '127.0.0.1', port: 8080 }] }] }));
    reader = await connectSession({ connectString: server.connectString, sessionTimeoutMs: 4000 }, 10_000);
  });

  afterAll(async () => {
    await reader?.close();
    await xds?.close();
    await server?.close();
    pki?.remove();
  });

  it('syncs D2 into ZooKeeper through its TLS session', async () => {
    // Act
    const bridge = await XdsBridge.start({ config: config(pki.caFile), logger: capturingLogger().logger });
    try {
      await eventually(() => bridge.ready, 15_000, 'bridge ready');

      // Assess: written through the secure port, read back through the plain one.
      const service = await readNode(reader, paths.service(base, 'greetings'));
      expect(parseServiceProperties(Buffer.from(service!.data))).toMatchObject({ serviceName: 'greetings', clusterName: 'greetings-lor1' });
    } finally {
      await bridge.close();
    }
  });
});
