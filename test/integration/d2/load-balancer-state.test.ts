import { LoadBalancerState, parseClusterProperties, serializeClusterProperties, type ClusterChange, type LoadBalancerClusterListener } from '../../../lib/d2';
import { clusterPath } from '../../../lib/d2/paths';
import type { ZkSession } from '../../../lib/zk';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { closeSessions, eventually, openSession, uniqueBase } from '../../helpers/zk';

// LoadBalancerState over a real ZooKeeper: loading, listeners, replay, and keeping the last good state.

/** A listener that records what it hears, in order: `kind:cluster` per change, and the changes themselves. */
function recorder(): LoadBalancerClusterListener & { events: string[]; changes: ClusterChange[] } {
  const events: string[] = [];
  const changes: ClusterChange[] = [];
  return {
    events,
    changes,
    onClusterChange: (change) => {
      events.push(`${change.kind}:${change.cluster}`);
      changes.push(change);
    },
  };
}

/** Time for events that must NOT happen. */
const QUIET_MS = 300;

describe('LoadBalancerState', () => {
  let session: ZkSession;
  let base: string;
  let state: LoadBalancerState;

  beforeEach(async () => {
    session = await openSession();
    base = uniqueBase('lbs');
    state = new LoadBalancerState({ session, basePath: base });
  });

  afterEach(async () => {
    state.close();
    await session.removeRecursive(base).catch(() => undefined);
    await closeSessions();
  });

  it('resolves listenToCluster once both the properties and the URIs are loaded', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    await putUri(session, base, 'c1', 'h1', 'http://127.0.0.1:1001', 2);

    // Act
    await state.listenToCluster('c1');

    // Assess
    expect(state.getClusterProperties('c1')?.clusterName).toBe('c1');
    expect(state.getUris('c1')?.hosts.map((h) => [h.uri, h.weight])).toEqual([['http://127.0.0.1:1001', 2]]);
    expect(state.getFailoutProperties('c1')).toBeNull();
  });

  it('resolves listenToCluster for a cluster that does not exist, and hears it when it appears', async () => {
    // Prepare
    const listener = recorder();
    state.registerClusterListener(listener);

    // Act
    await state.listenToCluster('later');
    const before = { properties: state.getClusterProperties('later'), uris: state.getUris('later'), listening: state.isListeningToCluster('later') };
    await putCluster(session, base, clusterDoc('later'));
    await eventually(() => listener.events.length > 0, 5000, 'properties change');

    // Assess
    expect(before).toEqual({ properties: undefined, uris: undefined, listening: true });
    expect(state.getFailoutProperties('later')).toBeNull();
    expect(listener.events).toEqual(['properties:later']);
  });

  it('tells a properties change again on every change of the cluster properties, carrying the new value', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    const listener = recorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');

    // Act
    await putCluster(session, base, clusterDoc('c1', { properties: { masterColo: 'lva1' } }));
    await eventually(() => listener.events.length === 2, 5000, 'second properties change');

    // Assess
    expect(listener.events).toEqual(['properties:c1', 'properties:c1']);
    expect(listener.changes[1]).toMatchObject({ kind: 'properties', cluster: 'c1', properties: { properties: { masterColo: 'lva1' } } });
    expect(state.getClusterProperties('c1')?.properties).toEqual({ masterColo: 'lva1' });
  });

  it('keeps the last good cluster state when a malformed JSON is written, and counts it', async () => {
    // Prepare
    const failout = { redirects: [{ peer: 'c2', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: 1 }] };
    await putCluster(session, base, clusterDoc('c1', { failoutProperties: failout }));
    const listener = recorder();
    const malformed: string[] = [];
    state.close();
    state = new LoadBalancerState({ session, basePath: base, onMalformed: (entity, name) => malformed.push(`${entity}:${name}`) });
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');

    // Act
    await put(session, clusterPath(base, 'c1'), '{"clusterName": "c1", "failoutProperties": {');
    await eventually(() => state.stats().clusters.malformed === 1, 5000, 'malformed counted');
    await new Promise((r) => setTimeout(r, QUIET_MS));

    // Assess
    expect(malformed).toEqual(['cluster:c1']);
    expect(listener.events).toEqual(['properties:c1', 'malformed:c1']);
    expect(listener.changes[1]).toEqual({ kind: 'malformed', cluster: 'c1', error: expect.any(Error) });
    expect(state.getFailoutProperties('c1')).toEqual(failout);
  });

  it('keeps the last good cluster state when only its failoutProperties are malformed (one last-good rule)', async () => {
    // Prepare
    const failout = { redirects: [{ peer: 'c2', weight: 1 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: 1 }] };
    await putCluster(session, base, clusterDoc('c1', { failoutProperties: failout }));
    await state.listenToCluster('c1');

    // Act: valid JSON, a new masterColo, and a weight the failout codec refuses.
    await put(session, clusterPath(base, 'c1'), JSON.stringify({
      clusterName: 'c1',
      properties: { masterColo: 'lva1' },
      failoutProperties: { failoutRedirectConfigs: [{ peer: 'c2', weight: 0 }], failoutBucketConfigs: [] },
    }));
    await eventually(() => state.stats().clusters.malformed === 1, 5000, 'malformed counted');
    await new Promise((r) => setTimeout(r, QUIET_MS));

    // Assess: the whole document is refused, the new masterColo with it.
    expect(state.getFailoutProperties('c1')).toEqual(failout);
    expect(state.getClusterProperties('c1')?.properties).toEqual({});
  });

  it('reads a chain of failout writes as whole documents would read, keeping the last good one past a bad failout', async () => {
    // Prepare: documents as the request writer writes them (failoutProperties last), so a write that
    // changes only the failout is read by parsing that member alone (parseClusterUpdate).
    const failout = (onlineAt: number) => ({ redirects: [{ peer: 'c2', weight: 2 }], ignoredRedirectEntries: 0, buckets: [{ offlineAt: 1_000, onlineAt }] });
    const text = (masterColo: string, onlineAt: number) => serializeClusterProperties(clusterDoc('c1', { properties: { masterColo }, failoutProperties: failout(onlineAt) }));
    await put(session, clusterPath(base, 'c1'), text('lor1', 2_000));
    await state.listenToCluster('c1');
    const seen: unknown[] = [state.getClusterProperties('c1')];
    const write = async (doc: string, check: () => boolean, what: string): Promise<void> => {
      await put(session, clusterPath(base, 'c1'), doc);
      await eventually(check, 5000, what);
      seen.push(state.getClusterProperties('c1'));
    };

    // Act
    await write(text('lor1', 3_000), () => state.getFailoutProperties('c1')?.buckets[0]?.onlineAt === 3_000, 'failout extended');
    await write(text('lor1', 4_000).replace('"onlineAt":4000', '"onlineAt":500'), () => state.stats().clusters.malformed === 1, 'bad failout refused');
    await write(text('lor1', 5_000), () => state.getFailoutProperties('c1')?.buckets[0]?.onlineAt === 5_000, 'failout after the bad one');
    await write(text('lva1', 5_000), () => state.getClusterProperties('c1')?.properties.masterColo === 'lva1', 'other member changed');

    // Assess
    expect(seen).toEqual([
      parseClusterProperties(text('lor1', 2_000)),
      parseClusterProperties(text('lor1', 3_000)),
      parseClusterProperties(text('lor1', 3_000)),
      parseClusterProperties(text('lor1', 5_000)),
      parseClusterProperties(text('lva1', 5_000)),
    ]);
  });

  it('tells removed when the cluster node is deleted', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    const listener = recorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');

    // Act
    await session.remove(clusterPath(base, 'c1'));
    await eventually(() => listener.events.length === 2, 5000, 'removed change');

    // Assess
    expect(listener.events).toEqual(['properties:c1', 'removed:c1']);
    expect(state.getClusterProperties('c1')).toBeUndefined();
  });

  it('replays the clusters already known to a listener registered late', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    await putCluster(session, base, clusterDoc('c2'));
    await putUri(session, base, 'c1', 'host-1', 'http://10.0.0.1:8080');
    await Promise.all([state.listenToCluster('c1'), state.listenToCluster('c2'), state.listenToCluster('absent')]);
    const late = recorder();

    // Act
    state.registerClusterListener(late);

    // Assess: at once, without waiting for any change, each cluster's properties then its URIs when it
    // has any (as a listener registered early heard them), and nothing for the cluster that does not exist.
    expect(late.events).toEqual(['properties:c1', 'uris:c1', 'properties:c2']);
    expect(late.changes.filter((c) => c.kind === 'uris')).toEqual([{ kind: 'uris', cluster: 'c1', uris: state.getUris('c1') }]);
    expect(state.getUris('c1')?.hosts.map((h) => h.uri)).toEqual(['http://10.0.0.1:8080']);
  });

  it('keeps listening until every holder stopped, then forgets the cluster', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    const listener = recorder();
    state.registerClusterListener(listener);
    await state.listenToCluster('c1');
    await state.listenToCluster('c1');

    // Act
    state.stopListenToCluster('c1');
    const afterOne = state.isListeningToCluster('c1');
    state.stopListenToCluster('c1');

    // Assess
    expect(afterOne).toBe(true);
    expect(state.isListeningToCluster('c1')).toBe(false);
    expect(state.getClusterProperties('c1')).toBeUndefined();
    expect(listener.events).toEqual(['properties:c1', 'removed:c1']);
  });

  it('loads a service together with its cluster, and follows a change of its cluster', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    await putCluster(session, base, clusterDoc('c2'));
    await putService(session, base, serviceDoc('svc', 'c1'));

    // Act
    await state.listenToService('svc');
    const first = { cluster: state.getServiceProperties('svc')?.clusterName, loaded: state.isClusterLoaded('c1') };
    await putService(session, base, serviceDoc('svc', 'c2'));
    await eventually(() => state.isClusterLoaded('c2') && !state.isListeningToCluster('c1'), 5000, 'cluster hold moved');

    // Assess
    expect(first).toEqual({ cluster: 'c1', loaded: true });
    expect(state.getClusterProperties('c2')?.clusterName).toBe('c2');
  });

  it('keeps the other hosts when one URI child is unreadable, and a child keeps its last good value', async () => {
    // Prepare
    await putCluster(session, base, clusterDoc('c1'));
    await putUri(session, base, 'c1', 'good-1', 'http://127.0.0.1:1001');
    const second = await putUri(session, base, 'c1', 'good-2', 'http://127.0.0.1:1002');
    await put(session, `${base}/uris/c1/bad`, '{"clusterName":"c1","partitionDesc":{"http://127.0.0.1:1003":{"a":{"weight":1}}}}');

    // Act
    await state.listenToCluster('c1');
    const initial = state.getUris('c1')?.hosts.map((h) => h.uri);
    await put(session, second, 'not json');
    await eventually(() => state.stats().uris.malformed === 2, 5000, 'second malformed child');
    await new Promise((r) => setTimeout(r, QUIET_MS));

    // Assess
    expect(initial).toEqual(['http://127.0.0.1:1001', 'http://127.0.0.1:1002']);
    expect(state.getUris('c1')?.hosts.map((h) => h.uri)).toEqual(['http://127.0.0.1:1001', 'http://127.0.0.1:1002']);
  });

  it('preserves unknown keys on a read-modify-write through the codecs', async () => {
    // Prepare: a cluster written by a newer rest.li, with keys this codec does not know.
    const path = clusterPath(base, 'c1');
    const original = {
      clusterName: 'c1',
      futureTopLevel: { nested: [1, 2.5, 'x'] },
      partitionProperties: { partitionType: 'NONE', futurePartitionKey: true },
      failoutProperties: { failoutRedirectConfigs: [], failoutBucketConfigs: [], futureFailoutKey: 'kept' },
    };
    await put(session, path, JSON.stringify(original));
    await state.listenToCluster('c1');

    // Act: what the request worker does — read, parse, replace failoutProperties, CAS write.
    const { data, stat } = await session.get(path);
    const props = parseClusterProperties(data);
    const failout = { ...props.failoutProperties!, redirects: [{ peer: 'c2', weight: 2 }] };
    await session.set(path, Buffer.from(serializeClusterProperties({ ...props, failoutProperties: failout })), stat.version);
    await eventually(() => (state.getFailoutProperties('c1')?.redirects.length ?? 0) === 1, 5000, 'update seen');
    const written = JSON.parse((await session.get(path)).data.toString()) as Record<string, unknown>;

    // Assess
    expect(written.futureTopLevel).toEqual({ nested: [1, 2.5, 'x'] });
    expect(written.partitionProperties).toEqual({ partitionType: 'NONE', futurePartitionKey: true });
    expect(written.failoutProperties).toEqual({ failoutRedirectConfigs: [{ peer: 'c2', weight: 2 }], failoutBucketConfigs: [], futureFailoutKey: 'kept' });
    expect(state.getClusterProperties('c1')?.extra).toEqual({ futureTopLevel: { nested: [1, 2.5, 'x'] } });
  });

  it('rejects listenToCluster after shutdown with a closed error', async () => {
    // Act
    state.close();
    const outcome = state.listenToCluster('c1');

    // Assess
    await expect(outcome).rejects.toMatchObject({ name: 'D2Error', kind: 'closed' });
  });
});
