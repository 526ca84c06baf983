/**
 * D2Client's borrowed cluster holds against the in-memory ZooKeeper, with real timers and a short idle
 * (issue 13): a cluster a request is sent to that nobody follows is followed by the client only until
 * it has gone `borrowedClusterIdleMs` without use; a cluster somebody else follows (a failout peer
 * watch) is used without a hold; close() gives back what was borrowed. Also `hostCount`, which counts
 * by the host pick's own rule (lib/d2/eligible-hosts.ts), as the cluster info provider does.
 */
import { createClusterInfoProvider, D2Client, LoadBalancerState, type ClusterRouter, type D2Target } from '../../../lib/d2';
import { urisPath } from '../../../lib/d2/paths';
import { clusterDoc, putCluster, putHomeAndPeer, putUri } from '../../helpers/d2';
import { InMemoryZk, type InMemoryZkSession } from '../../helpers/in-memory-zk';

const BASE = '/d2';
const URL = 'd2://greetings/hello';
const IDLE_MS = 50;

let zk: InMemoryZk;
let writer: InMemoryZkSession;
let state: LoadBalancerState;
let client: D2Client;

beforeEach(async () => {
  zk = new InMemoryZk();
  writer = zk.session();
  state = new LoadBalancerState({ session: zk.session(), basePath: BASE });
  client = new D2Client({ state, borrowedClusterIdleMs: IDLE_MS });
  await putHomeAndPeer(writer, BASE);
});

afterEach(async () => {
  await client.close();
  state.close();
});

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls until `done` holds, failing after `timeoutMs`. */
async function eventually(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const toPeer: ClusterRouter = { route: () => 'peer' };

/** The two ways a request reaches a cluster other than its service's own. */
const USES: [string, (through: D2Client) => Promise<D2Target>][] = [
  ['resolveInCluster', (through) => through.resolveInCluster('peer', URL)],
  ["a router's choice", (through) => through.resolveRouted(URL, toPeer, undefined)],
];

describe('D2Client borrowed cluster holds', () => {
  it.each(USES)('borrows a hold for %s on a cluster nobody follows, and gives it back after the idle time', async (_how, use) => {
    // Act
    const target = await use(client);
    const whileUsed = state.isListeningToCluster('peer');
    await eventually(() => !state.isListeningToCluster('peer'), 2_000, 'borrowed hold released');

    // Assess
    expect(target.cluster).toBe('peer');
    expect(whileUsed).toBe(true);
    expect(state.getUris('peer')).toBeUndefined();
    expect(state.isListeningToCluster('home')).toBe(true);
  });

  it.each(USES)('does not release a borrowed cluster while %s keeps using it, each use resetting the idle clock', async (_how, use) => {
    // Prepare: a use every third of the idle time for four idle times; without the reset the hold
    // would go after the first.
    const idle = 120;
    const patient = new D2Client({ state, borrowedClusterIdleMs: idle });
    const heldAtEachUse: boolean[] = [];
    await use(patient);
    const started = performance.now();

    try {
      // Act
      while (performance.now() - started < 4 * idle) {
        await sleep(idle / 3);
        heldAtEachUse.push(state.isListeningToCluster('peer'));
        await use(patient);
      }
      const stoppedAt = performance.now();
      await eventually(() => !state.isListeningToCluster('peer'), 2_000, 'release after the last use');
      const releasedAfter = performance.now() - stoppedAt;

      // Assess
      expect(heldAtEachUse.length).toBeGreaterThanOrEqual(4);
      expect(heldAtEachUse.every(Boolean)).toBe(true);
      expect(releasedAfter).toBeGreaterThanOrEqual(idle - 20);
    } finally {
      await patient.close();
    }
  });

  it.each(USES)('takes no hold for %s on a cluster somebody else follows', async (_how, use) => {
    // Prepare: a failout manager's peer watch, say.
    await state.listenToCluster('peer');

    // Act
    const target = await use(client);
    state.stopListenToCluster('peer');

    // Assess
    expect(target.cluster).toBe('peer');
    expect(state.isListeningToCluster('peer')).toBe(false);
  });

  it.each(USES)('gives borrowed holds back at close() for %s, at once', async (_how, use) => {
    // Prepare
    await use(client);
    const before = state.isListeningToCluster('peer');

    // Act
    await client.close();

    // Assess
    expect(before).toBe(true);
    expect(state.isListeningToCluster('peer')).toBe(false);
    expect(state.isListeningToService('greetings')).toBe(false);
    expect(state.isListeningToCluster('home')).toBe(false);
  });

  it('borrows nothing for the service cluster itself', async () => {
    // Act
    await client.resolveRouted(URL, { route: () => 'home' }, undefined);
    await client.close();

    // Assess
    expect(state.isListeningToCluster('home')).toBe(false);
  });
});

describe('D2Client.hostCount', () => {
  beforeEach(async () => {
    // c1: two http hosts (one weight 0), one banned http host, two https hosts.
    await putCluster(writer, BASE, clusterDoc('c1', { bannedUris: ['http://banned:80'] }));
    await putUri(writer, BASE, 'c1', 'a', 'http://a:80', 1);
    await putUri(writer, BASE, 'c1', 'drained', 'http://drained:80', 0);
    await putUri(writer, BASE, 'c1', 'banned', 'http://banned:80', 3);
    await putUri(writer, BASE, 'c1', 's1', 'https://s1:443', 2);
    await putUri(writer, BASE, 'c1', 's2', 'https://s2:443', 1);
    await state.listenToCluster('c1');
  });

  it.each<[string, readonly string[] | undefined, number]>([
    ['no schemes: every sendable host', undefined, 3],
    ['an empty scheme list: every sendable host', [], 3],
    ['http only', ['http'], 1],
    ['https only', ['https'], 2],
    ['https first', ['https', 'http'], 2],
    ['http first', ['http', 'https'], 1],
    ['an upper-case scheme', ['HTTPS'], 2],
    ['a scheme no host has, then http', ['h2c', 'http'], 1],
    ['only schemes no host has', ['h2c'], 0],
  ])('counts the hosts a request would go to with %s, leaving out banned hosts and weight 0', (_what, schemes, expected) => {
    // Act
    const counted = client.hostCount('c1', schemes);
    const provided = createClusterInfoProvider(state).getHostCount('c1', schemes);

    // Assess
    expect(counted).toBe(expected);
    expect(provided).toBe(expected);
  });

  it.each<[string, string]>([
    ['nobody follows', 'peer'],
    ['does not exist', 'ghost'],
  ])('is 0 for a cluster that %s', async (_what, cluster) => {
    // Prepare
    await state.listenToCluster('ghost');

    // Act
    const count = client.hostCount(cluster, ['http']);

    // Assess
    expect(count).toBe(0);
  });

  it('follows the hosts as they change, for the same scheme list', async () => {
    // Prepare
    const schemes = ['http'];
    const before = client.hostCount('c1', schemes);

    // Act
    await putUri(writer, BASE, 'c1', 'b', 'http://b:80', 1);
    await zk.idle();
    const added = client.hostCount('c1', schemes);
    await putCluster(writer, BASE, clusterDoc('c1', { bannedUris: ['http://banned:80', 'http://a:80'] }));
    await zk.idle();
    const banned = client.hostCount('c1', schemes);
    await writer.remove(`${urisPath(BASE, 'c1')}/b`);
    await zk.idle();
    const removed = client.hostCount('c1', schemes);

    // Assess
    expect([before, added, banned, removed]).toEqual([1, 2, 1, 0]);
  });
});
