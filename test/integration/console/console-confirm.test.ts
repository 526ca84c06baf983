import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { cliEnvFor, queueDepth, useQueueFixture, type TestPaths } from '../../helpers/requests-queue';
import type { ZkSession } from '../../../lib/zk';
import { eventually } from '../../helpers/zk';
import { consolePoster } from '../../helpers/console-post';
import { startAlarmServer, type AlarmServer } from '../../helpers/drills';
import { consoleServerOptions } from '../../../lib/console';

// The console server sends only what the operator checked (issue 21, item 7): a Confirm carries the
// request id of its Check, and the server refuses one whose fields differ from the checked ones, one
// it never checked, and one whose cluster changed in ZooKeeper since the Check (the judgement and
// the changes shown were about another state). Real ZooKeeper and a real queue (fauxqs); no worker:
// the queue's depth says what was sent.

const silentLogger = pino({ level: 'silent' });
const HOUR = 3_600_000;

function failout(reason: string, hours = 2): FailoutProperties {
  const now = Date.now();
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: now - 1000, onlineAt: now + hours * HOUR, requestedBy: 'oncall@example.com', reason, requestId: 'r-1' }] };
}

interface Answer {
  readonly status: number;
  readonly json: { kind: string; message?: string; body?: { requestId: string }; requestId?: string; changes?: string[] };
}

/** greetings-lor1 failed out (INC-1) onto greetings-lva1, which has one host. */
async function seedGreetings(session: ZkSession, paths: TestPaths): Promise<void> {
  await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
  await putCluster(session, paths.d2Base, clusterDoc('greetings-lor1', { failoutProperties: failout('INC-1') }));
  await putCluster(session, paths.d2Base, clusterDoc('greetings-lva1'));
  await putUri(session, paths.d2Base, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
}

describe('the console sends what was checked', () => {
  const fx = useQueueFixture(seedGreetings);
  let server: ConsoleServer | undefined;
  let queueUrl: string;
  let post: (path: string, body: unknown) => Promise<Answer>;

  beforeEach(async () => {
    queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, cliEnvFor(fx, queueUrl), silentLogger), queueProbeMs: 60_000 });
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('FAILED OUT'), 10_000, 'the failout on the page');
    post = consolePoster<Answer['json']>(server.url, await (await fetch(server.url)).text());
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('sends a Confirm whose fields are the checked ones, and shows what it changes', async () => {
    // Prepare
    const fields = { cluster: 'greetings-lor1', for: '45m', reason: 'INC-1 longer' };
    const check = await post('api/check', { action: 'extend', fields });

    // Act
    const send = await post('api/send', { action: 'extend', fields, requestId: check.json.body!.requestId });

    // Assess
    expect(check.json.changes).toEqual([expect.stringMatching(/^window end: in 1h 59m \(.*\) → in 45m \(.*\), 1h 15m earlier$/)]);
    expect(send).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId: check.json.body!.requestId }) });
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(1);
  });

  it('refuses a Confirm whose fields differ from the checked ones: extend checked for 45m, sent for 3h', async () => {
    // Prepare
    const check = await post('api/check', { action: 'extend', fields: { cluster: 'greetings-lor1', for: '45m' } });

    // Act
    const send = await post('api/send', { action: 'extend', fields: { cluster: 'greetings-lor1', for: '3h' }, requestId: check.json.body!.requestId });
    const otherAction = await post('api/send', { action: 'restore', fields: { cluster: 'greetings-lor1' }, requestId: check.json.body!.requestId });

    // Assess
    expect(send.status).toBe(409);
    expect(send.json).toEqual(expect.objectContaining({ kind: 'stale', message: expect.stringContaining('check again') }));
    expect(otherAction.status).toBe(409);
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });

  it('refuses a Confirm with a request id it never checked, and one sent twice', async () => {
    // Prepare
    const fields = { cluster: 'greetings-lor1' };
    const check = await post('api/check', { action: 'restore', fields });
    const first = await post('api/send', { action: 'restore', fields, requestId: check.json.body!.requestId });

    // Act
    const unchecked = await post('api/send', { action: 'restore', fields, requestId: '0194f3b2-0000-7000-8000-000000000000' });
    const again = await post('api/send', { action: 'restore', fields, requestId: check.json.body!.requestId });

    // Assess
    expect([first.status, unchecked.status, again.status]).toEqual([202, 409, 409]);
    expect(unchecked.json.kind).toBe('stale');
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    expect(received.Messages?.map((m) => (JSON.parse(m.Body!) as { requestId: string }).requestId)).toEqual([check.json.body!.requestId]);
  });

  it('sends the window the Check showed: times given relative to now (+10m, +1h) are those of the Check, not of the Confirm', async () => {
    // Prepare
    const fields = { cluster: 'greetings-lor1', peers: 'greetings-lva1', at: '+10m', until: '+1h', reason: 'INC-3' };
    const check = await post('api/check', { action: 'failout', fields });
    const judgement = (check.json as { judgement?: string }).judgement ?? '';
    const shown = /window +from (\S+) until (\S+)/.exec(judgement);
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Act
    const send = await post('api/send', { action: 'failout', fields, requestId: check.json.body!.requestId });

    // Assess
    expect(send.status).toBe(202);
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    const bodies = received.Messages?.map((m) => JSON.parse(m.Body!) as { offlineAt?: string; onlineAt?: string }) ?? [];
    expect(shown).not.toBeNull();
    expect(bodies).toEqual([expect.objectContaining({ offlineAt: shown![1], onlineAt: shown![2] })]);
  });

  it('refuses a forced Confirm when a peer was failed out since the Check: force would override what the Check never showed', async () => {
    // Prepare: checked with force while greetings-lva1 serves (force overrides nothing); then lva1 is failed out
    const fields = { cluster: 'greetings-lor1', peers: 'greetings-lva1', for: '30m', force: true };
    const check = await post('api/check', { action: 'failout', fields });
    const lva1Out: FailoutProperties = { ...failout('INC-9 lva1 out'), redirects: [{ peer: 'greetings-lor1', weight: 1 }] };
    await putCluster(fx.session, fx.paths.d2Base, clusterDoc('greetings-lva1', { failoutProperties: lva1Out }));
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('INC-9 lva1 out'), 10_000, 'the peer failed out on the page');

    // Act
    const send = await post('api/send', { action: 'failout', fields, requestId: check.json.body!.requestId });

    // Assess
    expect(check.json.kind).toBe('ready');
    expect(send.status).toBe(409);
    expect(send.json).toEqual(expect.objectContaining({ kind: 'stale', message: expect.stringContaining('or one of its peers did') }));
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });

  it("refuses a Confirm when the cluster's failout changed in ZooKeeper since the Check", async () => {
    // Prepare: checked against the 2 h failout; then another operator makes it 6 h
    const fields = { cluster: 'greetings-lor1', for: '45m' };
    const check = await post('api/check', { action: 'extend', fields });
    await putCluster(fx.session, fx.paths.d2Base, clusterDoc('greetings-lor1', { failoutProperties: failout('INC-2 someone else', 6) }));
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('INC-2 someone else'), 10_000, 'the new failout on the page');

    // Act
    const send = await post('api/send', { action: 'extend', fields, requestId: check.json.body!.requestId });

    // Assess
    expect(send.status).toBe(409);
    expect(send.json).toEqual(expect.objectContaining({ kind: 'stale', message: expect.stringContaining('greetings-lor1 changed since the check') }));
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });

  it("shows the judgement now when the cluster's failout changed since the Check (what the request changes against the failout now), and sends that on its Confirm", async () => {
    // Prepare: checked against the 2 h failout; then another operator makes it 6 h
    const fields = { cluster: 'greetings-lor1', for: '45m' };
    const check = await post('api/check', { action: 'extend', fields });
    const requestId = check.json.body!.requestId;
    await putCluster(fx.session, fx.paths.d2Base, clusterDoc('greetings-lor1', { failoutProperties: failout('INC-2 someone else', 6) }));
    await eventually(async () => (await (await fetch(server!.url)).text()).includes('INC-2 someone else'), 10_000, 'the new failout on the page');

    // Act
    const first = await post('api/send', { action: 'extend', fields, requestId });
    const depthAfterFirst = await queueDepth(fx.sqs.client, queueUrl);
    const second = await post('api/send', { action: 'extend', fields, requestId });

    // Assess: the first Confirm sent nothing and showed the change against the 6 h window; the second sent it
    const shownAgain = (first.json as { check?: { kind: string; body: { requestId: string }; changes?: string[] } }).check;
    expect(check.json.changes).toEqual([expect.stringMatching(/^window end: in 1h 59m .* → in 45m .*, 1h 15m earlier$/)]);
    expect(first.status).toBe(409);
    expect(first.json).toEqual(expect.objectContaining({ kind: 'stale', reason: 'clusterChanged', requestId, message: expect.stringContaining('greetings-lor1 changed since the check') }));
    expect(shownAgain).toEqual(expect.objectContaining({ kind: 'ready', body: expect.objectContaining({ requestId }) }));
    expect(shownAgain!.changes).toEqual([expect.stringMatching(/^window end: in 5h 59m .* → in 4[45]m.*, 5h 15m earlier$/)]);
    expect(depthAfterFirst).toBe(0);
    expect(second).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(1);
  });
});

describe('the console checks the alarms a request names, as the CLI does before sending', () => {
  const fx = useQueueFixture(seedGreetings);
  let alarms: AlarmServer;
  let server: ConsoleServer | undefined;
  let queueUrl: string;
  let post: (path: string, body: unknown) => Promise<Answer & { json: { reason?: string } }>;

  beforeAll(async () => {
    alarms = await startAlarmServer();
  });
  afterAll(async () => {
    await alarms.close();
  });
  beforeEach(async () => {
    queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, { ...cliEnvFor(fx, queueUrl), FAILOUT_ALARMS_URL: alarms.url }, silentLogger), queueProbeMs: 60_000 });
    post = consolePoster<Answer['json'] & { reason?: string }>(server.url, await (await fetch(server.url)).text());
  });
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('refuses at Check a failout whose stop alarm is firing and an amend adding an unknown alarm, as `failout out` and `failout amend` do; nothing is sent', async () => {
    // Prepare
    alarms.set('greetings-lva1-errors', 'ALARM');

    // Act
    const firing = await post('api/check', { action: 'failout', fields: { cluster: 'greetings-lor1', peers: 'greetings-lva1', for: '30m', stopAlarms: 'greetings-lva1-errors' } });
    const unknown = await post('api/check', { action: 'amend', fields: { cluster: 'greetings-lor1', stopAlarms: 'greetings-lva1-typo' } });

    // Assess
    expect(firing.json).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'stopAlarmFiring' }));
    expect(unknown.json).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'unknownAlarm' }));
    expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  });
});
