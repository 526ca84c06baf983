/**
 * LoadBalancerState's cluster change events against the in-memory ZooKeeper (issue 13): what each
 * `ClusterChange` kind is told for and the value it carries, replay to a late listener, isolation of
 * a throwing listener, the `version` counter, and `whenClusterLoaded`. Loading and holds are covered
 * by load-balancer-state.holds.test.ts.
 */
import { LoadBalancerState, serializeClusterProperties } from '../../../lib/d2';
import { digestAcl, OPEN_ACL } from '../../../lib/zk';
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { changeRecorder } from '../../helpers/cluster-changes';
import { clusterDoc, put, putCluster, putUri } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';
import { capturingLogger, type LogLine } from '../../helpers/logging';

const BASE = '/d2';

let zk: InMemoryZk;
let session: InMemoryZkSession;
let writer: InMemoryZkSession;
let state: LoadBalancerState;
let logLines: LogLine[];

beforeEach(() => {
  zk = new InMemoryZk();
  session = zk.session();
  writer = zk.session();
  const { logger, lines } = capturingLogger();
  logLines = lines;
  state = new LoadBalancerState({ session, basePath: BASE, logger });
});

afterEach(() => state.close());

async function putVersion(cluster: string, v: string): Promise<void> {
  await putCluster(writer, BASE, clusterDoc(cluster, { properties: { v } }));
}

/** Where a promise stands once the in-memory ZooKeeper is idle, without awaiting it. */
async function stateOf(promise: Promise<unknown>): Promise<'resolved' | 'rejected' | 'pending'> {
  let result: 'resolved' | 'rejected' | 'pending' = 'pending';
  void promise.then(
    () => (result = 'resolved'),
    () => (result = 'rejected'),
  );
  await zk.idle();
  return result;
}

/** Turns of the event loop until `done` holds (zk.idle() would wait for a read the test holds up). */
async function turnsUntil(done: () => boolean): Promise<void> {
  for (let turn = 0; turn < 100 && !done(); turn++) await new Promise((resolve) => setImmediate(resolve));
  if (!done()) throw new Error('condition not reached in 100 turns');
}

describe('LoadBalancerState tells a properties change', () => {
  it('on the first load and on every good write after it, carrying the value', async () => {
    // Prepare
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await putVersion('c1', '1');
    await state.listenToCluster('c1');

    // Act
    await putVersion('c1', '2');
    await zk.idle();
    await putVersion('c1', '2');
    await zk.idle();

    // Assess: a rewrite of the same value is a write too, and is told.
    expect(listener.events).toEqual(['properties:c1:v=1', 'properties:c1:v=2', 'properties:c1:v=2']);
    const last = listener.changes.at(-1);
    expect(last?.kind === 'properties' ? last.properties : undefined).toBe(state.getClusterProperties('c1'));
  });

  it('when a followed cluster that did not exist is created', async () => {
    // Prepare
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('later');
    const before = [...listener.events];

    // Act
    await putVersion('later', '1');
    await zk.idle();

    // Assess
    expect(before).toEqual([]);
    expect(listener.events).toEqual(['properties:later:v=1']);
  });

  it('for no cluster that nobody follows', async () => {
    // Prepare
    const listener = changeRecorder();
    state.registerClusterListener(listener);

    // Act
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    await zk.idle();

    // Assess
    expect(listener.events).toEqual([]);
  });
});

describe('LoadBalancerState tells a uris change', () => {
  it.each<[string, () => Promise<unknown>, string]>([
    ['a host is announced', () => putUri(writer, BASE, 'c1', 'h2', 'http://h2:1/', 3), 'uris:c1:http://h1:1/*1,http://h2:1/*3'],
    ['a host changes its weight', () => putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/', 5), 'uris:c1:http://h1:1/*5'],
    ['the last host is removed', () => writer.remove(`${urisPath(BASE, 'c1')}/h1`), 'uris:c1:'],
    [
      'the URI node is deleted',
      async () => {
        await writer.remove(`${urisPath(BASE, 'c1')}/h1`);
        await zk.idle();
        await writer.remove(urisPath(BASE, 'c1'));
      },
      'uris:c1:none',
    ],
  ])('after the load when %s, carrying the new hosts', async (_what, act, expected) => {
    // Prepare
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    await state.listenToCluster('c1');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    listener.events.length = 0;
    listener.changes.length = 0;

    // Act
    await act();
    await zk.idle();

    // Assess
    expect(listener.events.at(-1)).toBe(expected);
    expect(listener.events.every((e) => e.startsWith('uris:c1:'))).toBe(true);
    const last = listener.changes.at(-1);
    expect(last?.kind === 'uris' ? last.uris : 'not uris').toBe(state.getUris('c1'));
  });

  it('on the load of a cluster with hosts, after its properties', async () => {
    // Prepare
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/', 2);
    const listener = changeRecorder();
    state.registerClusterListener(listener);

    // Act
    await state.listenToCluster('c1');

    // Assess
    expect(listener.events).toEqual(['properties:c1:v=1', 'uris:c1:http://h1:1/*2']);
  });

  it('when the first host of a cluster without hosts is announced', async () => {
    // Prepare
    await putVersion('c1', '1');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');

    // Act
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/', 2);
    await zk.idle();

    // Assess
    expect(listener.events).toEqual(['properties:c1:v=1', 'uris:c1:http://h1:1/*2']);
  });
});

describe('LoadBalancerState tells a removed change', () => {
  it.each<[string, () => Promise<void> | void]>([
    ['its node is deleted', () => writer.remove(clusterPath(BASE, 'c1'))],
    ['its last hold is released', () => state.stopListenToCluster('c1')],
    ['the state shuts down', () => state.close()],
  ])('for a known cluster when %s', async (_what, act) => {
    // Prepare
    await putVersion('c1', '1');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');

    // Act
    await act();
    await zk.idle();

    // Assess
    expect(listener.events).toEqual(['properties:c1:v=1', 'removed:c1']);
  });

  it('not while another hold remains, and once when the last one goes', async () => {
    // Prepare
    await putVersion('c1', '1');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');
    await state.listenToCluster('c1');

    // Act
    state.stopListenToCluster('c1');
    const afterFirst = [...listener.events];
    state.stopListenToCluster('c1');
    state.stopListenToCluster('c1');

    // Assess
    expect(afterFirst).toEqual(['properties:c1:v=1']);
    expect(listener.events).toEqual(['properties:c1:v=1', 'removed:c1']);
  });

  it.each<[string, () => void]>([
    ['released', () => state.stopListenToCluster('ghost')],
    ['dropped at shutdown', () => state.close()],
  ])('for no cluster that never existed when it is %s', async (_what, act) => {
    // Prepare
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('ghost');

    // Act
    act();
    await zk.idle();

    // Assess
    expect(listener.events).toEqual([]);
  });
});

describe('LoadBalancerState tells a malformed change', () => {
  it.each<[string, string]>([
    ['not JSON', '{ nope'],
    ['a failout the codec refuses', JSON.stringify({ clusterName: 'c1', failoutProperties: { failoutRedirectConfigs: [{ peer: 'c2', weight: 0 }], failoutBucketConfigs: [] } })],
  ])('with the error for a write that is %s, keeping the last good properties and telling no properties change', async (_what, bad) => {
    // Prepare
    await putVersion('c1', '1');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');
    const good = state.getClusterProperties('c1');

    // Act
    await put(writer, clusterPath(BASE, 'c1'), bad);
    await zk.idle();

    // Assess
    expect(listener.events).toEqual(['properties:c1:v=1', 'malformed:c1']);
    expect(listener.changes[1]).toEqual({ kind: 'malformed', cluster: 'c1', error: expect.any(Error) });
    expect(state.getClusterProperties('c1')).toBe(good);
  });

  it('for no cluster that nobody follows', async () => {
    // Prepare
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');
    state.stopListenToCluster('c1');

    // Act
    await put(writer, clusterPath(BASE, 'c1'), '{ nope');
    await zk.idle();

    // Assess
    expect(listener.events).toEqual([]);
  });
});

describe('LoadBalancerState replays to a listener registered late', () => {
  it('the properties and announced URIs of every known cluster, at once (as a listener registered early heard them), and nothing for a cluster that does not exist', async () => {
    // Prepare
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/', 2);
    await putVersion('c2', '2');
    await Promise.all([state.listenToCluster('c1'), state.listenToCluster('c2'), state.listenToCluster('ghost')]);
    const late = changeRecorder();

    // Act
    state.registerClusterListener(late);

    // Assess
    expect(late.events).toEqual(['properties:c1:v=1', 'uris:c1:http://h1:1/*2', 'properties:c2:v=2']);
  });

  it('the properties only while the URIs are still loading, then the uris change once they load', async () => {
    // Prepare: hold the first read of the URI node until the test lets it through.
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    let letThrough!: () => void;
    const held = new Promise<void>((resolve) => (letThrough = resolve));
    session.inject({ op: ['exists', 'getChildren'], path: urisPath(BASE, 'c1'), source: 'watch', before: () => held });
    const listening = state.listenToCluster('c1');
    await turnsUntil(() => state.getClusterProperties('c1') !== undefined);
    const late = changeRecorder();

    // Act
    state.registerClusterListener(late);
    const replayed = [...late.events];
    letThrough();
    await listening;
    await zk.idle();

    // Assess
    expect(replayed).toEqual(['properties:c1:v=1']);
    expect(late.events).toEqual(['properties:c1:v=1', 'uris:c1:http://h1:1/*1']);
  });

  it('once for a listener registered twice', async () => {
    // Prepare
    await putVersion('c1', '1');
    await state.listenToCluster('c1');
    const late = changeRecorder();

    // Act
    state.registerClusterListener(late);
    state.registerClusterListener(late);
    await putVersion('c1', '2');
    await zk.idle();

    // Assess
    expect(late.events).toEqual(['properties:c1:v=1', 'properties:c1:v=2']);
  });

  it('and an unregistered listener hears nothing more, not even the removal', async () => {
    // Prepare
    await putVersion('c1', '1');
    await state.listenToCluster('c1');
    const listener = changeRecorder();
    const unregister = state.registerClusterListener(listener);

    // Act
    unregister();
    await putVersion('c1', '2');
    await zk.idle();
    state.stopListenToCluster('c1');

    // Assess
    expect(listener.events).toEqual(['properties:c1:v=1']);
  });
});

describe('LoadBalancerState listener isolation', () => {
  it('keeps telling the other listeners when one throws, and logs the throw', async () => {
    // Prepare
    await putVersion('c1', '1');
    const before = changeRecorder();
    const after = changeRecorder();
    state.registerClusterListener(before);
    state.registerClusterListener({
      onClusterChange: () => {
        throw new Error('listener bug');
      },
    });
    state.registerClusterListener(after);

    // Act
    await state.listenToCluster('c1');
    await putVersion('c1', '2');
    await zk.idle();

    // Assess
    expect(before.events).toEqual(['properties:c1:v=1', 'properties:c1:v=2']);
    expect(after.events).toEqual(before.events);
    expect(logLines.filter((l) => l.msg === 'cluster listener threw').map((l) => [l.level, l.record.cluster, l.record.change])).toEqual([
      ['error', 'c1', 'properties'],
      ['error', 'c1', 'properties'],
    ]);
  });
});

describe('LoadBalancerState.version', () => {
  beforeEach(async () => {
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
  });

  it.each<[string, () => Promise<unknown> | void]>([
    ['a followed cluster loads', () => state.listenToCluster('c2')],
    ['its properties are written', () => putVersion('c1', '2')],
    ['a host is announced', () => putUri(writer, BASE, 'c1', 'h2', 'http://h2:1/')],
    ['a host is removed', () => writer.remove(`${urisPath(BASE, 'c1')}/h1`)],
    ['its node is deleted', () => writer.remove(clusterPath(BASE, 'c1'))],
    ['its last hold is released', () => state.stopListenToCluster('c1')],
  ])('goes up when %s', async (_what, act) => {
    // Prepare
    await state.listenToCluster('c1');
    const before = state.version;

    // Act
    await act();
    await zk.idle();

    // Assess
    expect(state.version).toBeGreaterThan(before);
  });

  it.each<[string, () => Promise<unknown> | void]>([
    ['nothing happens', () => undefined],
    ['a second hold is taken on a loaded cluster', () => state.listenToCluster('c1')],
    ['a hold is released while another remains', () => void state.listenToCluster('c1').then(() => state.stopListenToCluster('c1'))],
    ['a cluster nobody follows changes', () => putVersion('other', '1')],
    ['an unreadable document is written (the last good one stays)', () => put(writer, clusterPath(BASE, 'c1'), '{ nope')],
  ])('stays when %s', async (_what, act) => {
    // Prepare
    await state.listenToCluster('c1');
    const before = state.version;

    // Act
    await act();
    await zk.idle();

    // Assess
    expect(state.version).toBe(before);
  });
});

describe('LoadBalancerState.whenClusterLoaded', () => {
  it.each<[string, () => Promise<void> | undefined]>([
    ['nobody follows the cluster', () => undefined],
    ['the cluster is loaded', () => state.listenToCluster('c1')],
  ])('is undefined when %s', async (_what, arrange) => {
    // Prepare
    await putVersion('c1', '1');
    await arrange();

    // Act
    const loading = state.whenClusterLoaded('c1');

    // Assess
    expect(loading).toBeUndefined();
  });

  it('resolves when a cluster still loading has loaded, taking no hold of its own', async () => {
    // Prepare
    await putVersion('c1', '1');
    const listening = state.listenToCluster('c1');

    // Act
    const loading = state.whenClusterLoaded('c1');
    await loading;

    // Assess
    expect(loading).toBeInstanceOf(Promise);
    expect(state.isClusterLoaded('c1')).toBe(true);
    await listening;
    state.stopListenToCluster('c1');
    expect(state.isListeningToCluster('c1')).toBe(false);
  });

  it('stays pending while the load is held up, and resolves when the holder releases the cluster', async () => {
    // Prepare
    await putVersion('c1', '1');
    session.failNext('connectionLoss', { op: 'getData', path: clusterPath(BASE, 'c1'), source: 'watch' });
    const listening = state.listenToCluster('c1');
    void listening.catch(() => undefined);
    const loading = state.whenClusterLoaded('c1');
    if (loading === undefined) throw new Error('expected a promise while the cluster loads');
    const whileHeld = await stateOf(loading);

    // Act
    state.stopListenToCluster('c1');

    // Assess
    expect(whileHeld).toBe('pending');
    expect(await stateOf(loading)).toBe('resolved');
    expect(state.isClusterLoaded('c1')).toBe(false);
  });
});

describe('LoadBalancerState shutdown', () => {
  it('tells every known cluster removed, then nothing more', async () => {
    // Prepare
    await putVersion('c1', '1');
    await putVersion('c2', '2');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await Promise.all([state.listenToCluster('c1'), state.listenToCluster('c2')]);

    // Act
    state.close();
    await writer.set(clusterPath(BASE, 'c1'), Buffer.from(serializeClusterProperties(clusterDoc('c1', { properties: { v: '3' } }))));
    await zk.idle();

    // Assess
    expect(listener.events.filter((e) => e.startsWith('removed')).sort()).toEqual(['removed:c1', 'removed:c2']);
    expect(listener.events.slice(-2).every((e) => e.startsWith('removed'))).toBe(true);
  });
});

describe('LoadBalancerState tells a removed change', () => {
  it('with its reason: the node deleted, the last hold released, the state closed', async () => {
    // Prepare
    await putVersion('c1', '1');
    await putVersion('c2', '2');
    await putVersion('c3', '3');
    const listener = changeRecorder();
    state.registerClusterListener(listener);
    await Promise.all([state.listenToCluster('c1'), state.listenToCluster('c2'), state.listenToCluster('c3')]);

    // Act
    await writer.remove(clusterPath(BASE, 'c1'));
    await zk.idle();
    state.stopListenToCluster('c2');
    state.close();

    // Assess
    const removed = listener.changes.flatMap((c) => (c.kind === 'removed' ? [`${c.cluster}:${c.reason}`] : []));
    expect(removed).toEqual(['c1:deleted', 'c2:unfollowed', 'c3:closed']);
  });
});

describe('LoadBalancerState over nodes its session may not read', () => {
  /** Only this user may read the locked nodes; the state's session is not it. */
  const STRANGER = [digestAcl('someone-else', 'not-the-client')];

  it('loads a cluster whose node it may not read as unknown, counts and logs it, instead of waiting for ever', async () => {
    // Prepare
    await writer.ensurePath(`${BASE}/clusters`, OPEN_ACL);
    await put(writer, clusterPath(BASE, 'locked'), serializeClusterProperties(clusterDoc('locked')), STRANGER);
    const listener = changeRecorder();
    state.registerClusterListener(listener);

    // Act
    const loading = state.listenToCluster('locked');

    // Assess
    expect(await stateOf(loading)).toBe('resolved');
    expect(state.getClusterProperties('locked')).toBeUndefined();
    expect(state.stats().clusters.malformed).toBe(1);
    expect(logLines.some((l) => l.level === 'warn' && JSON.stringify(l.record).includes('locked'))).toBe(true);
  });

  it('loads a cluster without a host it may not read, and as hostless when it may not read its URI directory', async () => {
    // Prepare
    await putCluster(writer, BASE, clusterDoc('c1'));
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:80');
    await put(writer, `${urisPath(BASE, 'c1')}/h2`, JSON.stringify({ clusterName: 'c1', partitionDesc: { 'http://h2:80': { 0: { weight: 1 } } } }), STRANGER);
    await putCluster(writer, BASE, clusterDoc('c2'));
    await writer.ensurePath(urisPath(BASE, 'c2'), STRANGER);

    // Act
    const loading = Promise.all([state.listenToCluster('c1'), state.listenToCluster('c2')]);

    // Assess
    expect(await stateOf(loading)).toBe('resolved');
    expect(state.getUris('c1')?.hosts.map((h) => h.uri)).toEqual(['http://h1:80']);
    expect(state.getUris('c2')).toBeUndefined();
    expect(state.stats().uris.malformed).toBe(2);
  });
});

describe('LoadBalancerState over a D2 symlink its session may not read', () => {
  it('loads the $ cluster as unknown and tells its listeners the link is malformed, instead of waiting for ever', async () => {
    // Prepare: the link node only a stranger may read, its target readable.
    await putCluster(writer, BASE, clusterDoc('lor1'));
    await put(writer, clusterPath(BASE, '$master'), clusterPath(BASE, 'lor1'), [digestAcl('someone-else', 'not-the-client')]);
    const listener = changeRecorder();
    state.registerClusterListener(listener);

    // Act
    const loading = state.listenToCluster('$master');

    // Assess
    expect(await stateOf(loading)).toBe('resolved');
    expect(state.getClusterProperties('$master')).toBeUndefined();
    expect(listener.events.filter((e) => e.startsWith('malformed:$master'))).toHaveLength(1);
  });
});
