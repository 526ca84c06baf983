import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { ZkSession, ZkTlsConfigError, loadZkTlsFiles, loadZkTlsFromEnv } from '../../../lib/zk';
import { zkTlsFilesFromEnv } from '../../../lib/zk/config';

// ZK_TLS_* and the PEM files behind them: TLS turns on with any variable, files are read and checked
// for shape, errors name the variable, and what logs the loaded options shows paths, never contents.

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
const KEY = '-----BEGIN PRIVATE KEY-----\nSECRETKEYMATERIAL\n-----END PRIVATE KEY-----\n';

describe('ZooKeeper TLS configuration', () => {
  let dir: string;
  let ca: string;
  let cert: string;
  let key: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'failout-tls-config-'));
    ca = join(dir, 'ca.pem');
    cert = join(dir, 'client.pem');
    key = join(dir, 'client.key');
    writeFileSync(ca, CERT);
    writeFileSync(cert, CERT);
    writeFileSync(key, KEY);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is off (undefined) when no ZK_TLS_* variable is set, empty ones included', () => {
    expect(loadZkTlsFromEnv({ ZK_CONNECT: 'a:1', ZK_TLS_CA: '' })).toBeUndefined();
  });

  it('reads the CA, the client certificate and key, the servername and verify', () => {
    // Act
    const tls = loadZkTlsFromEnv({ ZK_TLS_CA: ca, ZK_TLS_CERT: cert, ZK_TLS_KEY: key, ZK_TLS_SERVERNAME: 'zk.internal', ZK_TLS_VERIFY: 'true' });

    // Assess
    expect(tls).toEqual({ ca: Buffer.from(CERT), cert: Buffer.from(CERT), key: Buffer.from(KEY), servername: 'zk.internal', verify: true });
  });

  it('turns TLS on with any one variable (a half-done setup never talks plain text)', () => {
    expect(zkTlsFilesFromEnv({ ZK_TLS_SERVERNAME: 'zk.internal' })).toEqual({ servername: 'zk.internal' });
    expect(zkTlsFilesFromEnv({ ZK_TLS_VERIFY: 'false' })).toEqual({ verify: false });
  });

  it.each<[string, Record<string, string>, RegExp, string]>([
    ['a certificate without its key', { ZK_TLS_CERT: '<cert>' }, /^ZK_TLS_KEY is missing/, 'ZK_TLS_KEY'],
    ['a key without its certificate', { ZK_TLS_KEY: '<key>' }, /^ZK_TLS_CERT is missing/, 'ZK_TLS_CERT'],
    ['a CA file that does not exist', { ZK_TLS_CA: '/nonexistent/ca.pem' }, /^ZK_TLS_CA \/nonexistent\/ca\.pem cannot be read \(ENOENT\)/, 'ZK_TLS_CA'],
    ['a CA file that is not PEM', { ZK_TLS_CA: '<key-as-ca>' }, /^ZK_TLS_CA .* holds no PEM certificate/, 'ZK_TLS_CA'],
    ['a key file that is not a PEM key', { ZK_TLS_CERT: '<cert>', ZK_TLS_KEY: '<cert>' }, /^ZK_TLS_KEY .* holds no PEM private key/, 'ZK_TLS_KEY'],
    ['a verify flag that is not a boolean', { ZK_TLS_VERIFY: 'maybe' }, /^ZK_TLS_VERIFY must be true or false/, 'ZK_TLS_VERIFY'],
  ])('refuses %s with a ZkTlsConfigError naming the variable', (_what, raw, message, setting) => {
    // Prepare
    const files: Record<string, string> = { '<cert>': cert, '<key>': key, '<key-as-ca>': key };
    const env = Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, files[v] ?? v]));

    // Act
    const load = (): unknown => loadZkTlsFromEnv(env);

    // Assess
    expect(load).toThrow(ZkTlsConfigError);
    expect(load).toThrow(expect.objectContaining({ name: 'ZkTlsConfigError', kind: 'tls', setting, message: expect.stringMatching(message) }));
  });

  it('never shows key material when the loaded options are logged (JSON or inspect): only the paths', () => {
    // Prepare
    const tls = loadZkTlsFiles({ caFile: ca, certFile: cert, keyFile: key });

    // Act
    const shown = [JSON.stringify({ zookeeper: { tls } }), inspect({ tls }, { depth: 5 })];

    // Assess
    for (const text of shown) {
      expect(text).not.toContain('SECRETKEYMATERIAL');
      expect(text).toContain(key);
    }
  });

  it('refuses session options with a certificate but no key', () => {
    expect(() => new ZkSession({ connectString: '127.0.0.1:1', tls: { cert: CERT } })).toThrow(expect.objectContaining({ kind: 'tls' }));
  });
});
