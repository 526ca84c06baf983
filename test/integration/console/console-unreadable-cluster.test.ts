import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import { clusterPath, serializeClusterProperties } from '../../../lib/d2';
import { digestAcl, OPEN_ACL } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putService, serviceDoc } from '../../helpers/d2';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// A cluster node the console's session may not read (an ACL without READ for it: ZooKeeper noAuth),
// on the console over a real ZooKeeper: its card must say so, as the CLI's status does, instead of
// "loading…" for ever; the other clusters are shown as usual.

const silentLogger = pino({ level: 'silent' });

describe('a cluster node the console may not read', () => {
  afterEach(async () => {
    await closeSessions();
  });

  it('is named on its card and marked malformed in the fabric table, the other clusters still shown', async () => {
    // Prepare
    const base = uniqueBase('console-noauth');
    const session = await openSession();
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    await putCluster(session, `${base}/d2`, clusterDoc('greetings-lor1'));
    await session.ensurePath(`${base}/d2/clusters`, OPEN_ACL);
    await put(session, clusterPath(`${base}/d2`, 'greetings-lva1'), serializeClusterProperties(clusterDoc('greetings-lva1')), [digestAcl('someone-else', 'not-the-console')]);
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_USER: 'tester' };
    const server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    try {
      // Act
      let page = '';
      await eventually(async () => (page = await (await fetch(server.url)).text()).includes('no READ permission'), 10_000, 'the unreadable cluster named on the page');

      // Assess
      const card = /<article class="card[^"]*" data-cluster="greetings-lva1"[\s\S]*?<\/article>/.exec(page)?.[0] ?? '';
      expect(card).toContain('Unreadable (no good state read yet): the node cannot be read: no READ permission for this session');
      expect(card).toMatch(/<span class="badge" data-state="malformed">malformed failout<\/span>/);
      expect(card).not.toContain('loading…');
      expect(page).toMatch(/<article class="card[^"]*" data-cluster="greetings-lor1"/);
      // Its cell in the fabric table too: malformed, not loading.
      expect(page).toContain('<li data-cluster="greetings-lva1" data-state="malformed">');
    } finally {
      await server.close();
    }
  });
});
