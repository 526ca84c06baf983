import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import type { RequestRecord } from '../../../lib/requests';
import { OPEN_ACL } from '../../../lib/zk';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { startAlarmServer, type AlarmServer } from '../../helpers/drills';
import { clusterDrillDefinition, fabricDrillDefinition, failedRun as failedRunOf, nextTuesday14, skippedRun as skippedRunOf, weeklyBlockedWindow, writeDrillNode } from '../../helpers/drill-nodes';
import { seedRecords } from '../../helpers/history-records';
import { cliEnvFor, queueDepth, useQueueFixture } from '../../helpers/requests-queue';
import { eventually } from '../../helpers/zk';

// The console's drills (issue 24, item 7) on the real console server over real ZooKeeper and a real
// queue (fauxqs), no worker: a cluster drill and a drain test (a drill of fabric lor1), each with runs
// and their request records, listed with the next run (blocked dates honoured), the last outcome and its
// alarm, and the history; "Run now" shows the drill runner's own request and Confirm sends exactly that
// message; a run the worker records reaches the page as a `patch` event.

const silentLogger = pino({ level: 'silent' });
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

function record(requestId: string, appliedAt: number, overrides: Partial<RequestRecord>): RequestRecord {
  return { requestId, status: 'applied', cluster: 'greetings-lor1', action: 'failout', appliedAt, clusterVersion: 1, requestedBy: 'failout-drills', ...overrides };
}

interface Answer {
  readonly status: number;
  readonly json: Record<string, unknown>;
}

describe("the console's drills", () => {
  let alarms: AlarmServer;
  const now = Date.now();
  const failedAt = now - 8 * DAY;
  const failedRun = `drill-weekly-lor1-${failedAt}`;
  const skippedAt = now - 2 * DAY;
  const skippedRun = `drill-drain-lor1-${skippedAt}`;
  let drillsBase = '';
  const fx = useQueueFixture(async (session, paths) => {
    drillsBase = paths.d2Base.replace(/\/d2$/, '/drills');
    await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
    for (const cluster of ['greetings-lor1', 'greetings-lva1', 'greetings-ltx1']) {
      await putCluster(session, paths.d2Base, clusterDoc(cluster));
      await putUri(session, paths.d2Base, cluster, 'h1', `http://${cluster}-1:8080`);
    }
    await session.ensurePath(drillsBase, OPEN_ACL);
    await writeDrillNode(session, drillsBase, clusterDrillDefinition(now), [failedRunOf(failedAt)], now);
    await writeDrillNode(session, drillsBase, fabricDrillDefinition(now), [skippedRunOf(skippedAt)], now);
    await seedRecords(session, paths.requestsPath, [
      record(failedRun, failedAt, {}),
      record(`${failedRun}-stop`, failedAt + 4 * MIN, { action: 'restore', stoppedByAlarm: 'greetings-lor1-errors' }),
      record(skippedRun, skippedAt, { cluster: null, fabric: 'lor1', action: 'skipDrill', clusterVersion: null }),
      record('0194f3b2-bbbb-7000-8000-00000000d211', now - HOUR, { requestedBy: 'oncall@example.com' }),
    ]);
  });
  let server: ConsoleServer | undefined;
  let queueUrl: string;
  let post: (path: string, body: unknown) => Promise<Answer>;

  beforeAll(async () => {
    alarms = await startAlarmServer();
  });
  afterAll(() => alarms.close());

  beforeEach(async () => {
    for (const name of ['greetings-lor1-errors', 'lor1-drain-errors', 'deploys-in-progress']) alarms.set(name, 'OK');
    queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
    const env = { ...cliEnvFor(fx, queueUrl), FAILOUT_DRILLS_PATH: drillsBase, FAILOUT_ALARMS_URL: alarms.url };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    await eventually(async () => {
      const page = await (await fetch(server!.url)).text();
      return page.includes('data-drill="weekly-lor1"') && page.includes('data-drill="drain-lor1"') && page.includes(`data-request="${failedRun}-stop"`);
    }, 10_000, 'both drills and their history on the page');
    const token = /name="csrf-token" content="([^"]+)"/.exec(await (await fetch(server.url)).text())![1]!;
    post = async (path, body) => {
      const response = await fetch(`${server!.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': token }, body: JSON.stringify(body) });
      return { status: response.status, json: (await response.json()) as Record<string, unknown> };
    };
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('lists a cluster drill and a drain test: target, schedule, next run past the blocked date, last outcome with its alarm, and history', async () => {
    // Act
    const page = await (await fetch(server!.url)).text();
    const card = (name: string): string => page.slice(page.indexOf(`<article class="card drill" data-drill="${name}"`), page.indexOf('</article>', page.indexOf(`data-drill="${name}"`)));
    const weekly = card('weekly-lor1');
    const drain = card('drain-lor1');

    // Assess: the cluster drill, its next Tuesday blocked, so the one after it
    const blocked = nextTuesday14(now);
    expect(weekly).toContain('data-target-kind="cluster" data-target="greetings-lor1"');
    expect(weekly).toContain('at 14:00 UTC on Tuesday <code>cron(0 14 ? * TUE *)</code>');
    expect(weekly).toContain(`data-next="${blocked + 7 * DAY}"`);
    expect(weekly).toContain(`passed over: <time datetime="${new Date(blocked).toISOString()}" data-clock="${blocked}">${new Date(blocked).toISOString().replace('.000Z', 'Z')}</time> (${new Date(blocked).toISOString().slice(0, 10)} is a blocked date)`);
    expect(weekly).toContain(`${weeklyBlockedWindow(now)} (UTC)`);
    expect(weekly).toContain('data-status="failed"');
    expect(weekly).toContain('data-alarms="greetings-lor1-errors"');
    expect(weekly).toContain('stopped by outcome alarm greetings-lor1-errors');
    expect(weekly).toMatch(new RegExp(`<tr data-request="${failedRun}-stop">.*<tr data-request="${failedRun}">`, 's'));
    expect(weekly).not.toContain('0194f3b2-bbbb-7000-8000-00000000d211');
    // The drain test: a fabric, every 7 days from its definition, skipped for its blocking alarm
    expect(drain).toContain('data-target-kind="fabric" data-target="lor1"');
    expect(drain).toContain('fabric lor1 → lva1×1');
    expect(drain).toContain('every 7 days <code>rate(7 days)</code>');
    expect(drain).toContain('data-status="skipped"');
    expect(drain).toContain('data-alarms="deploys-in-progress"');
    expect(drain).toContain(`<tr data-request="${skippedRun}">`);
  });

  it("filters the history by drill: only that drill's runs", async () => {
    // Act
    const answer = (await (await fetch(`${server!.url}api/history?drill=weekly-lor1`)).json()) as { matched: number; rows: string; summary: string };

    // Assess
    expect(answer.matched).toBe(2);
    expect(answer.rows).toContain(`data-request="${failedRun}"`);
    expect(answer.rows).not.toContain(skippedRun);
  });

  it("Run now: Check shows the drill runner's failout, and Confirm sends exactly that message, once", async () => {
    // Act
    const check = await post('api/drill/check', { drill: 'weekly-lor1' });
    const requestId = String(check.json.requestId);
    const send = await post('api/drill/send', { requestId });
    const again = await post('api/drill/send', { requestId });
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));

    // Assess: the runner's run id and its failout with the drill's stop alarms
    expect(check.status).toBe(200);
    expect(check.json).toEqual(expect.objectContaining({ kind: 'ready', decision: 'started', action: 'failout', cli: 'failout drill run-now weekly-lor1' }));
    expect(requestId).toMatch(/^drill-weekly-lor1-\d{13}$/);
    const shown = JSON.parse(String(check.json.body)) as Record<string, unknown>;
    expect(shown).toEqual(expect.objectContaining({ requestId, action: 'failout', cluster: 'greetings-lor1', drill: 'weekly-lor1', stopAlarms: ['greetings-lor1-errors', 'deploys-in-progress'], requestedBy: 'failout-drills' }));
    expect(send).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId, drill: 'weekly-lor1' }) });
    expect(again).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'notChecked' }) });
    expect(received.Messages).toHaveLength(1);
    expect(JSON.parse(received.Messages![0]!.Body!)).toEqual(shown);
  });

  it('Run now of the drain test while its blocking alarm is in ALARM: shows the skipDrill the runner would send', async () => {
    // Prepare
    alarms.set('deploys-in-progress', 'ALARM');

    // Act
    const check = await post('api/drill/check', { drill: 'drain-lor1' });

    // Assess
    expect(check.json).toEqual(expect.objectContaining({ kind: 'ready', decision: 'skipped', action: 'skipDrill', skipReason: 'blockingAlarm' }));
    expect(JSON.parse(String(check.json.body))).toEqual(expect.objectContaining({ action: 'skipDrill', fabric: 'lor1', drill: 'drain-lor1', skipReason: 'blockingAlarm' }));
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });

  it('Run now: a Confirm whose run the runner would now decide otherwise (a blocking alarm fired since the Check) sends nothing, shows the run decided now, and sends that on its Confirm', async () => {
    // Prepare: checked while every alarm is OK (the runner would start it); then a blocking alarm fires
    const check = await post('api/drill/check', { drill: 'weekly-lor1' });
    const requestId = String(check.json.requestId);
    alarms.set('deploys-in-progress', 'ALARM');

    // Act
    const first = await post('api/drill/send', { requestId });
    const depthAfterFirst = await queueDepth(fx.sqs.client, queueUrl);
    const second = await post('api/drill/send', { requestId });
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));

    // Assess: the Check showed a start; the first Confirm sent nothing and showed the skip; the second sent the skip
    expect(check.json).toEqual(expect.objectContaining({ kind: 'ready', decision: 'started', action: 'failout' }));
    expect(first).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'judgementChanged', requestId, check: expect.objectContaining({ kind: 'ready', requestId, decision: 'skipped', action: 'skipDrill', skipReason: 'blockingAlarm' }) }) });
    expect(depthAfterFirst).toBe(0);
    expect(second).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(received.Messages?.map((m) => JSON.parse(m.Body!) as Record<string, unknown>)).toEqual([expect.objectContaining({ requestId, action: 'skipDrill', skipReason: 'blockingAlarm' })]);
  });

  it('Run now: a Confirm whose run is decided alike again sends the very message its Check showed', async () => {
    // Prepare
    const check = await post('api/drill/check', { drill: 'weekly-lor1' });
    const requestId = String(check.json.requestId);
    await new Promise((resolve) => setTimeout(resolve, 20));

    // Act
    const send = await post('api/drill/send', { requestId });
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));

    // Assess
    expect(send).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(received.Messages?.map((m) => m.Body)).toEqual([JSON.stringify(JSON.parse(String(check.json.body)))]);
  });

  it('refuses a Confirm after the drill changed, an unknown drill, and a Confirm carrying more than the id', async () => {
    // Prepare
    const check = await post('api/drill/check', { drill: 'weekly-lor1' });
    await writeDrillNode(fx.session, drillsBase, clusterDrillDefinition(now, { durationMs: 45 * MIN }), [], now);
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('for 45 min'), 10_000, 'the redefined drill on the page');

    // Act
    const changed = await post('api/drill/send', { requestId: check.json.requestId });
    const unknown = await post('api/drill/check', { drill: 'nope' });
    const padded = await post('api/drill/send', { requestId: 'x', body: {} });

    // Assess
    expect(changed).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', message: expect.stringContaining('the drill changed since the check') }) });
    expect(unknown).toEqual({ status: 404, json: expect.objectContaining({ kind: 'invalid', message: expect.stringContaining('no drill named "nope"') }) });
    expect(padded.status).toBe(400);
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });

  it('Run now: a Confirm after the drill was redefined sends nothing, shows the run of the drill now, and sends that on its Confirm', async () => {
    // Prepare: checked for 30 min; then the drill is put again for 45 min
    const check = await post('api/drill/check', { drill: 'weekly-lor1' });
    const requestId = String(check.json.requestId);
    const checkedBody = JSON.parse(String(check.json.body)) as { offlineAt: string; onlineAt: string };
    await writeDrillNode(fx.session, drillsBase, clusterDrillDefinition(now, { durationMs: 45 * MIN }), [], now);
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('for 45 min'), 10_000, 'the redefined drill on the page');

    // Act
    const first = await post('api/drill/send', { requestId });
    const depthAfterFirst = await queueDepth(fx.sqs.client, queueUrl);
    const second = await post('api/drill/send', { requestId });
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1 }));

    // Assess: the run shown again is of the drill as defined now (45 min from the Check's time); that is what was sent
    const shownAgain = (first.json.check ?? {}) as { kind?: string; requestId?: string; body?: string };
    expect(first).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', message: expect.stringContaining('the drill changed since the check') }) });
    expect(shownAgain).toEqual(expect.objectContaining({ kind: 'ready', requestId, decision: 'started' }));
    const bodyNow = JSON.parse(shownAgain.body ?? 'null') as { offlineAt: string; onlineAt: string };
    expect(bodyNow.offlineAt).toBe(checkedBody.offlineAt);
    expect(Date.parse(bodyNow.onlineAt) - Date.parse(bodyNow.offlineAt)).toBe(45 * MIN);
    expect(depthAfterFirst).toBe(0);
    expect(second).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(received.Messages?.map((m) => JSON.parse(m.Body!) as unknown)).toEqual([bodyNow]);
  });

  it("sends a run the worker records to the page as a patch of the drills section", async () => {
    // Prepare: the event stream, read as it comes
    const abort = new AbortController();
    const response = await fetch(`${server!.url}events`, { signal: abort.signal });
    const reader = response.body!.getReader();
    let text = '';
    const runId = `drill-weekly-lor1-${now}`;

    // Act: the worker records a run now moving traffic
    await writeDrillNode(fx.session, drillsBase, clusterDrillDefinition(now), [{ runId, status: 'running', at: now, endsAt: now + 30 * MIN, buckets: { from: 0, to: 99 }, peers: [{ cluster: 'greetings-lva1', weight: 2 }] }], now);
    const deadline = Date.now() + 10_000;
    while (!/event: patch\n[^\n]*\ndata: [^\n]*"drills":[^\n]*data-status=\\"running\\"/.test(text) && Date.now() < deadline) {
      const chunk = await Promise.race([reader.read(), new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 500))]);
      if (chunk?.value) text += new TextDecoder().decode(chunk.value);
    }
    abort.abort();

    // Assess
    expect(text).toMatch(new RegExp(`event: patch\\n[^\\n]*\\ndata: [^\\n]*"drills":[^\\n]*data-run=\\\\"${runId}\\\\"`));
  });
});
