import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadRequestsConfig } from '../../../lib/requests/config';

// The request worker's ZooKeeper TLS comes from ZK_TLS_* (PEM file paths, read at load); a bad one
// is an invalidConfig naming the variable, like every other setting.

const CERT = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';

describe('loadRequestsConfig: ZK_TLS_*', () => {
  let dir: string;
  let ca: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'failout-requests-tls-'));
    ca = join(dir, 'ca.pem');
    writeFileSync(ca, CERT);
  });

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('connects in plain TCP without ZK_TLS_* variables', () => {
    expect(loadRequestsConfig({ ZK_CONNECT: 'zk:2181' }).tls).toBeUndefined();
  });

  it('reads the CA file ZK_TLS_CA names', () => {
    // Act
    const config = loadRequestsConfig({ ZK_CONNECT: 'zk:2182', ZK_TLS_CA: ca });

    // Assess
    expect(config.tls).toEqual({ ca: Buffer.from(CERT) });
  });

  it.each([
    [{ ZK_TLS_CA: '/nonexistent/ca.pem' }, 'ZK_TLS_CA'],
    [{ ZK_TLS_CERT: '<ca>' }, 'ZK_TLS_KEY'],
    [{ ZK_TLS_VERIFY: 'perhaps' }, 'ZK_TLS_VERIFY'],
  ])('names the variable at fault (%j)', (raw, variable) => {
    // Prepare
    const env = { ZK_CONNECT: 'zk:2182', ...Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, v === '<ca>' ? ca : v])) };

    // Act
    const load = (): unknown => loadRequestsConfig(env);

    // Assess
    expect(load).toThrow(expect.objectContaining({ kind: 'invalidConfig', variable, message: expect.stringContaining(variable) }));
  });
});
