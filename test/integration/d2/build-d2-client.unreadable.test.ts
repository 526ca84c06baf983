import { clusterPath, serializeClusterProperties, urisPath } from '../../../lib/d2';
import { buildD2Client, type BuiltD2Client } from '../../../lib/failout';
import { digestAcl, OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putService, serviceDoc } from '../../helpers/d2';
import { closeSessions, openSession, uniqueBase } from '../../helpers/zk';

// A D2 client over ZooKeeper (`buildD2Client({ discovery: { zookeeper } })`, real ZooKeeper) whose
// session may not read a service's cluster node (an ACL without read for it): the request fails at
// once with an error that names the cluster, and the client's counters show the unreadable node;
// before, the cluster stayed "loading" and the request waited for the 10 s discovery timeout.

describe('a D2 client that may not read a cluster node', () => {
  let writer: ZkSession;
  let reader: ZkSession;
  let base: string;
  let built: BuiltD2Client | undefined;

  beforeEach(async () => {
    writer = await openSession();
    reader = await openSession();
    base = uniqueBase('d2-unreadable');
  });

  afterEach(async () => {
    await built?.close();
    built = undefined;
    await writer.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('fails a request to its service at once, naming the cluster, instead of at the discovery timeout', async () => {
    // Prepare
    await putService(writer, base, serviceDoc('greetings', 'locked', '/greetings'));
    await writer.ensurePath(`${base}/clusters`, OPEN_ACL);
    await put(writer, clusterPath(base, 'locked'), serializeClusterProperties(clusterDoc('locked')), [digestAcl('someone-else', 'not-the-client')]);
    await writer.ensurePath(urisPath(base, 'locked'), OPEN_ACL);
    built = buildD2Client({ discovery: { zookeeper: { session: reader }, basePath: base } });
    const started = Date.now();

    // Act
    const outcome = await built.resolve('d2://greetings/hello').then(
      (r) => ({ ok: true as const, r }),
      (err: unknown) => ({ ok: false as const, err: err as Error & { kind?: string } }),
    );

    // Assess
    expect(outcome.ok).toBe(false);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.ok ? '' : outcome.err.message).toContain('locked');
    expect(built.state.stats().clusters.malformed).toBe(1);
  });
});
