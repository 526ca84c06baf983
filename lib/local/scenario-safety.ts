/**
 * Scenario steps for issue 16's safe failouts that need no alarm: a ramp advancing on its own, the
 * capacity guard refusing a failout the peers cannot carry, and extending a failout's window.
 */
import { PEER_A, PEER_B, pct, sleep, TARGETS, type Steps, type StepOutcome } from './scenario-steps';
import { LOCAL_CLUSTER, SERVICE } from './topology';

/** Routing keys the ramp is probed with: the traffic generator's whole member population. */
const PROBE_MEMBERS = 1000;

/**
 * The share (percent) of the members whose requests the service's own FailoutClient now sends away
 * from the local cluster: every member's key decided once, through `resolve` (no request sent), so
 * the figure depends on the buckets moved and the key hash only, not on which members happened to
 * send in a few seconds.
 */
async function membersMoved(s: Steps): Promise<number> {
  let moved = 0;
  for (let i = 0; i < PROBE_MEMBERS; i++) {
    const target = await s.stack.traffic.client.resolve(`d2://${SERVICE}/hello`, { routingKey: `member-${i}` });
    if (target.cluster !== LOCAL_CLUSTER) moved++;
  }
  return (100 * moved) / PROBE_MEMBERS;
}

/** The start of every window of the local cluster's failout, sorted: a ramp's steps. */
function stepStarts(s: Steps): number[] {
  const failout = s.stack.clusterViews().find((c) => c.name === LOCAL_CLUSTER)?.failout;
  return [...new Set((failout?.windows ?? []).map((w) => w.offlineAt))].sort((a, b) => a - b);
}

/** `--ramp 20%:4s,60%:4s,100%`: each step's share measured in the middle of the step, and the real traffic's share. */
export async function rampAdvances(s: Steps): Promise<StepOutcome> {
  const targets = [20, 60, 100];
  const sentAt = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', `${PEER_A}:2`, '--peer', `${PEER_B}:1`, '--for', '5m', '--ramp', '20%:4s,60%:4s,100%', '--reason', 'scenario: ramp', '--wait');
  const starts = stepStarts(s);
  const probed: number[] = [];
  const traffic: number[] = [];
  for (const [i, start] of starts.entries()) {
    // Mid-step: past the start by 1.5 s (every client has had the write for long), before the next.
    const wait = start + 1500 - Date.now();
    if (wait > 0) await sleep(wait);
    const from = Date.now();
    probed.push(await membersMoved(s));
    await sleep(Math.max(0, Math.min(2000, (starts[i + 1] ?? from + 2500) - Date.now() - 300)));
    const samples = s.samples(from);
    traffic.push(samples.length === 0 ? 0 : (100 * samples.filter((x) => x.cluster !== LOCAL_CLUSTER).length) / samples.length);
  }
  const errors = s.samples(sentAt).filter((x) => !x.ok).length;
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  await s.timeToAll(Date.now(), (x) => x.cluster === LOCAL_CLUSTER);
  const within = probed.length === targets.length && probed.every((p, i) => Math.abs(p - targets[i]!) <= TARGETS.splitTolerancePct);
  return {
    name: 'ramp 20 % → 60 % → 100 % (4 s steps), one write',
    expectation: `members moved at each step = 20 / 60 / 100 % ±${TARGETS.splitTolerancePct}; no errors`,
    measured: `${starts.length} steps; members moved ${probed.map(pct).join(' / ')}; traffic moved ${traffic.map(pct).join(' / ')}; ${errors} errors`,
    passed: out.code === 0 && restore.code === 0 && starts.length === 3 && within && traffic[2] === 100 && errors === 0,
  };
}

/** A failout to a single peer smaller than the local cluster: refused with the numbers, nothing moves. */
export async function capacityRejected(s: Steps): Promise<StepOutcome> {
  const hosts = (cluster: string): number => s.stack.clusterViews().find((c) => c.name === cluster)?.hosts ?? 0;
  // One peer more than doubles its load when the failed-out cluster has more hosts than it (factor 2.0).
  if (hosts(LOCAL_CLUSTER) <= hosts(PEER_B)) {
    const added = await s.stack.planes.addBackend(LOCAL_CLUSTER);
    s.log(`  ${added.name} added to ${LOCAL_CLUSTER} so that it outnumbers ${PEER_B}`);
    await s.until(() => hosts(LOCAL_CLUSTER) > hosts(PEER_B), `${LOCAL_CLUSTER} hosts in ZooKeeper`);
  }
  const dry = await s.cli('out', LOCAL_CLUSTER, '--peer', PEER_B, '--for', '30m', '--dry-run');
  const from = Date.now();
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', PEER_B, '--for', '30m', '--reason', 'scenario: capacity', '--wait');
  const reason = /REJECTED \([^)]*\): (\w+)/.exec(out.stdout)?.[1];
  const numbers = /would carry ([\d.]+)×/.exec(out.stdout)?.[1];
  const m = await s.measure(1500);
  const stayed = m.share(LOCAL_CLUSTER);
  return {
    name: `capacity guard: ${LOCAL_CLUSTER} (${hosts(LOCAL_CLUSTER)} hosts) → ${PEER_B} alone (${hosts(PEER_B)} hosts)`,
    expectation: 'rejected insufficientPeerCapacity with the projected load; dry run shows it; traffic stays',
    measured: `exit ${out.code}, ${reason ?? 'no reason shown'} (${numbers === undefined ? 'no numbers' : `${numbers}× load per host`}); dry run exit ${dry.code}; ${pct(stayed)} stayed on lor1 over ${m.samples.length} requests since ${new Date(from).toISOString().slice(11, 19)}`,
    passed: out.code === 1 && reason === 'insufficientPeerCapacity' && numbers !== undefined && dry.code === 1 && /insufficientPeerCapacity/.test(dry.stdout + dry.stderr) && stayed === 100,
  };
}

/** Fail out for a minute, extend to ten: the end moves and nothing else; restore twice: the second is a no-op. */
export async function extendMovesTheEnd(s: Steps): Promise<StepOutcome> {
  const end = (): number | undefined => s.stack.clusterViews().find((c) => c.name === LOCAL_CLUSTER)?.failout?.windows[0]?.onlineAt;
  const out = await s.cli('out', LOCAL_CLUSTER, '--peer', PEER_A, '--for', '1m', '--reason', 'scenario: extend', '--wait');
  await s.until(() => end() !== undefined, 'the failout in ZooKeeper');
  const before = end()!;
  const asked = Date.now() + 10 * 60_000;
  const extend = await s.cli('extend', LOCAL_CLUSTER, '--for', '10m', '--wait');
  await s.until(() => (end() ?? 0) > before, 'the new end in ZooKeeper');
  const after = end()!;
  const m = await s.measure(1500);
  const restore = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  await s.timeToAll(Date.now(), (x) => x.cluster === LOCAL_CLUSTER);
  const again = await s.cli('restore', LOCAL_CLUSTER, '--wait');
  const moved = 100 - m.share(LOCAL_CLUSTER);
  // The new end is the time of application plus 10 m: within the few seconds the request took.
  const endOk = Math.abs(after - asked) <= 5000;
  return {
    name: 'extend a 1 m failout to 10 m; restore twice',
    expectation: 'the end moves to now + 10 m, traffic stays moved; the second restore is a no-op',
    measured: `end ${new Date(before).toISOString().slice(11, 19)} → ${new Date(after).toISOString().slice(11, 19)} (asked ≈ ${new Date(asked).toISOString().slice(11, 19)}); ${pct(moved)} moved meanwhile; second restore: ${/already serving/.test(again.stdout) ? 'already serving, nothing written' : again.stdout.trim().split('\n')[0] ?? ''}`,
    passed: out.code === 0 && extend.code === 0 && endOk && moved === 100 && restore.code === 0 && again.code === 0 && /already serving/.test(again.stdout),
  };
}
