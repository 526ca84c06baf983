import { clusterPath, urisPath, WeightedFailoutRedirectStrategy, ZooKeeperFailoutConfigProviderFactory } from '../../../lib';
import { buildD2Client, type BuiltD2Client } from '../../../lib/failout';
import { OPEN_ACL } from '../../../lib/zk';
import { putService, serviceDoc } from '../../helpers/d2';
import { runCli, type CliResult } from '../../helpers/cli';
import { announceHosts, cliEnvFor, realHandler, seedClusters, startPollers, useQueueFixture } from '../../helpers/requests-queue';
import { openSession } from '../../helpers/zk';

// docs/observer.md "Symlinks": "A service may name the `$` cluster and a failout may name it as a
// peer." `failout out greetings-lor1 --peer '$greetingsMaster'` through the CLI, fauxqs and the real
// request worker on the shared ZooKeeper: the CLI's check and the worker judge the link's target (its
// hosts, its own failout) as D2 clients follow it, and a client built with buildD2Client then routes
// the cluster's requests to the target. Before, the link node (whose data is a path, with no host
// children) read as a peer without hosts: `noPeerWithHosts`, nothing sent.

const LINK = '$greetingsMaster';
let env: Record<string, string>;
let built: BuiltD2Client | undefined;

const fx = useQueueFixture(async (session, paths) => {
  await seedClusters(session, paths, ['greetings-lor1', 'greetings-lva1']);
  await announceHosts(session, paths, 'greetings-lva1', 2);
  await session.create(clusterPath(paths.d2Base, LINK), Buffer.from(clusterPath(paths.d2Base, 'greetings-lva1')), { acl: OPEN_ACL });
  await session.create(urisPath(paths.d2Base, LINK), Buffer.from(urisPath(paths.d2Base, 'greetings-lva1')), { acl: OPEN_ACL });
  await putService(session, paths.d2Base, serviceDoc('greetings', 'greetings-lor1', '/greetings'));
});

beforeEach(async () => {
  const queue = await fx.sqs.createFifoQueuePair();
  env = cliEnvFor(fx, queue.queueUrl);
  startPollers(1, { client: fx.sqs.client, queueUrl: queue.queueUrl, handler: () => realHandler(fx.session, fx.paths) });
});

afterEach(async () => {
  await built?.close();
  built = undefined;
});

function cli(...argv: string[]): Promise<CliResult> {
  return runCli(env, ...argv);
}

describe('a failout whose peer is a D2 symlink', () => {
  it('is judged by the cluster the link leads to, applied, and routes a client to it', async () => {
    // Act
    const dryRun = await cli('out', 'greetings-lor1', '--peer', LINK, '--for', '1h', '--dry-run');
    const out = await cli('out', 'greetings-lor1', '--peer', LINK, '--for', '1h', '--wait');
    built = buildD2Client({
      discovery: { zookeeper: { session: await openSession() }, basePath: fx.paths.d2Base },
      enableClusterFailout: true,
      failoutConfigProviderFactory: new ZooKeeperFailoutConfigProviderFactory(),
      failoutRedirectStrategy: (view, { registry }) => new WeightedFailoutRedirectStrategy({ view, registry }),
      warmUp: false,
    });
    await built.state.listenToService('greetings');
    const target = await built.resolve('d2://greetings/hello', { routingKey: 'member-1' });

    // Assess
    expect(dryRun).toMatchObject({ code: 0, stdout: expect.stringContaining('would be applied') });
    expect(dryRun.stdout).toContain(`${LINK}: 2 hosts`);
    expect(out).toMatchObject({ code: 0, stdout: expect.stringMatching(/applied \(failout greetings-lor1\)/) });
    expect(target).toMatchObject({ service: 'greetings', cluster: LINK });
    expect(target.host).toMatch(/greetings-lva1$/);
  });

  it('failout status and fabric list show the link as a link, not as a malformed cluster; status of the link shows where it leads', async () => {
    // Act
    const all = await cli('status');
    const allJson = await cli('status', '--json');
    const one = await cli('status', LINK);
    const fabrics = await cli('fabric', 'list');

    // Assess
    expect(all.code).toBe(0);
    expect(all.stdout).not.toMatch(/MALFORMED/);
    expect(all.stdout).toContain(`${LINK} → greetings-lva1`);
    const json = JSON.parse(allJson.stdout) as { clusters: { cluster: string }[]; links: { name: string; target: string | null }[] };
    expect(json.clusters.map((c) => c.cluster)).toEqual(['greetings-lor1', 'greetings-lva1']);
    expect(json.links).toEqual([{ name: LINK, target: 'greetings-lva1' }]);
    expect(one).toMatchObject({ code: 0, stdout: `${LINK} → greetings-lva1 (a D2 symlink)\ngreetings-lva1  serving\n` });
    expect(fabrics.code).toBe(0);
    expect(fabrics.stdout).not.toContain(LINK);
  });
});
