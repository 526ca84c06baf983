import { clusterPath, isMalformed, isSymlinkName, parseClusterProperties, servicePath, type ClusterProperties, type FailoutProperties } from '../d2/data';
import { decodeFabricMap, deriveFabrics, isFabricError, type Fabric, type FabricMap } from '../fabrics';
import { DEFAULT_FABRICS_PATH, fabricMapPath } from '../fabrics';
import { isZkError, type ZkReader } from '../zk';
import type { PeerState } from './apply-request';
import { DEFAULT_MAX_PEER_LOAD_FACTOR } from './capacity';
import type { EvacuateChangeRequest } from './evacuate-schema';
import { activeDrillWindow, drillPrecedenceProblems } from './drill-rules';
import { linkAliases, readYield as readClusterDrillYield, viewThroughLinks, type YieldedDrill } from './judge-together';
import { DEFAULT_EVACUATIONS_PATH, isEvacuationOpen, readStoredEvacuations, type EvacuationNode, type EvacuationPlan, type EvacuationReceiver, type StoredEvacuation } from './evacuation-node';
import { carriesEvacuation, fabricsOf, planEvacuation, stageNamingProblems, restoredFailout, withForced } from './evacuation-plan';
import { DEFAULT_VIEW_PATH, readFailoutView, withViewEntries, type FailoutView } from './failout-view';
import type { JudgeOptions } from './judge-request';
import { involvedClusters, judgeTogether, type TogetherResult } from './open-failouts';
import { countAnnouncedHosts } from './peer-states';
import { forEachLimit } from '../concurrency';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ForceOverride } from './request-record';


/** Nodes read at the same time while judging an evacuation. */
const READ_CONCURRENCY = 256;

/**
 * The worker's judgement of an `evacuate` as ONE plan (issue 23), against every open failout, drill
 * and evacuation: the plan (evacuation-plan.ts) over the fabrics as ZooKeeper holds them now, then
 * the routing model of open failouts (open-failouts.ts) with every member's failout changed at once:
 * - what the request names that the fabrics do not have (fabric, target, exclude, stage) refuses it
 *   first (`unknownFabric`, `badTargets`, `badStages`), so a typo is not answered as another evacuation;
 * - another evacuation open (any fabric) refuses it (`evacuationOpen`, naming it), but for a drain
 *   test's (a drill of a fabric, issue 23): an operator's evacuation ends it (the drain test gives way,
 *   its clusters come home in the same multi: {@link EvacuationYield}); a drain test's run refuses
 *   every open evacuation (`operatorFailoutActive` for an operator's, `drillRunning` for another
 *   drain test's) and member clusters an operator failed out or a drill run moves (the same reasons):
 *   an operator always takes precedence, as for a cluster's drill (drill-rules.ts);
 * - a member whose traffic would find no eligible peer at a later instant (`peerFailedOut`), another
 *   failout it would strand or push over capacity (`strandsFailout`), a receiving cluster above
 *   `maxPeerLoadFactor` with everything moved into it (`insufficientPeerCapacity`): each overridden
 *   by `force`, and the record says which.
 * Hosts are counted as announced (children of `/d2/uris/<cluster>`, one read each: peer-states.ts
 * `countAnnouncedHosts`) and the targets' failouts come from the view of open failouts, so a fabric of
 * 1,000 services is judged on about 4,000 reads, not 15,000 (bench `evacuate`).
 * Reads only; shared by the writer and the CLI's `--dry-run` (lib/operator), so they cannot drift.
 */

/** Options of {@link judgeEvacuation}: the judge's, and where fabrics and evacuations live. */
export interface EvacuationJudgeOptions extends JudgeOptions {
  readonly fabricsPath?: string;
  readonly evacuationsPath?: string;
}

/** A member cluster as read for the rewrite. */
export interface MemberRead {
  readonly path: string;
  readonly version: number;
  readonly props: ClusterProperties;
}

/**
 * A drain test's evacuation that gives way to an operator's evacuation: its node as read, and each
 * cluster still carrying it, as read, with its failout once the drain test's windows end now.
 */
export interface EvacuationYield {
  readonly stored: StoredEvacuation & { readonly node: EvacuationNode };
  readonly clusters: ReadonlyMap<string, MemberRead & { readonly failout: FailoutProperties | null }>;
}

/** The verdict on an evacuation. */
export type EvacuationJudgement =
  | {
      readonly verdict: 'apply';
      readonly plan: EvacuationPlan;
      /** Each member's failout as the evacuation writes it. */
      readonly props: ReadonlyMap<string, FailoutProperties>;
      /** Each member's node as read (the multi checks its version). */
      readonly members: ReadonlyMap<string, MemberRead>;
      /** The view after the evacuation, and the version read (undefined: no node yet). */
      readonly view: { readonly path: string; readonly version: number | undefined; readonly after: FailoutView };
      /** The evacuation node of the fabric as read (undefined: none yet). */
      readonly evacuationVersion: number | undefined;
      /** A drain test that gives way to this (an operator's) evacuation. */
      readonly yielded?: EvacuationYield;
      /**
       * Cluster drill runs that give way to this (an operator's) evacuation: those on receiving
       * clusters, and those it would strand or whose traffic would crowd a receiving cluster over the limit.
       */
      readonly targetYields?: readonly YieldedDrill[];
      readonly forced?: readonly ForceOverride[];
    }
  | { readonly verdict: 'reject'; readonly rejection: Rejection; readonly plan?: EvacuationPlan };

/**
 * The refusal of an operator's `restoreFabric` of `fabric` when no fabric has that name (by the fabric
 * map and the naming rule) and it has no evacuation node (the caller knows): a typo, not a no-op.
 * Undefined when the fabric has a cluster.
 */
export async function restoreOfUnknownFabric(session: Pick<ZkReader, 'children' | 'read'>, d2BasePath: string, fabric: string, fabricsPath?: string): Promise<Problem | undefined> {
  const names = (await readFabricList(session, d2BasePath, fabricsPath)).filter((f) => f.clusters.length > 0).map((f) => f.name);
  if (names.includes(fabric)) return undefined;
  const listed = names.length === 0 ? 'none' : names.sort().join(', ');
  return { reason: 'unknownFabric', message: `fabric: ${JSON.stringify(fabric)} has no cluster and no evacuation (fabrics with clusters: ${listed}); nothing to restore` };
}

/** The fabrics as ZooKeeper holds them now: D2's service and cluster names and every map that decodes. */
export async function readFabricList(session: Pick<ZkReader, 'children' | 'read'>, d2BasePath: string, fabricsPath: string = DEFAULT_FABRICS_PATH): Promise<Fabric[]> {
  const children = async (path: string): Promise<string[]> => {
    try {
      return (await session.children(path)).children;
    } catch (e) {
      if (isZkError(e, 'noNode')) return [];
      throw e;
    }
  };
  const [services, clusters, mapNames] = await Promise.all([children(servicePath(d2BasePath)), children(clusterPath(d2BasePath)), children(fabricsPath)]);
  const maps = await Promise.all(
    mapNames.map(async (name): Promise<FabricMap | undefined> => {
      try {
        const node = await session.read(fabricMapPath(fabricsPath, name));
        return node.exists ? decodeFabricMap(name, node.data) : undefined;
      } catch (e) {
        // A map that does not decode places nothing: the rule applies to its clusters (as `failout fabric` shows).
        if (isFabricError(e)) return undefined;
        throw e;
      }
    }),
  );
  // A D2 symlink (`$FooClusterMaster`) holds the path of a cluster: no cluster of its own, in no fabric.
  return [...deriveFabrics({ services, clusters: clusters.filter((name) => !isSymlinkName(name)), maps: maps.filter((m): m is FabricMap => m !== undefined) }).fabrics];
}

/** What the open evacuations make of a new one: a problem that refuses it, or a drain test that gives way to it. */
type Precedence = { readonly problem: Problem } | { readonly yielding?: StoredEvacuation & { readonly node: EvacuationNode } };

/**
 * The open evacuations against `request` (the module doc): the problem that refuses it, or the drain
 * test it ends (an operator's only), or neither. An evacuation node that cannot be read counts as open.
 */
export function evacuationPrecedence(evacuations: readonly StoredEvacuation[], request: Pick<EvacuateChangeRequest, 'drill'> & { readonly requestId?: string }, now: number): Precedence {
  let yielding: (StoredEvacuation & { readonly node: EvacuationNode }) | undefined;
  for (const stored of evacuations) {
    const { node } = stored;
    if (node === undefined) {
      return { problem: { reason: 'evacuationOpen', message: `the evacuation node of fabric ${JSON.stringify(stored.fabric)} cannot be read (${stored.problem ?? 'malformed'}); it may still move traffic: restore it (failout restore --fabric ${stored.fabric}) or repair the node` } };
    }
    // The request's own evacuation is no other one: a resend with its request id (`--request-id`) is
    // judged as itself, and the worker answers it from its record.
    if (!isEvacuationOpen(node, now) || node.requestId === request.requestId) continue;
    const until = new Date(node.plan.onlineAt).toISOString();
    const what = `fabric ${JSON.stringify(stored.fabric)} is being evacuated (request ${node.requestId}, until ${until})`;
    if (request.drill !== undefined) {
      // A drain test never moves traffic while another evacuation does: an operator's takes precedence.
      if (node.plan.drill !== undefined) return { problem: { reason: 'drillRunning', message: `${what} by a run of drill ${JSON.stringify(node.plan.drill)}` } };
      return { problem: { reason: 'operatorFailoutActive', message: `${what}; an operator's evacuation takes precedence over a drain test` } };
    }
    if (node.plan.drill === undefined || yielding !== undefined) {
      return { problem: { reason: 'evacuationOpen', message: `${what}; one evacuation at a time: restore it first (failout restore --fabric ${stored.fabric})` } };
    }
    yielding = { ...stored, node };
  }
  return yielding === undefined ? {} : { yielding };
}

/** The open evacuation that refuses a new one (an operator's), as a problem; undefined when none is open or only a drain test (which gives way). */
export async function openEvacuationProblem(session: ZkReader, evacuationsPath: string, now: number): Promise<Problem | undefined> {
  const precedence = evacuationPrecedence(await readStoredEvacuations(session, evacuationsPath), {}, now);
  return 'problem' in precedence ? precedence.problem : undefined;
}

/** Reads every cluster of a drain test's evacuation that still carries it, with its failout once its windows end now. */
async function readYield(session: ZkReader, d2BasePath: string, stored: StoredEvacuation & { readonly node: EvacuationNode }, now: number): Promise<EvacuationYield> {
  const { plan } = stored.node;
  const clusters = new Map<string, MemberRead & { failout: FailoutProperties | null }>();
  await Promise.all(
    plan.clusters.map(async (c) => {
      const path = clusterPath(d2BasePath, c.cluster);
      const node = await session.read(path);
      if (!node.exists) return;
      let props: ClusterProperties;
      try {
        props = parseClusterProperties(node.data);
      } catch (e) {
        // Unreadable since: it steers no traffic (readers ignore it); nothing to bring home.
        if (isMalformed(e)) return;
        throw e;
      }
      if (props.failoutProperties === null || !carriesEvacuation(props.failoutProperties, plan.fabric, plan.requestId, now)) return;
      const failout = restoredFailout(props.failoutProperties, plan.fabric, plan.requestId, now, now);
      if (failout === 'unchanged') return;
      clusters.set(c.cluster, { path, version: node.stat.version, props: { ...props, failoutProperties: failout }, failout });
    }),
  );
  return { stored, clusters };
}

/** Judges an evacuation (the module doc). ZooKeeper errors propagate; nothing else throws. */
export async function judgeEvacuation(session: ZkReader, d2BasePath: string, request: EvacuateChangeRequest, now: number, options: EvacuationJudgeOptions = {}): Promise<EvacuationJudgement> {
  const maxPeerLoadFactor = options.maxPeerLoadFactor ?? DEFAULT_MAX_PEER_LOAD_FACTOR;
  const evacuationsPath = options.evacuationsPath ?? DEFAULT_EVACUATIONS_PATH;
  const reject = (problems: readonly Problem[], plan?: EvacuationPlan): EvacuationJudgement => ({ verdict: 'reject', rejection: rejectionOf(problems, request.requestId), ...(plan === undefined ? {} : { plan }) });
  const [evacuations, fabrics] = await Promise.all([readStoredEvacuations(session, evacuationsPath), readFabricList(session, d2BasePath, options.fabricsPath)]);
  // The request's own naming first: a typo is refused for what it is, not as another evacuation's being open.
  const chosen = fabricsOf(request, fabrics);
  if ('problems' in chosen) return reject(chosen.problems);
  const naming = stageNamingProblems(request, chosen.members);
  if (naming.length > 0) return reject(naming);
  const precedence = evacuationPrecedence(evacuations, request, now);
  if ('problem' in precedence) return reject([precedence.problem]);
  // A drain test giving way: its clusters as they are once its windows end now (read once, for every use).
  const yielded = precedence.yielding === undefined ? undefined : await readYield(session, d2BasePath, precedence.yielding, now);
  const corrected = (cluster: string, failout: FailoutProperties | null): FailoutProperties | null => (yielded?.clusters.has(cluster) ? yielded.clusters.get(cluster)!.failout : failout);

  // Members are read whole (the multi rewrites them at the version read); targets for their state.
  const members = new Map<string, MemberRead>();
  const states = new Map<string, PeerState>();
  const malformed: string[] = [];
  await Promise.all(
    chosen.members.map(async (m) => {
      const given = yielded?.clusters.get(m.cluster);
      if (given !== undefined) {
        members.set(m.cluster, given);
        states.set(m.cluster, { exists: true, hostCount: await countAnnouncedHosts(session, d2BasePath, m.cluster), failoutProperties: given.failout });
        return;
      }
      const path = clusterPath(d2BasePath, m.cluster);
      const node = await session.read(path);
      if (!node.exists) return;
      let props: ClusterProperties;
      try {
        props = parseClusterProperties(node.data);
      } catch (e) {
        if (!isMalformed(e)) throw e;
        malformed.push(m.cluster);
        return;
      }
      members.set(m.cluster, { path, version: node.stat.version, props });
      states.set(m.cluster, { exists: true, hostCount: await countAnnouncedHosts(session, d2BasePath, m.cluster), failoutProperties: props.failoutProperties });
    }),
  );
  if (malformed.length > 0) return reject([{ reason: 'malformedCluster', message: `${malformed.sort().slice(0, 10).join(', ')}: the cluster JSON cannot be read, so it cannot be rewritten safely` }]);
  // A drain test's run: an operator's failout of a member (active or scheduled), or a drill run on it, takes precedence.
  if (request.drill !== undefined) {
    const busy = chosen.members.flatMap((m) => drillPrecedenceProblems(states.get(m.cluster)?.failoutProperties ?? null, { cluster: m.cluster, drill: request.drill }, now));
    if (busy.length > 0) return reject(busy);
  }
  const memberNames = new Set(chosen.members.map((m) => m.cluster));
  const homeOf = new Map<string, { fabric: string; service: string }>();
  for (const f of fabrics) for (const c of f.clusters) homeOf.set(c.cluster, { fabric: f.name, service: c.service });
  const services = new Set(chosen.members.map((m) => m.service));
  const targetNames = new Set(chosen.targetNames);
  const candidates = [...homeOf].filter(([c, h]) => !memberNames.has(c) && services.has(h.service) && targetNames.has(h.fabric)).map(([c]) => c);
  // Targets: listed under /d2/clusters (so they exist), their failouts from the view of open failouts
  // (the worker keeps it in every multi; not 2,000 cluster reads at 1,000 services), their hosts announced.
  const viewPath = options.viewPath ?? DEFAULT_VIEW_PATH;
  const stored = await readFailoutView(session, viewPath, d2BasePath, now);
  // An operator's evacuation takes precedence over a cluster drill run on a receiving cluster, as an
  // operator's failout does over one on its peer (ARC): the run gives way, its cluster comes home and receives.
  const targetYields = new Map<string, YieldedDrill>();
  if (request.drill === undefined) {
    const running = candidates.filter((name) => {
      const window = activeDrillWindow(corrected(name, stored.view.get(name) ?? null), now);
      // A drain test's windows (they carry `evacuation`) give way with its whole evacuation ({@link EvacuationYield}).
      return window !== undefined && window.bucket.evacuation === undefined;
    });
    await forEachLimit(running, READ_CONCURRENCY, async (name) => {
      const y = await readClusterDrillYield(session, d2BasePath, name, now);
      if (y !== undefined) targetYields.set(name, y);
    });
  }
  await forEachLimit(candidates, READ_CONCURRENCY, async (name) => {
    const failout = targetYields.has(name) ? targetYields.get(name)!.failoutProperties : corrected(name, stored.view.get(name) ?? null);
    states.set(name, { exists: true, hostCount: await countAnnouncedHosts(session, d2BasePath, name), failoutProperties: failout });
  });

  const planned = planEvacuation({ request, fabrics, states, now, maxPeerLoadFactor });
  if (!planned.ok) return reject(planned.problems);
  const { plan, props } = planned;

  // Every open failout, corrected with what was read live; then every member changed at once.
  const live: [string, FailoutProperties | null][] = [];
  for (const [name, state] of states) if (state.exists) live.push([name, state.failoutProperties]);
  for (const [name, y] of yielded?.clusters ?? []) if (!states.has(name)) live.push([name, y.failout]);
  const before = withViewEntries(stored.view, live, now);
  let after = withViewEntries(before, props, now);
  const changed = new Set(props.keys());
  const hosts = new Map<string, number>();
  for (const [name, state] of states) hosts.set(name, state.exists ? state.hostCount : 0);
  // An operator's evacuation also ends the cluster drill runs of other clusters that it would strand,
  // or whose traffic would push a receiving cluster over the limit with its own, as an operator's
  // failout does (judge-together.ts): those runs give way in the same write, and the plan is judged
  // again without them. A drill's own evacuation (a drain test) never makes a drill give way.
  // A failout naming a `$` peer is judged as routed to the cluster its links end at, as clients route it.
  const aliases = await linkAliases(session, d2BasePath, before.values());
  const routed = (view: FailoutView): FailoutView => viewThroughLinks(view, aliases);
  let result: TogetherResult;
  const given = new Set<string>();
  for (;;) {
    const judged = new Set([...changed, ...given]);
    const needed = [...involvedClusters(routed(before), routed(after), judged).hostsNeeded].filter((c) => !hosts.has(c));
    await forEachLimit(needed, READ_CONCURRENCY, async (name) => void hosts.set(name, await countAnnouncedHosts(session, d2BasePath, name)));
    result = judgeTogether({ before: routed(before), after: routed(after), changed: judged, hosts, now, maxPeerLoadFactor });
    if (request.drill !== undefined) break;
    const inTheWay = drillRunsInTheWay(result, before, (c) => !changed.has(c) && !targetYields.has(c), now);
    const more: YieldedDrill[] = [];
    await forEachLimit(inTheWay, READ_CONCURRENCY, async (name) => {
      const y = await readClusterDrillYield(session, d2BasePath, name, now);
      if (y !== undefined) more.push(y);
    });
    if (more.length === 0) break;
    for (const y of more) {
      given.add(y.cluster);
      targetYields.set(y.cluster, y);
    }
    after = withViewEntries(after, more.map((y) => [y.cluster, y.failoutProperties] as const), now);
  }
  const baseline = judgeTogether({ before: routed(before), after: routed(before), changed, hosts, now, maxPeerLoadFactor });
  const judged: EvacuationPlan = { ...plan, receivers: receiversOf(plan, result, baseline, hosts, homeOf, now) };

  const found = problemsOf(result, changed, maxPeerLoadFactor, now);
  if (found.length > 0 && !request.force) return reject(found.map((f) => f.problem), judged);
  const mine = evacuations.find((e) => e.fabric === request.fabric);
  const forced = request.force ? [...new Set(found.map((f) => f.override))].sort() : undefined;
  // Force is audited on every window it wrote, as a failout's (judge-request.ts `withForced`): `failout status` reads it there.
  const written = forced === undefined ? props : new Map([...props].map(([name, p]) => [name, withForced(p, forced)]));
  const viewAfter = forced === undefined ? after : withViewEntries(after, written, now);
  return {
    verdict: 'apply',
    plan: judged,
    props: written,
    members,
    view: { path: viewPath, version: stored.version, after: viewAfter },
    evacuationVersion: mine?.version,
    ...(yielded === undefined ? {} : { yielded }),
    ...(targetYields.size === 0 ? {} : { targetYields: [...targetYields.values()] }),
    ...(forced === undefined ? {} : { forced }),
  };
}

function shown(ms: number): string {
  return new Date(ms).toISOString();
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** What the routing model found, as the worker reports it, each with the force override that passes it. */
/**
 * The cluster drill runs (not a drain test's) an operator's evacuation would refuse itself for: those
 * it strands, and those sending traffic to a cluster it pushes over the limit. `open`: a cluster that
 * may still give way (not a member, not given way already).
 */
function drillRunsInTheWay(result: TogetherResult, after: FailoutView, open: (cluster: string) => boolean, now: number): string[] {
  const out = new Set<string>();
  const running = (c: string): boolean => {
    const window = activeDrillWindow(after.get(c) ?? null, now);
    return window !== undefined && window.bucket.evacuation === undefined;
  };
  for (const s of result.strandings) if (s.drill !== undefined && open(s.cluster) && running(s.cluster)) out.add(s.cluster);
  for (const o of result.overloads) for (const source of o.from.keys()) if (open(source) && running(source)) out.add(source);
  return [...out];
}

function problemsOf(result: TogetherResult, members: ReadonlySet<string>, limit: number, now: number): { problem: Problem; override: ForceOverride }[] {
  const out: { problem: Problem; override: ForceOverride }[] = [];
  const when = (at: number): string => (at <= now ? 'now' : `at ${shown(at)}`);
  for (const s of result.strandings) {
    if (members.has(s.cluster)) {
      out.push({ problem: { reason: 'peerFailedOut', message: `${JSON.stringify(s.cluster)} would have no eligible peer for ${s.buckets}% of its traffic ${when(s.at)} (${s.peers.map((p) => JSON.stringify(p)).join(', ')} failed out or without hosts then) (force overrides)` }, override: 'peerState' });
    } else {
      const what = s.drill === undefined ? 'failout' : `drill run ${JSON.stringify(s.drill.name)}`;
      out.push({ problem: { reason: 'strandsFailout', message: `strands the ${what} of ${JSON.stringify(s.cluster)}: ${s.buckets}% of its traffic would have no eligible peer ${when(s.at)} (force overrides)` }, override: 'stranding' });
    }
  }
  for (const o of result.overloads) {
    const from = [...o.from.keys()];
    const fromText = `${from.slice(0, 5).map((c) => JSON.stringify(c)).join(', ')}${from.length > 5 ? ` and ${from.length - 5} more` : ''}`;
    if (from.some((c) => members.has(c))) {
      out.push({ problem: { reason: 'insufficientPeerCapacity', message: `receiving cluster ${JSON.stringify(o.cluster)} would carry ${round(o.after)}× its load per host ${when(o.at)} (from ${round(o.before)}×; with the traffic of ${fromText}), above maxPeerLoadFactor ${limit} (force overrides)` }, override: 'capacity' });
    } else {
      out.push({ problem: { reason: 'strandsFailout', message: `would push ${JSON.stringify(o.cluster)} to ${round(o.after)}× its load per host ${when(o.at)}, above maxPeerLoadFactor ${limit}, with the traffic of ${fromText} (force overrides)` }, override: 'stranding' });
    }
  }
  return out;
}

/** Every receiving cluster's load per host: now before, and the worst instant after (sorted by cluster). */
function receiversOf(plan: EvacuationPlan, after: TogetherResult, before: TogetherResult, hosts: ReadonlyMap<string, number>, homeOf: ReadonlyMap<string, { fabric: string; service: string }>, now: number): EvacuationReceiver[] {
  const names = [...new Set(plan.clusters.flatMap((c) => c.peers.map((p) => p.cluster)))].sort();
  const factor = (result: TogetherResult, cluster: string, at: number): number => {
    const n = hosts.get(cluster) ?? 0;
    if (n <= 0) return 0;
    const load = result.loadAfter(cluster, at);
    let total = load.own;
    for (const v of load.received.values()) total += v;
    return total / n;
  };
  return names.map((cluster) => ({
    cluster,
    service: homeOf.get(cluster)?.service ?? '',
    fabric: homeOf.get(cluster)?.fabric ?? '',
    hosts: hosts.get(cluster) ?? 0,
    factorBefore: round(factor(before, cluster, now)),
    factorAfter: round(Math.max(...after.instants.map((at) => factor(after, cluster, at)))),
  }));
}
