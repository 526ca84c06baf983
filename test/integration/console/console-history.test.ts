import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import type { HistoryAnswer } from '../../../lib/console/history-routes';
import type { RequestRecord } from '../../../lib/requests';
import { clusterDoc, putCluster, putService, serviceDoc } from '../../helpers/d2';
import { historyRecords, seedRecords } from '../../helpers/history-records';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { readCsv } from '../../helpers/csv';

// The history reaches back (issue 24, item 5), over a real ZooKeeper holding 5,000 request records:
// the console counts them all, pages by cursor to the oldest, filters by substring, outcome, action
// and time on the server, says when nothing matches, and exports every matching record as CSV and
// JSON; the live first page stays one page. No queue: nothing is sent.

const COUNT = 5000;
const TOKEN = 'history-token-0123456789abcdef0123456789';
const silentLogger = pino({ level: 'silent' });

describe('the console history over 5,000 records', () => {
  const now = Date.now();
  const records = historyRecords(COUNT, now);
  const lor1 = records.filter((r) => r.cluster!.toLowerCase().includes('lor1'));
  let base: string;
  let server: ConsoleServer;
  let guarded: ConsoleServer | undefined;

  const get = (path: string, init?: RequestInit): Promise<Response> => fetch(new URL(path, server.url), init);
  async function history(query: string): Promise<HistoryAnswer> {
    const response = await get(`/api/history${query === '' ? '' : `?${query}`}`);
    expect(response.status).toBe(200);
    return (await response.json()) as HistoryAnswer;
  }
  const ids = (rows: string): string[] => [...rows.matchAll(/data-request="([^"]*)"/g)].map((m) => m[1]!);

  beforeAll(async () => {
    base = uniqueBase('console-history');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    await seedRecords(session, `${base}/requests`, records);
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    // The view reads the records in the background.
    const deadline = Date.now() + 60_000;
    while ((await history('limit=0')).total < COUNT && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
  }, 120_000);

  afterAll(async () => {
    await guarded?.close();
    await server?.close();
    await closeSessions();
  }, 30_000);

  it('counts every record, and those matching a filter', async () => {
    // Act
    const all = await history('limit=0');
    const filtered = await history('cluster=lor1&limit=0');

    // Assess
    expect({ total: all.total, matched: all.matched }).toEqual({ total: COUNT, matched: COUNT });
    expect({ total: filtered.total, matched: filtered.matched }).toEqual({ total: COUNT, matched: lor1.length });
  });

  it('reaches every record exactly once paging older from the newest, ending at the oldest', async () => {
    // Act
    const seen: string[] = [];
    let answer = await history('limit=500');
    for (;;) {
      seen.push(...ids(answer.rows));
      if (answer.older === null) break;
      answer = await history(`limit=500&before=${encodeURIComponent(answer.older)}`);
    }

    // Assess
    expect(seen).toHaveLength(COUNT);
    expect(seen).toEqual(records.map((r) => r.requestId));
  }, 60_000);

  it('pages a substring filter (“lor1” finds greetings-lor1 and hello-LOR1) to its oldest record, and back by newer', async () => {
    // Act
    const first = await history('cluster=lor1');
    const second = await history(`cluster=lor1&before=${encodeURIComponent(first.older!)}`);
    const oldest = await history('cluster=lor1&oldest=1');
    const newerThanOldest = await history(`cluster=lor1&after=${encodeURIComponent(oldest.newer!)}`);

    // Assess
    expect(ids(first.rows)).toEqual(lor1.slice(0, 100).map((r) => r.requestId));
    expect({ first: first.first, count: first.count, newer: first.newer }).toEqual({ first: 1, count: 100, newer: null });
    expect(ids(second.rows)).toEqual(lor1.slice(100, 200).map((r) => r.requestId));
    expect(second.summary).toBe(`Records 101–200 of ${lor1.length.toLocaleString('en-US')} matching cluster “lor1” (5,000 in all).`);
    expect(ids(oldest.rows).at(-1)).toBe(lor1.at(-1)!.requestId);
    expect(oldest.older).toBeNull();
    expect(ids(newerThanOldest.rows)).toEqual(lor1.slice(lor1.length - 200, lor1.length - 100).map((r) => r.requestId));
  });

  it.each([
    ['by=alice', (r: RequestRecord) => r.requestedBy === 'Alice@Example.com'],
    ['outcome=rejected', (r: RequestRecord) => r.status === 'rejected'],
    ['action=extend&outcome=applied', (r: RequestRecord) => r.action === 'extend' && r.status === 'applied'],
    ['cluster=LOR1&by=GUARD', (r: RequestRecord) => r.cluster!.toLowerCase().includes('lor1') && r.requestedBy === 'failout-guard'],
  ])('filters %s on the server', async (query, oracle) => {
    // Act
    const answer = await history(`${query}&limit=500`);

    // Assess
    const expected = records.filter(oracle);
    expect(answer.matched).toBe(expected.length);
    expect(ids(answer.rows)).toEqual(expected.slice(0, 500).map((r) => r.requestId));
  });

  it('filters by a time range, the `to` minute included', async () => {
    // Prepare: records 10 … 19 (one a minute), by their own minutes
    const minute = (r: RequestRecord): string => new Date(r.appliedAt).toISOString().slice(0, 16);
    const from = minute(records[19]!);
    const to = minute(records[10]!);

    // Act
    const answer = await history(`from=${from}&to=${to}`);

    // Assess
    expect(ids(answer.rows)).toEqual(records.slice(10, 20).map((r) => r.requestId));
  });

  it('says which filter matched nothing, as text', async () => {
    // Act
    const answer = await history(`cluster=${encodeURIComponent('<b>nowhere</b>')}&outcome=rejected`);

    // Assess
    expect(answer.matched).toBe(0);
    expect(answer.rows).toBe('<tr class="empty"><td colspan="8">No records match cluster “&lt;b&gt;nowhere&lt;/b&gt;”, outcome rejected.</td></tr>');
    expect(answer.summary).toBe('0 of 5,000 records match cluster “&lt;b&gt;nowhere&lt;/b&gt;”, outcome rejected.');
  });

  it('refuses a query it cannot answer, saying why', async () => {
    // Act
    const response = await get('/api/history?from=yesterday');

    // Assess
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ kind: 'invalid', message: expect.stringContaining('from: not a time') as unknown });
  });

  it('exports every matching record as CSV, a download whose cells a spreadsheet cannot run', async () => {
    // Act
    const response = await get('/api/history.csv?cluster=lor1');
    const rows = readCsv(await response.text());

    // Assess
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="failout-history-\d{8}T\d{6}Z\.csv"$/);
    expect(response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect(rows).toHaveLength(lor1.length + 1);
    const id = rows[0]!.indexOf('requestId');
    const message = rows[0]!.indexOf('message');
    expect(rows.slice(1).map((r) => r[id])).toEqual(lor1.map((r) => r.requestId));
    const rejected = rows.slice(1).find((r) => r[message] !== '')!;
    expect(rejected[message]).toMatch(/^'=peer, "greetings-nope\d+"\nis unknown$/);
  });

  it('exports every matching record as JSON, as the records are', async () => {
    // Act
    const response = await get('/api/history.json?outcome=rejected');
    const body = (await response.json()) as { filter: string; total: number; matched: number; records: RequestRecord[] };

    // Assess
    const rejected = records.filter((r) => r.status === 'rejected');
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(response.headers.get('content-disposition')).toMatch(/^attachment; filename="failout-history-\d{8}T\d{6}Z\.json"$/);
    expect({ filter: body.filter, total: body.total, matched: body.matched }).toEqual({ filter: 'outcome rejected', total: COUNT, matched: rejected.length });
    expect(body.records).toEqual(rejected);
  });

  it('sends the browsers only the newest page live, not 5,000 rows', async () => {
    // Act
    const page = await (await get('/')).text();
    const body = /<tbody id="history-rows">([\s\S]*?)<\/tbody>/.exec(page)![1]!;

    // Assess
    expect(ids(body)).toEqual(records.slice(0, 100).map((r) => r.requestId));
  });

  it('serves the history\'s script, which the page loads before its own', async () => {
    // Act
    const script = await get('/static/history.js');
    const page = await (await get('/')).text();

    // Assess
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toMatch(/^(application|text)\/javascript/);
    const history = page.indexOf('<script src="/static/history.js" defer></script>');
    expect(history).toBeGreaterThan(-1);
    expect(page.indexOf('<script src="/static/console.js" defer></script>')).toBeGreaterThan(history);
  });

  it('asks for the access token on the history and its exports when the console has one', async () => {
    // Prepare
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    guarded = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), token: TOKEN, queueProbeMs: 60_000 });

    // Act
    const codes = await Promise.all(['/api/history', '/api/history.csv', '/api/history.json'].map(async (path) => (await fetch(new URL(path, guarded!.url))).status));
    const withToken = await fetch(new URL('/api/history.csv', guarded.url), { headers: { authorization: `Bearer ${TOKEN}` } });

    // Assess
    expect(codes).toEqual([401, 401, 401]);
    expect(withToken.status).toBe(200);
  });
});
