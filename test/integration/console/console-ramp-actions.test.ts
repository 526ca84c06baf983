import { ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import type { FailoutProperties } from '../../../lib/d2';
import { clusterDoc, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { cliEnvFor, useQueueFixture } from '../../helpers/requests-queue';
import { eventually } from '../../helpers/zk';
import { consolePoster } from '../../helpers/console-post';

// Issue 24, item 6, from the page: a running ramp held, resumed or advanced, and stop alarms added to
// or removed from a running failout, each checked and confirmed like every request and sent as the
// CLI's `failout ramp hold|resume|advance` / `failout amend` would send it. Real ZooKeeper and a real
// queue (fauxqs); the queue holds what was sent.

const silentLogger = pino({ level: 'silent' });
const MINUTE = 60_000;

/** 20 % now, 60 % in 10 minutes, 100 % in 20, for an hour, stopped by one alarm. */
function ramp(): FailoutProperties {
  const now = Date.now();
  const window = (from: number, to: number, at: number) => ({ bucketOfflineRange: { from, to }, offlineAt: at, onlineAt: now + 60 * MINUTE, requestedBy: 'oncall@example.com', reason: 'INC-7', requestId: 'r-ramp', stopAlarms: ['greetings-5xx'] });
  return { redirects: [{ peer: 'greetings-lva1', weight: 1 }], ignoredRedirectEntries: 0, buckets: [window(0, 19, now - MINUTE), window(20, 59, now + 10 * MINUTE), window(60, 99, now + 20 * MINUTE)] };
}

interface Answer {
  readonly status: number;
  readonly json: { kind: string; message?: string; field?: string; body?: { requestId: string; action: string } };
}

describe('steering a running failout from the console', () => {
  const fx = useQueueFixture(async (session, paths) => {
    await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, paths.d2Base, clusterDoc('greetings-lor1', { failoutProperties: ramp() }));
    await putCluster(session, paths.d2Base, clusterDoc('greetings-lva1'));
    await putUri(session, paths.d2Base, 'greetings-lva1', 'h1', 'http://lva1-1:8080');
  });
  let server: ConsoleServer | undefined;
  let queueUrl: string;
  let page: string;
  let post: (path: string, body: unknown) => Promise<Answer>;

  beforeEach(async () => {
    queueUrl = (await fx.sqs.createFifoQueuePair()).queueUrl;
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, cliEnvFor(fx, queueUrl), silentLogger), queueProbeMs: 60_000 });
    await eventually(async () => (page = await (await fetch(server!.url)).text()).includes('class="ramp"'), 10_000, 'the ramp on the page');
    post = consolePoster<Answer['json']>(server.url, page);
  });

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function sentBodies(): Promise<Record<string, unknown>[]> {
    const received = await fx.sqs.client.send(new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 10 }));
    return (received.Messages ?? []).map((m) => JSON.parse(m.Body!) as Record<string, unknown>);
  }

  it('shows the ramp as one bar with its steps and the buttons that steer it', () => {
    expect(page).toMatch(/<li data-state="done">20%<\/li><li data-state="next">60%<\/li><li data-state="later">100%<\/li>/);
    for (const act of ['rampHold', 'rampAdvance', 'amend', 'restore']) expect(page).toContain(`data-act="${act}" data-cluster="greetings-lor1"`);
    expect(page).toContain('<option value="rampHold">hold the ramp</option>');
  });

  it.each([
    ['rampHold', { reason: 'INC-7 errors at 20%' }],
    ['rampAdvance', {}],
  ] as const)('checks and sends %s as the CLI would', async (action, extra) => {
    // Act
    const fields = { cluster: 'greetings-lor1', by: 'oncall@example.com', ...extra };
    const check = await post('api/check', { action, fields });
    const send = await post('api/send', { action, fields, requestId: check.json.body?.requestId });

    // Assess: judged, sent once, the body the CLI's builder makes
    expect(check.json.kind).toBe('ready');
    expect(send.status).toBe(202);
    expect(await sentBodies()).toEqual([{ version: 1, requestId: check.json.body!.requestId, action, cluster: 'greetings-lor1', requestedBy: 'oncall@example.com', ...extra }]);
  });

  it.each([
    ['rampHold', /held at 20% since/, /held at 60% since/],
    ['rampAdvance', /step 2 of 3: 60% of traffic moved/, /step 3 of 3: 100% of traffic moved/],
  ] as const)('shows %s again, unsent, when a ramp step starts between Check and Confirm (it would act on another step)', async (action, checked, now) => {
    // Prepare: the ramp's 60 % step starts a few seconds from now, and the console shows it
    const soon = Date.now() + 6000;
    const props = ramp();
    const buckets = props.buckets.map((b, i) => (i === 1 ? { ...b, offlineAt: soon } : b));
    await putCluster(fx.session, fx.paths.d2Base, clusterDoc('greetings-lor1', { failoutProperties: { ...props, buckets } }));
    await eventually(async () => (await (await fetch(server!.url)).text()).includes(`data-next="${new Date(soon).toISOString()}"`), 10_000, 'the near step on the page');
    const fields = { cluster: 'greetings-lor1', by: 'oncall@example.com' };

    // Act: Check before the step starts, Confirm after it started
    const check = await post('api/check', { action, fields });
    const checkedAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, soon + 250 - Date.now())));
    const send = await post('api/send', { action, fields, requestId: check.json.body?.requestId });

    // Assess: the Check showed the step it acts on; the Confirm would act on the next: shown again, nothing sent
    expect(checkedAt).toBeLessThan(soon);
    expect(check.json).toMatchObject({ kind: 'ready', judgement: expect.stringMatching(checked) });
    expect(send.status).toBe(409);
    expect(send.json).toMatchObject({ kind: 'stale', reason: 'judgementChanged', check: { kind: 'ready', judgement: expect.stringMatching(now) } });
    expect(await sentBodies()).toEqual([]);
  });

  it('adds and removes stop alarms of the running failout (amend)', async () => {
    // Act
    const fields = { cluster: 'greetings-lor1', stopAlarms: 'greetings-p99', removeStopAlarms: 'greetings-5xx', by: 'oncall@example.com' };
    const check = await post('api/check', { action: 'amend', fields });
    const send = await post('api/send', { action: 'amend', fields, requestId: check.json.body?.requestId });

    // Assess
    expect(check.json.kind).toBe('ready');
    expect(send.status).toBe(202);
    expect(await sentBodies()).toEqual([expect.objectContaining({ action: 'amend', cluster: 'greetings-lor1', addStopAlarms: ['greetings-p99'], removeStopAlarms: ['greetings-5xx'] })]);
  });

  it('refuses an amend that changes nothing, in the page words, and sends nothing', async () => {
    // Act
    const check = await post('api/check', { action: 'amend', fields: { cluster: 'greetings-lor1' } });

    // Assess
    expect(check.json.kind).toBe('invalid');
    expect(check.json.message).toMatch(/stop alarm/i);
    expect(await sentBodies()).toEqual([]);
  });
});
