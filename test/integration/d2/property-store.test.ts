import { parseClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { ZooKeeperPropertyStore, type PropertySubscriber } from '../../../lib/d2/property-store';
import { clusterPath } from '../../../lib/d2/paths';
import type { ZkSession } from '../../../lib/zk';
import { put } from '../../helpers/d2';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// The PropertyEventBus contract over real znodes: initialize first, then add / remove; replay; last good value.

function recorder(): PropertySubscriber<ClusterProperties> & { events: string[] } {
  const events: string[] = [];
  const describe = (v: ClusterProperties | undefined): string => (v ? String(v.properties.v ?? '-') : 'none');
  return {
    events,
    onInitialize: (name, value) => events.push(`init:${name}:${describe(value)}`),
    onAdd: (name, value) => events.push(`add:${name}:${describe(value)}`),
    onRemove: (name) => events.push(`remove:${name}`),
  };
}

const doc = (v: string): string => JSON.stringify({ clusterName: 'c1', properties: { v } });

describe('ZooKeeperPropertyStore', () => {
  let session: ZkSession;
  let base: string;
  let store: ZooKeeperPropertyStore<ClusterProperties>;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('store');
    store = new ZooKeeperPropertyStore({ session, directory: clusterPath(base), kind: 'cluster', parse: (data) => parseClusterProperties(data) });
  });

  afterEach(async () => {
    store.close();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('publishes initialize, then add on every change, remove on delete, and add on re-create', async () => {
    // Prepare
    const path = clusterPath(base, 'c1');
    const subscriber = recorder();
    store.subscribe('c1', subscriber);
    await eventually(() => subscriber.events.length === 1, 5000, 'initialize');

    // Act
    await put(session, path, doc('1'));
    await eventually(() => subscriber.events.length === 2, 5000, 'add');
    await put(session, path, doc('2'));
    await eventually(() => subscriber.events.length === 3, 5000, 'second add');
    await session.remove(path);
    await eventually(() => subscriber.events.length === 4, 5000, 'remove');
    await put(session, path, doc('3'));
    await eventually(() => subscriber.events.length === 5, 5000, 'add after re-create');

    // Assess
    expect(subscriber.events).toEqual(['init:c1:none', 'add:c1:1', 'add:c1:2', 'remove:c1', 'add:c1:3']);
  });

  it('replays the cached value to a late subscriber at once', async () => {
    // Prepare
    await put(session, clusterPath(base, 'c1'), doc('cached'));
    const early = recorder();
    store.subscribe('c1', early);
    await eventually(() => early.events.length === 1, 5000, 'initialize');
    const late = recorder();

    // Act
    store.subscribe('c1', late);

    // Assess
    expect(late.events).toEqual(['init:c1:cached']);
  });

  it('initializes an unreadable node as none, then adds its first good value', async () => {
    // Prepare
    const path = clusterPath(base, 'c1');
    await put(session, path, '{"clusterName": 42}');
    const subscriber = recorder();
    store.subscribe('c1', subscriber);
    await eventually(() => subscriber.events.length === 1, 5000, 'initialize');
    const unreadable = store.snapshot('c1');

    // Act
    await put(session, path, doc('good'));
    await eventually(() => subscriber.events.length === 2, 5000, 'add');

    // Assess
    expect(unreadable).toMatchObject({ status: 'unreadable', value: undefined });
    expect(unreadable?.rejected?.error).toMatchObject({ kind: 'malformed', field: 'clusterName' });
    expect(subscriber.events).toEqual(['init:c1:none', 'add:c1:good']);
    expect(store.stats()).toMatchObject({ watched: 1, malformed: 1 });
  });

  it('stops watching and forgets the value when the last subscriber leaves', async () => {
    // Prepare
    await put(session, clusterPath(base, 'c1'), doc('x'));
    const first = recorder();
    const second = recorder();
    const unsubscribeFirst = store.subscribe('c1', first);
    const unsubscribeSecond = store.subscribe('c1', second);
    await eventually(() => second.events.length === 1, 5000, 'initialize');

    // Act
    unsubscribeFirst();
    const stillWatched = store.stats().watched;
    unsubscribeSecond();

    // Assess
    expect(stillWatched).toBe(1);
    expect(store.stats().watched).toBe(0);
    expect(store.get('c1')).toBeUndefined();
    expect(session.watchCount).toBe(0);
  });
});
