import pino from 'pino';
import { ConsoleServer } from '../../../lib/console';
import type { ActionFields, CheckResult, evacuation, OperatorAction, OperatorRequests, PreparedBody } from '../../../lib/operator';
import { describeFailout } from '../../../lib/operator/cluster-status';
import { projectPeerLoad, type CapacityProjection, type EvacuationPlan } from '../../../lib/requests';

// The fabric actions' routes (issue 23, item 6), on a console without ZooKeeper and with a recording
// request side: Check answers the judged plan and stores the body; Confirm names only the request id
// and sends that very body, once; a refused plan stores nothing to confirm; both need the CSRF token.
// And the cluster form's Confirm where it shares the fabric one's rule: a judgement shown is the one
// applied, or it is shown again.

const NOW = Date.now();

function plan(): EvacuationPlan {
  return {
    fabric: 'lor1',
    requestId: 'r-1',
    offlineAt: NOW,
    onlineAt: NOW + 3_600_000,
    targets: [{ fabric: 'lva1', weight: 2 }],
    stages: [{ index: 0, name: '(rest)', clusters: ['greetings-lor1'], offlineAt: NOW, fullyOutAt: NOW, onlineAt: NOW + 3_600_000, gateAlarms: [] }],
    clusters: [{ cluster: 'greetings-lor1', service: 'greetings', stage: 0, peers: [{ cluster: 'greetings-lva1', weight: 2 }], hosts: 3 }],
    receivers: [{ cluster: 'greetings-lva1', service: 'greetings', fabric: 'lva1', hosts: 3, factorBefore: 1, factorAfter: 2 }],
    excluded: [],
    stopAlarms: [],
    maxPeerLoadFactor: 2,
  };
}

/** greetings-lor1 (2 hosts) failed out to greetings-lva1 with `peerHosts` hosts, projected from host counts as the worker judges. */
function projection(peerHosts: number): CapacityProjection {
  return projectPeerLoad({ clusterHosts: 2, movedFraction: 1, peers: [{ cluster: 'greetings-lva1', weight: 1, hosts: peerHosts }], maxPeerLoadFactor: 2, cluster: 'greetings-lor1' });
}

/** A request side that answers what each test sets and records what is sent. */
class RecordingRequests implements OperatorRequests {
  readonly queueUrl = undefined;
  readonly sent: unknown[] = [];
  readonly checks: { action: string; fabric: string; fields: evacuation.FabricFields }[] = [];
  readonly judged: evacuation.FabricBody[] = [];
  /** What checkFabric answers, from the body it built. */
  checkAnswer: (body: evacuation.FabricBody) => evacuation.FabricCheckResult = (body) => ({ kind: 'ready', body, judged: true, judgement: 'the plan', plan: plan(), notes: [] });
  /** What judgeFabric (the Confirm's judgement) answers. */
  judgeAnswer: (body: evacuation.FabricBody) => evacuation.FabricCheckResult = (body) => ({ kind: 'ready', body, judged: true, judgement: 'the plan', plan: plan(), notes: [] });
  /** What check answers (a cluster request's Check and its Confirm's judgement), from the body it built. */
  clusterAnswer: (body: PreparedBody) => CheckResult = (body) => ({ kind: 'ready', body, judged: true, judgement: 'greetings-lva1: 4 hosts → ×1.5', capacity: projection(4) });
  failSends = 0;
  /** Set: every send waits for it (a queue that is slow to answer). */
  sendGate: Promise<void> | undefined;
  private counter = 0;

  async check(action: OperatorAction, fields: ActionFields, options: { readonly requestId?: string | undefined }): Promise<CheckResult> {
    if (action !== 'failout') throw new Error('not used');
    const body: PreparedBody = { version: 1, requestId: options.requestId ?? `c-${++this.counter}`, action, cluster: fields.cluster, peers: [{ cluster: fields.peers ?? '', weight: 1 }], duration: 'PT30M', requestedBy: 'tester' };
    return this.clusterAnswer(body);
  }
  async checkFabric(action: evacuation.FabricAction, fabric: string, fields: evacuation.FabricFields): Promise<evacuation.FabricCheckResult> {
    this.checks.push({ action, fabric, fields });
    const requestId = `r-${++this.counter}`;
    const body: evacuation.FabricBody =
      action === 'evacuate'
        ? { version: 1, requestId, action, fabric, requestedBy: fields.by ?? 'tester', force: false, duration: 'PT1H', ...(fields.to === undefined ? {} : { targets: [{ fabric: fields.to, weight: 1 }] }) }
        : { version: 1, requestId, action, fabric, requestedBy: fields.by ?? 'tester' };
    return this.checkAnswer(body);
  }
  async judgeFabric(body: evacuation.FabricBody): Promise<evacuation.FabricCheckResult> {
    this.judged.push(body);
    return this.judgeAnswer(body);
  }
  async send(body: PreparedBody | evacuation.FabricBody): Promise<{ messageId: string | undefined }> {
    if (this.sendGate !== undefined) await this.sendGate;
    if (this.failSends > 0) {
      this.failSends--;
      throw new Error('queue down');
    }
    this.sent.push(body);
    return { messageId: `m-${this.sent.length}` };
  }
  async sendMessage(): Promise<never> {
    throw new Error('not used');
  }
  async probeQueue(): Promise<never> {
    throw new Error('not used');
  }
  describe = (cluster: string, properties: Parameters<typeof describeFailout>[1], now: number) => describeFailout(cluster, properties, now);
  async close(): Promise<void> {}
}

// One console over the recording request side for every test of the file (the fabric and the cluster routes).
let server: ConsoleServer;
let requests: RecordingRequests;
let csrf: string;

beforeEach(async () => {
  requests = new RecordingRequests();
  server = await ConsoleServer.start({ zk: undefined, d2Base: '/d2', requestsBase: '/failout/requests', requests, requester: 'tester', logger: pino({ level: 'silent' }), queueProbeMs: 60_000 });
  const page = await (await fetch(server.url)).text();
  csrf = /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]!;
});

afterEach(async () => {
  await server.close();
});

/** POSTs JSON as the page does, with `token` as the CSRF token (undefined: none). */
async function post(path: string, body: unknown, token: string | undefined): Promise<{ status: number; json: Record<string, unknown> }> {
  const response = await fetch(new URL(path, server.url), { method: 'POST', headers: { 'content-type': 'application/json', ...(token === undefined ? {} : { 'x-csrf-token': token }) }, body: JSON.stringify(body) });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

describe('the fabric routes', () => {
  it('sends on Confirm exactly the body its Check built, named by the request id alone, once', async () => {
    // Act
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { to: 'lva1', for: '1h', reason: 'INC-23' } }, csrf);
    const requestId = check.json.requestId as string;
    const sent = await post('/api/fabric/send', { requestId }, csrf);
    const again = await post('/api/fabric/send', { requestId }, csrf);

    // Assess
    expect(check.status).toBe(200);
    expect(check.json).toEqual(expect.objectContaining({ kind: 'ready', action: 'evacuate', fabric: 'lor1', judged: true, plan: expect.objectContaining({ summary: '1 cluster of 1 service in 1 stage, to lva1 (weight 2)' }) }));
    expect(check.json).not.toHaveProperty('body');
    expect(requests.checks).toEqual([{ action: 'evacuate', fabric: 'lor1', fields: { to: 'lva1', for: '1h', reason: 'INC-23' } }]);
    expect(sent).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId, action: 'evacuate', fabric: 'lor1' }) });
    expect(requests.judged).toHaveLength(1);
    expect(requests.sent).toHaveLength(1);
    expect(requests.sent[0]).toBe(requests.judged[0]);
    expect(requests.sent[0]).toEqual(expect.objectContaining({ requestId, action: 'evacuate', fabric: 'lor1', targets: [{ fabric: 'lva1', weight: 1 }] }));
    expect(again).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'notChecked' }) });
  });

  it('answers a refused plan with its reason and stores nothing to confirm', async () => {
    // Prepare
    requests.checkAnswer = (body) => ({ kind: 'rejected', body, reason: 'insufficientPeerCapacity', message: 'greetings-lva1 would take ×2.5 its own load (limit ×2)', plan: plan() });

    // Act
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { for: '1h' } }, csrf);
    const confirm = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);

    // Assess
    expect(check.json).toEqual(expect.objectContaining({ kind: 'rejected', reason: 'insufficientPeerCapacity', plan: expect.objectContaining({ limit: 2 }) }));
    expect(confirm).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'notChecked' }) });
    expect(requests.sent).toEqual([]);
  });

  it('sends nothing when the judgement at Confirm refuses what the Check allowed', async () => {
    // Prepare
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { for: '1h' } }, csrf);
    requests.judgeAnswer = (body) => ({ kind: 'rejected', body, reason: 'evacuationOpen', message: 'fabric lor1 has an open evacuation' });

    // Act
    const confirm = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);

    // Assess
    expect(confirm).toEqual({ status: 422, json: expect.objectContaining({ kind: 'rejected', reason: 'evacuationOpen' }) });
    expect(requests.sent).toEqual([]);
  });

  it('sends nothing when the plan judged at Confirm differs from the one the Check showed (hosts came), shows the new plan, and sends it on the next Confirm', async () => {
    // Prepare: checked with greetings-lva1 at 3 hosts; a host more by the Confirm (weights by capacity)
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { for: '1h' } }, csrf);
    const grown = plan();
    requests.judgeAnswer = (body) => ({
      kind: 'ready',
      body,
      judged: true,
      judgement: 'the plan now',
      plan: { ...grown, clusters: [{ ...grown.clusters[0]!, peers: [{ cluster: 'greetings-lva1', weight: 4 }] }], receivers: [{ ...grown.receivers[0]!, hosts: 4, factorAfter: 1.75 }] },
      notes: [],
    });

    // Act
    const first = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);
    const sentAfterFirst = requests.sent.length;
    const second = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);

    // Assess: the first Confirm showed the plan again and sent nothing; the second sent the same body
    expect(first.status).toBe(409);
    expect(first.json).toEqual(
      expect.objectContaining({
        kind: 'stale',
        reason: 'judgementChanged',
        requestId: check.json.requestId,
        message: expect.stringContaining('nothing was sent'),
        check: expect.objectContaining({ kind: 'ready', requestId: check.json.requestId, judgement: 'the plan now', plan: expect.objectContaining({ clusters: [expect.objectContaining({ peers: [{ cluster: 'greetings-lva1', weight: 4 }] })], receivers: [expect.objectContaining({ hosts: 4, after: 1.75 })] }) }),
      }),
    );
    expect(sentAfterFirst).toBe(0);
    expect(second).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId: check.json.requestId }) });
    expect(requests.sent).toEqual([expect.objectContaining({ requestId: check.json.requestId, action: 'evacuate' })]);
  });

  it('sends when only the times of the plan moved with the clock (a window given as a duration starts when applied)', async () => {
    // Prepare
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { for: '1h' } }, csrf);
    const later = plan();
    const shift = 5_000;
    requests.judgeAnswer = (body) => ({
      kind: 'ready',
      body,
      judged: true,
      judgement: 'the plan, 5 s later',
      plan: { ...later, offlineAt: later.offlineAt + shift, onlineAt: later.onlineAt + shift, stages: later.stages.map((s) => ({ ...s, offlineAt: s.offlineAt + shift, fullyOutAt: s.fullyOutAt + shift, onlineAt: s.onlineAt + shift })) },
      notes: [],
    });

    // Act
    const confirm = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);

    // Assess
    expect(confirm.status).toBe(202);
    expect(requests.sent).toHaveLength(1);
  });

  it('keeps a check whose send did not reach the queue, so the same request can be sent again', async () => {
    // Prepare
    const check = await post('/api/fabric/check', { action: 'restoreFabric', fabric: 'lor1', fields: { reason: 'over' } }, csrf);
    requests.failSends = 1;

    // Act
    const first = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);
    const second = await post('/api/fabric/send', { requestId: check.json.requestId }, csrf);

    // Assess
    expect(first).toEqual({ status: 503, json: expect.objectContaining({ kind: 'unavailable', message: 'queue down' }) });
    expect(second.status).toBe(202);
    expect(requests.sent).toEqual([expect.objectContaining({ requestId: check.json.requestId, action: 'restoreFabric', fabric: 'lor1' })]);
  });

  it('sends a Confirm made twice at once (a double submit) once; the second, and a retry after a lost answer, are told it was sent, not that it was never checked', async () => {
    // Prepare: a queue slow to answer, so the second Confirm comes while the first is on its way
    const check = await post('/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: { to: 'lva1', for: '1h', reason: 'INC-23' } }, csrf);
    const requestId = check.json.requestId as string;
    let open: () => void = () => undefined;
    requests.sendGate = new Promise((resolve) => (open = resolve));

    // Act
    const both = Promise.all([post('/api/fabric/send', { requestId }, csrf), post('/api/fabric/send', { requestId }, csrf)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    open();
    const [first, second] = await both;
    const retry = await post('/api/fabric/send', { requestId }, csrf);

    // Assess
    expect(first).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    for (const again of [second, retry]) {
      expect(again).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'notChecked', alreadySent: true, requestId, message: expect.stringContaining(`request ${requestId} was sent already by this console`) }) });
    }
    expect(requests.sent).toEqual([expect.objectContaining({ requestId })]);
  });

  it.each([
    ['without the CSRF token', '/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: {} }, undefined, 403],
    ['with a wrong CSRF token', '/api/fabric/check', { action: 'evacuate', fabric: 'lor1', fields: {} }, 'nope', 403],
    ['with an unknown action', '/api/fabric/check', { action: 'failout', fabric: 'lor1', fields: {} }, 'csrf', 400],
    ['with a body beside the request id', '/api/fabric/send', { requestId: 'r-1', body: { action: 'evacuate', fabric: 'lva1' } }, 'csrf', 400],
    ['with no request id', '/api/fabric/send', {}, 'csrf', 400],
  ] as const)('refuses a fabric action %s and checks or sends nothing', async (_case, path, body, token, status) => {
    // Act
    const answer = await post(path, body, token === 'csrf' ? csrf : token);

    // Assess
    expect(answer.status).toBe(status);
    expect(requests.checks).toEqual([]);
    expect(requests.sent).toEqual([]);
  });

  it('serves the page with the fabric section, its form and its script', async () => {
    // Act
    const page = await (await fetch(server.url)).text();
    const script = await fetch(new URL('/static/fabrics.js', server.url));

    // Assess
    expect(page).toContain('<div id="fabrics">');
    expect(page).toContain('<form id="fabric-form" novalidate>');
    expect(page).toContain('<a href="#fabrics-h">Fabrics</a>');
    expect(page).toContain('<script src="/static/fabrics.js" defer></script>');
    expect(script.status).toBe(200);
  });
});

describe("the cluster form's Confirm", () => {
  const fields = { cluster: 'greetings-lor1', peers: 'greetings-lva1', for: '30m', reason: 'INC-42' };

  it.each([
    ['a host came to the peer', 5, 1.4],
    ['a host of the peer went', 3, 1.67],
  ] as const)('sends nothing when the projection judged at Confirm differs from the one the Check showed (%s), shows it, and sends it on the next Confirm', async (_case, hostsNow, factorNow) => {
    // Prepare: checked with greetings-lva1 at 4 hosts (×1.5); other hosts by the Confirm, still within the limit
    const check = await post('/api/check', { action: 'failout', fields }, csrf);
    const requestId = (check.json.body as { requestId: string }).requestId;
    requests.clusterAnswer = (body) => ({ kind: 'ready', body, judged: true, judgement: `greetings-lva1: ${hostsNow} hosts → ×${factorNow}`, capacity: projection(hostsNow) });

    // Act
    const first = await post('/api/send', { action: 'failout', fields, requestId }, csrf);
    const sentAfterFirst = requests.sent.length;
    const second = await post('/api/send', { action: 'failout', fields, requestId }, csrf);

    // Assess: the first Confirm showed the judgement now and sent nothing; the second sent the request
    expect(check.json).toEqual(expect.objectContaining({ kind: 'ready', judgement: 'greetings-lva1: 4 hosts → ×1.5' }));
    expect(first).toEqual({
      status: 409,
      json: expect.objectContaining({
        kind: 'stale',
        reason: 'judgementChanged',
        requestId,
        message: expect.stringContaining('nothing was sent'),
        check: expect.objectContaining({ kind: 'ready', body: expect.objectContaining({ requestId }), judgement: `greetings-lva1: ${hostsNow} hosts → ×${factorNow}` }),
      }),
    });
    expect(sentAfterFirst).toBe(0);
    expect(second).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(requests.sent).toEqual([expect.objectContaining({ requestId, action: 'failout', cluster: 'greetings-lor1' })]);
  });

  it('sends a Confirm made twice at once (a double submit) once; the second, and a retry after a lost answer, are told it was sent, not that it was never checked', async () => {
    // Prepare: a queue slow to answer, so the second Confirm comes while the first is on its way
    const check = await post('/api/check', { action: 'failout', fields }, csrf);
    const requestId = (check.json.body as { requestId: string }).requestId;
    let open: () => void = () => undefined;
    requests.sendGate = new Promise((resolve) => (open = resolve));

    // Act
    const both = Promise.all([post('/api/send', { action: 'failout', fields, requestId }, csrf), post('/api/send', { action: 'failout', fields, requestId }, csrf)]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    open();
    const [first, second] = await both;
    const retry = await post('/api/send', { action: 'failout', fields, requestId }, csrf);

    // Assess
    expect(first).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    for (const again of [second, retry]) {
      expect(again).toEqual({ status: 409, json: expect.objectContaining({ kind: 'stale', reason: 'notChecked', alreadySent: true, requestId, message: expect.stringContaining(`request ${requestId} was sent already by this console`) }) });
    }
    expect(requests.sent).toEqual([expect.objectContaining({ requestId, action: 'failout' })]);
  });

  it('sends when only the times of the judgement moved with the clock (a window given with `for` starts when applied)', async () => {
    // Prepare: the same projection, its text 5 s later
    const check = await post('/api/check', { action: 'failout', fields }, csrf);
    const requestId = (check.json.body as { requestId: string }).requestId;
    requests.clusterAnswer = (body) => ({ kind: 'ready', body, judged: true, judgement: 'greetings-lva1: 4 hosts → ×1.5, window ends in 29m 55s', capacity: projection(4) });

    // Act
    const confirm = await post('/api/send', { action: 'failout', fields, requestId }, csrf);

    // Assess
    expect(confirm).toEqual({ status: 202, json: expect.objectContaining({ kind: 'sent', requestId }) });
    expect(requests.sent).toHaveLength(1);
  });
});
