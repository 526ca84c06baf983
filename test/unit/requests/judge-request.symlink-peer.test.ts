/**
 * A failout may name a D2 symlink (`$FooClusterMaster`, rest.li `SymlinkAwareZooKeeper`) as its peer
 * (docs/observer.md "Symlinks"): D2 clients follow the link to the cluster it stands for. The worker's
 * judgement (shared by the CLI's checks and the console) reads that peer the same way: the link's
 * target's node, hosts and failout, over an in-memory ZooKeeper.
 */
import { clusterPath, urisPath } from '../../../lib/d2';
import { decodeFailoutView, judgeRequest, type ChangeRequest } from '../../../lib/requests';
import { type FailoutChangeRequest } from '../../../lib/requests/schema';
import { OPEN_ACL } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { HOUR, NOW } from '../../helpers/requests';

const D2 = '/d2';
const CLUSTER = 'greetings-lor1';
const TARGET = 'greetings-lva1';
const LINK = '$greetingsMaster';

/** `greetings-lor1` (2 hosts), `greetings-lva1` (4 hosts), and `$greetingsMaster` linking to it in both directories. */
async function seeded(options: { readonly targetFailout?: object; readonly linkTarget?: string } = {}): Promise<InMemoryZkSession> {
  const session = new InMemoryZk({ clock: () => NOW }).session();
  const create = (path: string, data: object | string) =>
    session.create(path, Buffer.from(typeof data === 'string' ? data : JSON.stringify(data)), { acl: OPEN_ACL, parents: true });
  await create(clusterPath(D2, CLUSTER), { clusterName: CLUSTER });
  await create(clusterPath(D2, TARGET), { clusterName: TARGET, ...(options.targetFailout === undefined ? {} : { failoutProperties: options.targetFailout }) });
  await create(`${urisPath(D2, CLUSTER)}/h1`, { clusterName: CLUSTER, weights: { 'http://lor1-1:1/': 1, 'http://lor1-2:1/': 1 } });
  await create(`${urisPath(D2, TARGET)}/h1`, { clusterName: TARGET, weights: { 'http://lva1-1:1/': 1, 'http://lva1-2:1/': 1, 'http://lva1-3:1/': 1, 'http://lva1-4:1/': 1 } });
  await create(clusterPath(D2, LINK), clusterPath(D2, options.linkTarget ?? TARGET));
  await create(urisPath(D2, LINK), urisPath(D2, options.linkTarget ?? TARGET));
  return session;
}

function failout(peer: string, overrides: Partial<FailoutChangeRequest> = {}): ChangeRequest {
  return {
    version: 1,
    requestId: 'r-1',
    action: 'failout',
    cluster: CLUSTER,
    peers: [{ cluster: peer, weight: 1 }],
    offlineAt: NOW,
    onlineAt: NOW + HOUR,
    buckets: { from: 0, to: 99 },
    force: false,
    ...overrides,
  };
}

describe('judgeRequest with a $ peer', () => {
  it('applies a failout onto a symlinked peer, counting the hosts of the cluster it links to', async () => {
    const session = await seeded();

    const judgement = await judgeRequest(session, D2, failout(LINK), NOW);

    expect(judgement.verdict).toBe('apply');
    expect(judgement.verdict === 'apply' ? judgement.capacity?.peers : undefined).toEqual([{ cluster: LINK, hosts: 4, addedLoad: 2, loadFactor: 1.5, over: false }]);
  });

  it('refuses a symlinked peer whose target is failed out for the moved buckets, as it would the target', async () => {
    const targetFailout = {
      failoutRedirectConfigs: [{ peer: CLUSTER, weight: 1 }],
      failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 0, to: 99 }, offlineAt: NOW - HOUR, onlineAt: NOW + HOUR }],
    };
    const session = await seeded({ targetFailout });

    const viaLink = await judgeRequest(session, D2, failout(LINK), NOW);
    const direct = await judgeRequest(session, D2, failout(TARGET), NOW);

    expect(direct).toMatchObject({ verdict: 'reject', rejection: { reason: 'peerFailedOut' } });
    expect(viaLink).toMatchObject({ verdict: 'reject', rejection: { reason: 'peerFailedOut' } });
  });

  it('keeps the link out of the view of open failouts, which holds cluster nodes only (as zk reindex rebuilds it)', async () => {
    // Prepare: the target is failed out for buckets 50-99 only, so it takes the moved 0-49
    const targetFailout = {
      failoutRedirectConfigs: [{ peer: CLUSTER, weight: 1 }],
      failoutBucketConfigs: [{ partition: 'main', bucketOfflineRange: { from: 50, to: 99 }, offlineAt: NOW - HOUR, onlineAt: NOW + HOUR }],
    };
    const session = await seeded({ targetFailout });

    // Act
    const judgement = await judgeRequest(session, D2, failout(LINK, { buckets: { from: 0, to: 49 } }), NOW);

    // Assess
    expect(judgement.verdict).toBe('apply');
    const view = judgement.verdict === 'apply' && judgement.view !== undefined ? decodeFailoutView(judgement.view.data) : undefined;
    expect(view === undefined ? [] : [...view.keys()].sort()).toEqual([CLUSTER, TARGET]);
  });

  it('reads a link whose target does not exist as a peer that does not exist', async () => {
    const session = await seeded({ linkTarget: 'greetings-nowhere' });

    const judgement = await judgeRequest(session, D2, failout(LINK), NOW);

    expect(judgement).toMatchObject({ verdict: 'reject', rejection: { reason: 'unknownPeer' } });
  });
});
