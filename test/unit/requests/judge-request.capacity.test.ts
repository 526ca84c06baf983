/**
 * Issue 16: the capacity guard inside `judgeRequest` (shared by the worker and the CLI's dry run),
 * over an in-memory ZooKeeper: hosts are counted by the D2 clients' eligibility rule, the deployment's
 * limit applies, `force` passes with the projection attached.
 */
import { clusterPath, urisPath } from '../../../lib/d2';
import { judgeRequest, type ChangeRequest } from '../../../lib/requests';
import { type FailoutChangeRequest } from '../../../lib/requests/schema';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { HOUR, NOW } from '../../helpers/requests';

const D2 = '/d2';
const CLUSTER = 'big';
const PEER = 'small';

/** `big` with 2 hosts; `small` with one eligible host and three that clients would never use. */
async function seeded(): Promise<InMemoryZkSession> {
  const session = new InMemoryZk({ clock: () => NOW }).session();
  const create = (path: string, data: object | string) =>
    session.create(path, Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)), { acl: OPEN_ACL, parents: true });
  await create(clusterPath(D2, CLUSTER), { clusterName: CLUSTER });
  await create(clusterPath(D2, PEER), { clusterName: PEER, bannedUris: ['http://small-banned:1/'] });
  await create(`${urisPath(D2, CLUSTER)}/h1`, { clusterName: CLUSTER, weights: { 'http://big-1:1/': 1, 'http://big-2:1/': 1 } });
  await create(`${urisPath(D2, PEER)}/h1`, { clusterName: PEER, weights: { 'http://small-1:1/': 1 } });
  await create(`${urisPath(D2, PEER)}/h2`, { clusterName: PEER, weights: { 'http://small-drained:1/': 0 } });
  await create(`${urisPath(D2, PEER)}/h3`, { clusterName: PEER, weights: { 'http://small-banned:1/': 1 } });
  await create(`${urisPath(D2, PEER)}/h4`, 'not json');
  return session;
}

function failout(overrides: Partial<FailoutChangeRequest> = {}): ChangeRequest {
  return {
    version: 1,
    requestId: 'r-1',
    action: 'failout',
    cluster: CLUSTER,
    peers: [{ cluster: PEER, weight: 1 }],
    offlineAt: NOW,
    onlineAt: NOW + HOUR,
    buckets: { from: 0, to: 99 },
    force: false,
    ...overrides,
  };
}

describe('judgeRequest capacity guard', () => {
  it('counts only the hosts clients would send to: 2 hosts onto 1 triples it, rejected with the numbers', async () => {
    const session = await seeded();

    const judgement = await judgeRequest(session, D2, failout(), NOW);

    expect(judgement).toMatchObject({ verdict: 'reject', rejection: { reason: 'insufficientPeerCapacity', message: expect.stringContaining('"small" would carry 3×') } });
  });

  it.each([
    ['half the buckets at the default limit', { buckets: { from: 0, to: 49 } }, undefined, 2],
    ['all of it under a raised limit', {}, 3, 3],
  ])('applies %s, with the projection attached', async (_name, overrides, maxPeerLoadFactor, factor) => {
    const session = await seeded();

    const judgement = await judgeRequest(session, D2, failout(overrides), NOW, maxPeerLoadFactor === undefined ? {} : { maxPeerLoadFactor });

    expect(judgement.verdict).toBe('apply');
    expect(judgement.verdict === 'apply' ? judgement.capacity?.peers : undefined).toEqual([{ cluster: PEER, hosts: 1, addedLoad: factor - 1, loadFactor: factor, over: false }]);
  });

  it('lets force through and still reports the peer as over', async () => {
    const session = await seeded();

    const judgement = await judgeRequest(session, D2, failout({ force: true }), NOW);

    expect(judgement.verdict === 'apply' ? judgement.capacity?.peers[0] : judgement).toMatchObject({ loadFactor: 3, over: true });
  });

  it('projects nothing for a restore', async () => {
    const session = await seeded();

    const judgement = await judgeRequest(session, D2, { version: 1, requestId: 'r-2', action: 'restore', cluster: CLUSTER, force: false }, NOW);

    expect(judgement).toMatchObject({ verdict: 'apply' });
    expect(judgement.verdict === 'apply' ? judgement.capacity : 'rejected').toBeUndefined();
  });
});
