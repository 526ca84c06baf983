import pino from 'pino';
import { ConsoleServer, consoleServerOptions } from '../../../lib/console';
import { FabricWatch } from '../../../lib/console/fabric-watch';
import { encodeEvacuationNode, type EvacuationNode } from '../../../lib/requests/evacuation-node';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeSessions, eventually, openSession, sharedConnectString, uniqueBase } from '../../helpers/zk';

// An evacuation node someone wrote past the worker (a hand edit, another tool) on the console over a
// real ZooKeeper: the worker treats a node it cannot read as open (it may still move traffic), so the
// console must say so, keep showing what it last read of it, and never just drop the evacuation.

const silentLogger = pino({ level: 'silent' });
const MINUTE = 60_000;

/** An open evacuation of lor1 as the worker writes it: greetings-lor1 to greetings-lva1 for an hour. */
function openEvacuation(now: number): EvacuationNode {
  return {
    version: 1,
    fabric: 'lor1',
    requestId: '0195d5a8-7c00-7000-8000-0000000000e1',
    status: 'applied',
    mode: 'multi',
    createdAt: now - MINUTE,
    requestedBy: 'oncall@example.com',
    reason: 'INC-23',
    written: 1,
    plan: {
      fabric: 'lor1',
      requestId: '0195d5a8-7c00-7000-8000-0000000000e1',
      offlineAt: now - MINUTE,
      onlineAt: now + 60 * MINUTE,
      targets: 'capacity',
      stages: [{ index: 0, name: 'all', clusters: ['greetings-lor1'], offlineAt: now - MINUTE, fullyOutAt: now - MINUTE, onlineAt: now + 60 * MINUTE, gateAlarms: [] }],
      clusters: [{ cluster: 'greetings-lor1', service: 'greetings', stage: 0, peers: [{ cluster: 'greetings-lva1', weight: 1 }], hosts: 1 }],
      receivers: [{ cluster: 'greetings-lva1', service: 'greetings', fabric: 'lva1', hosts: 1, factorBefore: 1, factorAfter: 2 }],
      excluded: [],
      stopAlarms: [],
      maxPeerLoadFactor: 2,
    },
  };
}

describe('an evacuation node that does not decode', () => {
  let base: string;
  let session: ZkSession;

  beforeEach(async () => {
    base = uniqueBase('console-evac');
    session = await openSession();
  });

  afterEach(async () => {
    await closeSessions();
  });

  it('keeps its last good read in the watch, names its problem, and forgets both once the node is gone', async () => {
    // Prepare: an open evacuation the watch has read
    const evacuationsBase = `${base}/evacuations`;
    await session.create(`${evacuationsBase}/lor1`, encodeEvacuationNode(openEvacuation(Date.now())), { acl: OPEN_ACL, parents: true });
    const watch = new FabricWatch(session, { fabricsBase: `${base}/fabrics`, evacuationsBase, logger: silentLogger, onChange: () => undefined });
    try {
      await eventually(async () => watch.evacuations().length === 1, 10_000, 'the open evacuation read');

      // Act: the node is overwritten with something no codec reads
      await session.set(`${evacuationsBase}/lor1`, Buffer.from('{"version":1,"fabric":"lor1"}'));

      // Assess: the last good read stays, and the problem is named
      await eventually(async () => watch.unreadableEvacuations().length === 1, 10_000, 'the unreadable node named');
      expect(watch.unreadableEvacuations()).toEqual([{ fabric: 'lor1', problem: expect.stringMatching(/evacuation node is malformed/), lastGoodShown: true }]);
      expect(watch.evacuations().map((n) => n.requestId)).toEqual(['0195d5a8-7c00-7000-8000-0000000000e1']);

      // Act: the node is removed (a restore of the fabric removes an unreadable node)
      await session.remove(`${evacuationsBase}/lor1`);

      // Assess
      await eventually(async () => watch.unreadableEvacuations().length === 0 && watch.evacuations().length === 0, 10_000, 'both forgotten');
    } finally {
      watch.close();
    }
  });

  it('is named on the page, as text, when the console never read it well', async () => {
    // Prepare
    await putService(session, `${base}/d2`, serviceDoc('greetings', 'greetings-lor1'));
    for (const cluster of ['greetings-lor1', 'greetings-lva1']) {
      await putCluster(session, `${base}/d2`, clusterDoc(cluster));
      await putUri(session, `${base}/d2`, cluster, 'h1', `http://${cluster}-1:8080`);
    }
    await put(session, `${base}/evacuations/lor1`, '{"version":1,"fabric":"lor1","<img src=x onerror=alert(1)>":1}');
    const env = { ZK_CONNECT: sharedConnectString(), D2_BASE_PATH: `${base}/d2`, FAILOUT_REQUESTS_PATH: `${base}/requests`, FAILOUT_FABRICS_PATH: `${base}/fabrics`, FAILOUT_EVACUATIONS_PATH: `${base}/evacuations`, FAILOUT_USER: 'tester' };
    const server = await ConsoleServer.start({ ...consoleServerOptions({ port: '0' }, env, silentLogger), queueProbeMs: 60_000 });
    try {
      // Act
      let page = '';
      await eventually(async () => (page = await (await fetch(server.url)).text()).includes('The evacuation node of fabric'), 10_000, 'the unreadable evacuation on the page');

      // Assess
      expect(page).toMatch(/The evacuation node of fabric <span class="fabric-name">lor1<\/span> does not decode: evacuation node is malformed: [^<]*\. The worker treats it as open/);
      expect(page).not.toContain('<img src=x');
    } finally {
      await server.close();
    }
  });
});
