/**
 * A cluster whose `failoutProperties` another tool wrote unreadable: D2 clients keep their last good
 * state (the failout), so a restore is the one request that must still work. Before, the judge refused
 * every request for it (`malformedCluster`), restore included. Now a restore (the operator's, a guard's)
 * is applied: the document is written back without `failoutProperties`, every other member as the
 * cluster codec reads it, and the judgement says it removes an unreadable failout and why. Everything
 * else stays `malformedCluster`, as does a document that is no JSON or whose other members are invalid.
 */
import { clusterPath, parseClusterProperties, serializeClusterProperties, urisPath } from '../../../lib/d2/data';
import { judgeRequest, type ChangeRequest } from '../../../lib/requests';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { HOUR, NOW } from '../../helpers/requests';

const D2 = '/d2';
const CLUSTER = 'greetings-lor1';
/** A failout the failout codec refuses (weight 0), with the rest of the document valid and holding a big integer and an unknown key. */
const BAD_FAILOUT = `{"clusterName":"${CLUSTER}","properties":{"owner":"team-x"},"someFutureKey":{"n":123456789012345678901234567890},"failoutProperties":{"failoutRedirectConfigs":[{"peer":"greetings-lva1","weight":0}],"failoutBucketConfigs":[{"offlineAt":1}]}}`;
const RESTORED = serializeClusterProperties(parseClusterProperties(`{"clusterName":"${CLUSTER}","properties":{"owner":"team-x"},"someFutureKey":{"n":123456789012345678901234567890}}`));

async function seeded(clusterText: string): Promise<InMemoryZkSession> {
  const zk = new InMemoryZk({ clock: () => NOW });
  const session = zk.session();
  await session.create(clusterPath(D2, CLUSTER), Buffer.from(clusterText), { acl: OPEN_ACL, parents: true });
  await session.create(clusterPath(D2, 'greetings-lva1'), Buffer.from(JSON.stringify({ clusterName: 'greetings-lva1' })), { acl: OPEN_ACL, parents: true });
  await session.create(`${urisPath(D2, 'greetings-lva1')}/host-1`, Buffer.from(JSON.stringify({ clusterName: 'greetings-lva1', weights: { 'http://lva1-1:8080/': 1 } })), { acl: OPEN_ACL, parents: true });
  return session;
}

const base = { version: 1, requestId: 'r-1', cluster: CLUSTER, force: false } as const;
const restore: ChangeRequest = { ...base, action: 'restore' };
const guardRestore: ChangeRequest = { ...base, action: 'restore', stoppedByAlarm: 'greetings-errors' };

describe('judgeRequest on a cluster whose failoutProperties do not read', () => {
  it.each([
    ["an operator's restore", restore],
    ["a guard's restore", guardRestore],
  ])('applies %s: the document without failoutProperties, everything else kept, saying what it removes', async (_, request) => {
    // Prepare
    const session = await seeded(BAD_FAILOUT);

    // Act
    const judgement = await judgeRequest(session, D2, request, NOW);

    // Assess
    expect(judgement).toMatchObject({ verdict: 'apply', afterText: RESTORED, beforeText: BAD_FAILOUT, after: { failoutProperties: null } });
    expect(judgement.verdict === 'apply' && judgement.unchanged).toBeFalsy();
    expect(judgement.verdict === 'apply' ? judgement.unreadableFailout : undefined).toMatch(/failoutProperties.*weight/);
  });

  it.each([
    ['a failout', { ...base, action: 'failout', peers: [{ cluster: 'greetings-lva1', weight: 1 }], offlineAt: NOW, onlineAt: NOW + HOUR, buckets: { from: 0, to: 99 } }],
    ['an extend', { ...base, action: 'extend', onlineAt: NOW + HOUR }],
    ['a ramp hold', { ...base, action: 'rampHold' }],
  ] as Array<[string, ChangeRequest]>)('still refuses %s (malformedCluster)', async (_, request) => {
    const session = await seeded(BAD_FAILOUT);
    expect(await judgeRequest(session, D2, request, NOW)).toMatchObject({ verdict: 'reject', rejection: { reason: 'malformedCluster' } });
  });

  it.each([
    ['no JSON at all', `{"clusterName":"${CLUSTER}","failoutProperties":{`],
    ['another member invalid too', `{"clusterName":"${CLUSTER}","bannedUris":"nope","failoutProperties":[1]}`],
  ])('still refuses a restore of a document that is %s: nothing safe to write', async (_, text) => {
    const session = await seeded(text);
    expect(await judgeRequest(session, D2, restore, NOW)).toMatchObject({ verdict: 'reject', rejection: { reason: 'malformedCluster' } });
  });
});
