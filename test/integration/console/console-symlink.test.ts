import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import { clusterPath } from '../../../lib/d2';
import { OPEN_ACL } from '../../../lib/zk';
import { clusterDoc, putCluster, putService, serviceDoc } from '../../helpers/d2';
import { closeSessions, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// A D2 symlink (`$greetingsMaster`, docs/observer.md "Symlinks") in the cluster directory is no
// cluster: the console, over a real ZooKeeper, shows no card for it (before, one marked malformed:
// its data is a path, not cluster JSON), while the cluster it leads to has its card.

const LINK = '$greetingsMaster';

describe('the console and a D2 symlink in the cluster directory', () => {
  let server: ConsoleServer | undefined;

  afterAll(async () => {
    await server?.close();
    await closeSessions();
  }, 30_000);

  it('shows the clusters and no card for the link', async () => {
    // Prepare
    const base = uniqueBase('console-symlink');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lva1'));
    await session.create(clusterPath(`${base}/d2`, LINK), Buffer.from(clusterPath(`${base}/d2`, 'greetings-lva1')), { acl: OPEN_ACL });
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, pino({ level: 'silent' })), queueProbeMs: 60_000 });

    // Act: until the view has read both clusters
    const read = async (): Promise<string> => (await fetch(new URL('/', server!.url))).text();
    for (const deadline = Date.now() + 20_000; Date.now() < deadline && !(await read()).includes('data-cluster="greetings-lva1"'); ) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await new Promise((r) => setTimeout(r, 300));
    const page = await read();

    // Assess
    expect(page).toContain('data-cluster="greetings-lor1"');
    expect(page).toContain('data-cluster="greetings-lva1"');
    expect(page).not.toContain(`data-cluster="${LINK}"`);
    expect(page).not.toMatch(/malformed/i);
  });
});
