import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import { loadBridgeConfig, parseBridgeConfig } from '../../../lib/bridge/config';
import { BridgeError } from '../../../lib/bridge/errors';
import { digestId } from '../../../lib/zk';

const bootstrap = { xds_servers: [{ server_uri: 'localhost:18000', channel_creds: [{ type: 'insecure' }] }], node: { id: 'bridge' } };
const valid = { bootstrap, services: ['greetings'], zookeeper: { connectString: '127.0.0.1:2181' } };

function fieldOf(input: unknown): string | undefined {
  try {
    parseBridgeConfig(input);
  } catch (err) {
    if (err instanceof BridgeError && err.kind === 'config') return err.field;
    throw err;
  }
  return undefined;
}

describe('bridge config', () => {
  it('fills in the defaults', () => {
    const config = parseBridgeConfig(valid);
    expect(config.services).toEqual([{ name: 'greetings', listener: 'greetings', path: '/greetings', loadBalancerStrategyList: ['degraderV3'] }]);
    expect(config.zookeeper).toMatchObject({ basePath: '/d2', electionPath: '/failout/bridge/leader', sessionTimeoutMs: 15_000, credentials: [] });
    expect(config.writeBudget).toEqual({ maxOpsPerMulti: 200, maxBytesPerMulti: 512 * 1024, maxOpsPerSecond: 2000 });
    expect(config).toMatchObject({ uriScheme: 'http', deletionGraceMs: 30_000, admin: { host: '127.0.0.1', port: 9901, grpcPort: 9902, token: undefined } });
    expect(config.bootstrap.xdsServers[0]!.serverUri).toBe('localhost:18000');
  });

  it('watches, by default, the listener a gRPC client of xds:<service> watches: the bootstrap\'s client_default_listener_resource_name_template (gRFC A47)', () => {
    const template = 'xdstp://ctl.example.com/envoy.config.listener.v3.Listener/grpc/client/%s?project=1';
    const config = parseBridgeConfig({
      ...valid,
      bootstrap: { ...bootstrap, client_default_listener_resource_name_template: template, authorities: { 'ctl.example.com': {} } },
      services: ['greetings', 'caf\u00e9 au%lait', { name: 'hello', listener: 'explicit-listener' }],
    });
    expect(config.services.map((s) => s.listener)).toEqual([
      'xdstp://ctl.example.com/envoy.config.listener.v3.Listener/grpc/client/greetings?project=1',
      'xdstp://ctl.example.com/envoy.config.listener.v3.Listener/grpc/client/caf%C3%A9%20au%25lait?project=1',
      'explicit-listener',
    ]);
    // An old-style template is not an xdstp name: the service name goes in as it is.
    const plain = parseBridgeConfig({ ...valid, bootstrap: { ...bootstrap, client_default_listener_resource_name_template: 'grpc/%s' } });
    expect(plain.services[0]?.listener).toBe('grpc/greetings');
  });

  it.each<[string, unknown, string]>([
    ['a missing connect string', { ...valid, zookeeper: {} }, 'zookeeper.connectString'],
    ['no services', { ...valid, services: [] }, 'services'],
    ['a service name with a slash', { ...valid, services: ['ok', { name: 'a/b' }] }, 'services[1].name'],
    ['a duplicate service', { ...valid, services: ['a', 'a'] }, 'services[1]'],
    ['a zero write budget', { ...valid, writeBudget: { maxOpsPerMulti: 0 } }, 'writeBudget.maxOpsPerMulti'],
    ['an unknown key', { ...valid, extra: 1 }, '(root)'],
    ['a bad bootstrap server', { ...valid, bootstrap: { xds_servers: [{ server_uri: '', channel_creds: [{ type: 'insecure' }] }] } }, 'bootstrap.xds_servers[0].server_uri'],
    ['an unreadable bootstrap file', { ...valid, bootstrap: { file: '/nonexistent/bootstrap.json' } }, 'bootstrap.file'],
  ])('names the field at fault for %s', (_name, input, field) => {
    expect(fieldOf(input)).toBe(field);
  });

  it('reads the roles\' identities from JSON and ZK_ACL_* (the environment wins), and allowOpenAcl from either', () => {
    const writer = digestId('writer', 'w');
    const admin = digestId('admin', 'a');
    const json = { ...valid, acl: { requestWriter: digestId('old-writer', 'o'), admin: [admin] } };

    const config = loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(json), ZK_ACL_WRITER_ID: writer, FAILOUT_ALLOW_OPEN_ACL: '1' });

    expect(config.acl).toEqual({ requestWriter: [writer], admin: [admin] });
    expect(config.allowOpenAcl).toBe(true);
    expect(parseBridgeConfig(valid)).toMatchObject({ acl: {}, allowOpenAcl: false });
  });

  it('refuses a role identity that is not a digest id, naming the variable and not the value', () => {
    let error: unknown;
    try {
      loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(valid), ZK_ACL_ANNOUNCER_ID: 'announcer:plain-password' });
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ name: 'BridgeError', kind: 'config', field: 'ZK_ACL_ANNOUNCER_ID' });
    expect(String((error as Error).message)).not.toContain('plain-password');
    expect(fieldOf({ ...valid, acl: { admin: ['nope'] } })).toBe('acl.admin');
  });

  it('reads JSON from the environment with overrides', () => {
    const config = loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(valid), ZK_CONNECT: 'zk:2181', ZK_CREDENTIALS: 'bridge:s3cret', ADMIN_PORT: '0', BRIDGE_REPLICA_ID: 'r1' });
    expect(config.zookeeper.connectString).toBe('zk:2181');
    expect(config.zookeeper.credentials).toEqual([{ user: 'bridge', password: 's3cret' }]);
    expect(config.admin.port).toBe(0);
    expect(config.replicaId).toBe('r1');
  });

  it('reads the admin host and bearer token from the environment (the Fargate task binds 0.0.0.0 with a token)', () => {
    const token = 'a'.repeat(48);
    const config = loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(valid), ADMIN_HOST: '0.0.0.0', BRIDGE_ADMIN_TOKEN: token });
    expect(config.admin).toEqual({ host: '0.0.0.0', port: 9901, grpcPort: 9902, token });
  });

  it('reads the gRPC admin port (CSDS) from the JSON or ADMIN_GRPC_PORT, turns it off with null, and names a bad one', () => {
    expect(loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(valid), ADMIN_GRPC_PORT: '19902', ADMIN_PORT: '19901' }).admin).toMatchObject({ port: 19901, grpcPort: 19902 });
    expect(loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify({ ...valid, admin: { grpcPort: 0 } }) }).admin.grpcPort).toBe(0);
    expect(loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify({ ...valid, admin: { grpcPort: null } }) }).admin.grpcPort).toBeUndefined();
    expect(fieldOf({ ...valid, admin: { grpcPort: 70_000 } })).toBe('admin.grpcPort');
  });

  it('refuses an admin token shorter than 32 characters, naming the field and not the value', () => {
    const short = 'tooShortToken123';
    let error: unknown;
    try {
      loadBridgeConfig({ XDS_BRIDGE_CONFIG: JSON.stringify(valid), BRIDGE_ADMIN_TOKEN: short });
    } catch (err) {
      error = err;
    }
    expect(error).toMatchObject({ kind: 'config', field: 'admin.token' });
    expect(String((error as Error).message)).not.toContain(short);
  });

  it('names the variable when the environment JSON is broken', () => {
    expect(() => loadBridgeConfig({ XDS_BRIDGE_CONFIG: '{' })).toThrow(expect.objectContaining({ kind: 'config', field: 'XDS_BRIDGE_CONFIG' }));
  });

  describe('a configuration that is not JSON', () => {
    // Unquoted values: V8's SyntaxError quotes the text around the bad token (`..."password":hunter2sec"...`).
    const password = 'hunter2-zk-password';
    const token = 'adminTokenOfThirtyTwoCharacters-xyz';
    const broken = `{"services":["greetings"],"zookeeper":{"connectString":"127.0.0.1:2181","credentials":[{"user":"bridge","password":${password}}]},"admin":{"token":${token}}}`;

    /** What the bridge's main logs when the config is refused (`log.fatal({ err }, …)`), and the error. */
    function refusal(env: NodeJS.ProcessEnv): { error: unknown; logged: string } {
      const lines: string[] = [];
      const log = pino({}, new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) }));
      let error: unknown;
      try {
        loadBridgeConfig(env);
      } catch (err) {
        error = err;
        log.fatal({ err }, 'xds-bridge failed to start');
      }
      return { error, logged: lines.join('') };
    }

    it('is refused naming XDS_BRIDGE_CONFIG, without quoting it: a password or token in it reaches neither the error nor the log line', () => {
      const { error, logged } = refusal({ XDS_BRIDGE_CONFIG: broken });
      expect(error).toMatchObject({ kind: 'config', field: 'XDS_BRIDGE_CONFIG' });
      expect(logged).toContain('XDS_BRIDGE_CONFIG');
      expect(logged).not.toContain('hunter2');
      expect(logged).not.toContain('adminToken');
    });

    it('is refused naming XDS_BRIDGE_CONFIG_FILE, without quoting the file', () => {
      const dir = mkdtempSync(join(tmpdir(), 'failout-bridge-config-'));
      try {
        const file = join(dir, 'bridge.json');
        writeFileSync(file, broken);
        const { error, logged } = refusal({ XDS_BRIDGE_CONFIG_FILE: file });
        expect(error).toMatchObject({ kind: 'config', field: 'XDS_BRIDGE_CONFIG_FILE' });
        expect(logged).not.toContain('hunter2');
        expect(logged).not.toContain('adminToken');
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
