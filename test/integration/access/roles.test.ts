/**
 * Access control on a real ZooKeeper (docs/deployers.md "Access control", issue 14): the bridge (with its leader
 * election), the request writer and an announcer run under their own digest identities; then every
 * node any of them made is probed by an unauthenticated session and by each role: a change outside a
 * role's paths is `NoAuth`, a change inside them is not, and everyone reads everything.
 *
 * The expectations below are written out by hand from the table in docs/deployers.md, not computed from
 * lib/requests' `ACL_TABLE`, so a wrong table cannot pass its own test.
 */
import { ZooKeeperAnnouncer } from '../../../lib/d2';
import { RequestWriter } from '../../../lib/requests';
import { aclLayout } from '../../../lib/requests/acl';
import { resolveWriterAcl } from '../../../lib/requests/writer-access';
import { classifyPath, type NodeClass } from '../../../lib/requests/acl-table';
import type { XdsManagementServer } from '../../../lib/xds/server';
import { auditAcls, type ZkSession } from '../../../lib/zk';
import { parentOf } from '../../../lib/zk/session';
import { CREDENTIALS, IDS, probe, treeOf, type Change, type Verdict } from '../../helpers/access';
import { bridgeConfig, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { failoutInput } from '../../helpers/requests';
import { startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

type Actor = 'anonymous' | 'bridge' | 'writer' | 'announcer' | 'admin';
const ACTORS: readonly Actor[] = ['anonymous', 'bridge', 'writer', 'announcer', 'admin'];

/** Who may `set` a node of a class, and `create` / `delete` its children (the table in docs/deployers.md). */
const MAY: Record<NodeClass, Partial<Record<'set' | 'createChild' | 'deleteChild', readonly Actor[]>>> = {
  ancestor: { createChild: ['bridge', 'writer'] },
  d2Base: { createChild: ['bridge'] },
  d2Directory: { createChild: ['bridge'], deleteChild: ['bridge'] },
  service: { set: ['bridge'] },
  cluster: { set: ['bridge', 'writer'] },
  clusterUris: { createChild: ['bridge', 'announcer'], deleteChild: ['bridge', 'announcer'] },
  uri: { set: ['bridge'] },
  d2Other: {},
  election: { createChild: ['bridge'], deleteChild: ['bridge'] },
  candidate: {},
  requests: { createChild: ['writer'], deleteChild: ['writer'] },
  record: {},
  drills: { createChild: ['writer'], deleteChild: ['writer'] },
  drill: { set: ['writer'], createChild: ['writer'], deleteChild: ['writer'] },
  fabrics: { set: ['writer'], createChild: ['writer'], deleteChild: ['writer'] },
  fabricMap: { set: ['writer'] },
  evacuations: { createChild: ['writer'], deleteChild: ['writer'] },
  evacuation: { set: ['writer'] },
  view: { set: ['writer'] },
};

function world(): World {
  return {
    services: [
      { name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] },
      { name: 'greetings-peers', clusters: [{ name: 'greetings-lva1', weight: 1 }, { name: 'greetings-ltx1', weight: 1 }] },
    ],
    clusters: [
      { name: 'greetings-lor1', endpoints: [{ address: '10.0.0.1', port: 80 }] },
      { name: 'greetings-lva1', endpoints: [{ address: '10.0.1.1', port: 80 }, { address: '10.0.1.2', port: 80 }] },
      { name: 'greetings-ltx1', endpoints: [{ address: '10.0.2.1', port: 80 }] },
    ],
  };
}

describe('ZooKeeper access control with every component under its own identity', () => {
  let xds: XdsManagementServer;
  let root: string;
  const announcers: ZooKeeperAnnouncer[] = [];

  beforeEach(async () => {
    xds = await startXdsServer();
    root = uniqueBase('acl');
  });

  afterEach(async () => {
    for (const a of announcers.splice(0)) await a.close();
    await stopBridges();
    await xds.close();
    const admin = await openSession({ credentials: [CREDENTIALS.admin] });
    await admin.removeRecursive(root).catch(() => undefined);
    await closeSessions();
  });

  it('lets each role change only its own paths, nobody without credentials change anything, and everyone read', async () => {
    // Prepare: the bridge (leading, so its election node exists) writes D2 data under its identity
    const d2 = `${root}/d2`;
    const requests = `${root}/requests`;
    xds.setSnapshot('*', worldSnapshot('1', world()));
    const config = bridgeConfig([xds.uri], ['greetings', 'greetings-peers'], d2, {
      zookeeper: { connectString: 'unused:1', basePath: d2, electionPath: `${root}/election`, sessionTimeoutMs: 4000, credentials: [CREDENTIALS.bridge] },
      acl: { requestWriter: IDS.writer, announcer: IDS.announcer, admin: IDS.admin },
      allowOpenAcl: false,
    });
    const { bridge } = await startBridge(config, await openSession({ credentials: [CREDENTIALS.bridge] }));
    await eventually(() => bridge.role === 'leader' && bridge.ready, 15_000, 'bridge leading and synced');
    await bridge.whenSynced();

    // Prepare: the request writer fails a cluster out under its identity, creating the records parent and a record
    const writerSession = await openSession({ credentials: [CREDENTIALS.writer] });
    const writerConfig = { d2BasePath: d2, requestsPath: requests, aclRoles: { bridge: [IDS.bridge], admin: [IDS.admin] }, allowOpenAcl: false };
    const recordAcl = await resolveWriterAcl({ session: writerSession, config: writerConfig, credential: CREDENTIALS.writer });
    const writer = new RequestWriter({ session: writerSession, d2BasePath: d2, requestsPath: requests, recordAcl });
    const outcome = await writer.process(JSON.stringify(failoutInput({ requestId: 'acl-req-1' })), { messageId: 'm-1' });
    expect(outcome).toMatchObject({ status: 'applied' });

    // Prepare: a server announces itself under the announcer identity
    const serverSession = await openSession();
    const announcer = new ZooKeeperAnnouncer({
      session: serverSession,
      basePath: d2,
      cluster: 'greetings-lor1',
      uri: 'http://10.0.0.9:8080',
      credential: CREDENTIALS.announcer,
      aclRoles: { bridge: [IDS.bridge], admin: [IDS.admin] },
    });
    announcers.push(announcer);
    const announcement = await announcer.markUp();

    const sessions: Record<Actor, ZkSession> = {
      anonymous: await openSession(),
      bridge: await openSession({ credentials: [CREDENTIALS.bridge] }),
      writer: await openSession({ credentials: [CREDENTIALS.writer] }),
      announcer: await openSession({ credentials: [CREDENTIALS.announcer] }),
      admin: await openSession({ credentials: [CREDENTIALS.admin] }),
    };
    const layout = aclLayout({ d2BasePath: d2, requestsPath: requests, electionPaths: [`${root}/election`] });
    const nodes = await treeOf(sessions.admin, root);
    const kinds = new Map(nodes.map((n) => [n, classifyPath(n, layout)]));
    // Sanity: every kind of node the components make is there, each made by its component.
    expect(new Set(kinds.values())).toEqual(
      new Set<NodeClass>(['ancestor', 'd2Base', 'd2Directory', 'service', 'cluster', 'clusterUris', 'uri', 'election', 'candidate', 'requests', 'record', 'view']),
    );
    expect(nodes).toContain(announcement);
    expect(nodes).toContain(`${requests}/acl-req-1`);
    // No node any component made is writable without credentials (what `failout zk check` reports).
    const audit = await auditAcls(sessions.anonymous, [root]);
    expect(audit).toEqual({ checked: nodes.length, open: [], unreadable: [] });

    // Act: every actor tries every change on every node
    const seen: string[] = [];
    const expected: string[] = [];
    for (const node of nodes) {
      const kind = kinds.get(node)!;
      const parentKind = classifyPath(parentOf(node), layout);
      for (const actor of ACTORS) {
        const may = (change: Change): boolean => {
          if (actor === 'admin') return true;
          if (change === 'set') return MAY[kind].set?.includes(actor) ?? false;
          if (change === 'create') return MAY[kind].createChild?.includes(actor) ?? false;
          return parentKind !== undefined && (MAY[parentKind].deleteChild?.includes(actor) ?? false);
        };
        for (const change of ['set', 'create', 'delete'] as const) {
          // The top node's parent is `/`, whose ACL is the ensemble's, not failout's.
          if (change === 'delete' && parentKind === undefined) continue;
          const verdict: Verdict = await probe(sessions[actor], node, change);
          seen.push(`${actor} ${change} ${node}: ${verdict}`);
          expected.push(`${actor} ${change} ${node}: ${may(change) ? 'allowed' : 'noAuth'}`);
        }
        // Everyone reads: data, children and the ACL itself.
        await expect(sessions[actor].get(node)).resolves.toBeDefined();
        await expect(sessions[actor].children(node)).resolves.toBeDefined();
        await expect(sessions[actor].getAcl(node)).resolves.toBeDefined();
      }
    }

    // Assess
    expect(seen).toEqual(expected);
    expect(seen.filter((s) => s.startsWith('anonymous') && !s.endsWith('noAuth'))).toEqual([]);
  });
});
