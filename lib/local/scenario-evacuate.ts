/**
 * The scenario's fabric step (issue 23): `failout evacuate lor1 --to lva1:2,ltx1:1` moves every
 * service's traffic off the local fabric at once — greetings' and hello's — split 2:1 between the
 * other two fabrics, and `failout restore --fabric lor1` brings it home; both through the real path
 * (CLI → queue → worker → ZooKeeper → clients), measured per service on the real traffic.
 */
import { fabricOfCluster, fabricPercent, judgeEvacuatedShares, type EvacuatedSharesVerdict, type WeightedFabric } from './fabric-shares';
import { pct, TARGETS, type Step, type Steps } from './scenario-steps';
import { LOCAL_FABRIC } from './topology';
import type { Sample } from './traffic';

/** The evacuation's targets, as `--to` gives them. */
export const EVACUATION_TARGETS: readonly WeightedFabric[] = [
  { fabric: 'lva1', weight: 2 },
  { fabric: 'ltx1', weight: 1 },
];

/** What `failout status --json` says of a fabric: its clusters' states and whether an evacuation of it is open. */
interface FabricState {
  readonly clusters: readonly { readonly cluster: string; readonly state: string }[];
  readonly open: boolean;
}

async function fabricState(s: Steps, fabric: string): Promise<FabricState | undefined> {
  const status = await s.cli('status', '--json');
  if (status.code !== 0) return undefined;
  const parsed = JSON.parse(status.stdout) as { clusters: { cluster: string; state: string; fabric: string | null }[]; evacuations?: { fabric: string; open: boolean }[] };
  return {
    clusters: parsed.clusters.filter((c) => c.fabric === fabric).map((c) => ({ cluster: c.cluster, state: c.state })),
    open: (parsed.evacuations ?? []).some((e) => e.fabric === fabric && e.open),
  };
}

/** `greetings: 0.0 % left, lva1 66.7 % / ltx1 33.3 %`. */
function describeVerdict(v: EvacuatedSharesVerdict): string {
  return `${v.service} ${pct(v.leftPct)} left (${v.total} requests), ${v.split.map((t) => `${t.fabric} ${pct(t.pct)}`).join(' / ')}`;
}

/**
 * Evacuate lor1 to lva1:2, ltx1:1 for 30 m; per service: the time from send to 100 % off lor1, the
 * split over 3 s; `failout status` shows the evacuation open; restore the fabric; per service: the
 * time to 100 % home, then 100 % on lor1; `failout status` shows it closed. The step restores the
 * fabric even when a measurement fails, so the next steps find no open failout.
 */
export const fabricEvacuated: Step = async (s) => {
  const fabric = LOCAL_FABRIC;
  const services = s.stack.traffic.services;
  const inFabric = (x: Sample): boolean => x.cluster !== undefined && fabricOfCluster(x.service, x.cluster) === fabric;
  const to = EVACUATION_TARGETS.map((t) => `${t.fabric}:${t.weight}`).join(',');
  const sentAt = Date.now();
  const out = await s.cli('evacuate', fabric, '--to', to, '--for', '30m', '--reason', 'scenario: evacuate', '--wait');
  let restored = out.code !== 0;
  try {
    if (out.code !== 0 || !/applied/.test(out.stdout)) throw new Error(`failout evacuate ${fabric} was not applied (exit ${out.code}): ${(out.stdout + out.stderr).trim().split('\n').slice(-3).join(' / ')}`);
    const movedMs = await Promise.all(services.map((service) => s.timeToAll(sentAt, (x) => x.cluster !== undefined && !inFabric(x), service)));
    const during = (await s.measureFabrics(3000)).map((shares) => judgeEvacuatedShares(shares, fabric, EVACUATION_TARGETS, TARGETS.splitTolerancePct));
    const open = await fabricState(s, fabric);
    const restoredAt = Date.now();
    const restore = await s.cli('restore', '--fabric', fabric, '--wait');
    restored = restore.code === 0;
    const homeMs = await Promise.all(services.map((service) => s.timeToAll(restoredAt, inFabric, service)));
    const after = await s.measureFabrics(1500);
    const closed = await fabricState(s, fabric);
    const errors = s.stack.traffic.allSamplesSince(sentAt).filter((x) => !x.ok).length;
    const home = after.map((shares) => fabricPercent(shares, fabric));
    const openOk = open !== undefined && open.open && open.clusters.length === services.length && open.clusters.every((c) => c.state === 'failed-out');
    const closedOk = closed !== undefined && !closed.open && closed.clusters.every((c) => c.state !== 'failed-out' && c.state !== 'scheduled');
    const per = (values: readonly number[]): string => services.map((service, i) => `${service} ${values[i]} ms`).join(', ');
    return {
      name: `evacuate ${fabric} → ${to} (${services.length} services), restore --fabric`,
      expectation: `per service: 100 % off ${fabric}, lva1:ltx1 = 2:1 ±${TARGETS.splitTolerancePct} %; send → 100 % time; after restore 100 % home; status shows it open, then closed`,
      measured:
        `send → 100 % off: ${per(movedMs)}; ${during.map(describeVerdict).join('; ')}; status: ${open?.clusters.length ?? '?'} clusters ${openOk ? 'failed out, evacuation open' : 'NOT as expected'}; ` +
        `restore → 100 % home: ${per(homeMs)}, then ${services.map((service, i) => `${service} ${pct(home[i]!)}`).join(', ')} on ${fabric}; ${closedOk ? 'evacuation closed' : 'evacuation NOT closed'}; ${errors} errors`,
      passed: during.length === services.length && during.every((v) => v.passed) && openOk && restore.code === 0 && home.every((h) => h === 100) && closedOk && errors === 0,
    };
  } finally {
    // Never leave the fabric evacuated for the next steps (and an open evacuation would refuse the next one).
    if (!restored) await s.cli('restore', '--fabric', fabric, '--wait');
  }
};
