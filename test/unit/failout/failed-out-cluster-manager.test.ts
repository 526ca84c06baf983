import { FailedoutClusterManager, type FailedoutClusterManagerOptions } from '../../../lib/failout/failed-out-cluster-manager';
import { FakeState, ManualScheduler, RecordingWarmUpHandler, failoutConfig, flush, scheduledConfig } from './fakes';

// FailedoutClusterManager: the 12 cases of rest.li's FailedoutClusterManagerTest, ported to
// reference-counted holds, plus the weak spots rest.li leaves open.

const CLUSTER = 'cluster-1';
const P1 = 'peer-1';
const P2 = 'peer-2';
const TEARDOWN_MS = 60_000;

interface Fixture {
  state: FakeState;
  handler: RecordingWarmUpHandler;
  scheduler: ManualScheduler;
  manager: FailedoutClusterManager;
}

function fixture(overrides: Partial<FailedoutClusterManagerOptions> = {}): Fixture {
  const state = new FakeState().addCluster(P1).addCluster(P2);
  const handler = new RecordingWarmUpHandler();
  const scheduler = new ManualScheduler();
  const manager = new FailedoutClusterManager({
    cluster: CLUSTER,
    state,
    warmUpHandler: handler,
    peerWatchTeardownDelayMs: TEARDOWN_MS,
    scheduler,
    ...overrides,
  });
  return { state, handler, scheduler, manager };
}

describe('FailedoutClusterManager (rest.li FailedoutClusterManagerTest)', () => {
  it('watches and warms up every peer of an active failout once (testAddPeerClusterWatches)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Assess
    expect(state.calls).toEqual([`listen:${P1}`, `listen:${P2}`]);
    expect(handler.calls).toEqual([`warm:${P1}`, `warm:${P2}`]);
    expect(manager.peerStates()).toEqual(new Map([[P1, 'warm'], [P2, 'warm']]));
  });

  it('watches and warms up only the added peer when the peer set grows (testAddPeerClusterWatchesWithPeerClusterAdded)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Assess
    expect(state.calls).toEqual([`listen:${P1}`, `listen:${P2}`]);
    expect(handler.calls).toEqual([`warm:${P1}`, `warm:${P2}`]);
  });

  it('cancels a dropped peer and releases its hold after the teardown delay (testAddPeerClusterWatchesWithPeerClusterRemoved)', async () => {
    // Prepare
    const { state, handler, scheduler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    const beforeTimer = { stops: state.calls.filter((c) => c.startsWith('stop')), status: manager.peerStates().get(P2) };
    scheduler.runAll();

    // Assess
    expect(handler.calls).toContain(`cancel:${P2}`);
    expect(handler.calls).not.toContain(`cancel:${P1}`);
    expect(scheduler.scheduled).toEqual([TEARDOWN_MS]);
    expect(beforeTimer).toEqual({ stops: [], status: 'tearingDown' });
    expect(state.calls.filter((c) => c.startsWith('stop'))).toEqual([`stop:${P2}`]);
    expect(manager.peerStates()).toEqual(new Map([[P1, 'warm']]));
  });

  it('releases a dropped peer at once when the teardown delay is 0 (testPeerClusterRemovalWithoutScheduledExecutorService)', async () => {
    // Prepare
    const { state, scheduler, manager } = fixture({ peerWatchTeardownDelayMs: 0 });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));

    // Assess
    expect(scheduler.scheduled).toEqual([]);
    expect(state.calls).toContain(`stop:${P2}`);
    expect(state.isListeningToCluster(P2)).toBe(false);
  });

  it('keeps a watch that existed before the failout: only its own hold is released (testDoesRemovePeerClusterWatchIfWatchExistsBeforeFailout)', async () => {
    // rest.li skips the unregister when the watch existed before, since unregistering would pull the
    // watch from its owner. Holds are counted here, so the manager releases exactly the hold it took
    // and the earlier watch stays.
    // Prepare
    const { state, scheduler, manager } = fixture();
    await state.listenToCluster(P1);
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();

    // Act
    manager.updateFailoutConfig(undefined);
    scheduler.runAll();

    // Assess
    expect(state.calls.filter((c) => c === `stop:${P1}`)).toHaveLength(1);
    expect(state.isListeningToCluster(P1)).toBe(true);
    expect(state.holds.get(P1)).toBe(1);
  });

  it('releases a hold that never finished loading and never warms it up (testDoesRemovePeerClusterWatchIfWatchNotEstablished)', async () => {
    // rest.li leaves a not-yet-established watch in place to dodge a race in its subscriber. Here the
    // hold is taken synchronously by listenToCluster, so releasing it is always exact; the load that
    // completes afterwards must not start a warm-up for a peer that is gone.
    // Prepare
    const { state, handler, scheduler, manager } = fixture();
    state.manualLoads = true;
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P2]));
    scheduler.runAll();
    state.pendingLoads.get(P1)?.resolve();
    state.pendingLoads.get(P2)?.resolve();
    await flush();

    // Assess
    expect(state.isListeningToCluster(P1)).toBe(false);
    expect(handler.calls).toEqual([`cancel:${P1}`, `warm:${P2}`]);
  });

  it('does nothing for an undefined config (testUpdateFailoutConfigWithNull)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();

    // Act
    manager.updateFailoutConfig(undefined);
    await flush();

    // Assess
    expect(state.calls).toEqual([]);
    expect(manager.getFailoutConfig()).toBeUndefined();
    expect(handler.calls).toEqual([]);
  });

  it('keeps a config that is not failed out without watching its peers (testUpdateFailoutConfigWithoutActiveFailout)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();
    const config = failoutConfig(CLUSTER, [P1], false);

    // Act
    manager.updateFailoutConfig(config);
    await flush();

    // Assess
    expect(state.calls).toEqual([]);
    expect(manager.getFailoutConfig()).toBe(config);
    expect(handler.calls).toEqual([]);
  });

  it('watches and warms up the peer of an active failout (testUpdateFailoutConfigWithActiveFailout)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();
    const config = failoutConfig(CLUSTER, [P1]);

    // Act
    manager.updateFailoutConfig(config);
    await flush();

    // Assess
    expect(manager.getFailoutConfig()).toBe(config);
    expect(state.calls).toEqual([`listen:${P1}`]);
    expect(handler.calls).toEqual([`warm:${P1}`]);
  });

  it('watches and warms up only the new peer on a config update (testUpdateFailoutConfigUpdate)', async () => {
    // Prepare
    const { state, handler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    state.calls.length = 0;
    handler.calls.length = 0;

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Assess
    expect(state.calls).toEqual([`listen:${P2}`]);
    expect(handler.calls).toEqual([`warm:${P2}`]);
  });

  it('cancels and tears down every peer when the config goes away (testUpdateFailoutConfigUpdateToNull)', async () => {
    // Prepare
    const { state, handler, scheduler, manager } = fixture();
    const config = failoutConfig(CLUSTER, [P1]);
    manager.updateFailoutConfig(config);
    await flush();

    // Act
    manager.updateFailoutConfig(undefined);
    scheduler.runAll();
    await flush();

    // Assess
    expect(manager.getFailoutConfig()).toBeUndefined();
    expect(handler.calls).toEqual([`warm:${P1}`, `cancel:${P1}`]);
    expect(handler.configs).toEqual([config]);
    expect(scheduler.scheduled).toEqual([TEARDOWN_MS]);
    expect(state.calls).toEqual([`listen:${P1}`, `stop:${P1}`]);
  });

  it('shuts the warm-up handler down once (testShutdown)', () => {
    // Prepare
    const { handler, manager } = fixture();

    // Act
    manager.close();
    manager.close();

    // Assess
    expect(handler.count('close')).toBe(1);
  });
});

describe('FailedoutClusterManager (beyond rest.li)', () => {
  it('tears the peers a write drops down with one timer, and a peer dropped later at its own time', async () => {
    // Prepare
    let now = 1_000_000;
    const { state, scheduler, manager } = fixture({ now: () => now });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Act: P2 dropped at +0 s, P1 at +30 s; the timer of the first fires at +60 s, the next at +90 s.
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    now += 30_000;
    manager.updateFailoutConfig(undefined);
    const beforeTimer = { pending: scheduler.pending(), held: [...state.holds.keys()].sort() };
    now += 30_000;
    scheduler.runAll();
    const atFirst = { pending: scheduler.pending(), held: [...state.holds.keys()], statuses: manager.peerStates() };
    now += 30_000;
    scheduler.runAll();

    // Assess
    expect(beforeTimer).toEqual({ pending: [TEARDOWN_MS], held: [P1, P2] });
    expect(atFirst).toEqual({ pending: [30_000], held: [P1], statuses: new Map([[P1, 'tearingDown']]) });
    expect(state.holds.size).toBe(0);
    expect(scheduler.pending()).toEqual([]);
    expect(scheduler.scheduled).toEqual([TEARDOWN_MS, 30_000]);
  });

  it('arms one teardown timer for every peer a restore drops, kept while one of them is still dropped', async () => {
    // Prepare
    const { state, scheduler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Act: a restore drops both; a failout to P1 alone takes P1 back; then P2's teardown runs.
    manager.updateFailoutConfig(undefined);
    const dropped = scheduler.pending();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    const oneBack = scheduler.pending();
    scheduler.runAll();

    // Assess
    expect(dropped).toEqual([TEARDOWN_MS]);
    expect(oneBack).toEqual([TEARDOWN_MS]);
    expect(manager.peerStates()).toEqual(new Map([[P1, 'warm']]));
    expect([...state.holds.keys()]).toEqual([P1]);
    expect(scheduler.pending()).toEqual([]);
  });

  it('keeps the watch of a peer re-added before its teardown runs, without a second hold or warm-up', async () => {
    // Prepare
    const { state, handler, scheduler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    scheduler.runAll();
    await flush();

    // Assess
    expect(scheduler.pending()).toEqual([]);
    expect(state.holds.get(P2)).toBe(1);
    expect(state.calls.filter((c) => c.endsWith(P2))).toEqual([`listen:${P2}`]);
    expect(handler.count(`warm:${P2}`)).toBe(1);
    expect(manager.peerStates().get(P2)).toBe('warm');
  });

  it('warms up again a peer re-added before its teardown once it was dropped peerWarmUpAheadMs ago (its idle connections may be gone)', async () => {
    // Prepare
    let now = 1_000_000;
    const { state, handler, manager } = fixture({ now: () => now, peerWarmUpAheadMs: 2_000 });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    now += 1_999;
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    now += 2_000;

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Assess: the quick re-add warmed nothing, the late one warmed again; still one hold
    expect(handler.count(`warm:${P2}`)).toBe(2);
    expect(handler.count(`warm:${P1}`)).toBe(1);
    expect(state.holds.get(P2)).toBe(1);
    expect(manager.peerStates().get(P2)).toBe('warm');
  });

  it('warms up again a peer re-added while its cancelled warm-up was running', async () => {
    // Prepare
    const { handler, manager } = fixture();
    handler.manual = true;
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    manager.updateFailoutConfig(undefined);

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    handler.pending.get(P1)?.resolve();
    await flush();

    // Assess
    expect(handler.calls).toEqual([`warm:${P1}`, `cancel:${P1}`, `warm:${P1}`]);
    expect(manager.peerStates().get(P1)).toBe('warm');
  });

  it('shuts down by releasing every hold, clearing every timer and shutting the handler down', async () => {
    // Prepare
    const { state, handler, scheduler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));

    // Act
    manager.close();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Assess
    expect(scheduler.pending()).toEqual([]);
    expect(state.holds.size).toBe(0);
    expect(handler.count('close')).toBe(1);
    expect(manager.peerStates().size).toBe(0);
    expect(state.calls.filter((c) => c.startsWith('listen'))).toHaveLength(2);
  });

  it.each([
    ['does not exist', (state: FakeState) => state.existing.delete(P1)],
    ['has no hosts', (state: FakeState) => state.addCluster(P1, 0)],
  ])('does not count a peer that %s as warmed up, and warms it once it appears', async (_case, prepare) => {
    // Prepare
    const { state, handler, manager } = fixture();
    prepare(state);
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    const before = { status: manager.peerStates().get(P1), calls: [...handler.calls] };

    // Act
    state.addCluster(P1, 2);
    manager.peerChanged(P1);
    manager.peerChanged(P1);
    await flush();

    // Assess
    expect(before).toEqual({ status: 'missing', calls: [] });
    expect(handler.calls).toEqual([`warm:${P1}`]);
    expect(manager.peerStates().get(P1)).toBe('warm');
  });

  it('keeps its boundary timer when a write moves the window end later, and still ends the failout at the new end', async () => {
    // Prepare: failed out until +60 s; every client re-evaluates each write, so the timer is not churned.
    let now = 1_000_000;
    const { state, scheduler, manager } = fixture({ peerWarmUpLeadMs: 0, peerWatchTeardownDelayMs: 0, now: () => now });
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now - 1_000, now + 60_000));
    await flush();

    // Act: extended to +120 s, then the first timer fires at +60 s (early for the new end).
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now - 1_000, now + 120_000));
    const afterExtend = { pending: scheduler.pending(), scheduled: [...scheduler.scheduled] };
    now += 60_000;
    scheduler.runAll();
    const atOldEnd = { held: state.holds.get(P1), pending: scheduler.pending() };
    now += 60_000;
    scheduler.runAll();

    // Assess
    expect(afterExtend).toEqual({ pending: [60_000], scheduled: [60_000] });
    expect(atOldEnd).toEqual({ held: 1, pending: [60_000] });
    expect(state.holds.has(P1)).toBe(false);
  });

  it('moves its boundary timer earlier when a write brings the window end forward', async () => {
    // Prepare
    let now = 1_000_000;
    const { state, scheduler, manager } = fixture({ peerWarmUpLeadMs: 0, peerWatchTeardownDelayMs: 0, now: () => now });
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now - 1_000, now + 60_000));
    await flush();

    // Act
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now - 1_000, now + 10_000));
    const pending = scheduler.pending();
    now += 10_000;
    scheduler.runAll();

    // Assess
    expect(pending).toEqual([10_000]);
    expect(state.holds.has(P1)).toBe(false);
    expect(scheduler.pending()).toEqual([]);
  });

  it('watches the peers of a scheduled window before it starts, and tears them down when it ends, with no further update', async () => {
    // Prepare
    let now = 1_000_000;
    const { state, handler, scheduler, manager } = fixture({ peerWarmUpLeadMs: 10_000, now: () => now });
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now + 60_000, now + 120_000));
    const before = { listens: [...state.calls], pending: scheduler.pending() };

    // Act
    now += 50_000;
    scheduler.runAll();
    await flush();
    const during = { holds: state.holds.get(P1), warms: [...handler.calls] };
    now += 10_000;
    scheduler.runAll();
    now += 60_000;
    scheduler.runAll();
    scheduler.runAll();

    // Assess
    expect(before).toEqual({ listens: [], pending: [50_000] });
    expect(during).toEqual({ holds: 1, warms: [`warm:${P1}`] });
    expect(state.holds.has(P1)).toBe(false);
    expect(handler.calls).toEqual([`warm:${P1}`, `cancel:${P1}`]);
  });

  it('warms a peer warmed at the lead again shortly before the window starts, once, so its connections are still open', async () => {
    // Prepare
    let now = 1_000_000;
    const { handler, scheduler, manager } = fixture({ peerWarmUpLeadMs: 30_000, peerWarmUpAheadMs: 2_000, now: () => now });
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now + 20_000, now + 120_000));
    await flush();
    const atLead = [...handler.calls];

    // Act
    now += 18_000;
    scheduler.runAll();
    await flush();
    const ahead = [...handler.calls];
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now + 2_000, now + 102_000));
    await flush();
    now += 2_000;
    scheduler.runAll();
    await flush();

    // Assess
    expect(atLead).toEqual([`warm:${P1}`]);
    expect(ahead).toEqual([`warm:${P1}`, `warm:${P1}`]);
    expect(handler.calls).toEqual([`warm:${P1}`, `warm:${P1}`]);
    expect(manager.peerStates()).toEqual(new Map([[P1, 'warm']]));
  });

  it('warms a peer only once when it was first warmed within peerWarmUpAheadMs of the start', async () => {
    // Prepare
    let now = 1_000_000;
    const { handler, scheduler, manager } = fixture({ peerWarmUpLeadMs: 30_000, peerWarmUpAheadMs: 2_000, now: () => now });

    // Act
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now + 1_000, now + 60_000));
    await flush();
    now += 1_000;
    scheduler.runAll();
    await flush();

    // Assess
    expect(handler.calls).toEqual([`warm:${P1}`]);
  });

  it('warms a missing peer re-added before its teardown when its hosts arrived meanwhile', async () => {
    // Prepare
    const P3 = 'peer-3';
    const { state, handler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P3]));
    await flush();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    state.addCluster(P3);
    manager.peerChanged(P3);

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P3]));
    await flush();

    // Assess
    expect(manager.peerStates().get(P3)).toBe('warm');
    expect(handler.calls.filter((c) => c === `warm:${P3}`)).toHaveLength(1);
  });

  it('reads a peer\'s hosts again whenever the state replaces its snapshot, and only then', async () => {
    // Prepare: the state hands out the same objects until the peer changes, as LoadBalancerState does.
    const { state, handler, manager } = fixture();
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    manager.peerChanged(P1);
    const unchanged = { status: manager.peerStates().get(P1), warmed: handler.hosts.length };

    // Act: a redeploy adds a host, a ban takes every host, the ban is lifted.
    state.addCluster(P1, 2);
    manager.peerChanged(P1);
    await flush();
    const grown = { status: manager.peerStates().get(P1), hosts: handler.hosts.at(-1) };
    state.ban(P1, state.hostUris(P1));
    manager.peerChanged(P1);
    const banned = manager.peerStates().get(P1);
    state.ban(P1, []);
    manager.peerChanged(P1);
    await flush();

    // Assess
    expect(unchanged).toEqual({ status: 'warm', warmed: 1 });
    expect(grown).toEqual({ status: 'warm', hosts: [`http://${P1}-1:80`] });
    expect(banned).toBe('missing');
    expect(manager.peerStates().get(P1)).toBe('warm');
    expect(handler.hosts.at(-1)).toEqual([`http://${P1}-0:80`, `http://${P1}-1:80`]);
  });

  it('never watches the failed-out cluster itself as its own peer', async () => {
    // Prepare
    const { state, manager } = fixture();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [CLUSTER, P1]));
    await flush();

    // Assess
    expect(state.calls).toEqual([`listen:${P1}`]);
  });

  it('calls onIdle once the config is gone and the last peer hold is released', async () => {
    // Prepare
    const onIdle = jest.fn();
    const { scheduler, manager } = fixture({ onIdle });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    await flush();
    manager.updateFailoutConfig(undefined);
    const before = onIdle.mock.calls.length;

    // Act
    scheduler.runAll();

    // Assess
    expect(before).toBe(0);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });
});

describe('FailedoutClusterManager.whenPeersLoaded', () => {
  /** Where a promise stands after queued continuations ran. */
  async function stateOf(promise: Promise<void> | undefined): Promise<'none' | 'pending' | 'resolved' | 'rejected'> {
    if (promise === undefined) return 'none';
    let result: 'pending' | 'resolved' | 'rejected' = 'pending';
    void promise.then(
      () => (result = 'resolved'),
      () => (result = 'rejected'),
    );
    await flush();
    return result;
  }

  it.each<[string, (manager: FailedoutClusterManager) => void]>([
    ['there is no config', () => undefined],
    ['the failout is not active', (manager) => manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1], false))],
    ['every peer has loaded', (manager) => manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]))],
  ])('is undefined when %s', async (_what, arrange) => {
    // Prepare
    const { manager } = fixture();
    arrange(manager);
    await flush();

    // Act
    const loading = manager.whenPeersLoaded();

    // Assess
    expect(loading).toBeUndefined();
  });

  it('waits for every peer still loading, and is undefined once they have', async () => {
    // Prepare
    const { state, manager } = fixture();
    state.manualLoads = true;
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));

    // Act
    const loading = manager.whenPeersLoaded();
    state.pendingLoads.get(P1)?.resolve();
    const afterOne = await stateOf(loading);
    state.pendingLoads.get(P2)?.resolve();
    const afterBoth = await stateOf(loading);

    // Assess
    expect([afterOne, afterBoth]).toEqual(['pending', 'resolved']);
    expect(manager.whenPeersLoaded()).toBeUndefined();
  });

  it('resolves, without rejecting, when a peer cannot be watched', async () => {
    // Prepare
    const { state, manager } = fixture();
    state.manualLoads = true;
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    const loading = manager.whenPeersLoaded();

    // Act
    state.pendingLoads.get(P1)?.reject(new Error('bad name'));

    // Assess
    expect(await stateOf(loading)).toBe('resolved');
    expect(manager.peerStates().get(P1)).toBe('failed');
  });

  it('starts watching the peers of a window that has started before its boundary timer ran', async () => {
    // Prepare: no warm-up lead, so nothing is watched before the window.
    let now = 1_000_000;
    const { state, scheduler, manager } = fixture({ peerWarmUpLeadMs: 0, now: () => now });
    state.manualLoads = true;
    manager.updateFailoutConfig(scheduledConfig(CLUSTER, [P1], now + 1_000, now + 60_000));
    const before = [...state.calls];

    // Act: the window starts; the timer is late.
    now += 1_000;
    const loading = manager.whenPeersLoaded();
    state.pendingLoads.get(P1)?.resolve();

    // Assess
    expect(before).toEqual([]);
    expect(scheduler.pending()).toEqual([59_000]);
    expect(state.calls).toEqual([`listen:${P1}`]);
    expect(await stateOf(loading)).toBe('resolved');
  });
});

describe('FailedoutClusterManager peer watch callbacks', () => {
  it('says when it starts watching a peer and when it forgets it: after the teardown, or at shutdown', async () => {
    // Prepare
    const events: string[] = [];
    const { scheduler, manager } = fixture({ onPeerWatched: (peer) => events.push(`watched:${peer}`), onPeerReleased: (peer) => events.push(`released:${peer}`) });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1, P2]));
    await flush();

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    const whileTearingDown = [...events];
    scheduler.runAll();
    manager.close();

    // Assess
    expect(whileTearingDown).toEqual([`watched:${P1}`, `watched:${P2}`]);
    expect(events).toEqual([`watched:${P1}`, `watched:${P2}`, `released:${P2}`, `released:${P1}`]);
  });

  it('does not watch a re-added peer anew while its teardown is pending', async () => {
    // Prepare
    const events: string[] = [];
    const { manager } = fixture({ onPeerWatched: (peer) => events.push(`watched:${peer}`), onPeerReleased: (peer) => events.push(`released:${peer}`) });
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));
    manager.updateFailoutConfig(undefined);

    // Act
    manager.updateFailoutConfig(failoutConfig(CLUSTER, [P1]));

    // Assess
    expect(events).toEqual([`watched:${P1}`]);
  });
});
