import { ObserverAdminServer, type AdminSource } from '../../../lib/observer/admin-server';
import { assertAdminAccess as assertBridgeAdminAccess } from '../../../lib/bridge/admin-access';

// Issue 14 for the observer: the bridge's access rules (lib/admin-http), with the observer's realm,
// errors and token variable. Real HTTP servers on loopback.

const TOKEN = 'k3Qv9TzP0aLr8WmX2cYb7NsD4eFh6GjU1iKo5pRq';

const source: AdminSource = {
  healthy: () => true,
  ready: () => true,
  status: () => ({ ready: true }),
  configDump: () => ({ config: [{ client_scope: '#observer' }] }),
  metrics: () => Promise.resolve({ contentType: 'text/plain; version=0.0.4', text: 'd2_observer_up 1\n' }),
};

const servers: ObserverAdminServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('observer admin server access', () => {
  it('refuses a non-loopback host without a token as an ObserverError naming OBSERVER_ADMIN_TOKEN', async () => {
    await expect(ObserverAdminServer.start({ host: '0.0.0.0', port: 0, source })).rejects.toMatchObject({
      name: 'ObserverError',
      kind: 'config',
      field: 'admin.token',
      message: 'admin.token: binding 0.0.0.0 (not loopback) needs a bearer token (OBSERVER_ADMIN_TOKEN)',
    });
  });

  it('keeps the bridge naming its own variable for the same refusal', () => {
    expect(() => assertBridgeAdminAccess({ host: '0.0.0.0' })).toThrow('admin.token: binding 0.0.0.0 (not loopback) needs a bearer token (BRIDGE_ADMIN_TOKEN)');
  });

  it('answers 401 with the d2-observer realm without the token, and serves /config_dump (CSDS) only with it', async () => {
    // Prepare
    const server = await ObserverAdminServer.start({ host: '127.0.0.1', port: 0, token: TOKEN, source });
    servers.push(server);
    const url = (path: string): string => `http://127.0.0.1:${server.port}${path}`;

    // Act
    const refused = await fetch(url('/status'));
    const refusedDump = await fetch(url('/config_dump'));
    const dump = await fetch(url('/config_dump'), { headers: { authorization: `Bearer ${TOKEN}` } });
    const status = await fetch(url('/status'), { headers: { authorization: `Bearer ${TOKEN}` } });

    // Assess
    expect([refused.status, refused.headers.get('www-authenticate')]).toEqual([401, 'Bearer realm="d2-observer"']);
    expect(refusedDump.status).toBe(401);
    expect(await dump.json()).toEqual({ config: [{ client_scope: '#observer' }] });
    expect(await status.json()).toEqual({ ready: true });
  });
});
