/**
 * XdsPropertyStore: the ZooKeeperPropertyStore contract over `indis.D2Node` watches (rest.li
 * `XdsToD2PropertiesAdaptor`): initialize exactly once (value, or undefined when the node does not
 * exist or is unreadable), add per new good value, remove on deletion, an unreadable write keeps the
 * last good value and is counted, a re-delivery of the same version is not published again.
 */
import { parseClusterProperties, serializeClusterProperties, type ClusterProperties } from '../../../lib/d2';
import { XdsPropertyStore } from '../../../lib/d2/xds-property-store';
import { clusterDoc } from '../../helpers/d2';
import { FakeD2Xds } from '../../helpers/d2-xds-fake';
import { capturingLogger } from '../../helpers/logging';
import { recordingSubscriber, type PropertyEvent } from '../../helpers/property-subscriber';

const DIR = '/d2/clusters';
const doc = (name: string, v: string): Record<string, unknown> => JSON.parse(serializeClusterProperties(clusterDoc(name, { properties: { v } }))) as Record<string, unknown>;

function newStore(xds: FakeD2Xds, malformed: string[] = []): XdsPropertyStore<ClusterProperties> {
  return new XdsPropertyStore({
    xds,
    directory: DIR,
    kind: 'cluster',
    parse: (data) => parseClusterProperties(data),
    onMalformed: (name) => malformed.push(name),
    logger: capturingLogger().logger,
  });
}

const v = (events: readonly PropertyEvent<ClusterProperties>[]): string[] => events.map((e) => (e.type === 'remove' ? 'remove' : `${e.type}:${e.value === undefined ? 'undefined' : String(e.value.properties.v)}`));

describe('XdsPropertyStore', () => {
  let xds: FakeD2Xds;
  beforeEach(() => (xds = new FakeD2Xds()));

  it('watches <directory>/<name> and initializes once with the value, then adds every new good value', async () => {
    // Prepare
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    const store = newStore(xds);
    const sub = recordingSubscriber<ClusterProperties>();

    // Act
    store.subscribe('c1', sub);
    await xds.idle();
    xds.putNode(`${DIR}/c1`, doc('c1', '2'));
    await xds.idle();

    // Assess
    expect(xds.watched('d2Node')).toEqual([`${DIR}/c1`]);
    expect(v(sub.events)).toEqual(['initialize:1', 'add:2']);
    expect(store.snapshot('c1')).toMatchObject({ status: 'present', version: 102n });
    expect(store.stats()).toEqual({ watched: 1, malformed: 0, published: 2 });
  });

  it('initializes with undefined when the node does not exist, adds when it appears, removes when deleted', async () => {
    const store = newStore(xds);
    const sub = recordingSubscriber<ClusterProperties>();

    store.subscribe('c1', sub);
    await xds.idle();
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    await xds.idle();
    xds.removeNode(`${DIR}/c1`);
    await xds.idle();

    expect(v(sub.events)).toEqual(['initialize:undefined', 'add:1', 'remove']);
    expect(store.snapshot('c1')?.status).toBe('absent');
  });

  it('keeps the last good value through a write that does not parse, counts it and reports it', async () => {
    // Prepare
    const malformed: string[] = [];
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    const store = newStore(xds, malformed);
    const sub = recordingSubscriber<ClusterProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    // Act: a document lib/d2 rejects (a cluster name that is not a string)
    xds.putNode(`${DIR}/c1`, { clusterName: 7 });
    await xds.idle();

    // Assess
    expect(v(sub.events)).toEqual(['initialize:1']);
    expect(store.get('c1')?.properties.v).toBe('1');
    expect(store.snapshot('c1')).toMatchObject({ status: 'present', version: 101n, rejected: { version: 102n } });
    expect(store.stats().malformed).toBe(1);
    expect(malformed).toEqual(['c1']);
  });

  it('initializes with undefined (unreadable) when the first version does not parse, and adds the next good one', async () => {
    xds.putNode(`${DIR}/c1`, { clusterName: 7 });
    const store = newStore(xds);
    const sub = recordingSubscriber<ClusterProperties>();

    store.subscribe('c1', sub);
    await xds.idle();
    const first = store.snapshot('c1')?.status;
    xds.putNode(`${DIR}/c1`, doc('c1', '2'));
    await xds.idle();

    expect(first).toBe('unreadable');
    expect(v(sub.events)).toEqual(['initialize:undefined', 'add:2']);
  });

  it('counts a NACKed node as an unreadable write and keeps the last good value', async () => {
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    const store = newStore(xds);
    const sub = recordingSubscriber<ClusterProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    xds.reject('d2Node', `${DIR}/c1`);
    await xds.idle();

    expect(v(sub.events)).toEqual(['initialize:1']);
    expect(store.get('c1')?.properties.v).toBe('1');
    expect(store.stats().malformed).toBe(1);
  });

  it('publishes nothing on a connection error and keeps loading until the node arrives', async () => {
    const offline = new FakeD2Xds({ absentUnknown: false });
    const store = newStore(offline);
    const sub = recordingSubscriber<ClusterProperties>();

    store.subscribe('c1', sub);
    offline.disconnect('d2Node', `${DIR}/c1`);
    await offline.idle();
    const during = { events: v(sub.events), status: store.snapshot('c1')?.status };
    offline.putNode(`${DIR}/c1`, doc('c1', '1'));
    await offline.idle();

    expect(during).toEqual({ events: [], status: 'loading' });
    expect(v(sub.events)).toEqual(['initialize:1']);
    expect(store.stats().malformed).toBe(0);
  });

  it('does not publish the same version twice (a re-delivery from another server)', async () => {
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    const store = newStore(xds);
    const sub = recordingSubscriber<ClusterProperties>();
    store.subscribe('c1', sub);
    await xds.idle();

    // Act: the same version again, as a fallback server sends it after a switch
    xds.redeliver('d2Node', `${DIR}/c1`);
    await xds.idle();

    expect(v(sub.events)).toEqual(['initialize:1']);
    expect(store.stats().published).toBe(1);
  });

  it('replays to a late subscriber at once, and stops the watch when the last one leaves', async () => {
    xds.putNode(`${DIR}/c1`, doc('c1', '1'));
    const store = newStore(xds);
    const first = store.subscribe('c1', recordingSubscriber<ClusterProperties>());
    await xds.idle();

    const late = recordingSubscriber<ClusterProperties>();
    const second = store.subscribe('c1', late);
    const replayed = v(late.events);
    first();
    second();

    expect(replayed).toEqual(['initialize:1']);
    expect(xds.watched('d2Node')).toEqual([]);
    expect(store.snapshot('c1')).toBeUndefined();
  });

  it('refuses a subscribe after close, and close cancels every watch', async () => {
    const store = newStore(xds);
    store.subscribe('c1', recordingSubscriber<ClusterProperties>());
    await xds.idle();

    store.close();

    expect(xds.watched('d2Node')).toEqual([]);
    expect(() => store.subscribe('c2', recordingSubscriber<ClusterProperties>())).toThrow(expect.objectContaining({ kind: 'closed' }));
  });
});
