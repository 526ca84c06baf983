/**
 * LoadBalancerState against the in-memory ZooKeeper, through its loading and holding API only
 * (listenTo*, stopListenTo*, the getters, isClusterLoaded): when listenTo* resolves, how counted holds
 * keep and release a cluster, how a service holds and moves its cluster, and that unreadable documents
 * never replace good ones. Change listeners are covered elsewhere.
 */
import { LoadBalancerState, serializeClusterProperties } from '../../../lib/d2';
import { clusterPath, urisPath } from '../../../lib/d2/paths';
import { clusterDoc, put, putCluster, putService, putUri, serviceDoc } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';

let zk: InMemoryZk;
let session: InMemoryZkSession;
let writer: InMemoryZkSession;
let state: LoadBalancerState;

beforeEach(() => {
  zk = new InMemoryZk();
  session = zk.session();
  writer = zk.session();
  state = new LoadBalancerState({ session, basePath: BASE });
});

afterEach(() => state.close());

/** `v` of the cluster's properties, `none` when there are none. */
function versionOf(cluster: string): string {
  const props = state.getClusterProperties(cluster);
  return props ? String(props.properties.v ?? '-') : 'none';
}

/** `uri*weight` per host, `none` when there is no URI view. */
function hostsOf(cluster: string): string {
  const uris = state.getUris(cluster);
  return uris ? uris.hosts.map((h) => `${h.uri}*${h.weight}`).join(',') : 'none';
}

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

describe('LoadBalancerState.listenToCluster resolves once properties and URIs are loaded', () => {
  it.each<[string, () => Promise<unknown>, string, string]>([
    [
      'a cluster with hosts',
      async () => {
        await putVersion('c1', '1');
        await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/', 2);
      },
      '1',
      'http://h1:1/*2',
    ],
    ['a cluster without a URI directory', () => putVersion('c1', '1'), '1', 'none'],
    ['a cluster that does not exist', async () => undefined, 'none', 'none'],
    ['a cluster whose document is not JSON', () => put(writer, clusterPath(BASE, 'c1'), '{ nope'), 'none', 'none'],
    [
      'a cluster whose only announcement is malformed',
      async () => {
        await putVersion('c1', '1');
        await put(writer, `${urisPath(BASE, 'c1')}/bad`, '[]');
      },
      '1',
      '',
    ],
  ])('for %s', async (_what, arrange, version, hosts) => {
    // Prepare
    await arrange();

    // Act
    await state.listenToCluster('c1');

    // Assess
    expect(state.isClusterLoaded('c1')).toBe(true);
    expect(versionOf('c1')).toBe(version);
    expect(hostsOf('c1')).toBe(hosts);
  });

  it.each(['connectionLoss', 'sessionExpired'] as const)('stays pending while the first read failed with %s, and resolves after the next connected', async (kind) => {
    await putVersion('c1', '1');
    session.failNext(kind, { op: 'getData', path: clusterPath(BASE, 'c1'), source: 'watch' });
    const listening = state.listenToCluster('c1');
    expect(await stateOf(listening)).toBe('pending');
    expect(state.isClusterLoaded('c1')).toBe(false);
    session.disconnect();
    session.reconnect();
    await listening;
    expect(versionOf('c1')).toBe('1');
  });
});

describe('LoadBalancerState holds', () => {
  it('keeps a cluster while any hold is taken, and drops its watches and data with the last release', async () => {
    // Prepare
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    await state.listenToCluster('c1');
    await state.listenToCluster('c1');

    // Act
    state.stopListenToCluster('c1');

    // Assess
    expect(state.isClusterLoaded('c1')).toBe(true);
    expect(versionOf('c1')).toBe('1');
    state.stopListenToCluster('c1');
    expect(state.isClusterLoaded('c1')).toBe(false);
    expect([versionOf('c1'), hostsOf('c1')]).toEqual(['none', 'none']);
    expect(session.watchCount).toBe(0);
    state.stopListenToCluster('c1');
    expect(session.watchCount).toBe(0);
  });

  it('resolves listenToService once the service and its cluster are loaded; the service holds the cluster', async () => {
    await putService(writer, BASE, serviceDoc('s1', 'c1'));
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    await state.listenToService('s1');
    expect(state.isClusterLoaded('c1')).toBe(true);
    expect(hostsOf('c1')).toBe('http://h1:1/*1');

    await state.listenToCluster('c1');
    state.stopListenToService('s1');
    expect(state.isClusterLoaded('c1')).toBe(true);
    state.stopListenToCluster('c1');
    expect(state.isClusterLoaded('c1')).toBe(false);
  });

  it('resolves listenToService for a service that does not exist, holding no cluster', async () => {
    await state.listenToService('nobody');
    expect(session.watchCount).toBe(1);
  });

  it('moves the service hold when the service points at another cluster, releasing the old one', async () => {
    await putService(writer, BASE, serviceDoc('s1', 'c1'));
    await putVersion('c1', '1');
    await putVersion('c2', '2');
    await state.listenToService('s1');

    await putService(writer, BASE, serviceDoc('s1', 'c2'));
    await zk.idle();

    expect(state.isClusterLoaded('c1')).toBe(false);
    expect(state.isClusterLoaded('c2')).toBe(true);
    expect(versionOf('c2')).toBe('2');
  });

  it('releases the cluster hold when the service is deleted', async () => {
    await putService(writer, BASE, serviceDoc('s1', 'c1'));
    await putVersion('c1', '1');
    await state.listenToService('s1');
    await writer.remove(`${BASE}/services/s1`);
    await zk.idle();
    expect(state.isClusterLoaded('c1')).toBe(false);
  });
});

describe('LoadBalancerState keeps the last good state', () => {
  it.each<[string, string]>([
    ['not JSON', '{ nope'],
    ['JSON that is not cluster properties', '{"clusterName": 7}'],
  ])('keeps the cluster properties through a write that is %s', async (_what, bad) => {
    await putVersion('c1', '1');
    await state.listenToCluster('c1');
    await put(writer, clusterPath(BASE, 'c1'), bad);
    await zk.idle();
    expect(versionOf('c1')).toBe('1');
    await putVersion('c1', '2');
    await zk.idle();
    expect(versionOf('c1')).toBe('2');
  });

  it('keeps a host through a malformed rewrite of its announcement, and the other hosts with it', async () => {
    await putVersion('c1', '1');
    await putUri(writer, BASE, 'c1', 'h1', 'http://h1:1/');
    await putUri(writer, BASE, 'c1', 'h2', 'http://h2:1/');
    await state.listenToCluster('c1');
    await put(writer, `${urisPath(BASE, 'c1')}/h1`, '{ nope');
    await zk.idle();
    expect(hostsOf('c1')).toBe('http://h1:1/*1,http://h2:1/*1');
  });

  it('catches up with a change made while its session was expired, once the session is reset', async () => {
    await putVersion('c1', '1');
    await state.listenToCluster('c1');
    await session.expire({ reconnect: false });
    await writer.set(clusterPath(BASE, 'c1'), Buffer.from(serializeClusterProperties(clusterDoc('c1', { properties: { v: '2' } }))));
    await zk.idle();
    expect(versionOf('c1')).toBe('1');
    session.reconnect();
    await zk.idle();
    expect(versionOf('c1')).toBe('2');
  });
});
