import type { XdsBridge } from '../../../lib/bridge';
import type { XdsManagementServer } from '../../../lib/xds/server';
import type { ZkSession } from '../../../lib/zk';
import { bridgeConfig, readUris, startBridge, stopBridges, worldSnapshot, type World } from '../../helpers/bridge';
import { sleep, startXdsServer } from '../../helpers/xds-chain';
import { closeSessions, eventually, expireSession, openSession, uniqueBase } from '../../helpers/zk';

// Several replicas: one leads and writes; a standby takes over when the leader's session goes, and
// the old leader's writes are fenced off.

const SESSION_TIMEOUT_MS = 4000;

function world(ports: number[]): World {
  return {
    services: [{ name: 'greetings', clusters: [{ name: 'greetings-lor1', weight: 1 }] }],
    clusters: [{ name: 'greetings-lor1', endpoints: ports.map((port) => ({ address: '10.0.0.1', port })) }],
  };
}

describe('bridge high availability', () => {
  let xds: XdsManagementServer;
  let reader: ZkSession;
  let base: string;
  let replicas: { bridge: XdsBridge; session: ZkSession }[];

  beforeEach(async () => {
    xds = await startXdsServer();
    reader = await openSession();
    base = uniqueBase('bridge');
    xds.setSnapshot('*', worldSnapshot('1', world([1001])));
    const config = bridgeConfig([xds.uri], ['greetings'], base);
    replicas = [];
    for (const id of ['a', 'b']) replicas.push(await startBridge({ ...config, replicaId: `replica-${id}` }));
    await eventually(() => replicas.every((r) => r.bridge.ready), 15_000, 'replicas ready');
  });

  afterEach(async () => {
    await stopBridges();
    await xds.close();
    await reader.removeRecursive(base).catch(() => undefined);
    await reader.removeRecursive(`${base}-election`).catch(() => undefined);
    await closeSessions();
  });

  function leaderAndStandby(): [{ bridge: XdsBridge; session: ZkSession }, { bridge: XdsBridge; session: ZkSession }] {
    const leader = replicas.find((r) => r.bridge.role === 'leader');
    const standby = replicas.find((r) => r.bridge.role === 'standby');
    if (!leader || !standby) throw new Error(`roles: ${replicas.map((r) => r.bridge.role).join(', ')}`);
    return [leader, standby];
  }

  it('has exactly one leader, and the standby is ready with a warm cache but writes nothing', async () => {
    const [leader, standby] = leaderAndStandby();
    expect(standby.bridge.status()).toMatchObject({ role: 'standby', ready: true, services: [{ name: 'greetings', state: 'resolved' }] });
    expect(standby.bridge.syncStats().writes).toBe(0);
    expect(leader.bridge.syncStats().writes).toBeGreaterThan(0);
  });

  it.each<[string, (session: ZkSession) => Promise<void>]>([
    ['closed', (session) => session.close()],
    ['expired', (session) => expireSession(session)],
  ])('fails over when the leader’s session is %s, within the session timeout plus a few seconds', async (_name, endSession) => {
    // Prepare
    const [leader, standby] = leaderAndStandby();
    const oldWrites = leader.bridge.syncStats().writes;
    const standbyWrites = standby.bridge.syncStats().writes;

    // Act
    const started = Date.now();
    await endSession(leader.session);
    xds.setSnapshot('*', worldSnapshot('2', world([1001, 1002])));
    await eventually(() => standby.bridge.role === 'leader', SESSION_TIMEOUT_MS + 5000, 'standby leads');
    const tookMs = Date.now() - started;
    await eventually(async () => (await readUris(reader, base, 'greetings-lor1')).size === 2, 10_000, 'new leader writes the change');

    // Assess: prompt takeover; the old leader stands by (or is cut off) and none of its writes land
    expect(tookMs).toBeLessThan(SESSION_TIMEOUT_MS + 5000);
    expect(standby.bridge.syncStats().writes).toBeGreaterThan(standbyWrites);
    xds.setSnapshot('*', worldSnapshot('3', world([1003])));
    await eventually(async () => [...(await readUris(reader, base, 'greetings-lor1')).keys()].join() === 'xds-bridge-10.0.0.1-1003', 10_000, 'third version');
    await sleep(500);
    // A closed session never comes back: that replica reports itself unhealthy instead.
    expect(leader.bridge.role !== 'leader' || !leader.bridge.healthy).toBe(true);
    expect(leader.bridge.syncStats().writes).toBe(oldWrites);
  });

  it('hands over at once when the leader stops, and the new leader syncs the full state', async () => {
    // Prepare: the standby's view of ZooKeeper is stale on purpose (a child deleted behind its back)
    const [leader, standby] = leaderAndStandby();
    await reader.removeRecursive(`${base}/uris/greetings-lor1`);

    // Act
    const started = Date.now();
    await leader.bridge.close();
    await eventually(() => standby.bridge.role === 'leader', 3000, 'standby leads');
    await eventually(async () => (await readUris(reader, base, 'greetings-lor1')).size === 1, 10_000, 'full sync restores the child');

    // Assess
    expect(Date.now() - started).toBeLessThan(3000);
    expect(standby.bridge.ready).toBe(true);
  });

  it('fences the writes of a leader that has not noticed its leadership is gone', async () => {
    // Prepare: remove the leader's candidate node behind its back — it still believes it leads,
    // while the standby (watching that node) takes over: two replicas that think they lead.
    const [leader, standby] = leaderAndStandby();
    const election = `${base}-election`;
    const candidates = (await reader.children(election)).children;
    const oldWrites = leader.bridge.syncStats().writes;
    let removed = 0;
    for (const c of candidates) {
      const node = await reader.get(`${election}/${c}`);
      if (node.data.toString() === leader.bridge.config.replicaId) {
        await reader.remove(`${election}/${c}`);
        removed++;
      }
    }
    expect(removed).toBe(1);
    await eventually(() => standby.bridge.role === 'leader', 5000, 'standby leads');

    // Act: a change both replicas want to write
    xds.setSnapshot('*', worldSnapshot('2', world([2001])));
    await eventually(async () => [...(await readUris(reader, base, 'greetings-lor1')).keys()].join() === 'xds-bridge-10.0.0.1-2001', 10_000, 'change written');
    await eventually(() => leader.bridge.role === 'standby', 5000, 'old leader notices through the fence');

    // Assess: the old leader's attempt was refused by the fence, never landed
    expect(leader.bridge.syncStats().writes).toBe(oldWrites);
    expect(leader.bridge.syncStats().failures).toBeGreaterThan(0);
  });
});
