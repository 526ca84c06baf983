import { request } from 'node:http';
import { AdminServer, type AdminSource } from '../../../lib/bridge/admin-server';
import { parseBridgeConfig } from '../../../lib/bridge/config';

// Issue 14: who may reach the bridge's admin endpoints. Loopback by default; on any other address only
// with a bearer token, which every path but /healthz then asks for. Real HTTP servers on loopback.

const TOKEN = 'k3Qv9TzP0aLr8WmX2cYb7NsD4eFh6GjU1iKo5pRq';
const bootstrap = { xds_servers: [{ server_uri: 'localhost:18000', channel_creds: [{ type: 'insecure' }] }], node: { id: 'bridge' } };

/** A source that answers every endpoint; the access rules are what is under test. */
const source: AdminSource = {
  healthy: () => true,
  ready: () => true,
  status: () => ({ role: 'leader' }),
  configDump: () => ({ config: [] }),
  metrics: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4', text: 'failout_bridge_up 1\n' }),
};

const servers: AdminServer[] = [];
async function start(options: Omit<Parameters<typeof AdminServer.start>[0], 'source'>): Promise<AdminServer> {
  const server = await AdminServer.start({ ...options, source });
  servers.push(server);
  return server;
}
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function get(server: AdminServer, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; text: string; challenge: string | null }> {
  const response = await fetch(`http://127.0.0.1:${server.port}${path}`, { method, headers });
  return { status: response.status, text: await response.text(), challenge: response.headers.get('www-authenticate') };
}

describe('admin server binding', () => {
  it('binds loopback with the default configuration, and serves there without a token', async () => {
    // Prepare
    const { admin } = parseBridgeConfig({ bootstrap, services: ['greetings'], zookeeper: { connectString: '127.0.0.1:2181' } });

    // Act
    const server = await start({ ...admin, port: 0 });

    // Assess
    expect(admin.host).toBe('127.0.0.1');
    expect(server.host).toBe('127.0.0.1');
    expect((await get(server, '/status')).status).toBe(200);
  });

  it.each(['0.0.0.0', '::', '10.0.0.5'])('refuses to bind %s without a token', async (host) => {
    await expect(start({ host, port: 0 })).rejects.toMatchObject({ name: 'BridgeError', kind: 'config', field: 'admin.token' });
    expect(servers).toHaveLength(0);
  });

  it('refuses a token shorter than 32 characters', async () => {
    await expect(start({ host: '0.0.0.0', port: 0, token: 'short' })).rejects.toMatchObject({ kind: 'config', field: 'admin.token' });
  });
});

/** GET over loopback with the Host header given (fetch sets its own). */
function getWithHost(server: AdminServer, path: string, host: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: server.port, path, headers: { host } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('admin server on loopback without a token: DNS rebinding', () => {
  // A web page whose name an attacker re-points at 127.0.0.1 reaches a loopback server from the
  // operator's browser, with its own name in Host; the console refuses such a Host, and so must this.
  it.each(['evil.example', 'evil.example:9901', '10.0.0.5'])('answers 403 to Host %s on every path, showing nothing', async (host) => {
    const server = await start({ host: '127.0.0.1', port: 0 });
    for (const path of ['/healthz', '/readyz', '/status', '/config_dump', '/metrics']) {
      const response = await getWithHost(server, path, host);

      expect({ path, status: response.status }).toEqual({ path, status: 403 });
      expect(response.text).not.toMatch(/leader|config|failout_bridge_up/);
    }
  });

  it.each(['127.0.0.1', 'localhost', '[::1]', '127.0.0.1:9901', 'localhost:9901', '[::1]:9901'])('serves Host %s', async (host) => {
    const server = await start({ host: '127.0.0.1', port: 0 });

    expect(await getWithHost(server, '/status', host)).toMatchObject({ status: 200, text: expect.stringContaining('"role": "leader"') });
  });
});

describe('admin server bearer token (bound as in the Fargate task: 0.0.0.0 with a token)', () => {
  let server: AdminServer;
  beforeEach(async () => {
    server = await start({ host: '0.0.0.0', port: 0, token: TOKEN });
  });

  it('answers /healthz without a token', async () => {
    expect(await get(server, '/healthz')).toMatchObject({ status: 200, text: 'ok\n' });
  });

  it.each<[string, Record<string, string>]>([
    ['no Authorization header', {}],
    ['a wrong token of the same length', { authorization: `Bearer ${TOKEN.slice(1)}x` }],
    ['a token that is a prefix of the right one', { authorization: `Bearer ${TOKEN.slice(0, 20)}` }],
    ['the right token with extra characters', { authorization: `Bearer ${TOKEN}x` }],
    ['the right token under another scheme', { authorization: `Basic ${TOKEN}` }],
    ['an empty bearer token', { authorization: 'Bearer ' }],
  ])('answers 401 with a Bearer challenge for %s, on every other path', async (_name, headers) => {
    for (const path of ['/readyz', '/status', '/config_dump', '/metrics', '/no-such-path']) {
      const response = await get(server, path, headers);

      expect({ path, status: response.status, challenge: response.challenge }).toEqual({ path, status: 401, challenge: 'Bearer realm="xds-bridge"' });
      expect(response.text).not.toContain(TOKEN.slice(0, 8));
    }
  });

  it('asks for the token on HEAD and non-GET methods too', async () => {
    expect((await get(server, '/status', {}, 'HEAD')).status).toBe(401);
    expect((await get(server, '/status', {}, 'POST')).status).toBe(401);
  });

  it.each<[string, number, string]>([
    ['/readyz', 200, 'ready\n'],
    ['/status', 200, '"role": "leader"'],
    ['/config_dump', 200, '"config"'],
    ['/metrics', 200, 'failout_bridge_up 1'],
    ['/no-such-path', 404, 'not found'],
  ])('serves %s with the right token', async (path, status, body) => {
    const response = await get(server, path, { authorization: `Bearer ${TOKEN}` });

    expect(response.status).toBe(status);
    expect(response.text).toContain(body);
  });

  it('accepts the scheme in any case, as RFC 7235 says', async () => {
    expect((await get(server, '/status', { authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });
});
