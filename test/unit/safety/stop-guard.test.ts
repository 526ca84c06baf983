/**
 * Issue 16, the stop-conditions guard's rules over fakes (the real pipeline is in
 * test/integration/safety): which clusters it stops, what it sends, and what it does when a send fails
 * or ZooKeeper has no clusters.
 */
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { parseClusterProperties, serializeClusterProperties } from '../../../lib/d2';
import { alarmStateChangeEvent, StopGuard, type GuardCounter, type GuardZkReader } from '../../../lib/safety';
import { silentRequestLogger } from '../../../lib/requests/logger';
import { ZkError } from '../../../lib/zk';

const NOW = Date.parse('2026-11-30T16:00:00Z');
const H = 3_600_000;
const ALARM = 'greetings-lva1-errors';
const QUEUE = 'https://sqs.us-east-1.amazonaws.com/111111111111/failout-requests.fifo';

/** A cluster document with one window naming `stopAlarms` (null: no failout; a string: raw text). */
function doc(cluster: string, stopAlarms: string[] | null | string, window: [number, number] = [NOW - H, NOW + H]): Buffer {
  if (typeof stopAlarms === 'string') return Buffer.from(stopAlarms);
  const failoutProperties =
    stopAlarms === null ? undefined : { failoutRedirectConfigs: [{ peer: 'p' }], failoutBucketConfigs: [{ offlineAt: window[0], onlineAt: window[1], stopAlarms }] };
  return Buffer.from(serializeClusterProperties(parseClusterProperties({ clusterName: cluster, ...(failoutProperties ? { failoutProperties } : {}) })));
}

/** A ZooKeeper with `/d2/clusters/<name>` nodes; `undefined` data: listed but gone when read. */
function fakeZk(nodes: Record<string, Buffer | undefined> | 'noNode'): GuardZkReader {
  return {
    children: async () => {
      if (nodes === 'noNode') throw new ZkError('noNode', 'no node /d2/clusters');
      return { children: Object.keys(nodes).sort(), stat: {} as never };
    },
    read: async (path: string) => {
      const data = nodes === 'noNode' ? undefined : nodes[path.split('/').pop()!];
      return data === undefined ? { exists: false } : ({ exists: true, data, stat: {} } as never);
    },
  } as GuardZkReader;
}

function guardWith(zk: GuardZkReader, send: (m: SendMessageCommandInput) => Promise<{ messageId?: string }>) {
  const counts = new Map<GuardCounter, number>();
  const guard = new StopGuard({ zk, queueUrl: QUEUE, send, logger: silentRequestLogger, clock: () => NOW, count: (c, v) => void counts.set(c, (counts.get(c) ?? 0) + v) });
  return { guard, counts };
}

const alarm = (state: 'ALARM' | 'OK' | 'INSUFFICIENT_DATA' = 'ALARM') => alarmStateChangeEvent({ id: 'evt-1', alarmName: ALARM, state, previousState: 'OK', at: NOW, reason: 'test' });

describe('StopGuard', () => {
  it('sends one restore per cluster whose open window names the alarm, as the CLI sends requests', async () => {
    // Prepare
    const sent: SendMessageCommandInput[] = [];
    const { guard, counts } = guardWith(
      fakeZk({
        a: doc('a', [ALARM]),
        b: doc('b', ['other', ALARM]),
        c: doc('c', ['other']),
        d: doc('d', null),
        e: doc('e', [ALARM], [NOW - 2 * H, NOW - H]),
        f: undefined,
      }),
      async (m) => (sent.push(m), { messageId: `m-${sent.length}` }),
    );

    // Act
    const result = await guard.handle(alarm());

    // Assess
    expect(result).toMatchObject({ outcome: 'handled', alarmName: ALARM, clusters: 6, unreadable: [] });
    expect(sent.map((m) => [m.MessageGroupId, m.QueueUrl])).toEqual([
      ['a', QUEUE],
      ['b', QUEUE],
    ]);
    for (const m of sent) {
      const body = JSON.parse(m.MessageBody!) as Record<string, unknown>;
      expect(m.MessageDeduplicationId).toBe(body.requestId);
      expect(body).toMatchObject({ version: 1, action: 'restore', cluster: m.MessageGroupId, requestedBy: 'failout-guard', reason: `stopped by alarm ${ALARM}`, stoppedByAlarm: ALARM });
    }
    expect(Object.fromEntries(counts)).toMatchObject({ AlarmEvents: 1, RestoresSent: 2, ClustersRead: 6 });
  });

  it('ends an evacuation as one: one restoreFabric for its fabric, however many of its clusters name the alarm', async () => {
    const evacuated = (cluster: string): Buffer =>
      Buffer.from(
        serializeClusterProperties(
          parseClusterProperties({
            clusterName: cluster,
            failoutProperties: { failoutRedirectConfigs: [{ peer: 'p' }], failoutBucketConfigs: [{ offlineAt: NOW - H, onlineAt: NOW + H, stopAlarms: [ALARM], evacuation: 'lor1', requestId: 'ev-1' }] },
          }),
        ),
      );
    const sent: SendMessageCommandInput[] = [];
    const { guard } = guardWith(fakeZk({ 'greetings-lor1': evacuated('greetings-lor1'), 'hello-lor1': evacuated('hello-lor1'), a: doc('a', [ALARM]) }), async (m) => (sent.push(m), {}));

    const first = await guard.handle(alarm());
    const again = await guard.handle(alarm());

    expect(sent.slice(0, 2).map((m) => m.MessageGroupId).sort()).toEqual(['a', 'failout/fabrics']);
    const fabric = JSON.parse(sent.find((m) => m.MessageGroupId === 'failout/fabrics')!.MessageBody!) as Record<string, unknown>;
    expect(fabric).toMatchObject({ version: 1, action: 'restoreFabric', fabric: 'lor1', requestedBy: 'failout-guard', stoppedByAlarm: ALARM, reason: `stopped by alarm ${ALARM}` });
    expect(first).toMatchObject({ outcome: 'handled', restores: expect.arrayContaining([expect.objectContaining({ cluster: 'fabric lor1' })]) });
    // A redelivered event sends the same request ids: SQS and the worker's record make them duplicates.
    expect(new Set(sent.map((m) => m.MessageDeduplicationId)).size).toBe(2);
    expect(again).toMatchObject({ outcome: 'handled' });
  });

  it.each(['OK', 'INSUFFICIENT_DATA'] as const)('does nothing on a transition to %s, and reads nothing', async (state) => {
    // Prepare
    const zk = fakeZk({ a: doc('a', [ALARM]) });
    const children = jest.spyOn(zk, 'children');
    const send = jest.fn();
    const { guard, counts } = guardWith(zk, send);

    // Act
    const result = await guard.handle(alarm(state));

    // Assess
    expect(result).toEqual({ outcome: 'ignored', alarmName: ALARM, state });
    expect(children).not.toHaveBeenCalled();
    expect(send).not.toHaveBeenCalled();
    expect(counts.get('IgnoredTransitions')).toBe(1);
  });

  it('skips an unreadable cluster, counting it, and stops the rest', async () => {
    // Prepare
    const sent: string[] = [];
    const { guard, counts } = guardWith(fakeZk({ a: doc('a', [ALARM]), bad: doc('bad', '{"clusterName": "bad", "failoutProperties": {"failoutBucketConfigs": 3}}') }), async (m) => (sent.push(m.MessageGroupId!), {}));

    // Act
    const result = await guard.handle(alarm());

    // Assess
    expect(result).toMatchObject({ outcome: 'handled', unreadable: [{ cluster: 'bad', problem: expect.stringContaining('failoutBucketConfigs') }] });
    expect(sent).toEqual(['a']);
    expect(counts.get('ClustersUnreadable')).toBe(1);
  });

  it('skips a cluster node it may not read (noAuth), counting it, and stops the rest', async () => {
    // Prepare: `locked`'s ACL gives the guard no READ
    const sent: string[] = [];
    const zk = fakeZk({ a: doc('a', [ALARM]), locked: doc('locked', [ALARM]), z: doc('z', [ALARM]) });
    const read = zk.read.bind(zk);
    jest.spyOn(zk, 'read').mockImplementation(async (path: string) => {
      if (path.endsWith('/locked')) throw new ZkError('noAuth', 'NO_AUTH', { path });
      return read(path);
    });
    const { guard, counts } = guardWith(zk, async (m) => (sent.push(m.MessageGroupId!), {}));

    // Act
    const result = await guard.handle(alarm());

    // Assess
    expect(result).toMatchObject({ outcome: 'handled', unreadable: [{ cluster: 'locked', problem: expect.stringMatching(/no READ permission/) }] });
    expect(sent.sort()).toEqual(['a', 'z']);
    expect(counts.get('ClustersUnreadable')).toBe(1);
  });

  it('has nothing to stop when the D2 base has no clusters node', async () => {
    // Prepare
    const send = jest.fn();
    const { guard } = guardWith(fakeZk('noNode'), send);

    // Act
    const result = await guard.handle(alarm());

    // Assess
    expect(result).toMatchObject({ outcome: 'handled', clusters: 0, restores: [] });
    expect(send).not.toHaveBeenCalled();
  });

  it('sends every restore it can, then throws a restoreNotSent SafetyError naming the clusters not sent (a retry sends the same ids)', async () => {
    // Prepare
    const attempts: string[][] = [];
    let round = 0;
    const { guard, counts } = guardWith(fakeZk({ a: doc('a', [ALARM]), b: doc('b', [ALARM]), c: doc('c', [ALARM]) }), async (m) => {
      (attempts[round] ??= []).push(m.MessageDeduplicationId!);
      if (round === 0 && m.MessageGroupId === 'b') throw new Error('throttled');
      return {};
    });

    // Act
    const first = guard.handle(alarm());
    await expect(first).rejects.toMatchObject({ name: 'SafetyError', kind: 'restoreNotSent', clusters: ['b'] });
    await expect(first).rejects.toThrow(/could not send the restore of b for alarm greetings-lva1-errors: throttled/);
    round = 1;
    const retry = await guard.handle(alarm());

    // Assess
    expect(retry).toMatchObject({ outcome: 'handled' });
    expect([...attempts[1]!].sort()).toEqual([...attempts[0]!].sort());
    expect(counts.get('RestoreSendFailures')).toBe(1);
  });

  it('lets a ZooKeeper failure through, so the event is retried', async () => {
    // Prepare
    const zk = fakeZk({});
    jest.spyOn(zk, 'children').mockRejectedValue(new ZkError('connectionLoss', 'connection lost'));
    const { guard } = guardWith(zk, jest.fn());

    // Act, Assess
    await expect(guard.handle(alarm())).rejects.toThrow(/connection lost/);
  });

  it('counts and answers a malformed event without reading or sending', async () => {
    // Prepare
    const zk = fakeZk({ a: doc('a', [ALARM]) });
    const children = jest.spyOn(zk, 'children');
    const { guard, counts } = guardWith(zk, jest.fn());

    // Act
    const result = await guard.handle({ source: 'aws.cloudwatch' });

    // Assess
    expect(result.outcome).toBe('malformed');
    expect(children).not.toHaveBeenCalled();
    expect(counts.get('MalformedEvents')).toBe(1);
  });
});
