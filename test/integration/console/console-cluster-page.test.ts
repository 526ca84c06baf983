import { request } from 'node:http';
import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { newRequestId, type RequestRecord } from '../../../lib/requests';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { seedRecords } from '../../helpers/history-records';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// A cluster's own page (issue 24, item 2), from a real console over a real ZooKeeper: its failout,
// its peers with their hosts, its stop alarms, its hosts and its own history (that cluster's records
// only, not those of a cluster whose name contains it); a 404 page for a cluster it does not know;
// data rendered as text; the console's security rules on the new route.

const MIN = 60_000;
const TOKEN = 'cluster-page-token-0123456789abcdef012345';
const silentLogger = pino({ level: 'silent' });
const HOSTILE = '<img src=x onerror=alert(1)>';

function record(cluster: string, appliedAt: number, action: 'failout' | 'restore'): RequestRecord {
  return { requestId: newRequestId(appliedAt), status: 'applied', cluster, action, appliedAt, clusterVersion: 1, requestedBy: 'oncall@example.com', requestReason: `INC-${cluster}` };
}

describe('the page of one cluster', () => {
  const now = Date.now();
  const own = [record('greetings-lor1', now - 2 * MIN, 'failout'), record('greetings-lor1', now - 5 * MIN, 'restore')];
  const other = record('greetings-lor10', now - 3 * MIN, 'failout');
  const failout: FailoutProperties = {
    redirects: [{ peer: 'greetings-lva1', weight: 1 }],
    ignoredRedirectEntries: 0,
    buckets: [{ offlineAt: now - MIN, onlineAt: now + 30 * MIN, requestedBy: 'oncall@example.com', reason: HOSTILE, requestId: own[0]!.requestId, stopAlarms: ['greetings-lva1-errors'] }],
  };
  let server: ConsoleServer;
  let guarded: ConsoleServer | undefined;
  let env: Record<string, string>;

  const get = (path: string, on: ConsoleServer = server, init?: RequestInit): Promise<Response> => fetch(new URL(path, on.url), init);

  beforeAll(async () => {
    const base = uniqueBase('console-cluster-page');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout }));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor10'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
    await putUri(session, `${base}/d2`, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
    await putUri(session, `${base}/d2`, 'greetings-lva1', 'h2', 'http://lva1-2:8080');
    await seedRecords(session, `${base}/requests`, [...own, other]);
    env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    // The view reads ZooKeeper in the background: until the page shows the records and the peer's hosts.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const text = await (await get('/clusters/greetings-lor1')).text();
      if ((text.includes(own[1]!.requestId) && text.includes('2 hosts')) || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }, 60_000);

  afterAll(async () => {
    await guarded?.close();
    await server?.close();
    await closeSessions();
  }, 30_000);

  it('shows its failout, its peers with their hosts, its stop alarms and its hosts, under the console\'s CSP', async () => {
    // Act
    const response = await get('/clusters/greetings-lor1');
    const text = await response.text();

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/html');
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(text).toContain('<h1>Cluster greetings-lor1 <small>(service greetings)</small></h1>');
    expect(text).toMatch(/<article class="card state-failed-out" data-cluster="greetings-lor1"/);
    expect(text).toMatch(/<tr data-peer="greetings-lva1"><th scope="row"><a href="\/clusters\/greetings-lva1">greetings-lva1<\/a><\/th><td>×1 \(100%\)<\/td>\s*<td>2 hosts<\/td><td>serving<\/td><\/tr>/);
    expect(text).toContain('<li data-alarm-name="greetings-lva1-errors">greetings-lva1-errors');
    expect(text).toContain('data-hosts="0"');
  });

  it('lists its own records and not those of a cluster whose name contains it', async () => {
    // Act
    const text = await (await get('/clusters/greetings-lor1')).text();

    // Assess
    expect([...text.matchAll(/<tr data-cluster="[^"]*"[^>]*data-request="([^"]*)"/g)].map((m) => m[1])).toEqual(own.map((r) => r.requestId));
    expect(text).not.toContain(other.requestId);
    expect(text).toContain('2 records.');
  });

  it('renders text from ZooKeeper as text', async () => {
    // Act
    const text = await (await get('/clusters/greetings-lor1')).text();

    // Assess
    expect(text).not.toContain(HOSTILE);
    expect(text).toContain('&lt;img src=x onerror=alert(1)&gt;');
  });

  it.each([
    ['a cluster it does not know', '/clusters/greetings-nope', 'The console knows no cluster “greetings-nope”'],
    ['a name that is no cluster name, percent-encoded', `/clusters/${encodeURIComponent('<script>x</script>')}`, '“&lt;script&gt;x&lt;/script&gt;” is not a cluster name'],
  ])('answers %s with a 404 page in the console\'s style', async (_name, path, words) => {
    // Act
    const response = await get(path);
    const text = await response.text();

    // Assess
    expect(response.status).toBe(404);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(text).toContain('<link rel="stylesheet" href="/static/console.css">');
    expect(text).toContain(words);
    expect(text).not.toContain('<script>');
  });

  it('links each card on the console\'s page to its cluster\'s page, and carries what the filter reads', async () => {
    // Act
    const text = await (await get('/')).text();

    // Assess
    expect(text).toContain('<a href="/clusters/greetings-lor1">greetings-lor1</a>');
    expect(text).toMatch(/data-cluster="greetings-lor1" data-key="greetings-lor1" data-fabric="lor1" data-states="failed-out"/);
    expect(text).toContain('<form id="find"');
  });

  it('answers only with the access token and only to a loopback Host, as every route', async () => {
    // Prepare
    guarded = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), token: TOKEN, queueProbeMs: 60_000 });

    // Act
    const without = await get('/clusters/greetings-lor1', guarded);
    const withToken = await get('/clusters/greetings-lor1', guarded, { headers: { authorization: `Bearer ${TOKEN}` } });
    const rebound = await new Promise<number>((resolve, reject) => {
      const req = request(new URL('/clusters/greetings-lor1', server.url), { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

    // Assess
    expect(without.status).toBe(401);
    expect([200, 404]).toContain(withToken.status);
    expect(rebound).toBe(403);
  });
});
