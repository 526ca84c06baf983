import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadBridgeConfig, parseBridgeConfig } from '../../../lib/bridge/config';
import { BridgeError } from '../../../lib/bridge/errors';

// The bridge's ZooKeeper TLS: `zookeeper.tls` in the JSON (PEM file paths), ZK_TLS_* over it field
// by field, the files read at start, and a bad file a config error naming its field.

const bootstrap = { xds_servers: [{ server_uri: 'localhost:18000', channel_creds: [{ type: 'insecure' }] }], node: { id: 'bridge' } };
const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('bridge config: zookeeper.tls', () => {
  let dir: string;
  let ca: string;
  let otherCa: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'failout-bridge-tls-'));
    ca = join(dir, 'ca.pem');
    otherCa = join(dir, 'other-ca.pem');
    writeFileSync(ca, CERT);
    writeFileSync(otherCa, CERT.replace('fake', 'other'));
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const withTls = (tls: unknown): unknown => ({ bootstrap, services: ['greetings'], zookeeper: { connectString: 'zk:2182', tls } });

  it('is plain TCP (tls undefined) when neither the JSON nor the environment asks for TLS', () => {
    expect(parseBridgeConfig({ bootstrap, services: ['greetings'], zookeeper: { connectString: 'zk:2181' } }).zookeeper.tls).toBeUndefined();
  });

  it('reads the files the JSON names', () => {
    // Act
    const config = parseBridgeConfig(withTls({ caFile: ca, servername: 'zk.internal' }));

    // Assess
    expect(config.zookeeper.tls).toEqual({ ca: Buffer.from(CERT), servername: 'zk.internal' });
  });

  it('lets ZK_TLS_* override the JSON field by field', () => {
    // Act
    const config = loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(withTls({ caFile: ca, servername: 'zk.internal' })), ZK_TLS_CA: otherCa });

    // Assess
    expect(config.zookeeper.tls).toEqual({ ca: Buffer.from(CERT.replace('fake', 'other')), servername: 'zk.internal' });
  });

  it.each<[string, () => unknown, string, RegExp]>([
    ['an unreadable CA file', () => parseBridgeConfig(withTls({ caFile: join(dir, 'missing.pem') })), 'zookeeper.tls.caFile', /cannot be read \(ENOENT\)/],
    ['a certificate without its key', () => parseBridgeConfig(withTls({ certFile: ca })), 'zookeeper.tls.keyFile', /is missing: a client certificate needs both/],
    ['an unknown field', () => parseBridgeConfig(withTls({ caPem: CERT })), 'zookeeper.tls', /Unrecognized key/],
    ['a bad ZK_TLS_VERIFY', () => loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(withTls(undefined)), ZK_TLS_VERIFY: 'yes' }), 'ZK_TLS_VERIFY', /must be true or false/],
  ])('refuses %s as a config error naming the field', (_what, load, field, message) => {
    // Act
    let error: unknown;
    try {
      load();
    } catch (err) {
      error = err;
    }

    // Assess
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ kind: 'config', field, message: expect.stringMatching(message) });
  });
});
