import { runFailout } from '../../../functions/failout-cli/cli';
import { ConsoleConfigError, ConsoleServer, consoleServerOptions } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { createServer, request } from 'node:http';
import { connect as connect_, type Socket } from 'node:net';
import pino from 'pino';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { OPEN_ACL } from '../../../lib/zk';

// The console's server over a real ZooKeeper: the page and the live sections render data as text,
// server-sent events follow ZooKeeper's watches, and every action needs the CSRF token and the same
// origin. No queue is configured: nothing here may be sent.

const XSS = '<img src=x onerror=alert(1)>';
const silentLogger = pino({ level: 'silent' });

function failout(reason: string): FailoutProperties {
  const now = Date.now();
  return {
    redirects: [{ peer: 'greetings-lva1', weight: 2 }],
    ignoredRedirectEntries: 0,
    buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'oncall@example.com', reason, requestId: 'r-1', stopAlarms: ['greetings-5xx'], drill: 'weekly-lor1' }],
  };
}

/** Reads server-sent events until `until` accepts one; returns the frames read. */
async function readEvents(url: string, until: (event: string, data: string) => boolean, timeoutMs = 10_000): Promise<{ event: string; data: string }[]> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const frames: { event: string; data: string }[] = [];
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error('stream ended');
      buffer += decoder.decode(value, { stream: true });
      let end;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const frame = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = /^event: (.*)$/m.exec(frame)?.[1];
        const data = /^data: (.*)$/m.exec(frame)?.[1];
        if (event === undefined || data === undefined) continue;
        frames.push({ event, data });
        if (until(event, data)) return frames;
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** The cards a `patch` event's data upserts, in every group. */
function cardsOf(data: string): { id: string; html: string }[] {
  const cards = (JSON.parse(data) as { cards?: Record<string, { upsert?: { id: string; html: string }[] }> }).cards ?? {};
  return Object.values(cards).flatMap((list) => list.upsert ?? []);
}

describe('the console server', () => {
  let base: string;
  let server: ConsoleServer | undefined;

  beforeEach(async () => {
    base = uniqueBase('console');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout(XSS) }));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
    await putUri(session, `${base}/d2`, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await closeSessions();
  });

  /** Polls the page until it shows `text`. */
  async function pageShowing(text: string): Promise<{ html: string; headers: Headers }> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const response = await fetch(server!.url);
      const html = await response.text();
      if (html.includes(text) || Date.now() > deadline) return { html, headers: response.headers };
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it('renders a reason from ZooKeeper as text, with a policy that forbids inline script', async () => {
    // Act
    const { html, headers } = await pageShowing('FAILED OUT');

    // Assess
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).not.toContain(XSS);
    expect(html).toContain('greetings-5xx');
    expect(html).toContain('drill weekly-lor1');
    expect(headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(headers.get('x-frame-options')).toBe('DENY');
  });

  it('shows no card for a D2 symlink ($ node): it holds a path, not a cluster of its own', async () => {
    // Prepare: $greetingsMaster links to greetings-lva1 (docs/observer.md "Symlinks")
    const session = await openSession();
    for (const dir of ['clusters', 'uris']) await session.create(`${base}/d2/${dir}/$greetingsMaster`, Buffer.from(`${base}/d2/${dir}/greetings-lva1`), { acl: OPEN_ACL });

    // Act: a cluster created after it, so the page has listed the $ node when it shows that one
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-ltx1'));
    await pageShowing('greetings-ltx1');
    await new Promise((r) => setTimeout(r, 300));
    const html = await (await fetch(server!.url)).text();

    // Assess
    expect(html).toContain('greetings-ltx1');
    expect(html).not.toContain('$greetingsMaster');
    expect(html).not.toContain('malformed failout');
  });

  it('sends the whole state first, then by server-sent events only the card that changed when ZooKeeper changes', async () => {
    // Prepare
    await pageShowing('FAILED OUT');
    const session = await openSession();
    const served = (event: string, data: string): boolean => {
      if (event === 'sections') {
        const clusters = (JSON.parse(data) as { clusters?: string }).clusters;
        return clusters !== undefined && clusters.includes('greetings-lor1') && !clusters.includes('FAILED OUT');
      }
      const card = cardsOf(data).find((c) => c.id === 'greetings-lor1');
      return event === 'patch' && card !== undefined && !card.html.includes('FAILED OUT');
    };
    const events = readEvents(`${server!.url}events`, served);

    // Act: a failout with another reason, then none
    await new Promise((r) => setTimeout(r, 200));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout('second <b>reason</b>') }));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    const frames = await events;

    // Assess: the first frame is the whole state (escaped); a later one says the cluster serves again
    expect(frames[0]!.event).toBe('sections');
    expect(Object.keys(JSON.parse(frames[0]!.data) as object).sort()).toEqual(['clusters', 'drills', 'fabrics', 'history-rows', 'planes', 'status']);
    expect(frames[0]!.data).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(frames.length).toBeGreaterThan(1);
    expect(frames.map((f) => f.data).join('')).not.toContain('<b>reason');
    // Later frames are patches of lor1's card alone: lva1's card did not change and is not sent again
    const patches = frames.slice(1).filter((f) => f.event === 'patch');
    expect(patches.length).toBeGreaterThan(0);
    expect(patches.flatMap((f) => cardsOf(f.data).map((c) => c.id))).toEqual(expect.arrayContaining(['greetings-lor1']));
    expect(patches.flatMap((f) => cardsOf(f.data).map((c) => c.id))).not.toContain('greetings-lva1');
  });

  it('sends a changed card before the fabric table, and the table (its cell for that cluster) right after', async () => {
    // Prepare
    await pageShowing('FAILED OUT');
    const session = await openSession();
    // The fabric section comes whole (sections.fabrics) or as the rows and cards that changed (fabrics).
    const fabricsOf = (data: string): string | undefined => {
      const patch = JSON.parse(data) as { sections?: { fabrics?: string }; fabrics?: { rows?: { upsert?: { html: string }[] } } };
      return patch.sections?.fabrics ?? patch.fabrics?.rows?.upsert?.map((row) => row.html).join('');
    };
    let cardSeen = false;
    const events = readEvents(`${server!.url}events`, (event, data) => {
      if (event !== 'patch') return false;
      cardSeen ||= cardsOf(data).some((c) => c.id === 'greetings-lor1' && !c.html.includes('FAILED OUT'));
      return cardSeen && fabricsOf(data) !== undefined;
    });

    // Act: the failout ends
    await new Promise((r) => setTimeout(r, 200));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    const frames = await events;

    // Assess: the patch with the card carries no fabric table; a later patch brings it, lor1 serving there too
    expect(frames[0]!.event).toBe('sections');
    expect((JSON.parse(frames[0]!.data) as { fabrics: string }).fabrics).toContain('FAILED OUT');
    const patches = frames.filter((f) => f.event === 'patch');
    const withCard = patches.findIndex((f) => cardsOf(f.data).some((c) => c.id === 'greetings-lor1'));
    const withFabrics = patches.findIndex((f) => fabricsOf(f.data) !== undefined);
    expect(withCard).toBeGreaterThanOrEqual(0);
    expect(fabricsOf(patches[withCard]!.data)).toBeUndefined();
    expect(withFabrics).toBeGreaterThan(withCard);
    expect(fabricsOf(patches[withFabrics]!.data)).not.toContain('FAILED OUT');
  });

  it('sends the whole state to a stream only when its browser does not have that version already', async () => {
    // Prepare: a page and the version it was rendered from, once the view has read everything (lva1's host too)
    await pageShowing('FAILED OUT');
    const html = (await pageShowing('<span class="hosts">1 host</span>')).html;
    const version = /name="console-version" content="([^"]+)"/.exec(html)![1]!;
    /** The first 800 ms of a stream opened with `init`. */
    const firstText = async (path: string, init: RequestInit = {}): Promise<string> => {
      const response = await fetch(`${server!.url}${path}`, init);
      const reader = response.body!.getReader();
      const decoder = new TextDecoder();
      let text = '';
      const stop = setTimeout(() => void reader.cancel(), 800);
      for (;;) {
        const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      clearTimeout(stop);
      return text;
    };

    // Act
    const samePage = await firstText(`events?v=${encodeURIComponent(version)}`);
    const reconnected = await firstText(`events?v=${encodeURIComponent(version)}`, { headers: { 'last-event-id': version } });
    const olderState = await firstText(`events?v=${encodeURIComponent(version)}`, { headers: { 'last-event-id': `${version}0` } });
    const newPage = await firstText('events');

    // Assess: nothing to catch up on for the page's own version; the whole state, with its id, otherwise
    expect(samePage).toBe('retry: 1000\n\n');
    expect(reconnected).toBe('retry: 1000\n\n');
    expect(olderState).toContain(`event: sections\nid: ${version}\ndata: `);
    expect(newPage).toContain(`event: sections\nid: ${version}\ndata: `);
  });

  it.each([
    ['no CSRF token', {}, 'missingToken'],
    ['a wrong CSRF token', { 'x-csrf-token': 'wrong' }, 'wrongToken'],
    ['another origin', { 'x-csrf-token': 'TOKEN', origin: 'http://evil.example' }, 'crossOrigin'],
    ['a cross-site fetch', { 'x-csrf-token': 'TOKEN', 'sec-fetch-site': 'cross-site' }, 'crossOrigin'],
  ])('refuses an action with %s', async (_case, headers: Record<string, string>, reason) => {
    // Prepare
    const token = /name="csrf-token" content="([^"]+)"/.exec(await (await fetch(server!.url)).text())![1]!;
    const sent = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v === 'TOKEN' ? token : v]));

    // Act
    const response = await fetch(`${server!.url}api/check`, { method: 'POST', headers: { 'content-type': 'application/json', ...sent }, body: JSON.stringify({ action: 'restore', fields: { cluster: 'greetings-lor1' } }) });

    // Assess
    expect({ status: response.status, reason: ((await response.json()) as { reason: string }).reason }).toEqual({ status: 403, reason });
  });

  it('refuses a form post (not JSON) even with the token', async () => {
    // Prepare
    const token = /name="csrf-token" content="([^"]+)"/.exec(await (await fetch(server!.url)).text())![1]!;

    // Act
    const response = await fetch(`${server!.url}api/check`, { method: 'POST', headers: { 'content-type': 'text/plain', 'x-csrf-token': token }, body: 'action=restore' });

    // Assess
    expect(response.status).toBe(403);
  });

  it('checks a same-origin action with the token through the worker\'s judge: an unknown peer is rejected with its reason', async () => {
    // Prepare
    await pageShowing('FAILED OUT');
    const page = await fetch(server!.url);
    const token = /name="csrf-token" content="([^"]+)"/.exec(await page.text())![1]!;

    // Act
    const response = await fetch(`${server!.url}api/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': token, origin: server!.url.replace(/\/$/, '') },
      body: JSON.stringify({ action: 'failout', fields: { cluster: 'greetings-lor1', peers: 'greetings-nope9', for: '10m' } }),
    });
    const bad = await fetch(`${server!.url}api/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': token },
      body: JSON.stringify({ action: 'failout', fields: { cluster: 'greetings-lor1', peers: 'greetings-lva1', for: 'soon' } }),
    });

    // Assess
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'unknownPeer' }));
    // In the page's words, naming the field it marks (issue 24, item 8), not the CLI's flag.
    expect(await bad.json()).toEqual({ kind: 'invalid', message: '“For” "soon" is not a duration (examples: 90m, 2h, 1h30m, PT2H)', field: 'f-for' });
  });

  it('stops at once while a client stalls: one that reads none of its answers, one that sent half a request', async () => {
    // Prepare: 40 pipelined requests for the chart library (about 2 MB) that the client never reads,
    // so the server's writes back up; and a request whose headers never end. (Seen as `failout console`
    // waiting tens of seconds after Ctrl-C for a fetch whose body nobody read.)
    const { port } = new URL(server!.url);
    const connect = (): Promise<Socket> =>
      new Promise((resolve, reject) => {
        const socket = connect_({ host: '127.0.0.1', port: Number(port) }, () => resolve(socket));
        socket.once('error', reject);
      });
    const stalled = await connect();
    stalled.pause();
    stalled.write('GET /static/uplot/uPlot.iife.min.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'.repeat(40));
    const halfSent = await connect();
    halfSent.write('GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const ended = [stalled, halfSent].map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    await new Promise((r) => setTimeout(r, 300));

    // Act
    const closing = server!.close().then(() => 'closed');
    const outcome = await Promise.race([closing, new Promise((r) => setTimeout(() => r('still waiting after 5 s'), 5000).unref())]);
    stalled.destroy();
    halfSent.destroy();
    await Promise.all(ended);
    await closing;
    server = undefined;

    // Assess
    expect(outcome).toBe('closed');
  });

  it('answers only to a loopback Host (no DNS rebinding)', async () => {
    // Act
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(server!.url, { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });

    // Assess
    expect(status).toBe(403);
  });
});

describe('the console access rules', () => {
  it('will not listen off loopback without a token, as a server or as `failout console`', async () => {
    // Prepare
    let stderr = '';
    const io = { stdout: () => undefined, stderr: (t: string) => void (stderr += t), env: {}, now: () => Date.now() };

    // Act
    const code = await runFailout(['console', '--listen', '0.0.0.0', '--port', '0'], io);
    const start = ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, {}, silentLogger), host: '0.0.0.0' });

    // Assess
    expect(code).toBe(2);
    expect(stderr).toContain('needs an access token');
    await expect(start).rejects.toBeInstanceOf(ConsoleConfigError);
  });

  it('with a token, serves only who presents it (cookie from /login, or bearer)', async () => {
    // Prepare
    const token = 'a'.repeat(40);
    const server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0', token }, {}, silentLogger), queueProbeMs: 60_000 });
    try {
      // Act
      const without = await fetch(server.url);
      const login = await fetch(`${server.url}login?token=${token}`, { redirect: 'manual' });
      const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
      const withCookie = await fetch(server.url, { headers: { cookie } });
      const withBearer = await fetch(server.url, { headers: { authorization: `Bearer ${token}` } });
      const wrongLogin = await fetch(`${server.url}login?token=nope`, { redirect: 'manual' });

      // Assess
      expect([without.status, login.status, withCookie.status, withBearer.status, wrongLogin.status]).toEqual([401, 302, 200, 200, 401]);
      expect(login.headers.get('set-cookie')).toContain('HttpOnly; SameSite=Strict');
      expect(await withCookie.text()).toContain('is not reachable');
    } finally {
      await server.close();
    }
  });
});

describe('the console when its dependencies are out of reach', () => {
  it('says ZooKeeper and the queue are unreachable, still checks a request without judging it, and refuses to pretend it was sent', async () => {
    // Prepare: nothing listens on these ports
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const port = (probe.address() as { port: number }).port;
        probe.close(() => resolve(port));
      });
    });
    const env = {
      ZK_CONNECT: `127.0.0.1:${closed}`,
      FAILOUT_QUEUE_URL: `http://127.0.0.1:${closed}/000000000000/failout-requests.fifo`,
      SQS_ENDPOINT: `http://127.0.0.1:${closed}`,
      AWS_MAX_ATTEMPTS: '1',
    };
    const server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 200 });
    try {
      const deadline = Date.now() + 15_000;
      let html = '';
      while (!(html.includes('is not reachable</strong> (unreachable') && html.includes('The request queue is not reachable')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 200));
        html = await (await fetch(server.url)).text();
      }
      const token = /name="csrf-token" content="([^"]+)"/.exec(html)![1]!;
      const post = (path: string, body: unknown): Promise<Response> =>
        fetch(`${server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': token }, body: JSON.stringify(body) });

      // Act
      const check = (await (await post('api/check', { action: 'restore', fields: { cluster: 'greetings-lor1' } })).json()) as { kind: string; judged: boolean; body: { requestId: string } };
      const send = await post('api/send', { action: 'restore', fields: { cluster: 'greetings-lor1' }, requestId: check.body.requestId });

      // Assess
      expect(html).toContain('Check ZK_CONNECT');
      expect(html).toContain('check FAILOUT_QUEUE_URL');
      expect({ kind: check.kind, judged: check.judged }).toEqual({ kind: 'ready', judged: false });
      expect(send.status).toBe(503);
      expect(await send.json()).toEqual(expect.objectContaining({ kind: 'unavailable', requestId: check.body.requestId, message: expect.stringContaining('it is safe to send again') }));
    } finally {
      await server.close();
    }
  }, 30_000);
});
