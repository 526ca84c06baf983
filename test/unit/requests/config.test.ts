import { loadRequestsConfig, resolveDigestCredential, type RequestsConfig } from '../../../lib/requests/config';
import { digestId } from '../../../lib/zk';

describe('loadRequestsConfig', () => {
  it('applies the defaults with only ZK_CONNECT set', () => {
    expect(loadRequestsConfig({ ZK_CONNECT: '127.0.0.1:2181' })).toEqual({
      zkConnect: '127.0.0.1:2181',
      d2BasePath: '/d2',
      requestsPath: '/failout/requests',
      drillsPath: '/failout/drills',
      fabricsPath: '/failout/fabrics',
      evacuationsPath: '/failout/evacuations',
      maxMultiBytes: 900 * 1024,
      maxWindowMs: 72 * 3600_000,
      maxBodyBytes: 16384,
      maxPeers: 10,
      maxPeerLoadFactor: 2,
      recordRetentionMs: 30 * 86_400_000,
      sessionTimeoutMs: 15000,
      connectTimeoutMs: 10000,
      digest: { source: 'none' },
      aclRoles: {},
      allowOpenAcl: false,
      alarms: { source: 'none' },
    });
  });

  it('reads where drills, fabric maps and evacuations live, and the multi budget, refusing a relative path', () => {
    const config = loadRequestsConfig({ ZK_CONNECT: 'a:1', FAILOUT_DRILLS_PATH: '/x/drills', FAILOUT_FABRICS_PATH: '/x/fabrics', FAILOUT_EVACUATIONS_PATH: '/x/evac', FAILOUT_MAX_MULTI_BYTES: '500000' });
    expect(config).toMatchObject({ drillsPath: '/x/drills', fabricsPath: '/x/fabrics', evacuationsPath: '/x/evac', maxMultiBytes: 500000 });
    expect(() => loadRequestsConfig({ ZK_CONNECT: 'a:1', FAILOUT_EVACUATIONS_PATH: 'evac' })).toThrow(/FAILOUT_EVACUATIONS_PATH must be an absolute znode path/);
    expect(() => loadRequestsConfig({ ZK_CONNECT: 'a:1', FAILOUT_MAX_MULTI_BYTES: '10' })).toThrow(/FAILOUT_MAX_MULTI_BYTES/);
  });

  it('reads the plain digest and the window in either duration form', () => {
    const config = loadRequestsConfig({ ZK_CONNECT: 'a:1,b:2', ZK_DIGEST: 'writer:pa:ss', MAX_FAILOUT_WINDOW: 'PT96H' });
    expect(config.digest).toEqual({ source: 'plain', credential: { user: 'writer', password: 'pa:ss' } });
    expect(config.maxWindowMs).toBe(96 * 3600_000);
  });

  it('reads the record retention in either duration form', () => {
    expect(loadRequestsConfig({ ZK_CONNECT: 'a:1', FAILOUT_RECORD_RETENTION: 'P7D' }).recordRetentionMs).toBe(7 * 86_400_000);
    expect(loadRequestsConfig({ ZK_CONNECT: 'a:1', FAILOUT_RECORD_RETENTION: '90d' }).recordRetentionMs).toBe(90 * 86_400_000);
  });

  it('reads the capacity guard\'s MAX_PEER_LOAD_FACTOR', () => {
    expect(loadRequestsConfig({ ZK_CONNECT: 'a:1', MAX_PEER_LOAD_FACTOR: '1.4' }).maxPeerLoadFactor).toBe(1.4);
  });

  it('reads the other roles\' identities and FAILOUT_ALLOW_OPEN_ACL', () => {
    const bridge = digestId('bridge', 'b');
    const config = loadRequestsConfig({ ZK_CONNECT: 'a:1', ZK_ACL_BRIDGE_ID: bridge, FAILOUT_ALLOW_OPEN_ACL: '1' });
    expect(config).toMatchObject({ aclRoles: { bridge: [bridge] }, allowOpenAcl: true });
  });

  it.each([
    [{ ZK_CONNECT: 'a:1', ZK_ACL_BRIDGE_ID: 'bridge:not-a-hash' }, 'ZK_ACL_BRIDGE_ID'],
    [{}, 'ZK_CONNECT'],
    [{ ZK_CONNECT: 'nohost' }, 'ZK_CONNECT'],
    [{ ZK_CONNECT: 'a:1', MAX_FAILOUT_WINDOW: 'forever' }, 'MAX_FAILOUT_WINDOW'],
    [{ ZK_CONNECT: 'a:1', FAILOUT_RECORD_RETENTION: '12h' }, 'FAILOUT_RECORD_RETENTION'],
    [{ ZK_CONNECT: 'a:1', D2_BASE_PATH: 'd2' }, 'D2_BASE_PATH'],
    [{ ZK_CONNECT: 'a:1', MAX_PEER_LOAD_FACTOR: '0.5' }, 'MAX_PEER_LOAD_FACTOR'],
    [{ ZK_CONNECT: 'a:1', MAX_PEER_LOAD_FACTOR: 'lots' }, 'MAX_PEER_LOAD_FACTOR'],
    [{ ZK_CONNECT: 'a:1', ZK_DIGEST: 'nocolon' }, 'ZK_DIGEST'],
    [{ ZK_CONNECT: 'a:1', ZK_DIGEST: 'u:p', ZK_DIGEST_SECRET_ARN: 'arn:x' }, 'ZK_DIGEST'],
  ])('names the variable at fault (%j)', (env, variable) => {
    expect(() => loadRequestsConfig(env)).toThrow(expect.objectContaining({ kind: 'invalidConfig', variable, message: expect.stringContaining(variable) }));
  });
});

describe('resolveDigestCredential', () => {
  const secretConfig: RequestsConfig = { ...loadRequestsConfig({ ZK_CONNECT: 'a:1' }), digest: { source: 'secret', arn: 'arn:secret' } };

  it.each([
    ['user:password text', 'w:p', { user: 'w', password: 'p' }],
    ['JSON', '{"user":"w","password":"p"}', { user: 'w', password: 'p' }],
  ])('reads a secret holding %s', async (_what, value, credential) => {
    const getSecret = jest.fn(async () => value);
    await expect(resolveDigestCredential(secretConfig, getSecret)).resolves.toEqual(credential);
    expect(getSecret).toHaveBeenCalledWith('arn:secret');
  });

  it('refuses an empty secret, naming the variable', async () => {
    await expect(resolveDigestCredential(secretConfig, async () => undefined)).rejects.toMatchObject({ kind: 'invalidConfig', variable: 'ZK_DIGEST_SECRET_ARN' });
  });
});
