import { DEFAULT_PARTITION, type FailoutBucketConfig, type FailoutProperties } from '../d2/data';
import { targetsOf, type Fabric, type FabricMember } from '../fabrics';
import type { PeerState } from './apply-request';
import type { EvacuateChangeRequest } from './evacuate-schema';
import type { EvacuatedCluster, EvacuationPlan, EvacuationStage } from './evacuation-node';
import { hasOpenWindow } from './failout-view';
import { formatDuration, parseDuration } from './duration';
import { rampStages } from './ramp';
import type { Problem } from './rejection';
import type { ForceOverride } from './request-record';

/**
 * The plan of an evacuation (issue 23), pure: which clusters of the fabric move, in which stage, to
 * which peers, and each one's failout as written. The judgement against every other open failout and
 * the receivers' capacity is evacuation-judge.ts's.
 *
 * - Members: every cluster of the fabric (lib/fabrics: the naming rule or the fabric's map), but
 *   those of `exclude`d services.
 * - Peers of a member: the same service's clusters in the target fabrics (`targets`, weighted by the
 *   fabric's weight; absent: every other fabric, weighted by each cluster's eligible hosts, "by
 *   capacity"), leaving out clusters that do not exist, have no eligible host, or have a failout
 *   window open (active or scheduled): no target is inside the evacuated fabric or failed out. A
 *   service left with no peer is refused (`noTargetForService`, naming each) unless excluded.
 * - Stages: in the order given (a tier of the fabric map, or a list of clusters); members no stage
 *   names form a last stage. Stage k starts when stage k−1 is fully out (its ramp done) plus `hold`,
 *   so no process has to live for it: the windows are staggered, as a ramp's are. Stage k returns at
 *   the end plus (S−1−k) × `restoreGap`: the last stage first, the reverse of the way out.
 * - Every bucket config carries `evacuation: <fabric>`, the request id, and as `stopAlarms` the stop
 *   alarms and every stage's gate alarms: one of them in ALARM ends the whole evacuation (the guard
 *   sends one `restoreFabric`).
 */

/** The plan, or every problem that stops it. */
export type PlanOutcome = { readonly ok: true; readonly plan: EvacuationPlan; readonly props: ReadonlyMap<string, FailoutProperties> } | { readonly ok: false; readonly problems: readonly Problem[] };

/** What {@link planEvacuation} needs. */
export interface PlanInput {
  readonly request: EvacuateChangeRequest;
  readonly fabrics: readonly Fabric[];
  /** Every member and candidate target, as read (exists, eligible hosts, failout). */
  readonly states: ReadonlyMap<string, PeerState>;
  readonly now: number;
  readonly maxPeerLoadFactor: number;
}

/** How many clusters a problem lists before "and N more". */
const LISTED = 10;

function listed(items: readonly string[]): string {
  return `${items.slice(0, LISTED).join('; ')}${items.length > LISTED ? `; and ${items.length - LISTED} more` : ''}`;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);
}

/** A receiving cluster a member may move to: its fabric and its eligible hosts. */
interface TargetPeer {
  readonly cluster: string;
  readonly fabric: string;
  readonly hosts: number;
}

/**
 * Peer weights for weights given per target fabric (`--to lva1:2,ltx1:1`): each fabric gets its share
 * of the member's traffic however many clusters of the service it has (a fabric map may put two
 * there), split between them by their hosts. Weights are integers (D2's codec): a fabric's weight is
 * scaled by the least common multiple of the host totals of the fabrics that split it, then every
 * weight divided by their greatest common divisor. With one cluster in each fabric: the weights as given.
 */
function fabricWeighted(peers: readonly TargetPeer[], weightOf: ReadonlyMap<string, number>): { cluster: string; weight: number }[] {
  const hostsIn = new Map<string, { clusters: number; hosts: number }>();
  for (const p of peers) {
    const f = hostsIn.get(p.fabric) ?? { clusters: 0, hosts: 0 };
    hostsIn.set(p.fabric, { clusters: f.clusters + 1, hosts: f.hosts + p.hosts });
  }
  if ([...hostsIn.values()].every((f) => f.clusters === 1)) return peers.map((p) => ({ cluster: p.cluster, weight: weightOf.get(p.fabric)! }));
  let scale = 1;
  for (const f of hostsIn.values()) if (f.clusters > 1) scale = lcm(scale, f.hosts);
  const weighted = peers.map((p) => {
    const f = hostsIn.get(p.fabric)!;
    const share = weightOf.get(p.fabric)! * scale;
    return { cluster: p.cluster, weight: f.clusters > 1 ? (share / f.hosts) * p.hosts : share };
  });
  const divisor = weighted.reduce((d, p) => gcd(d, p.weight), 0);
  return weighted.map((p) => ({ cluster: p.cluster, weight: p.weight / divisor }));
}

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}

/** The members of `fabric` and its target fabrics, or the problems (unknown fabric or target, bad exclude). */
export function fabricsOf(request: Pick<EvacuateChangeRequest, 'fabric' | 'targets' | 'exclude'>, fabrics: readonly Fabric[]): { members: FabricMember[]; targets: { fabric: string; weight: number }[] | 'capacity'; targetNames: string[] } | { problems: Problem[] } {
  const known = new Map(fabrics.filter((f) => f.clusters.length > 0).map((f) => [f.name, f]));
  const fabric = known.get(request.fabric);
  const names = [...known.keys()].sort();
  if (fabric === undefined) {
    return { problems: [{ reason: 'unknownFabric', message: `fabric: ${quote(request.fabric)} has no cluster (fabrics with clusters: ${names.length === 0 ? 'none' : names.join(', ')})` }] };
  }
  const problems: Problem[] = [];
  (request.targets ?? []).forEach((t, i) => {
    if (!known.has(t.fabric)) problems.push({ reason: 'unknownFabric', message: `targets[${i}].fabric: ${quote(t.fabric)} has no cluster (fabrics with clusters: ${names.join(', ')})` });
  });
  request.exclude.forEach((service, i) => {
    if (!fabric.services.includes(service)) problems.push({ reason: 'badTargets', message: `exclude[${i}]: ${quote(service)} is not a service of fabric ${quote(request.fabric)}` });
  });
  if (problems.length > 0) return { problems };
  const excluded = new Set(request.exclude);
  const members = fabric.clusters.filter((m) => !excluded.has(m.service));
  if (members.length === 0) return { problems: [{ reason: 'unknownFabric', message: `fabric: every service of ${quote(request.fabric)} is excluded; nothing would move` }] };
  const targets = request.targets === undefined ? ('capacity' as const) : request.targets.map((t) => ({ fabric: t.fabric, weight: t.weight }));
  const targetNames = targets === 'capacity' ? names.filter((n) => n !== request.fabric) : targets.map((t) => t.fabric);
  return { members, targets, targetNames };
}

/**
 * What the request's stages name that the fabric's members (from {@link fabricsOf}, which refuses an
 * unknown fabric, target or exclude) do not have: a tier or cluster it does not have, or a cluster
 * twice. The judge refuses these, and {@link fabricsOf}'s, before it looks at other evacuations, so a
 * typo is never answered as `evacuationOpen` ("restore the open one first", which would not help). Pure.
 */
export function stageNamingProblems(request: Pick<EvacuateChangeRequest, 'fabric' | 'exclude' | 'stages'>, members: readonly FabricMember[]): Problem[] {
  const problems: Problem[] = [];
  stagesOf(request, members, problems);
  return problems;
}

/** Plans the evacuation (the module doc). Pure. */
export function planEvacuation(input: PlanInput): PlanOutcome {
  const { request, fabrics, states, now } = input;
  const chosen = fabricsOf(request, fabrics);
  if ('problems' in chosen) return { ok: false, problems: chosen.problems };
  const { members, targets, targetNames } = chosen;
  const problems: Problem[] = [];
  const stageOf = stagesOf(request, members, problems);
  if (problems.length > 0 || stageOf === undefined) return { ok: false, problems };

  const weightOf = new Map(targets === 'capacity' ? [] : targets.map((t) => [t.fabric, t.weight]));
  const inTargets = new Set(targetNames);
  const clusters: EvacuatedCluster[] = [];
  const stranded: string[] = [];
  const unreadable: string[] = [];
  for (const member of members) {
    const state = states.get(member.cluster);
    if (state === undefined || !state.exists) {
      unreadable.push(member.cluster);
      continue;
    }
    const skipped: string[] = [];
    const eligible: TargetPeer[] = [];
    for (const t of targetsOf(fabrics, member.cluster)) {
      if (!inTargets.has(t.fabric)) continue;
      const peer = states.get(t.cluster);
      if (peer === undefined || !peer.exists) skipped.push(`${t.cluster} does not exist`);
      else if (peer.hostCount <= 0) skipped.push(`${t.cluster} has no eligible host`);
      else if (hasOpenWindow(peer.failoutProperties, now)) skipped.push(`${t.cluster} is failed out`);
      else eligible.push({ cluster: t.cluster, fabric: t.fabric, hosts: peer.hostCount });
    }
    const peers = targets === 'capacity' ? eligible.map((p) => ({ cluster: p.cluster, weight: p.hosts })) : fabricWeighted(eligible, weightOf);
    if (peers.length === 0) {
      const why = skipped.length === 0 ? `no cluster in ${targetNames.join(', ') || 'another fabric'}` : skipped.join(', ');
      stranded.push(`${member.service} (${member.cluster}: ${why})`);
      continue;
    }
    const previous = state.failoutProperties;
    const replaces = hasOpenWindow(previous, now) ? previous.buckets.find((b) => b.onlineAt === undefined || b.onlineAt > now)?.requestId : undefined;
    clusters.push({ cluster: member.cluster, service: member.service, stage: stageOf.byCluster.get(member.cluster)!, peers, hosts: state.hostCount, ...(replaces === undefined ? {} : { replaces }) });
  }
  if (unreadable.length > 0) problems.push({ reason: 'unknownCluster', message: `fabric ${quote(request.fabric)}: ${listed(unreadable)} ${unreadable.length === 1 ? 'has' : 'have'} no cluster node` });
  if (stranded.length > 0) {
    problems.push({ reason: 'noTargetForService', message: `no cluster to move to for ${stranded.length} service${stranded.length === 1 ? '' : 's'}: ${listed(stranded)}; exclude ${stranded.length === 1 ? 'it' : 'them'} (--exclude) or add a target fabric` });
  }
  if (problems.length > 0) return { ok: false, problems };

  const stages = timesOf(request, stageOf.names, clusters);
  const late = [...lateStageProblems(stages), ...pastWindowProblems(stages, request)];
  if (late.length > 0) return { ok: false, problems: late };
  const stopAlarms = [...new Set([...request.stopAlarms, ...stages.flatMap((s) => s.gateAlarms)])];
  const props = new Map<string, FailoutProperties>();
  for (const c of clusters) props.set(c.cluster, evacuatedFailout(request, c, stages[c.stage]!, stopAlarms, states.get(c.cluster)?.failoutProperties ?? null));
  const plan: EvacuationPlan = {
    fabric: request.fabric,
    requestId: request.requestId,
    offlineAt: Math.min(...stages.map((s) => s.offlineAt)),
    onlineAt: Math.max(...stages.map((s) => s.onlineAt)),
    targets,
    stages,
    clusters,
    receivers: [],
    excluded: [...request.exclude].sort(),
    stopAlarms,
    maxPeerLoadFactor: input.maxPeerLoadFactor,
    ...(request.drill === undefined ? {} : { drill: request.drill }),
  };
  return { ok: true, plan, props };
}

/** Stage index by member cluster, and the stage names (problems pushed for unknown tiers and clusters). */
function stagesOf(request: Pick<EvacuateChangeRequest, 'fabric' | 'stages' | 'exclude'>, members: readonly FabricMember[], problems: Problem[]): StageAssignment | undefined {
  const byCluster = new Map<string, number>();
  const specs = request.stages ?? [];
  const names: string[] = [];
  const memberNames = new Set(members.map((m) => m.cluster));
  // A cluster a list names and a stage's tier also holds would be in two stages (the schema catches two lists).
  const listed = new Map<string, number>();
  specs.forEach((spec, i) => {
    if (!('tier' in spec)) for (const c of spec.clusters) if (!listed.has(c)) listed.set(c, i);
  });
  specs.forEach((spec, i) => {
    if ('tier' in spec) {
      const found = members.filter((m) => m.tier === spec.tier);
      if (found.length === 0) {
        const tiers = [...new Set(members.flatMap((m) => (m.tier === undefined ? [] : [m.tier])))].sort();
        problems.push({ reason: 'badStages', message: `stages[${i}].tier: no cluster of fabric ${quote(request.fabric)} has tier ${quote(spec.tier)} (tiers there: ${tiers.length === 0 ? 'none; tiers come from the fabric map' : tiers.join(', ')})` });
      }
      for (const m of found) {
        const other = listed.get(m.cluster);
        if (other !== undefined) problems.push({ reason: 'badStages', message: `stages[${i}].tier: ${quote(m.cluster)} is in two stages: it has tier ${quote(spec.tier)} and stages[${other}] lists it` });
        else byCluster.set(m.cluster, i);
      }
      names.push(spec.tier);
    } else {
      spec.clusters.forEach((c, j) => {
        if (!memberNames.has(c)) problems.push({ reason: 'badStages', message: `stages[${i}].clusters[${j}]: ${quote(c)} is not a cluster of fabric ${quote(request.fabric)}${request.exclude.length > 0 ? ' (or its service is excluded)' : ''}` });
        else byCluster.set(c, i);
      });
      names.push(`stage ${i + 1}`);
    }
  });
  if (problems.length > 0) return undefined;
  const rest = members.filter((m) => !byCluster.has(m.cluster));
  if (rest.length > 0) {
    for (const m of rest) byCluster.set(m.cluster, specs.length);
    names.push(specs.length === 0 ? 'all' : 'rest');
  }
  return { byCluster, names };
}

/** Which stage each member is in, and the stages' names in order. */
interface StageAssignment {
  readonly byCluster: ReadonlyMap<string, number>;
  readonly names: readonly string[];
}

/** What the stages' times follow: the request's window, stages, ramp, hold and restore gap. */
type StageTiming = Pick<EvacuateChangeRequest, 'stages' | 'ramp' | 'holdMs' | 'restoreGapMs' | 'offlineAt' | 'onlineAt'>;

/**
 * What the stages of a drain test's definition (drill-checks.ts) would find wrong in each run's plan
 * over the fabric's `members` as they are now (its services excluded): a tier or cluster the fabric
 * does not have, a cluster in two stages, a stage that could not move before it returns in a run of
 * `durationMs`, or that would return more than `maxWindowMs` into a run (a restore gap over several
 * stages). The same rules as {@link planEvacuation}'s, so a definition whose every run the plan would
 * refuse is refused when it is put.
 */
export function drainTestStageProblems(options: Pick<EvacuateChangeRequest, 'fabric' | 'stages' | 'exclude' | 'ramp' | 'holdMs' | 'restoreGapMs'>, members: readonly FabricMember[], durationMs: number, maxWindowMs?: number): Problem[] {
  const problems: Problem[] = [];
  const stageOf = stagesOf(options, members, problems);
  if (stageOf === undefined) return problems;
  const clusters = [...stageOf.byCluster].map(([cluster, stage]) => ({ cluster, stage }));
  const stages = timesOf({ ...options, offlineAt: 0, onlineAt: durationMs }, stageOf.names, clusters);
  const into = (ms: number): string => `${formatDuration(ms)} into a run`;
  return [...lateStageProblems(stages, into), ...pastWindowProblems(stages, { onlineAt: durationMs, restoreGapMs: options.restoreGapMs, ...(maxWindowMs === undefined ? {} : { returnBy: maxWindowMs }) }, into)];
}

/** The stages with their clusters and times (the module doc). */
function timesOf(request: StageTiming, names: readonly string[], clusters: readonly Pick<EvacuatedCluster, 'cluster' | 'stage'>[]): EvacuationStage[] {
  const specs = request.stages ?? [];
  const rampSpan = (request.ramp ?? []).reduce((sum, step) => sum + (step.duration === undefined ? 0 : (parseDuration(step.duration) ?? 0)), 0);
  // Stages that lost every cluster (their services excluded or stranded) keep their place, empty.
  const count = names.length;
  const stages: EvacuationStage[] = [];
  let start = request.offlineAt;
  for (let k = 0; k < count; k++) {
    const spec = specs[k];
    stages.push({
      index: k,
      name: names[k]!,
      clusters: clusters.filter((c) => c.stage === k).map((c) => c.cluster),
      offlineAt: start,
      fullyOutAt: start + rampSpan,
      onlineAt: request.onlineAt + (count - 1 - k) * request.restoreGapMs,
      gateAlarms: spec === undefined ? [] : [...spec.gateAlarms],
    });
    start += rampSpan + request.holdMs;
  }
  return stages;
}

/**
 * Stages that could not be fully out before they return: each later stage starts after the ones
 * before it are out and held, so a long hold or ramp can push a stage's start (or its ramp's last
 * step) to or past its end. Its windows would end before they begin, which no cluster node may hold:
 * refused as the request's own problem (`badStages`), never written.
 */
function lateStageProblems(stages: readonly EvacuationStage[], at: (ms: number) => string = (ms) => `at ${new Date(ms).toISOString()}`): Problem[] {
  return stages
    .filter((s) => s.clusters.length > 0 && s.fullyOutAt >= s.onlineAt)
    .map((s) => {
      const label = s.name === `stage ${s.index + 1}` ? s.name : `stage ${s.index + 1} (${s.name})`;
      const out = s.fullyOutAt === s.offlineAt ? `would start ${at(s.offlineAt)}` : `would start ${at(s.offlineAt)} and be fully out ${at(s.fullyOutAt)}`;
      return { reason: 'badStages', message: `${label} ${out}, not before it returns ${at(s.onlineAt)}: shorten the hold or the ramp, use fewer stages, or end the evacuation later` };
    });
}

/**
 * Stages that would return after `request.returnBy` (the maximum window from now): stage k returns
 * (S−1−k) × restoreGap after the end, so a long restore gap over several stages would write windows
 * past the limit that every failout keeps (`windowTooLong`, never written). The stage returning last
 * (the first) is named, with what would bring it within.
 */
function pastWindowProblems(stages: readonly EvacuationStage[], request: Pick<EvacuateChangeRequest, 'returnBy' | 'onlineAt' | 'restoreGapMs'>, at: (ms: number) => string = (ms) => `at ${new Date(ms).toISOString()}`): Problem[] {
  const limit = request.returnBy;
  if (limit === undefined) return [];
  const late = stages.filter((s) => s.clusters.length > 0 && s.onlineAt > limit);
  if (late.length === 0) return [];
  const last = late.reduce((a, b) => (b.onlineAt > a.onlineAt ? b : a));
  const label = last.name === `stage ${last.index + 1}` ? last.name : `stage ${last.index + 1} (${last.name})`;
  const after = formatDuration(last.onlineAt - request.onlineAt);
  return [
    {
      reason: 'windowTooLong',
      message: `${label} would return ${at(last.onlineAt)}, ${after} after the end (the stages return ${formatDuration(request.restoreGapMs)} apart, the last stage first), past the maximum window, which ends ${at(limit)}: end earlier, shorten the restore gap or use fewer stages`,
    },
  ];
}

/**
 * An evacuation's windows stamped with what force overrode (`forced`), as a forced failout's are: the
 * judged plan's and a plan continued after a crash alike. Unchanged when not forced.
 */
export function withForced(failout: FailoutProperties, forced: readonly ForceOverride[] | undefined): FailoutProperties {
  return forced === undefined ? failout : { ...failout, buckets: failout.buckets.map((b) => ({ ...b, forced: [...forced] })) };
}

/** A member's failout as the evacuation writes it. */
export function evacuatedFailout(request: EvacuateChangeRequest, cluster: EvacuatedCluster, stage: EvacuationStage, stopAlarms: readonly string[], previous: FailoutProperties | null): FailoutProperties {
  const steps = request.ramp === undefined ? [{ offlineAt: stage.offlineAt, buckets: { from: 0, to: 99 } }] : rampStages(request.ramp, { from: 0, to: 99 }, stage.offlineAt);
  const buckets = steps.map((step): FailoutBucketConfig => {
    const bucket: FailoutBucketConfig = {
      partition: DEFAULT_PARTITION,
      bucketOfflineRange: { from: step.buckets.from, to: step.buckets.to },
      offlineAt: step.offlineAt,
      onlineAt: stage.onlineAt,
      requestId: request.requestId,
    };
    if (request.requestedBy !== undefined) bucket.requestedBy = request.requestedBy;
    if (request.reason !== undefined) bucket.reason = request.reason;
    if (stopAlarms.length > 0) bucket.stopAlarms = [...stopAlarms];
    if (request.drill !== undefined) bucket.drill = request.drill;
    bucket.evacuation = request.fabric;
    return bucket;
  });
  const next: FailoutProperties = { redirects: cluster.peers.map((p) => ({ peer: p.cluster, weight: p.weight })), ignoredRedirectEntries: 0, buckets };
  if (previous?.extra !== undefined) next.extra = previous.extra;
  return next;
}

/**
 * The window of an evacuation of `fabric` in `props` that has not ended at `now` (naming `alarm`, when
 * given), with the evacuation's request id: what a `restoreFabric` brings home even when the
 * evacuation itself has ended (a member's windows extended past it) or does not name the alarm (one
 * a member's `amend` added). Undefined when there is none.
 */
export function openEvacuationWindow(props: FailoutProperties | null | undefined, fabric: string, now: number, alarm?: string): (FailoutBucketConfig & { readonly requestId: string }) | undefined {
  const bucket = (props?.buckets ?? []).find((b) => b.evacuation === fabric && b.requestId !== undefined && (b.onlineAt === undefined || b.onlineAt > now) && (alarm === undefined || (b.stopAlarms ?? []).includes(alarm)));
  return bucket === undefined ? undefined : (bucket as FailoutBucketConfig & { readonly requestId: string });
}

/** True when a window of `props` that has not ended belongs to `fabric`'s evacuation `requestId`. */
export function carriesEvacuation(props: FailoutProperties | null | undefined, fabric: string, requestId: string, now: number): boolean {
  return (props?.buckets ?? []).some((b) => b.evacuation === fabric && b.requestId === requestId && (b.onlineAt === undefined || b.onlineAt > now));
}

/**
 * `props` with the evacuation's windows ending at `back` (never later than they would have), those not
 * started yet removed; `null` when nothing is left; `unchanged` when nothing changes.
 */
export function restoredFailout(props: FailoutProperties, fabric: string, requestId: string, back: number, now: number): FailoutProperties | null | 'unchanged' {
  let changed = false;
  const buckets = props.buckets.flatMap((b) => {
    if (b.evacuation !== fabric || b.requestId !== requestId) return [b];
    if ((b.offlineAt ?? 0) > now) {
      changed = true;
      return [];
    }
    if (b.onlineAt !== undefined && b.onlineAt <= back) return [b];
    changed = true;
    return [{ ...b, onlineAt: Math.max(back, (b.offlineAt ?? 0) + 1) }];
  });
  // A held ramp of the evacuation (issue 24): its held steps go with it, as its steps not started do.
  const hold = props.rampHold;
  const held = hold?.buckets.filter((b) => b.evacuation !== fabric || b.requestId !== requestId);
  if (hold !== undefined && held !== undefined && held.length !== hold.buckets.length) changed = true;
  if (!changed) return 'unchanged';
  if (buckets.length === 0) return null;
  const next: FailoutProperties = { ...props, buckets };
  if (hold !== undefined && held !== undefined && held.length === 0) delete next.rampHold;
  else if (hold !== undefined && held !== undefined) next.rampHold = { ...hold, buckets: held };
  return next;
}
