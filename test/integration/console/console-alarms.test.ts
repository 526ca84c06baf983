import { createServer, type Server } from 'node:http';
import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { clusterDoc, putCluster, putService, serviceDoc } from '../../helpers/d2';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { consoleServerOptions } from '../../../lib/console';

// The stop alarms' states on the console over a real ZooKeeper and a real loopback alarm source (the
// local evaluator's JSON, as `--alarms-url` / FAILOUT_ALARMS_URL): read by the server only while a
// card shows an alarm, shown next to the name (ALARM marked), pushed by the event stream, and the
// names kept with one line why when the source fails.

const silentLogger = pino({ level: 'silent' });
const ALARM = 'greetings-5xx';

function failout(stopAlarms: string[]): FailoutProperties {
  const now = Date.now();
  return {
    redirects: [{ peer: 'greetings-lva1', weight: 1 }],
    ignoredRedirectEntries: 0,
    buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'oncall@example.com', reason: 'INC-1', requestId: 'r-1', stopAlarms }],
  };
}

/** A loopback alarm source: `GET /alarms` answers `body` (or `status`), counting the reads. */
class AlarmSource {
  reads = 0;
  status = 200;
  states: Record<string, string> = {};
  private readonly server: Server = createServer((_req, res) => {
    this.reads++;
    if (this.status !== 200) return res.writeHead(this.status).end('down');
    const alarms = Object.entries(this.states).map(([name, state]) => ({ name, state, since: Date.now() - 1000 }));
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ alarms }));
  });

  static async start(): Promise<AlarmSource> {
    const source = new AlarmSource();
    await new Promise<void>((resolve) => source.server.listen(0, '127.0.0.1', resolve));
    return source;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as { port: number }).port}/alarms`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('the console shows the states of the stop alarms', () => {
  let base: string;
  let source: AlarmSource;
  let server: ConsoleServer | undefined;

  beforeEach(async () => {
    base = uniqueBase('console-alarms');
    source = await AlarmSource.start();
    source.states = { [ALARM]: 'ALARM', 'greetings-p99': 'OK' };
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
    await source.close();
    await closeSessions();
  });

  async function startConsole(flags: { alarmsUrl?: string } = { alarmsUrl: source.url }, env: Record<string, string> = {}): Promise<ConsoleServer> {
    const all = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester', ...env };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0', ...flags }, all, silentLogger), queueProbeMs: 60_000 });
    return server;
  }

  async function page(): Promise<string> {
    return (await fetch(server!.url)).text();
  }

  async function pageShowing(text: string, timeoutMs = 12_000): Promise<string> {
    let html = '';
    await eventually(async () => (html = await page()).includes(text), timeoutMs, `the page to show ${text}`);
    return html;
  }

  it('reads nothing while no card shows an alarm, then shows the state next to the name, ALARM marked, and follows a change', async () => {
    // Prepare
    await startConsole();
    await pageShowing('greetings-lor1');
    await new Promise((r) => setTimeout(r, 1500));
    const readsWithoutAlarms = source.reads;

    // Act: a failout naming the alarm, then the alarm clears
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM]) }));
    const firing = await pageShowing('data-alarm-state="ALARM"');
    const readsAfterFailout = source.reads;
    source.states = { [ALARM]: 'OK' };
    const cleared = await pageShowing('data-alarm-state="OK"');

    // Assess
    expect(readsWithoutAlarms).toBe(0);
    expect(readsAfterFailout).toBeGreaterThanOrEqual(1);
    expect(firing).toContain(`${ALARM} <span class="alarm-state firing" data-alarm="${ALARM}" data-alarm-state="ALARM">ALARM</span>`);
    expect(firing).toContain(`Alarm states from ${source.url}: 1 read`);
    expect(cleared).toContain(`${ALARM} <span class="alarm-state" data-alarm="${ALARM}" data-alarm-state="OK">OK</span>`);
  }, 30_000);

  it('reads at most once a second whatever the number of browsers and streams', async () => {
    // Prepare
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM, 'greetings-p99']) }));
    await startConsole();
    await pageShowing('data-alarm-state="ALARM"');
    const streams = await Promise.all([1, 2, 3].map(() => fetch(`${server!.url}events`)));

    // Act: three streams and a page load every 100 ms for 4 s
    const started = source.reads;
    const deadline = Date.now() + 4000;
    while (Date.now() < deadline) {
      await page();
      await new Promise((r) => setTimeout(r, 100));
    }
    await Promise.all(streams.map((s) => s.body!.cancel()));

    // Assess: about four reads in 4 s (a 1 s period), not one per browser or per page load (40)
    expect(source.reads - started).toBeGreaterThanOrEqual(2);
    expect(source.reads - started).toBeLessThanOrEqual(5);
  }, 30_000);

  it('follows an ALARM transition at the 1 s pace, and names the alarms in ALARM', async () => {
    // Prepare: a failout whose stop alarms are both OK, shown
    source.states = { [ALARM]: 'OK', 'greetings-p99': 'OK' };
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM, 'greetings-p99']) }));
    await startConsole();
    await pageShowing(`data-alarm="${ALARM}" data-alarm-state="OK"`);

    // Act: one alarm fires at the source
    source.states = { [ALARM]: 'ALARM', 'greetings-p99': 'OK' };
    const firing = await pageShowing(`data-alarm="${ALARM}" data-alarm-state="ALARM"`, 5000);

    // Assess (the pace itself is the poller's, pinned by its unit tests; no wall-clock bound here)
    expect(firing).toContain(`1 in ALARM: ${ALARM}</strong>`);
    expect(firing).toContain(`data-alarm="greetings-p99" data-alarm-state="OK"`);
  }, 30_000);

  it('shows the state of a stop alarm added to a running failout, read for it when the failout changed', async () => {
    // Prepare: a failout with one stop alarm, read
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM]) }));
    await startConsole();
    await pageShowing(`data-alarm="${ALARM}" data-alarm-state="ALARM"`);

    // Act: the failout is amended with a second alarm
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM, 'greetings-p99']) }));
    const amended = await pageShowing('data-alarm="greetings-p99" data-alarm-state="OK"', 5000);

    // Assess: the new alarm's state is on the card (read at once: alarms.ts), the old one kept
    expect(amended).toContain(`data-alarm="${ALARM}" data-alarm-state="ALARM"`);
  }, 30_000);

  it('pushes the states to browsers in the event stream', async () => {
    // Prepare
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM]) }));
    await startConsole();
    const response = await fetch(`${server!.url}events`, { signal: AbortSignal.timeout(12_000) });
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';

    // Act: read frames until one carries the state
    try {
      while (!text.includes('data-alarm-state=\\"ALARM\\"')) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } finally {
      await reader.cancel().catch(() => undefined);
    }

    // Assess
    expect(text).toContain('event: sections');
    expect(text).toContain('data-alarm-state=\\"ALARM\\"');
  }, 30_000);

  it('keeps the names and says in one line why when the source fails, and shows the states again when it answers', async () => {
    // Prepare
    source.status = 500;
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM]) }));
    await startConsole();

    // Act
    const down = await pageShowing('data-alarms="unreachable"');
    source.status = 200;
    const back = await pageShowing('data-alarm-state="ALARM"');

    // Assess
    expect(down).toContain(`stops when an alarm fires: <span class="alarms">${ALARM}</span>`);
    expect(down).toContain(`<strong>Alarm states could not be read</strong> from ${source.url}: could not read alarm states from ${source.url}: HTTP 500.`);
    expect(down).toContain('FAILED OUT');
    expect(back).not.toContain('data-alarms="unreachable"');
  }, 30_000);

  it('takes FAILOUT_ALARMS_URL from the environment (as npm start passes it), and says once when no source is configured', async () => {
    // Prepare
    await putCluster(await openSession(), `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: failout([ALARM]) }));

    // Act
    await startConsole({}, { FAILOUT_ALARMS_URL: source.url });
    const fromEnv = await pageShowing('data-alarm-state="ALARM"');
    await server!.close();
    server = undefined;
    const readsBefore = source.reads;
    await startConsole({}, {});
    const off = await pageShowing('FAILED OUT');
    await new Promise((r) => setTimeout(r, 1000));

    // Assess
    expect(fromEnv).toContain(`Alarm states from ${source.url}`);
    expect(off.match(/Alarm states: not configured/g)).toHaveLength(1);
    expect(off).toContain(`<span class="alarms">${ALARM}</span>`);
    expect(source.reads).toBe(readsBefore);
  }, 30_000);
});
