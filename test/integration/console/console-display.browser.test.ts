import type { Page } from 'playwright-core';
import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { newRequestId, requestRecordPath, type RequestRecord } from '../../../lib/requests';
import { encodeRequestRecord } from '../../../lib/requests/request-record';
import { OPEN_ACL } from '../../../lib/zk';
import { useBrowser } from '../../helpers/browser';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';
import { consoleServerOptions } from '../../../lib/console';

// What the console shows of data written straight into ZooKeeper (as the worker, or anyone with write
// access, would leave it), read in Chromium: a forced failout says what force overrode, on its card and
// in the history (issue 21, item 4); control and bidi characters in any text show as visible escapes,
// as the CLI prints them (item 8). No queue: nothing is sent.

const silentLogger = pino({ level: 'silent' });
/** A right-to-left override, an ESC sequence that clears a terminal, NUL and a C1 CSI. */
const HOSTILE = 'INC-9 \u202Egnp.exe\u001b[2J\u0000\u009b1m';
const HOSTILE_SHOWN = 'INC-9 \\u202egnp.exe\\u001b[2J\\u0000\\u009b1m';
/** The characters the CLI neutralises (lib/text), none of which may reach the page's text. */
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

// The little of the DOM used in page functions (this project compiles without the DOM's types).
declare const document: { body: { innerText: string } };

function forcedFailout(): FailoutProperties {
  const now = Date.now();
  return {
    redirects: [{ peer: 'greetings-lva1', weight: 1 }],
    ignoredRedirectEntries: 0,
    buckets: [{ offlineAt: now - 1000, onlineAt: now + 3_600_000, requestedBy: 'op\u2066erator@example.com', reason: HOSTILE, requestId: 'r-forced', stopAlarms: ['greetings-5xx\u202E'], forced: ['capacity', 'stranding'] }],
  };
}

describe('the console shows data from ZooKeeper as it is, and safely', () => {
  let base: string;
  let server: ConsoleServer | undefined;
  const chromium = useBrowser();
  let page: Page;
  const records: Record<string, string> = {};

  beforeEach(async () => {
    // Prepare: a forced failout of lor1 and three records: forced (what it overrode), forced with
    // nothing to override, and one whose reason carries the hostile characters
    base = uniqueBase('console-display');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1', { failoutProperties: forcedFailout() }));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
    await putUri(session, `${base}/d2`, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
    const now = Date.now();
    const record = (extra: Partial<RequestRecord>): RequestRecord => ({ requestId: newRequestId(now), status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt: now, clusterVersion: 1, requestedBy: 'oncall@example.com', ...extra });
    const written = { peerState: record({ forced: ['peerState'] }), nothing: record({ forced: [] }), hostile: record({ requestReason: HOSTILE, requestedBy: 'm\u202Eallory' }) };
    for (const [name, r] of Object.entries(written)) {
      records[name] = r.requestId;
      await session.create(requestRecordPath(`${base}/requests`, r.requestId), encodeRequestRecord(r), { parents: true, acl: OPEN_ACL });
    }
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    page = await chromium.browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.goto(server.url);
    await page.locator('article.card[data-cluster="greetings-lor1"] .badge[data-state="failed-out"]').waitFor({ timeout: 10_000 });
    await page.locator(`#history-rows tr[data-request="${records.hostile}"]`).waitFor({ timeout: 10_000 });
  }, 30_000);

  afterEach(async () => {
    await page?.close();
    await server?.close();
    server = undefined;
    await closeSessions();
  });

  it('shows on the card of a forced failout, and in its history rows, what force overrode', async () => {
    // Act
    const card = await page.locator('article.card[data-cluster="greetings-lor1"] .forced').textContent();
    const peerState = await page.locator(`#history-rows tr[data-request="${records.peerState}"] .forced`).textContent();
    const nothing = await page.locator(`#history-rows tr[data-request="${records.nothing}"] .forced`).textContent();
    const unforced = await page.locator(`#history-rows tr[data-request="${records.hostile}"] .forced`).count();

    // Assess
    expect(card).toBe('forced: overrode capacity, stranding');
    expect(peerState).toBe('forced: overrode peer state');
    expect(nothing).toBe('forced: nothing needed overriding');
    expect(unforced).toBe(0);
  });

  it('shows control and bidi characters from ZooKeeper as visible escapes, as the CLI does: on the card and in the history', async () => {
    // Act
    const reason = await page.locator('article.card[data-cluster="greetings-lor1"] .reason').textContent();
    const who = await page.locator('article.card[data-cluster="greetings-lor1"] .who').textContent();
    const alarms = await page.locator('article.card[data-cluster="greetings-lor1"] .alarms').textContent();
    const why = await page.locator(`#history-rows tr[data-request="${records.hostile}"] td.why`).textContent();
    const text = await page.evaluate(() => document.body.innerText);

    // Assess
    expect(reason).toBe(HOSTILE_SHOWN);
    expect(who).toBe('op\\u2066erator@example.com');
    expect(alarms).toBe('greetings-5xx\\u202e');
    expect(why).toBe(HOSTILE_SHOWN);
    expect(text).toContain('m\\u202eallory');
    expect(CONTROL.exec(text)).toBeNull();
  });
});
