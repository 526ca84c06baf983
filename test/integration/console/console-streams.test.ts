import { connect, type Socket } from 'node:net';
import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { clusterDoc, putCluster, putService, serviceDoc } from '../../helpers/d2';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { consoleServerOptions } from '../../../lib/console';

// Back-pressure on the console's event streams (issue 21, item 8): clients that stop reading, made of
// raw sockets that send the request and never read again, while ZooKeeper changes keep every browser's
// patches coming. The server must pause them (what it holds for each stays bounded) and drop them
// after the stall bound, while a client that reads keeps up with the changes (it gets the latest state).

const silentLogger = pino({ level: 'silent' });
const CLUSTERS = 30;
/** Clusters changed per round. */
const PER_ROUND = 10;
const STALL_MS = 1500;
/** What the server may hold unsent for one client: Node's high-water mark plus one (large) frame. */
const BOUND = 512 * 1024;

function failout(reason: string): FailoutProperties {
  const now = Date.now();
  return { redirects: [{ peer: 'greetings-c0', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'oncall@example.com', reason, requestId: 'r-1' }] };
}

/** A client that asks for the event stream and never reads it: the socket is paused from the start. */
function stalledClient(url: URL): Promise<{ socket: Socket; read: () => Promise<{ bytes: number; ended: string }> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => {
      socket.pause();
      socket.write(`GET /events HTTP/1.1\r\nHost: ${url.host}\r\nAccept: text/event-stream\r\n\r\n`);
      // Reads what reached it once it reads again, until the connection ends (or 5 s pass).
      const read = (): Promise<{ bytes: number; ended: string }> =>
        new Promise((done) => {
          let bytes = 0;
          const timer = setTimeout(() => done({ bytes, ended: 'still open' }), 5_000);
          const end = (how: string): void => {
            clearTimeout(timer);
            done({ bytes, ended: how });
          };
          socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
          socket.on('end', () => end('ended'));
          socket.on('error', () => end('reset'));
          socket.resume();
        });
      resolve({ socket, read });
    });
    socket.once('error', reject);
  });
}

describe("the console's event streams under clients that stop reading", () => {
  let base: string;
  let server: ConsoleServer | undefined;
  const sockets: Socket[] = [];

  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await server?.close();
    server = undefined;
    await closeSessions();
  });

  it('pauses them with a bounded buffer and drops them after the stall bound; a reading client keeps up with the changes', async () => {
    // Prepare: 30 failed-out clusters with long reasons (a sections frame of some 100 KB)
    base = uniqueBase('console-streams');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-c0'));
    const reason = (i: number, round: number): string => `INC-${round} ${'r'.repeat(3000)} ${i}`;
    for (let i = 0; i < CLUSTERS; i++) await putCluster(session, `${base}/d2`, clusterDoc(`greetings-c${i}`, { failoutProperties: failout(reason(i, 0)) }));
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000, streamStallMs: STALL_MS });
    const url = new URL(server.url);
    const deadline = Date.now() + 10_000;
    while (!(await (await fetch(server.url)).text()).includes('greetings-c29') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    const reader = await fetch(`${server.url}events`);
    const body = reader.body!.getReader();
    let readBytes = 0;
    let lastRound = '';
    const reading = (async () => {
      const decoder = new TextDecoder();
      let text = '';
      for (;;) {
        const { value, done } = await body.read().catch(() => ({ value: undefined, done: true }));
        if (done) return;
        readBytes += value.length;
        text += decoder.decode(value, { stream: true });
        // Whole frames only: the round of the last change of cluster c29 the client has seen.
        const end = text.lastIndexOf('\n\n');
        for (const match of text.slice(0, end + 1).matchAll(/INC-(\d+) r+ 29\b/g)) lastRound = match[1]!;
        text = text.slice(end + 2);
      }
    })();
    const stalled = await Promise.all([1, 2, 3].map(() => stalledClient(url)));
    sockets.push(...stalled.map((c) => c.socket));

    // Act: changes every 20 ms until the stalled clients are dropped (or 30 s pass). A patch carries only
    // the cards that changed (issue 24): ten cards a round keep some 30 KB a round coming, so a client
    // that does not read fills its socket's buffers within seconds, as a whole-section frame once did.
    let round = 0;
    let maxUnsent = 0;
    const until = Date.now() + 30_000;
    while (server.eventStreams().dropped < 3 && Date.now() < until) {
      round++;
      const changed = Array.from({ length: PER_ROUND }, (_, k) => (round * PER_ROUND + k) % CLUSTERS);
      await Promise.all(changed.map((i) => putCluster(session, `${base}/d2`, clusterDoc(`greetings-c${i}`, { failoutProperties: failout(reason(i, round)) }))));
      maxUnsent = Math.max(maxUnsent, ...server.eventStreams().clients.map((c) => c.unsentBytes));
      await new Promise((r) => setTimeout(r, 20));
    }
    const streams = server.eventStreams();
    // The reading client still follows: one more change reaches it
    const final = round + 1;
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-c29', { failoutProperties: failout(reason(29, final)) }));
    const followed = Date.now() + 5_000;
    while (lastRound !== String(final) && Date.now() < followed) await new Promise((r) => setTimeout(r, 20));
    // A dropped client that reads again finds its connection gone, after far less than was sent
    const afterwards = await stalled[0]!.read();
    await body.cancel();
    await reading;

    // Assess
    expect({ dropped: streams.dropped, clients: streams.clients.length }).toEqual({ dropped: 3, clients: 1 });
    expect(maxUnsent).toBeLessThanOrEqual(BOUND);
    expect(lastRound).toBe(String(final));
    // (Linux reports a reset that arrives behind unread data as the end of the stream.)
    expect(afterwards.ended).not.toBe('still open');
    expect(afterwards.bytes).toBeLessThan(readBytes);
  }, 60_000);
});
