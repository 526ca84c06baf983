/**
 * Issue 21, "failouts judged together", through the real handler on a real ZooKeeper: every request is
 * judged against every open failout and drill (the view at `<root>/view`), so no failout, drill or
 * forced request sends traffic back into a failed-out cluster without saying so.
 */
import { randomUUID } from 'node:crypto';
import { decodeFailoutView, viewPathFor } from '../../../lib/requests';
import { OPEN_ACL, type ZkSession } from '../../../lib/zk';
import { drillPaths, putDrillBody, readDrill, type DrillPaths } from '../../helpers/drills';
import { sqsRecord } from '../../helpers/requests';
import { directHandler, type DirectHandler } from '../../helpers/requests-handler';
import { announceHosts, failoutBody, readCluster, readRecord, restoreBody, seedClusters } from '../../helpers/requests-queue';
import { closeSessions, openSession } from '../../helpers/zk';

let session: ZkSession;
let paths: DrillPaths;
let h: DirectHandler;

beforeEach(async () => {
  session = await openSession();
  paths = drillPaths();
  await seedClusters(session, paths, ['x', 'y', 'a', 'b', 'c']);
  for (const name of ['x', 'y', 'a', 'b']) await announceHosts(session, paths, name, 2);
  await announceHosts(session, paths, 'c', 4);
  h = directHandler(session, paths, { drillsPath: paths.drillsPath });
});
afterEach(async () => {
  await closeSessions();
});

async function submit(body: Record<string, unknown>): Promise<Awaited<ReturnType<typeof readRecord>>> {
  const response = await h.invoke([sqsRecord(body, String(body.cluster))]);
  expect(response).toEqual({ batchItemFailures: [] });
  return readRecord(session, paths, String(body.requestId));
}

/** One peer at weight 1 each (failoutBody weighs them 1, 2, …). */
function out(cluster: string, peers: readonly string[], overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return failoutBody(cluster, peers, { peers: peers.map((p) => ({ cluster: p, weight: 1 })), ...overrides });
}

async function failoutOf(cluster: string): Promise<{ failoutBucketConfigs: Record<string, unknown>[] } | null> {
  return ((await readCluster(session, paths, cluster)).json.failoutProperties as { failoutBucketConfigs: Record<string, unknown>[] } | undefined) ?? null;
}

async function startDrill(name: string, cluster: string, peers: readonly string[]): Promise<string> {
  expect(await submit(putDrillBody(name, cluster, peers))).toMatchObject({ status: 'applied' });
  const runId = `drill-${name}-${Date.now()}`;
  const run = out(cluster, peers, { requestId: runId, drill: name, requestedBy: 'failout-drills', stopAlarms: [`${name}-outcome`] });
  expect(await submit(run)).toMatchObject({ status: 'applied' });
  return runId;
}

describe('drills and operators judged together', () => {
  it('skips a drill of the only peer of an operator failout, and X keeps its peer', async () => {
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });
    expect(await submit(putDrillBody('drill-a', 'a', ['b']))).toMatchObject({ status: 'applied' });

    const run = out('a', ['b'], { requestId: `drill-drill-a-${Date.now()}`, drill: 'drill-a', requestedBy: 'failout-drills' });
    const record = await submit(run);

    expect(record).toMatchObject({ status: 'rejected', reason: 'strandsFailout' });
    expect(record?.message).toMatch(/strands the failout of "x"/);
    expect(await failoutOf('a')).toBeNull();
    expect((await readDrill(session, paths, 'drill-a'))?.runs[0]).toMatchObject({ status: 'skipped', detail: expect.stringMatching(/^strandsFailout/) });
  });

  it('ends a drill run on the peer of an operator failout (replaced) in the same write, and applies the failout', async () => {
    const runId = await startDrill('drill-a', 'a', ['b']);

    const failout = out('x', ['a']);
    const record = await submit(failout);

    expect(record).toMatchObject({ status: 'applied' });
    expect(await failoutOf('a')).toBeNull();
    const x = await failoutOf('x');
    expect(x?.failoutBucketConfigs[0]).toMatchObject({ requestId: failout.requestId });
    const drill = await readDrill(session, paths, 'drill-a');
    expect(drill?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: failout.requestId });
  });

  it('ends a drill whose traffic an operator failout of its peer would strand, instead of refusing the operator', async () => {
    const runId = await startDrill('drill-x', 'x', ['a']);

    const record = await submit(out('a', ['b']));

    expect(record).toMatchObject({ status: 'applied' });
    expect(await failoutOf('x')).toBeNull();
    expect((await readDrill(session, paths, 'drill-x'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced' });
  });

  it("ends a drill whose traffic would push its other peer over the limit when an operator fails out one of its peers, instead of refusing the operator", async () => {
    // c (4 hosts) drills to a and b (2 hosts each): 2.0× each. a out to x: all of c on b, (2 + 4) / 2 = 3.0×.
    const runId = await startDrill('drill-c', 'c', ['a', 'b']);

    const failout = out('a', ['x']);
    const record = await submit(failout);

    expect(record).toMatchObject({ status: 'applied' });
    expect(record?.forced).toBeUndefined();
    expect(await failoutOf('c')).toBeNull();
    expect((await readDrill(session, paths, 'drill-c'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: failout.requestId });
  });

  it("ends a drill whose traffic leaves no room on an operator failout's peer, instead of refusing the operator for capacity", async () => {
    // x drills to a: 2.0×. y (2 hosts) out to a would make it 3.0× with the drill's traffic, 2.0× without.
    const runId = await startDrill('drill-x', 'x', ['a']);

    const failout = out('y', ['a']);
    const record = await submit(failout);

    expect(record).toMatchObject({ status: 'applied' });
    expect(await failoutOf('x')).toBeNull();
    expect((await readDrill(session, paths, 'drill-x'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: failout.requestId });
  });

  it("ends a drill run on the peer of an operator's scheduled ramp when the operator advances the ramp to now", async () => {
    // x ramps to a from +1 h; a's drill (30 m) ends before then, so it may run. Advancing x's first step to now needs a.
    const now = Date.now();
    const ramp = [{ percent: 10, duration: 'PT5M' }, { percent: 100 }];
    expect(await submit(out('x', ['a'], { duration: undefined, offlineAt: new Date(now + 3_600_000).toISOString(), onlineAt: new Date(now + 7_200_000).toISOString(), ramp }))).toMatchObject({ status: 'applied' });
    expect(await submit(putDrillBody('drill-a', 'a', ['c'], { duration: 'PT30M' }))).toMatchObject({ status: 'applied' });
    const runId = `drill-drill-a-${Date.now()}`;
    expect(await submit(out('a', ['c'], { requestId: runId, drill: 'drill-a', requestedBy: 'failout-drills', duration: 'PT30M' }))).toMatchObject({ status: 'applied' });

    const advance = { version: 1, requestId: randomUUID(), action: 'rampAdvance', cluster: 'x', requestedBy: 'oncall@example.com' };
    const record = await submit(advance);

    expect(record).toMatchObject({ status: 'applied' });
    expect(record?.forced).toBeUndefined();
    expect(await failoutOf('a')).toBeNull();
    expect((await readDrill(session, paths, 'drill-a'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: advance.requestId });
  });

  it("ends a drill run on one peer of an operator's held ramp when resuming it would push the other peer over the limit", async () => {
    // c (4 hosts) ramps onto a and b, held at 10 %. a drills to x meanwhile (c's 10 % goes to b alone).
    // Resuming c with a still in its run: all of c on b, (2 + 4) / 2 = 3.0×; without the run, 2.0× each.
    expect(await submit(out('c', ['a', 'b'], { ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] }))).toMatchObject({ status: 'applied' });
    expect(await submit({ version: 1, requestId: randomUUID(), action: 'rampHold', cluster: 'c', requestedBy: 'oncall@example.com' })).toMatchObject({ status: 'applied' });
    const runId = await startDrill('drill-a', 'a', ['x']);

    const resume = { version: 1, requestId: randomUUID(), action: 'rampResume', cluster: 'c', requestedBy: 'oncall@example.com' };
    const record = await submit(resume);

    expect(record).toMatchObject({ status: 'applied' });
    expect(record?.forced).toBeUndefined();
    expect(await failoutOf('a')).toBeNull();
    expect((await readDrill(session, paths, 'drill-a'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: resume.requestId });
  });

  it('keeps refusing an operator failout over the limit by its own traffic, and leaves the drill running', async () => {
    // x drills to c (4 hosts): 1.5×. y and b (2 hosts each) out to a: b's own failout is over by itself.
    const runId = await startDrill('drill-x', 'x', ['c']);
    expect(await submit(out('y', ['a']))).toMatchObject({ status: 'applied' });

    expect(await submit(out('b', ['a']))).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect((await readDrill(session, paths, 'drill-x'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'running' });
  });
});

describe('stranding another failout', () => {
  it('refuses a failout of the only peer of another failout, naming it, unless forced; force is recorded', async () => {
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });

    const refused = await submit(out('a', ['b']));
    expect(refused).toMatchObject({ status: 'rejected', reason: 'strandsFailout' });
    expect(refused?.message).toMatch(/"x"/);
    expect(await failoutOf('a')).toBeNull();

    const forced = await submit(out('a', ['b'], { force: true }));
    expect(forced).toMatchObject({ status: 'applied', forced: ['stranding'] });
    expect((await failoutOf('a'))?.failoutBucketConfigs.every((b) => JSON.stringify(b.forced) === '["stranding"]')).toBe(true);
  });

  it('allows a failout of one peer when the other failout has another eligible peer with room', async () => {
    expect(await submit(out('x', ['a', 'b']))).toMatchObject({ status: 'applied' });
    // a (2 hosts) → c (4 hosts): 1.5×; x's traffic all to b: b 2 + 2 over 2 hosts = 2.0×.
    expect(await submit(out('a', ['c']))).toMatchObject({ status: 'applied' });
  });

  it('refuses a failout scheduled to start while the peer of another failout is failed out (judged when it starts)', async () => {
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });
    const later = new Date(Date.now() + 30 * 60_000).toISOString();
    const record = await submit(out('a', ['b'], { duration: undefined, offlineAt: later, onlineAt: new Date(Date.now() + 90 * 60_000).toISOString() }));
    expect(record).toMatchObject({ status: 'rejected', reason: 'strandsFailout' });
    expect(record?.message).toContain('at ');
  });

  it('marks the windows a forced extend rewrote with what its force overrode, and leaves windows it did not touch alone', async () => {
    // x → a for 1 h; a → b from +2 h. Extending x to 3 h would send its traffic to a failed-out a from +2 h.
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });
    const at = (minutes: number): string => new Date(Date.now() + minutes * 60_000).toISOString();
    expect(await submit(out('a', ['b'], { duration: undefined, offlineAt: at(120), onlineAt: at(180) }))).toMatchObject({ status: 'applied' });
    const extend = { version: 1, requestId: randomUUID(), action: 'extend', cluster: 'x', duration: 'PT3H', requestedBy: 'test@example.com' };
    expect(await submit(extend)).toMatchObject({ status: 'rejected', reason: 'peerFailedOut' });

    const forced = await submit({ ...extend, requestId: randomUUID(), force: true });

    expect(forced).toMatchObject({ status: 'applied', forced: ['peerState'] });
    expect((await failoutOf('x'))?.failoutBucketConfigs.map((b) => b.forced)).toEqual([['peerState']]);
    expect((await failoutOf('a'))?.failoutBucketConfigs.map((b) => b.forced)).toEqual([undefined]);
  });

  it('keeps a forced extend that needed nothing off the windows (forced: [] on the record only)', async () => {
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });
    const forced = await submit({ version: 1, requestId: randomUUID(), action: 'extend', cluster: 'x', duration: 'PT2H', requestedBy: 'test@example.com', force: true });
    expect(forced).toMatchObject({ status: 'applied', forced: [] });
    expect((await failoutOf('x'))?.failoutBucketConfigs.map((b) => b.forced)).toEqual([undefined]);
  });

  it("refuses a ramp whose later step starts while its only peer is failed out (the peer's failout starts later)", async () => {
    const start = new Date(Date.now() + 20 * 60_000).toISOString();
    expect(await submit(out('a', ['b'], { duration: undefined, offlineAt: start, onlineAt: new Date(Date.now() + 120 * 60_000).toISOString() }))).toMatchObject({ status: 'applied' });
    const ramp = out('x', ['a'], { ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] });
    // The first step (now) fits; the peer's failout at +20 m would leave x's traffic nowhere to go.
    const record = await submit(ramp);
    expect(record).toMatchObject({ status: 'rejected' });
    expect(record?.message).toMatch(/no eligible peer/);
  });
});

describe('a peer failed out for some buckets', () => {
  it('takes a failout of the other buckets, and refuses one that would send it requests it sends away (peerFailedOut, naming them) unless forced', async () => {
    // a's buckets 50–99 are out to c; x's traffic goes to a and b (weight 1 each).
    expect(await submit(out('a', ['c'], { buckets: { from: 50, to: 99 } }))).toMatchObject({ status: 'applied' });

    expect(await submit(out('x', ['a', 'b'], { buckets: { from: 0, to: 49 } }))).toMatchObject({ status: 'applied' });
    expect(await submit(restoreBody('x'))).toMatchObject({ status: 'applied' });

    const refused = await submit(out('x', ['a', 'b'], { buckets: { from: 40, to: 79 } }));
    expect(refused).toMatchObject({ status: 'rejected', reason: 'peerFailedOut' });
    expect(refused?.message).toMatch(/"a" is failed out itself for buckets 50–79, which this failout moves/);
    expect(await failoutOf('x')).toBeNull();
    expect(await submit(out('x', ['a', 'b'], { buckets: { from: 40, to: 79 }, force: true }))).toMatchObject({ status: 'applied', forced: ['peerState'] });
  });
});

describe('capacity with everything already moved', () => {
  it('projects a peer with the load other failouts already send it', async () => {
    // x (2 hosts) → a (2 hosts): 2.0×, at the limit. y (2 hosts) → a would make it 3.0×.
    expect(await submit(out('x', ['a']))).toMatchObject({ status: 'applied' });
    const refused = await submit(out('y', ['a']));
    expect(refused).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect(refused?.message).toMatch(/3× .*other failouts/);

    const forced = await submit(out('y', ['a'], { force: true }));
    expect(forced).toMatchObject({ status: 'applied', forced: ['capacity'] });
  });

  it("judges a ramp's full step against the failouts open when it starts, not against those that end before it", async () => {
    // y and half of b on c (4 hosts) until +4 m: 1.75×. x ramps onto c: 10 % now (1.8×), all from +5 m,
    // when y and b are home again (1.5×). c never carries 2.25×.
    const until = new Date(Date.now() + 4 * 60_000).toISOString();
    expect(await submit(out('y', ['c'], { duration: undefined, onlineAt: until }))).toMatchObject({ status: 'applied' });
    expect(await submit(out('b', ['c'], { duration: undefined, onlineAt: until, buckets: { from: 0, to: 49 } }))).toMatchObject({ status: 'applied' });

    const record = await submit(out('x', ['c'], { ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] }));

    expect(record).toMatchObject({ status: 'applied' });
    expect(record?.forced).toBeUndefined();
  });

  it("still refuses a ramp whose first step overloads the peer while another failout is open", async () => {
    // y and b on c until +4 m: 2.0×. x's first 10 % now would make it 2.05×, though its full step (from +5 m) fits.
    const until = new Date(Date.now() + 4 * 60_000).toISOString();
    expect(await submit(out('y', ['c'], { duration: undefined, onlineAt: until }))).toMatchObject({ status: 'applied' });
    expect(await submit(out('b', ['c'], { duration: undefined, onlineAt: until }))).toMatchObject({ status: 'applied' });

    const record = await submit(out('x', ['c'], { ramp: [{ percent: 10, duration: 'PT5M' }, { percent: 100 }] }));

    expect(record).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect(record?.message).toMatch(/"c" would carry 2.05×/);
  });

  it('judges a peer at the start of a window of a co-peer of another failout onto it (all of that failout then lands on the peer)', async () => {
    // y (2 hosts) splits onto a and b (2 hosts each); b is scheduled out onto c from +10 m. Half of x
    // onto a fits now (2 + 1 + 1: 2.0×), but from +10 m all of y lands on a: 2 + 2 + 1 = 2.5×.
    const from = new Date(Date.now() + 10 * 60_000).toISOString();
    const until = new Date(Date.now() + 90 * 60_000).toISOString();
    expect(await submit(out('y', ['a', 'b'], { duration: 'PT2H' }))).toMatchObject({ status: 'applied' });
    expect(await submit(out('b', ['c'], { duration: undefined, offlineAt: from, onlineAt: until }))).toMatchObject({ status: 'applied' });

    const record = await submit(out('x', ['a'], { buckets: { from: 0, to: 49 } }));

    expect(record).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect(record?.message).toMatch(/"a" would carry 2.5×/);
    expect(await failoutOf('x')).toBeNull();
  });

  it("refuses an extend that would put its own peer over the limit with the capacity guard's reason and numbers, not strandsFailout", async () => {
    // y (2 hosts) and half of b (2 hosts) are scheduled onto c (4 hosts) from +30 m: 1.75×. x (2 hosts)
    // is on c until +20 m (1.5×); extended to +120 m it would be there too: c at 2.25× from +30 m.
    const from = new Date(Date.now() + 30 * 60_000).toISOString();
    const until = new Date(Date.now() + 90 * 60_000).toISOString();
    expect(await submit(out('y', ['c'], { duration: undefined, offlineAt: from, onlineAt: until }))).toMatchObject({ status: 'applied' });
    expect(await submit(out('b', ['c'], { duration: undefined, offlineAt: from, onlineAt: until, buckets: { from: 0, to: 49 } }))).toMatchObject({ status: 'applied' });
    expect(await submit(out('x', ['c'], { duration: 'PT20M' }))).toMatchObject({ status: 'applied' });

    const extend = { version: 1, requestId: `ext-${randomUUID()}`, action: 'extend', cluster: 'x', duration: 'PT2H' };
    const record = await submit(extend);

    expect(record).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect(record?.message).toMatch(/peer "c" would carry 2.25× its load per host at \S+ .*above maxPeerLoadFactor 2/);
    expect(record?.message).not.toMatch(/strandsFailout/);
    const forced = await submit({ ...extend, requestId: `ext-${randomUUID()}`, force: true });
    expect(forced).toMatchObject({ status: 'applied', forced: ['capacity'] });
    expect((await failoutOf('x'))?.failoutBucketConfigs.map((b) => b.forced)).toEqual([['capacity']]);
  });

  it('serialises two writers of different clusters on the view: of two failouts that only fit alone, one is applied', async () => {
    const [first, second] = [out('x', ['a']), out('y', ['a'])];
    const other = directHandler(session, paths, { drillsPath: paths.drillsPath });
    await Promise.all([h.invoke([sqsRecord(first, 'x')]), other.invoke([sqsRecord(second, 'y')])]);
    const statuses = [(await readRecord(session, paths, String(first.requestId)))?.status, (await readRecord(session, paths, String(second.requestId)))?.status].sort();
    expect(statuses).toEqual(['applied', 'rejected']);
  });
});

describe('the view', () => {
  it('is written with every change and rebuilt from the cluster nodes when missing', async () => {
    const first = out('x', ['a']);
    expect(await submit(first)).toMatchObject({ status: 'applied' });
    const view = decodeFailoutView((await session.get(viewPathFor(paths.requestsPath))).data);
    expect([...view.keys()]).toEqual(['x']);

    await session.remove(viewPathFor(paths.requestsPath));
    // Without the view the worker rebuilds it from the clusters: x's failout still counts.
    expect(await submit(out('a', ['b']))).toMatchObject({ status: 'rejected', reason: 'strandsFailout' });
    expect(await submit(restoreBody('x'))).toMatchObject({ status: 'applied' });
    expect([...decodeFailoutView((await session.get(viewPathFor(paths.requestsPath))).data).keys()]).toEqual([]);
  });
});

describe('no-op restores', () => {
  it('writes nothing for a cluster whose failout window has ended', async () => {
    const now = Date.now();
    expect(await submit(out('x', ['a'], { duration: undefined, offlineAt: new Date(now - 1000).toISOString(), onlineAt: new Date(now + 1500).toISOString() }))).toMatchObject({ status: 'applied' });
    await new Promise((resolve) => setTimeout(resolve, 1600));
    const before = (await readCluster(session, paths, 'x')).version;
    const record = await submit(restoreBody('x', { requestId: randomUUID() }));
    expect(record).toMatchObject({ status: 'applied', unchanged: true, clusterVersion: before });
    expect((await readCluster(session, paths, 'x')).version).toBe(before);
  });
});

describe('restores are never refused', () => {
  it('restores a peer even when the traffic returning to it pushes it over the limit', async () => {
    // a (2 hosts) out to x; c (4 hosts) → a ×3, b ×1, forced: all of c goes to b while a is out.
    // Restoring a sends three quarters of c back to it: (2 + 3) / 2 = 2.5×, over the limit, and still restored.
    expect(await submit(out('a', ['x']))).toMatchObject({ status: 'applied' });
    expect(await submit(out('c', ['a', 'b'], { peers: [{ cluster: 'a', weight: 3 }, { cluster: 'b', weight: 1 }], force: true }))).toMatchObject({ status: 'applied' });
    expect(await submit(restoreBody('a'))).toMatchObject({ status: 'applied' });
    expect(await failoutOf('a')).toBeNull();
  });
});

describe('drills never make other drills give way', () => {
  it('skips a drill of the peer of a running drill (strandsFailout), leaving the running drill alone', async () => {
    const runId = await startDrill('drill-x', 'x', ['a']);
    expect(await submit(putDrillBody('drill-a', 'a', ['b']))).toMatchObject({ status: 'applied' });

    const record = await submit(out('a', ['b'], { requestId: `drill-drill-a-${Date.now()}`, drill: 'drill-a', requestedBy: 'failout-drills' }));

    expect(record).toMatchObject({ status: 'rejected', reason: 'strandsFailout' });
    expect((await readDrill(session, paths, 'drill-x'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'running' });
    expect(await failoutOf('x')).not.toBeNull();
  });
});

/**
 * A peer named through a D2 symlink (docs/observer.md "Symlinks": "a failout may name it as a peer"):
 * clients route to `$aMaster` as to the cluster its links end at, with that cluster's hosts and
 * failout, so the worker judges it as that cluster too.
 */
describe('a peer named through a $ symlink', () => {
  /** Links `$<name>Master` to `<name>` in the cluster and URI directories, as D2 does. */
  async function link(name: string): Promise<string> {
    const linkName = `$${name}Master`;
    for (const dir of ['clusters', 'uris']) {
      await session.create(`${paths.d2Base}/${dir}/${linkName}`, Buffer.from(`${paths.d2Base}/${dir}/${name}`), { parents: true, acl: OPEN_ACL });
    }
    return linkName;
  }

  it("applies a failout to it when the link's target has hosts, and judges the target's capacity with what other failouts send it", async () => {
    const master = await link('a');
    // x (2 hosts) onto a (2 hosts): a factor of 2.0, the limit.
    expect(await submit(out('x', [master]))).toMatchObject({ status: 'applied' });
    // y (2 hosts) onto a as well, by its plain name: a would carry 3.0× its load.
    const refused = await submit(out('y', ['a']));
    expect(refused).toMatchObject({ status: 'rejected', reason: 'insufficientPeerCapacity' });
    expect(refused?.message).toContain('"a" would carry 3× its load per host');
  });

  it("refuses a failout to it while the link's target is failed out (peerFailedOut), as clients would skip the peer", async () => {
    const master = await link('a');
    expect(await submit(out('a', ['b']))).toMatchObject({ status: 'applied' });
    expect(await submit(out('x', [master]))).toMatchObject({ status: 'rejected', reason: 'peerFailedOut' });
  });

  it("ends a drill run on the link's target (replaced) for an operator's failout to the link, and applies the failout", async () => {
    const master = await link('a');
    const runId = await startDrill('drill-a', 'a', ['b']);

    const failout = out('x', [master]);
    const record = await submit(failout);

    expect(record).toMatchObject({ status: 'applied' });
    expect(await failoutOf('a')).toBeNull();
    expect((await readDrill(session, paths, 'drill-a'))?.runs.find((r) => r.runId === runId)).toMatchObject({ status: 'replaced', endedBy: failout.requestId });
  });

  it('refuses a failout of the target that would strand a failout naming it through the link (strandsFailout, naming it)', async () => {
    const master = await link('a');
    expect(await submit(out('x', [master]))).toMatchObject({ status: 'applied' });
    const refused = await submit(out('a', ['b']));
    expect(refused).toMatchObject({ status: 'rejected', reason: 'strandsFailout', message: expect.stringContaining('"x"') });
  });
});
