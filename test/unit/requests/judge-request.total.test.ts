/**
 * Issue 14: judging a request never throws. Before, a window starting before 1970 passed the schema,
 * `applyRequest` built it, and the cluster codec's writer refused it in the middle of the write: the
 * exception became a batch item failure, SQS retried the message into the DLQ, and the rest of the
 * cluster's FIFO group (restores included) waited. Now whatever cannot be judged or written is a
 * rejection (`unjudgeable`), recorded and acknowledged; only ZooKeeper's own errors propagate, so the
 * writer still classifies them as transient.
 */
import { clusterPath, urisPath } from '../../../lib/d2';
import { judgeRequest, RequestWriter, type ChangeRequest } from '../../../lib/requests';
import { type FailoutChangeRequest } from '../../../lib/requests/schema';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { failoutInput, HOUR, NOW } from '../../helpers/requests';

const D2 = '/d2';
const CLUSTER = 'greetings-lor1';

async function seeded(): Promise<{ zk: InMemoryZk; session: InMemoryZkSession }> {
  const zk = new InMemoryZk({ clock: () => NOW });
  const session = zk.session();
  const create = (path: string, json: object) => session.create(path, Buffer.from(JSON.stringify(json)), { acl: OPEN_ACL, parents: true });
  await create(clusterPath(D2, CLUSTER), { clusterName: CLUSTER });
  await create(clusterPath(D2, 'greetings-lva1'), { clusterName: 'greetings-lva1' });
  await create(`${urisPath(D2, 'greetings-lva1')}/host-1`, { clusterName: 'greetings-lva1', weights: { 'http://lva1-1:8080/': 1 } });
  return { zk, session };
}

/** A normalised failout as a caller might hand-build it, bypassing the schema's bounds. */
function failout(overrides: Partial<FailoutChangeRequest>): ChangeRequest {
  return {
    version: 1,
    requestId: 'r-1',
    action: 'failout',
    cluster: CLUSTER,
    peers: [{ cluster: 'greetings-lva1', weight: 1 }],
    offlineAt: NOW,
    onlineAt: NOW + HOUR,
    buckets: { from: 0, to: 99 },
    force: false,
    ...overrides,
  };
}

describe('judgeRequest', () => {
  it.each([
    ['a window that starts before 1970', { offlineAt: -3_600_000 }, 'unjudgeable', /offlineAt/],
    ['a peer weight the codec refuses', { peers: [{ cluster: 'greetings-lva1', weight: 0 }] }, 'unjudgeable', /weight/],
    ['a bucket range that runs backwards', { buckets: { from: 60, to: 10 } }, 'unjudgeable', /bucketOfflineRange/],
    ['an end that is not a number', { onlineAt: Number.NaN }, 'badWindow', /onlineAt: NaN/],
    ['an end no Date can hold', { onlineAt: 9e20 }, 'unjudgeable', /onlineAt/],
    ['a peer that is no znode name', { peers: [{ cluster: '..', weight: 1 }] }, 'unjudgeable', /"\.\."/],
  ])('turns %s into a rejection instead of throwing', async (_, overrides, reason, message) => {
    const { session } = await seeded();
    const judgement = await judgeRequest(session, D2, failout(overrides), NOW);
    expect(judgement).toMatchObject({ verdict: 'reject', rejection: { reason, requestId: 'r-1', message: expect.stringMatching(message) } });
  });

  it('hands the writer the text it will write, checked by the codec', async () => {
    const { session } = await seeded();
    const judgement = await judgeRequest(session, D2, failout({}), NOW);
    expect(judgement.verdict).toBe('apply');
    if (judgement.verdict !== 'apply') return;
    expect(JSON.parse(judgement.afterText)).toMatchObject({ clusterName: CLUSTER, failoutProperties: { failoutRedirectConfigs: [{ peer: 'greetings-lva1', weight: 1 }] } });
  });

  it('still lets ZooKeeper errors through, so the writer can call them transient', async () => {
    const { session } = await seeded();
    session.failNext('connectionLoss', { op: 'getData' });
    await expect(judgeRequest(session, D2, failout({}), NOW)).rejects.toMatchObject({ kind: 'connectionLoss' });
  });
});

describe('RequestWriter with a window before 1970', () => {
  it('records the rejection, acknowledges it, and leaves the cluster alone', async () => {
    const { session } = await seeded();
    const before = (await session.get(clusterPath(D2, CLUSTER))).stat.version;
    const writer = new RequestWriter({ session, d2BasePath: D2, clock: () => NOW, recordAcl: OPEN_ACL });
    const body = JSON.stringify(failoutInput({ requestId: 'r-1969', peers: [{ cluster: 'greetings-lva1' }], duration: undefined, offlineAt: '1969-12-31T23:00:00Z', onlineAt: NOW + HOUR }));
    const outcome = await writer.process(body, { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'rejected', reason: 'badWindow', requestId: 'r-1969' });
    expect(await writer.readRecord('r-1969')).toMatchObject({ status: 'rejected', reason: 'badWindow' });
    expect((await session.get(clusterPath(D2, CLUSTER))).stat.version).toBe(before);
  });
});
