/**
 * D2Sync's error paths against the in-memory ZooKeeper: every failed read or batch drops the mirror
 * of its entities and re-reads them on the retry, so a concurrent write (the request worker's
 * `failoutProperties`) is merged rather than lost, whatever the ZooKeeper error kind; `notLeader`
 * pauses instead of retrying. The xDS-driven paths are in test/integration/bridge.
 *
 * Every session here is an unconstrained writer (no credentials; nodes get the open ACL, explicitly):
 * the ACLs the bridge gives its nodes are tested in test/unit/bridge/diff.test.ts and on a real server
 * in test/integration/access/roles.test.ts.
 */
import { D2Sync } from '../../../lib/bridge/d2-sync';
import type { EntityKey, EntityTarget } from '../../../lib/bridge/model';
import { OPEN_ACL, ZkError, type ZkErrorKind } from '../../../lib/zk';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';
const CLUSTER_KEY: EntityKey = 'cluster:c1';
const CLUSTER_PATH = '/d2/clusters/c1';
const URIS_KEY: EntityKey = 'uris:c1';
const URIS_PATH = '/d2/uris/c1';
const FAILOUT = { failoutRedirectConfigs: [{ peer: 'c2', weight: 1 }], failoutBucketConfigs: [] };

/** The bridge's cluster document: merged into what is there, as the real target does (unknown keys kept). */
function clusterTarget(version: string): EntityTarget {
  return {
    kind: 'node',
    render: (existing) => JSON.stringify({ ...(existing === undefined ? {} : (JSON.parse(existing) as object)), clusterName: 'c1', bridgeVersion: version }),
  };
}

interface SyncWorld {
  readonly zk: InMemoryZk;
  /** The bridge's session: the sync reads through it and writes through `write`. */
  readonly session: InMemoryZkSession;
  /** Another writer: the request worker, an operator. */
  readonly other: InMemoryZkSession;
  readonly targets: Map<EntityKey, EntityTarget>;
  /** Error kinds the sync reported, in order. */
  readonly failures: string[];
  readonly sync: D2Sync;
  /** False makes `write` fail with `notLeader`, as the leader election's fenced multi does. */
  leading: boolean;
}

async function syncWorld(): Promise<SyncWorld> {
  const zk = new InMemoryZk();
  const session = zk.session();
  const other = zk.session();
  for (const dir of ['clusters', 'services', 'uris']) await other.ensurePath(`${BASE}/${dir}`, OPEN_ACL);
  const targets = new Map<EntityKey, EntityTarget>();
  const failures: string[] = [];
  const w: SyncWorld = {
    zk,
    session,
    other,
    targets,
    failures,
    leading: true,
    sync: new D2Sync({
      session,
      basePath: BASE,
      budget: { maxOpsPerMulti: 100, maxBytesPerMulti: 1_000_000, maxOpsPerSecond: 100_000 },
      write: async (ops) => {
        if (!w.leading) throw new ZkError('notLeader', 'not the leader');
        return session.multi(ops);
      },
      target: (key) => targets.get(key) ?? { kind: 'keep' },
      acl: () => OPEN_ACL,
      hooks: { onFailure: (kind) => failures.push(kind) },
    }),
  };
  return w;
}

async function json(session: InMemoryZkSession, path: string): Promise<Record<string, unknown>> {
  return JSON.parse((await session.get(path)).data.toString()) as Record<string, unknown>;
}

function reads(session: InMemoryZkSession, path: string): number {
  return session.requests.filter((r) => r.op === 'getData' && r.paths.includes(path)).length;
}

let world: SyncWorld | undefined;
afterEach(() => world?.sync.close());

describe('D2Sync recovers from a failed read or batch by re-reading', () => {
  it.each<[string, ZkErrorKind, (w: SyncWorld) => Promise<void>, Record<string, unknown>]>([
    [
      'the request worker wrote failoutProperties between the read and the write',
      'badVersion',
      async (w) => {
        await w.other.create(CLUSTER_PATH, Buffer.from(JSON.stringify({ clusterName: 'c1', bridgeVersion: 'old' })), { acl: OPEN_ACL });
        w.session.beforeNext({ op: 'multi' }, async () => {
          await w.other.set(CLUSTER_PATH, Buffer.from(JSON.stringify({ clusterName: 'c1', bridgeVersion: 'old', failoutProperties: FAILOUT })));
        });
      },
      { clusterName: 'c1', bridgeVersion: 'v2', failoutProperties: FAILOUT },
    ],
    [
      'somebody created the node it found absent',
      'nodeExists',
      async (w) => {
        w.session.beforeNext({ op: 'multi' }, async () => {
          await w.other.create(CLUSTER_PATH, Buffer.from(JSON.stringify({ failoutProperties: FAILOUT })), { acl: OPEN_ACL });
        });
      },
      { clusterName: 'c1', bridgeVersion: 'v2', failoutProperties: FAILOUT },
    ],
    [
      'somebody deleted the node it was about to set',
      'noNode',
      async (w) => {
        await w.other.create(CLUSTER_PATH, Buffer.from(JSON.stringify({ clusterName: 'c1', stale: true })), { acl: OPEN_ACL });
        w.session.beforeNext({ op: 'multi' }, async () => {
          await w.other.remove(CLUSTER_PATH);
        });
      },
      { clusterName: 'c1', bridgeVersion: 'v2' },
    ],
    ['the read lost its connection', 'connectionLoss', async (w) => void w.session.failNext('connectionLoss', { op: 'getData' }), { clusterName: 'c1', bridgeVersion: 'v2' }],
    ['the batch lost its connection', 'connectionLoss', async (w) => void w.session.failNext('connectionLoss', { op: 'multi' }), { clusterName: 'c1', bridgeVersion: 'v2' }],
    ['the session expired under the batch', 'sessionExpired', async (w) => void w.session.failNext('sessionExpired', { op: 'multi' }), { clusterName: 'c1', bridgeVersion: 'v2' }],
    ['ZooKeeper refused the batch once', 'noAuth', async (w) => void w.session.failNext('noAuth', { op: 'multi', opIndex: 0 }), { clusterName: 'c1', bridgeVersion: 'v2' }],
  ])('when %s (%s): reports it, re-reads, and lands the merged document', async (_when, kind, arrange, expected) => {
    // Prepare
    const w = (world = await syncWorld());
    await arrange(w);
    w.targets.set(CLUSTER_KEY, clusterTarget('v2'));

    // Act
    await w.sync.activate([CLUSTER_KEY]);

    // Assess
    expect(w.failures).toEqual([kind]);
    expect(await json(w.other, CLUSTER_PATH)).toEqual(expected);
    expect(reads(w.session, CLUSTER_PATH)).toBe(2);
    expect(w.sync.stats()).toMatchObject({ lifecycle: 'running', failures: 1, pending: 0, batches: 1 });
  });

  it('re-reads the URI children after a failed children read and writes only the bridge children', async () => {
    const w = (world = await syncWorld());
    const server = w.zk.session();
    await server.create(`${URIS_PATH}/host-announced`, Buffer.from('{}'), { parents: true, mode: 'ephemeral', acl: OPEN_ACL });
    w.session.failNext('sessionExpired', { op: 'getChildren' });
    w.targets.set(URIS_KEY, { kind: 'uris', children: new Map([['xds-bridge-h1', '{"h":1}']]) });

    await w.sync.activate([URIS_KEY]);

    expect(w.failures).toEqual(['sessionExpired']);
    expect((await w.other.children(URIS_PATH)).children).toEqual(['host-announced', 'xds-bridge-h1']);
  });

  it("never counts a server's ephemeral announcement as its own, even under a bridge name", async () => {
    const w = (world = await syncWorld());
    const server = w.zk.session();
    await server.create(`${URIS_PATH}/xds-bridge-squatter`, Buffer.from('{}'), { parents: true, mode: 'ephemeral', acl: OPEN_ACL });
    await w.other.create(`${URIS_PATH}/xds-bridge-old`, Buffer.from('{"old":1}'), { acl: OPEN_ACL });
    w.targets.set(URIS_KEY, { kind: 'uris', children: new Map() });

    await w.sync.activate([URIS_KEY]);

    expect(w.failures).toEqual([]);
    expect((await w.other.children(URIS_PATH)).children).toEqual(['xds-bridge-squatter']);
  });
});

describe('D2Sync on leadership loss and on a warm mirror', () => {
  it('pauses on notLeader, keeps the entity pending, and writes it on the next activation', async () => {
    const w = (world = await syncWorld());
    w.targets.set(CLUSTER_KEY, clusterTarget('v1'));
    w.leading = false;

    await w.sync.activate([CLUSTER_KEY]);

    expect(w.failures).toEqual(['notLeader']);
    expect(w.sync.stats()).toMatchObject({ lifecycle: 'idle', pending: 1 });
    expect(await w.other.exists(CLUSTER_PATH)).toBeUndefined();

    w.leading = true;
    await w.sync.activate([]);
    expect(await json(w.other, CLUSTER_PATH)).toEqual({ clusterName: 'c1', bridgeVersion: 'v1' });
    expect(w.sync.stats()).toMatchObject({ lifecycle: 'running', pending: 0 });
  });

  it('follows a change from its mirror without reading, and writes one set at the version it wrote', async () => {
    const w = (world = await syncWorld());
    w.targets.set(CLUSTER_KEY, clusterTarget('v1'));
    await w.sync.activate([CLUSTER_KEY]);
    const readsBefore = reads(w.session, CLUSTER_PATH);

    w.targets.set(CLUSTER_KEY, clusterTarget('v2'));
    w.sync.markDirty(CLUSTER_KEY);
    await w.sync.whenIdle();

    expect(reads(w.session, CLUSTER_PATH)).toBe(readsBefore);
    expect((await w.other.get(CLUSTER_PATH)).stat.version).toBe(1);
    expect(await json(w.other, CLUSTER_PATH)).toEqual({ clusterName: 'c1', bridgeVersion: 'v2' });
  });
});
