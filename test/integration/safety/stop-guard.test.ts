/**
 * Issue 16, stop conditions on the real pipeline: a real ZooKeeper, the FIFO queue on fauxqs, the
 * real `failout-requests` handler behind the local poller, and the real `failout-guard` handler
 * (createGuardHandler over a StopGuard reading that ZooKeeper and sending with an SQS client).
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
import type { Context } from 'aws-lambda';
import { newRequestId } from '../../../lib/requests';
import { OPEN_ACL } from '../../../lib/zk';
import { alarmStateChangeEvent, StopGuard } from '../../../lib/safety';
import { createGuardHandler, type FailoutGuardHandler, type GuardResponse } from '../../../lib/safety/lambda';
import { eventually } from '../../helpers/zk';
import { announceHosts, failoutBody, queueDepth, readCluster, readRecord, realHandler, seedClusters, send, startPollers, stopPollers, type OutcomeLog, useQueueFixture } from '../../helpers/requests-queue';

const ALARM = 'greetings-lva1-errors';
const CONTEXT = { functionName: 'failout-guard', awsRequestId: 'test', getRemainingTimeInMillis: () => 30_000 } as unknown as Context;

let queueUrl: string;
let log: OutcomeLog;
let guard: FailoutGuardHandler;
let sentMessages: number;

// other-a and other-b both fail out to ltx1, lor1 and ltx1 to lva1: each peer needs the hosts to take
// them (issue 21 judges them together).
const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, ['lor1', 'lva1', 'ltx1', 'other-a', 'other-b']);
  await announceHosts(session, paths, 'ltx1', 3);
  await announceHosts(session, paths, 'lva1', 4);
});
beforeEach(async () => {
  queueUrl = (await fx.sqs.createFifoQueuePair({ visibilityTimeoutSeconds: 5 })).queueUrl;
  log = { outcomes: [] };
  startPollers(1, { client: fx.sqs.client, queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  sentMessages = 0;
  const stopGuard = new StopGuard({
    zk: fx.session,
    d2BasePath: fx.paths.d2Base,
    queueUrl,
    send: async (message) => {
      sentMessages++;
      const out = await fx.sqs.client.send(new SendMessageCommand(message));
      return out.MessageId === undefined ? {} : { messageId: out.MessageId };
    },
    logger: new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' }),
  });
  guard = createGuardHandler({ guard: stopGuard, logger: new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' }), metrics: new Metrics({ namespace: 'failout-test', serviceName: 'failout-guard-test' }) });
});

/** Sends a failout and waits until it is applied. */
async function failOut(cluster: string, peers: string[], overrides: Record<string, unknown> = {}): Promise<string> {
  const body = failoutBody(cluster, peers, overrides);
  await send(fx.sqs.client, queueUrl, body);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(body.requestId)))?.status === 'applied', 10_000, `failout of ${cluster}`);
  return String(body.requestId);
}

function alarmEvent(state: 'ALARM' | 'OK', alarmName = ALARM, id: string = randomUUID(), at: number = Date.now()): Record<string, unknown> {
  return alarmStateChangeEvent({ id, alarmName, state, previousState: state === 'ALARM' ? 'OK' : 'ALARM', at, reason: 'test' });
}

function handled(response: GuardResponse): Extract<GuardResponse, { outcome: 'handled' }> {
  if (response.outcome !== 'handled') throw new Error(`not handled: ${JSON.stringify(response)}`);
  return response;
}

async function failoutOf(cluster: string): Promise<unknown> {
  return (await readCluster(fx.session, fx.paths, cluster)).json.failoutProperties ?? null;
}

it('restores a failout naming the alarm when its ALARM event arrives, and leaves failouts not naming it alone', async () => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM, 'lor1-latency'] });
  await failOut('other-a', ['ltx1'], { stopAlarms: ['some-other-alarm'] });
  await failOut('other-b', ['ltx1']);
  const untouched = await Promise.all(['other-a', 'other-b'].map((c) => readCluster(fx.session, fx.paths, c)));

  // Act
  const response = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess
  expect(response.restores.map((r) => r.cluster)).toEqual(['lor1']);
  expect(response.clusters).toBe(5);
  const requestId = response.restores[0]!.requestId;
  await eventually(async () => (await readRecord(fx.session, fx.paths, requestId)) !== undefined, 10_000, 'the guard restore record');
  expect(await readRecord(fx.session, fx.paths, requestId)).toMatchObject({ status: 'applied', action: 'restore', cluster: 'lor1', requestedBy: 'failout-guard', stoppedByAlarm: ALARM });
  expect(await failoutOf('lor1')).toBeNull();
  expect(await Promise.all(['other-a', 'other-b'].map((c) => readCluster(fx.session, fx.paths, c)))).toEqual(untouched);
});

it('stops every cluster naming the alarm, one restore each, and a scheduled failout too', async () => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  await failOut('ltx1', ['lva1'], { stopAlarms: [ALARM], offlineAt: new Date(Date.now() + 600_000).toISOString(), duration: 'PT1H' });

  // Act
  const response = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess
  expect(response.restores.map((r) => r.cluster)).toEqual(['lor1', 'ltx1']);
  for (const r of response.restores) await eventually(async () => (await readRecord(fx.session, fx.paths, r.requestId))?.status === 'applied', 10_000, `restore of ${r.cluster}`);
  expect(await failoutOf('lor1')).toBeNull();
  expect(await failoutOf('ltx1')).toBeNull();
});

it('has one effect for a redelivered event: the same request ids, deduplicated by the queue and by the records', async () => {
  // Prepare: the worker is paused, so both deliveries of the event are handled before the restore applies.
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  const event = alarmEvent('ALARM');
  await stopPollers();

  // Act: EventBridge delivers the event twice.
  const first = handled(await guard(event, CONTEXT));
  const second = handled(await guard(JSON.parse(JSON.stringify(event)), CONTEXT));
  startPollers(1, { client: fx.sqs.client, queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  const requestId = first.restores[0]!.requestId;
  await eventually(async () => (await readRecord(fx.session, fx.paths, requestId))?.status === 'applied', 10_000, 'the restore');
  const after = await readCluster(fx.session, fx.paths, 'lor1');
  // The same restore once more past SQS's 5-minute deduplication window (a fresh deduplication id).
  const late = { version: 1, requestId, action: 'restore', cluster: 'lor1', requestedBy: 'failout-guard', reason: `stopped by alarm ${ALARM}`, stoppedByAlarm: ALARM };
  await send(fx.sqs.client, queueUrl, late, { dedupId: `late-${requestId}` });
  await eventually(() => log.outcomes.some((o) => o.requestId === requestId && o.status === 'duplicate'), 10_000, 'the duplicate outcome');
  // And the event a third time, after the effect: no failout names the alarm any more.
  const third = handled(await guard(event, CONTEXT));

  // Assess
  expect(second.restores.map((r) => r.requestId)).toEqual([requestId]);
  expect(log.outcomes.filter((o) => o.requestId === requestId).map((o) => o.status)).toEqual(['applied', 'duplicate']);
  expect(third.restores).toEqual([]);
  expect(await readCluster(fx.session, fx.paths, 'lor1')).toEqual(after);
  expect(await failoutOf('lor1')).toBeNull();
});

it('changes nothing when the failout naming the alarm was replaced by one that does not name it', async () => {
  // Prepare: the alarm fires, but the operator's new failout lands before the guard's restore.
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  const event = alarmEvent('ALARM');
  await stopPollers();
  const response = handled(await guard(event, CONTEXT));
  const operator = failoutBody('lor1', ['ltx1']);
  await send(fx.sqs.client, queueUrl, operator);

  // Act
  startPollers(1, { client: fx.sqs.client, queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(operator.requestId))) !== undefined, 10_000, "the operator's failout");

  // Assess: FIFO order is the guard's restore (applied, it named the alarm), then the operator's failout.
  expect(await readRecord(fx.session, fx.paths, response.restores[0]!.requestId)).toMatchObject({ status: 'applied', stoppedByAlarm: ALARM });
  expect(await failoutOf('lor1')).toMatchObject({ failoutRedirectConfigs: [{ peer: 'ltx1' }] });

  // Act again: a second alarm event now finds no failout naming the alarm.
  const again = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess
  expect(again.restores).toEqual([]);
});

it('records a restore that finds the failout already replaced as unchanged, writing nothing', async () => {
  // Prepare: the guard's restore is queued behind an operator's failout without the alarm.
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  await stopPollers();
  const operator = failoutBody('lor1', ['ltx1']);
  await send(fx.sqs.client, queueUrl, operator);
  const response = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Act
  startPollers(1, { client: fx.sqs.client, queueUrl, handler: () => realHandler(fx.session, fx.paths, log) });
  const requestId = response.restores[0]!.requestId;
  await eventually(async () => (await readRecord(fx.session, fx.paths, requestId)) !== undefined, 10_000, 'the guard restore record');

  // Assess
  expect(await readRecord(fx.session, fx.paths, requestId)).toMatchObject({ status: 'applied', unchanged: true, stoppedByAlarm: ALARM });
  expect(await failoutOf('lor1')).toMatchObject({ failoutRedirectConfigs: [{ peer: 'ltx1' }] });
});

it.each([
  ['null', null],
  ['an empty object', {}],
  ['another source', { ...alarmEvent('ALARM'), source: 'aws.ec2' }],
  ['no alarm name', { ...alarmEvent('ALARM'), detail: { state: { value: 'ALARM' } } }],
  ['an unknown state', { ...alarmEvent('ALARM'), detail: { alarmName: ALARM, state: { value: 'BROKEN' } } }],
  ['JSON text cut short', '{"detail-type":'],
])('rejects a malformed event (%s) with a clear error, sends nothing, and keeps working', async (_what, event) => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });

  // Act
  const response = await guard(event, CONTEXT);
  const next = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess
  expect(response).toMatchObject({ outcome: 'malformed', error: expect.stringMatching(/not a CloudWatch alarm state change event|not JSON/) });
  expect(sentMessages).toBe(1);
  expect(next.restores.map((r) => r.cluster)).toEqual(['lor1']);
});

it('ignores a transition to OK: nothing sent, the failout stays', async () => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  const before = await readCluster(fx.session, fx.paths, 'lor1');

  // Act
  const response = await guard(alarmEvent('OK'), CONTEXT);

  // Assess
  expect(response).toEqual({ outcome: 'ignored', alarmName: ALARM, state: 'OK' });
  expect(sentMessages).toBe(0);
  expect(await queueDepth(fx.sqs.client, queueUrl)).toBe(0);
  expect(await readCluster(fx.session, fx.paths, 'lor1')).toEqual(before);
});

it('skips a cluster whose document does not parse and still stops the others', async () => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  await fx.session.set(`${fx.paths.d2Base}/clusters/other-a`, Buffer.from('{"clusterName": "other-a", "failoutProperties": 7}'));

  // Act
  const response = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess
  expect(response.unreadable).toEqual(['other-a']);
  expect(response.restores.map((r) => r.cluster)).toEqual(['lor1']);
});

it('reads a D2 symlink under the clusters as no cluster of its own, not as an unreadable one, and stops the failouts', async () => {
  // Prepare: $lva1Master links to lva1 (docs/observer.md "Symlinks"), and lor1's failout names it as its peer.
  for (const dir of ['clusters', 'uris']) await fx.session.create(`${fx.paths.d2Base}/${dir}/$lva1Master`, Buffer.from(`${fx.paths.d2Base}/${dir}/lva1`), { acl: OPEN_ACL });
  await failOut('lor1', ['$lva1Master'], { stopAlarms: [ALARM] });

  // Act
  const response = handled(await guard(alarmEvent('ALARM'), CONTEXT));

  // Assess: nothing unreadable (ClustersUnreadable is what operators alarm on), and lor1 restored
  expect(response.unreadable).toEqual([]);
  expect(response.restores.map((r) => r.cluster)).toEqual(['lor1']);
  await eventually(async () => (await failoutOf('lor1')) === null, 10_000, 'lor1 restored');
});

it.each([
  ['a name listed twice', { stopAlarms: [ALARM, ALARM] }, 'badStopAlarm'],
  ['six names', { stopAlarms: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'badStopAlarm'],
  ['a string instead of a list', { stopAlarms: ALARM }, 'badSchema'],
])('records a failout with %s as rejected and applies the next request of the cluster (its group never blocked)', async (_what, overrides, reason) => {
  // Prepare
  const bad = failoutBody('lor1', ['lva1'], overrides);
  const good = failoutBody('lor1', ['lva1'], { stopAlarms: [ALARM] });

  // Act
  await send(fx.sqs.client, queueUrl, bad);
  await send(fx.sqs.client, queueUrl, good);
  await eventually(async () => (await readRecord(fx.session, fx.paths, String(good.requestId))) !== undefined, 10_000, 'the good request');

  // Assess
  expect(await readRecord(fx.session, fx.paths, String(bad.requestId))).toMatchObject({ status: 'rejected', reason, cluster: 'lor1' });
  expect(await readRecord(fx.session, fx.paths, String(good.requestId))).toMatchObject({ status: 'applied' });
  expect(await failoutOf('lor1')).toMatchObject({ failoutBucketConfigs: [expect.objectContaining({ stopAlarms: [ALARM] })] });
});

it('records a restore with a bad stoppedByAlarm as rejected (badStopAlarm), leaving the failout', async () => {
  // Prepare
  await failOut('lor1', ['lva1'], { stopAlarms: [ALARM] });
  const bad = { version: 1, requestId: randomUUID(), action: 'restore', cluster: 'lor1', stoppedByAlarm: '' };

  // Act
  await send(fx.sqs.client, queueUrl, bad);
  await eventually(async () => (await readRecord(fx.session, fx.paths, bad.requestId)) !== undefined, 10_000, 'the record');

  // Assess
  expect(await readRecord(fx.session, fx.paths, bad.requestId)).toMatchObject({ status: 'rejected', reason: 'badStopAlarm' });
  expect(await failoutOf('lor1')).not.toBeNull();
});

it('does not stop a failout made after the alarm changed state when that old event is delivered again', async () => {
  // Prepare: the alarm fired ten minutes ago (event E), was handled with no failout naming it, and is OK again.
  const firedAt = Date.now() - 600_000;
  const event = alarmEvent('ALARM', ALARM, randomUUID(), firedAt);
  expect(handled(await guard(event, CONTEXT)).restores).toEqual([]);
  expect((await guard(alarmEvent('OK', ALARM, randomUUID(), firedAt + 60_000), CONTEXT)).outcome).toBe('ignored');
  // The operator then fails lor1 out naming the alarm (the CLI's UUIDv7 id carries when it was made).
  await failOut('lor1', ['lva1'], { requestId: newRequestId(Date.now()), stopAlarms: [ALARM] });
  const before = await readCluster(fx.session, fx.paths, 'lor1');

  // Act: EventBridge retries E.
  const response = handled(await guard(JSON.parse(JSON.stringify(event)), CONTEXT));

  // Assess
  expect(response.restores).toEqual([]);
  expect(await readCluster(fx.session, fx.paths, 'lor1')).toEqual(before);
});

it('stops a failout made before the alarm changed state, and one whose request id claims a time after its write', async () => {
  // Prepare: lor1's id was made now; ltx1's id claims an hour ahead (a CLI clock an hour fast), later than ZooKeeper wrote it.
  await failOut('lor1', ['lva1'], { requestId: newRequestId(Date.now()), stopAlarms: [ALARM] });
  await failOut('ltx1', ['lva1'], { requestId: newRequestId(Date.now() + 3_600_000), stopAlarms: [ALARM] });

  // Act: the alarm fires after both were written.
  const response = handled(await guard(alarmEvent('ALARM', ALARM, randomUUID(), Date.now() + 1_000), CONTEXT));

  // Assess
  expect(response.restores.map((r) => r.cluster)).toEqual(['lor1', 'ltx1']);
  for (const r of response.restores) await eventually(async () => (await readRecord(fx.session, fx.paths, r.requestId))?.status === 'applied', 10_000, `restore of ${r.cluster}`);
  expect(await failoutOf('lor1')).toBeNull();
  expect(await failoutOf('ltx1')).toBeNull();
});

it("does not stop, when its restore reaches the worker late (a DLQ redrive), a failout made after the alarm changed state", async () => {
  // Prepare: lor1's failout (made 30 minutes ago) names the alarm, which fired 20 minutes ago; the
  // guard's restore for it did not reach the worker (dead-lettered).
  const made = Date.now() - 1_800_000;
  await failOut('lor1', ['lva1'], { requestId: newRequestId(made), stopAlarms: [ALARM] });
  const captured: string[] = [];
  const capturing = new StopGuard({
    zk: fx.session,
    d2BasePath: fx.paths.d2Base,
    queueUrl,
    send: async (message) => {
      captured.push(message.MessageBody!);
      return {};
    },
    logger: new Logger({ serviceName: 'failout-guard-test', logLevel: 'SILENT' }),
  });
  const firedAt = made + 600_000;
  const stopped = handled((await capturing.handle(alarmEvent('ALARM', ALARM, randomUUID(), firedAt))) as GuardResponse);
  expect(stopped.restores.map((r) => r.cluster)).toEqual(['lor1']);
  // The alarm went back to OK; the operator fails lor1 out again naming it.
  const operator = await failOut('lor1', ['ltx1'], { requestId: newRequestId(Date.now()), stopAlarms: [ALARM] });
  const before = await readCluster(fx.session, fx.paths, 'lor1');

  // Act: the old restore is redriven from the DLQ.
  const restore = JSON.parse(captured[0]!) as { requestId: string };
  await send(fx.sqs.client, queueUrl, captured[0]!, { group: 'lor1' });
  await eventually(async () => (await readRecord(fx.session, fx.paths, restore.requestId)) !== undefined, 10_000, 'the redriven restore');

  // Assess: recorded, unchanged; the operator's failout stays.
  expect(await readRecord(fx.session, fx.paths, restore.requestId)).toMatchObject({ status: 'applied', unchanged: true, stoppedByAlarm: ALARM });
  expect(await readCluster(fx.session, fx.paths, 'lor1')).toEqual(before);
  expect(await failoutOf('lor1')).toMatchObject({ failoutBucketConfigs: [expect.objectContaining({ requestId: operator })] });
});
