import { resolveSettings } from '../../../lib/operator';

// The CLI's ZooKeeper TLS settings: --zk-tls-* flags over ZK_TLS_* variables, file paths only (read
// when the session opens); no flag and no variable: plain TCP.

describe('CLI settings: ZooKeeper TLS', () => {
  it('is plain TCP with neither flags nor variables', () => {
    expect(resolveSettings({}, { ZK_CONNECT: 'zk:2181' }).zkTls).toBeUndefined();
  });

  it('takes the flags over the variables, field by field', () => {
    // Act
    const settings = resolveSettings(
      { zkTlsCa: '/flag/ca.pem', zkTlsCert: '/flag/client.pem' },
      { ZK_TLS_CA: '/env/ca.pem', ZK_TLS_KEY: '/env/client.key', ZK_TLS_SERVERNAME: 'zk.internal' },
    );

    // Assess
    expect(settings.zkTls).toEqual({ caFile: '/flag/ca.pem', certFile: '/flag/client.pem', keyFile: '/env/client.key', servername: 'zk.internal' });
  });

  it('refuses a ZK_TLS_VERIFY that is not a boolean as a usage error', () => {
    expect(() => resolveSettings({}, { ZK_TLS_VERIFY: 'sometimes' })).toThrow(expect.objectContaining({ kind: 'input', message: expect.stringContaining('ZK_TLS_VERIFY') }));
  });
});
