import { BUCKETS, clusterPath, isSymlinkName, parseClusterProperties, serializeClusterProperties, type FailoutProperties } from '../d2/data';
import type { ZkReader } from '../zk';
import type { PeerState } from './apply-request';
import type { CapacityPeer } from './capacity';
import { activeDrillWindow } from './drill-rules';
import { failoutText, withViewEntries, withViewEntry, type FailoutView, type StoredFailoutView } from './failout-view';
import type { HostCountCache } from './host-count-cache';
import { involvedClusters, judgeTogether, type TogetherResult } from './open-failouts';
import { readPeerStates, resolveLinkedName } from './peer-states';
import type { Problem } from './rejection';
import type { ForceOverride } from './request-record';
import type { ClusterChangeRequest } from './schema';

/**
 * The worker's judgement of one request against every other open failout and drill (issue 21), on
 * top of the view (failout-view.ts) and the routing model (open-failouts.ts):
 * - an operator's failout whose peer is in a drill run, or that would strand a drill's traffic or push
 *   a cluster receiving it over the limit, ends that run: the drill's windows are removed from its
 *   cluster in the same multi (and the run is marked `replaced` there), as ARC's customer-started
 *   shift cancels a practice run;
 * - whatever it would still strand is `strandsFailout` (its own later steps: `peerFailedOut`);
 * - every peer's capacity is projected with what the other open failouts already send it.
 */

/** A drill run that gives way to an operator's request: its cluster's node rewritten without the drill's windows. */
export interface YieldedDrill {
  /** The cluster in the drill run. */
  readonly cluster: string;
  readonly path: string;
  /** The cluster node's version read (the multi checks it). */
  readonly version: number;
  /** The cluster document without the drill's windows. */
  readonly afterText: string;
  /** Its failout properties without them (null: nothing left). */
  readonly failoutProperties: FailoutProperties | null;
  readonly drill: string;
  /** The run (its failout's request id), when the window says. */
  readonly runId: string | undefined;
}

/** The view as the request leaves it: written in the same multi (set at `version`, or created). */
export interface ViewWrite {
  readonly path: string;
  /** The version read; undefined when there was no node (the writer creates it). */
  readonly version: number | undefined;
  readonly data: Buffer;
  /** What the request judged against and sets, so a view changed meanwhile by an unrelated writer can be rebased ({@link rebaseView}). */
  readonly rebase?: ViewRebase;
}

/** What {@link rebaseView} needs: the view as read, the entries the request sets, and every cluster its verdict rests on. */
export interface ViewRebase {
  readonly base: FailoutView;
  readonly entries: ReadonlyMap<string, FailoutProperties | null>;
  readonly involved: ReadonlySet<string>;
  readonly now: number;
}

/**
 * The request's view write on top of a view another writer changed since it was read, or undefined
 * when that change may touch the verdict (then the request is judged again). A change touches it when
 * a changed cluster, or a peer of one (before or after), is a cluster the judgement read, or a D2
 * symlink (`$` peer, whose cluster takes a read to know): then its routing, a receiver's load or a
 * peer's eligibility may differ. Otherwise the verdict stands, and only
 * the view's version moved: writers of unrelated clusters do not re-judge each other (issue 21, bench
 * `worker`).
 */
export function rebaseView(rebase: ViewRebase, current: FailoutView): Map<string, FailoutProperties> | undefined {
  const names = new Set([...rebase.base.keys(), ...current.keys()]);
  for (const name of names) {
    const before = rebase.base.get(name);
    const after = current.get(name);
    if (before === after) continue;
    if (before !== undefined && after !== undefined && failoutText(before) === failoutText(after)) continue;
    const peers = [...(before?.redirects ?? []), ...(after?.redirects ?? [])].map((r) => r.peer);
    // A `$` peer names whatever cluster its links end at: without reading them, it may be one read.
    if (rebase.involved.has(name) || peers.some((p) => rebase.involved.has(p) || isSymlinkName(p))) return undefined;
  }
  return withViewEntries(current, rebase.entries, rebase.now);
}

/** Reads a cluster in a drill run (a `$` name: the cluster its links end at) and what it is without the run's windows; undefined when no drill window is active. */
export async function readYield(session: ZkReader, d2BasePath: string, named: string, now: number): Promise<YieldedDrill | undefined> {
  // A `$` peer's run is the run of the cluster its links end at.
  const cluster = isSymlinkName(named) ? await resolveLinkedName(session, clusterPath(d2BasePath), named) : named;
  if (cluster === undefined) return undefined;
  const path = clusterPath(d2BasePath, cluster);
  const node = await session.read(path);
  if (!node.exists) return undefined;
  let props;
  try {
    props = parseClusterProperties(node.data);
  } catch {
    return undefined;
  }
  const active = activeDrillWindow(props.failoutProperties, now);
  if (active === undefined || props.failoutProperties === null) return undefined;
  const kept = props.failoutProperties.buckets.filter((b) => b.drill === undefined);
  const failoutProperties = kept.length === 0 ? null : { ...props.failoutProperties, buckets: kept };
  const afterText = serializeClusterProperties({ ...props, failoutProperties });
  return { cluster, path, version: node.stat.version, afterText, failoutProperties, drill: active.drill, runId: active.runId };
}

/** What {@link judgeWithView} needs of the request's own judgement. */
export interface TogetherContext {
  readonly session: ZkReader;
  readonly d2BasePath: string;
  readonly viewPath: string;
  readonly request: ClusterChangeRequest;
  readonly now: number;
  readonly maxPeerLoadFactor: number;
  readonly stored: StoredFailoutView;
  /** The request's cluster's failout before and after the request. */
  readonly clusterBefore: FailoutProperties | null;
  readonly clusterAfter: FailoutProperties | null;
  /** The peers as read (live), when the request is a failout. */
  readonly peers: ReadonlyMap<string, PeerState>;
  /** The request cluster's eligible hosts. */
  readonly clusterHosts: number;
  /** Drills already giving way (peers of an operator's failout in a run). */
  readonly yielded: readonly YieldedDrill[];
  /** Host counts of the other clusters involved, kept briefly by the writer (absent: read every time). */
  readonly hostCache?: HostCountCache | undefined;
}

/** The verdict against the other failouts. */
export interface TogetherVerdict {
  /** Problems in the order to report them; each with the force override that would pass it (and, for a peer's capacity, the peer). */
  readonly problems: readonly { readonly problem: Problem; readonly override: ForceOverride; readonly peer?: string }[];
  /** Every drill that gives way (the given ones and those the request would have stranded). */
  readonly yielded: readonly YieldedDrill[];
  /** Every open failout after the request (the request's cluster as judged; the caller sets its final entry). */
  readonly after: FailoutView;
  /** The entries the request sets in the view besides its own cluster's: what was read live (peers), drills that gave way. */
  readonly entries: ReadonlyMap<string, FailoutProperties | null>;
  /** Every cluster the verdict rests on (see {@link rebaseView}). */
  readonly involved: ReadonlySet<string>;
  /** Per peer of a failout: the load other failouts already send it (for the capacity guard). */
  readonly otherLoads: ReadonlyMap<string, Pick<CapacityPeer, 'otherLoad' | 'otherLoadNow'>>;
}

/** `view` corrected with what was read live: the truth wins over a stale entry. */
function corrected(view: FailoutView, live: ReadonlyMap<string, FailoutProperties | null>, now: number): Map<string, FailoutProperties> {
  return withViewEntries(view, live, now);
}

/**
 * Judges the request against every open failout (the module doc). Drills that would be stranded by
 * an operator's request give way (up to every drill involved); a drill's own request never makes
 * another drill give way.
 */
export async function judgeWithView(context: TogetherContext): Promise<TogetherVerdict> {
  const { request, now } = context;
  const operator = request.action !== 'failout' || request.drill === undefined;
  // A `$` peer is the cluster its links end at (as clients read it): live and judged under that name.
  const live = new Map<string, FailoutProperties | null>([[request.cluster, context.clusterBefore]]);
  for (const [name, peer] of context.peers) if (peer.exists) live.set(peer.resolved ?? name, peer.failoutProperties);
  const before = corrected(context.stored.view, live, now);
  const hosts = new Map<string, number>([[request.cluster, context.clusterHosts]]);
  for (const [name, peer] of context.peers) hosts.set(peer.resolved ?? name, peer.hostCount);
  const yielded = [...context.yielded];
  const known = new Map<string, string>();
  for (const [name, peer] of context.peers) if (peer.resolved !== undefined) known.set(name, peer.resolved);
  const aliases = await linkAliases(context.session, context.d2BasePath, [...before.values(), context.clusterAfter], known);
  const judged = (view: FailoutView): FailoutView => viewThroughLinks(view, aliases);
  let result: TogetherResult;
  let after: Map<string, FailoutProperties>;
  let involved: ReadonlySet<string>;
  for (;;) {
    after = withViewEntries(before, [[request.cluster, context.clusterAfter], ...yielded.map((y) => [y.cluster, y.failoutProperties] as const)], now);
    const changed = new Set([request.cluster, ...yielded.map((y) => y.cluster)]);
    // Judged with every `$` peer named by its target; the view written keeps the names as written.
    const judgedAfter = judged(after);
    involved = involvedClusters(judged(before), judgedAfter, changed).hostsNeeded;
    await readHosts(context, involved, hosts);
    // A failout replaces the cluster's failout: it answers for all the harm of its cluster being out,
    // not only for what it adds (else replacing a forced failout would keep its stranding and lose
    // the record of the force). An extend keeps the windows, and their `forced`, so it is judged on
    // what it changes.
    const baseline = request.action === 'failout' ? withViewEntry(before, request.cluster, null, now) : before;
    result = judgeTogether({ before: judged(baseline), after: judgedAfter, changed, hosts, now, maxPeerLoadFactor: context.maxPeerLoadFactor });
    if (!operator || request.action === 'restore') break;
    const more = (await Promise.all([...drillsInTheWay(request.cluster, result, judgedAfter, yielded)].map((c) => readYield(context.session, context.d2BasePath, c, now)))).filter((y): y is YieldedDrill => y !== undefined);
    if (more.length === 0) break;
    yielded.push(...more);
  }
  // A change of a failout naming a `$` peer touches the verdict when its target does (rebaseView).
  const linked = [...aliases].filter(([, target]) => involved.has(target) || live.has(target)).map(([link]) => link);
  const alias = (cluster: string): string => aliases.get(cluster) ?? cluster;
  return {
    // A restore is never refused: it brings a cluster back (its peers' traffic may return to it, as D2 routes it).
    problems: request.action === 'restore' ? [] : problemsOf(request, result, context, alias),
    yielded,
    after,
    entries: new Map<string, FailoutProperties | null>([...live].filter(([c]) => c !== request.cluster).concat(yielded.map((y) => [y.cluster, y.failoutProperties]))),
    involved: new Set([...involved, ...live.keys(), ...linked]),
    otherLoads: otherLoadsOf(request, result, hosts, now, alias),
  };
}

/**
 * Where each `$` peer named by `failouts` ends (docs/observer.md "Symlinks": clients route to a `$`
 * peer as to that cluster, and skip it while that cluster is failed out): `known` (links resolved
 * already, e.g. when a request's peers were read) plus the others, read here: a few reads at most, and
 * none when no failout names a `$` peer. A link that ends nowhere is left out: no cluster, no hosts.
 */
export async function linkAliases(
  session: ZkReader,
  d2BasePath: string,
  failouts: Iterable<FailoutProperties | null | undefined>,
  known: ReadonlyMap<string, string> = new Map(),
): Promise<Map<string, string>> {
  const aliases = new Map(known);
  const named = new Set<string>();
  for (const props of failouts) for (const r of props?.redirects ?? []) if (isSymlinkName(r.peer) && !aliases.has(r.peer)) named.add(r.peer);
  if (named.size === 0) return aliases;
  const directory = clusterPath(d2BasePath);
  const resolved = await Promise.all([...named].map(async (link) => [link, await resolveLinkedName(session, directory, link)] as const));
  for (const [link, target] of resolved) if (target !== undefined) aliases.set(link, target);
  return aliases;
}

/**
 * `view` with every `$` peer it names replaced by the cluster it ends at (the same object when it
 * names none): what the routing model judges. Views written keep the names as written.
 */
export function viewThroughLinks(view: FailoutView, aliases: ReadonlyMap<string, string>): FailoutView {
  if (aliases.size === 0) return view;
  let out: Map<string, FailoutProperties> | undefined;
  for (const [name, props] of view) {
    if (!props.redirects.some((r) => aliases.has(r.peer))) continue;
    out ??= new Map(view);
    out.set(name, { ...props, redirects: props.redirects.map((r) => (aliases.has(r.peer) ? { ...r, peer: aliases.get(r.peer)! } : r)) });
  }
  return out ?? view;
}

/**
 * The drill runs an operator's request would be refused for: those it strands, those sending traffic
 * to a cluster it pushes over the limit, and those of its own peers that leave its traffic nowhere to
 * go (a scheduled ramp advanced to now onto a peer in a run) or crowd it onto its other peers (a held
 * ramp resumed while one of its peers is in a run). These are `strandsFailout`, the capacity guard or
 * `peerFailedOut`, and an operator takes precedence over a practice run either way (ARC), so they
 * give way; what a drill does not cause stays refused.
 */
function drillsInTheWay(cluster: string, result: TogetherResult, after: FailoutView, yielded: readonly YieldedDrill[]): Set<string> {
  const out = new Set<string>();
  const open = (c: string): boolean => c !== cluster && !yielded.some((y) => y.cluster === c);
  const drilled = (c: string): boolean => (after.get(c)?.buckets ?? []).some((b) => b.drill !== undefined);
  for (const s of result.strandings) {
    if (s.cluster !== cluster && s.drill !== undefined && open(s.cluster)) out.add(s.cluster);
    if (s.cluster === cluster) for (const peer of s.peers) if (open(peer) && drilled(peer)) out.add(peer);
  }
  const ownPeers = (after.get(cluster)?.redirects ?? []).map((r) => r.peer);
  for (const o of result.overloads) {
    for (const source of o.from.keys()) if (open(source) && drilled(source)) out.add(source);
    if (o.from.has(cluster)) for (const peer of ownPeers) if (open(peer) && drilled(peer)) out.add(peer);
  }
  return out;
}

/** Reads the eligible hosts of every needed cluster not yet known (absent clusters count 0), from the writer's short cache when it has one. */
async function readHosts(context: TogetherContext, needed: ReadonlySet<string>, hosts: Map<string, number>): Promise<void> {
  const cache = context.hostCache;
  const missing: string[] = [];
  for (const c of needed) {
    if (hosts.has(c)) continue;
    const cached = cache?.get(c, context.now);
    if (cached === undefined) missing.push(c);
    else hosts.set(c, cached);
  }
  if (missing.length === 0) return;
  const states = await readPeerStates(context.session, context.d2BasePath, missing);
  for (const [name, state] of states) {
    const count = state.exists ? state.hostCount : 0;
    hosts.set(name, count);
    cache?.set(name, count, context.now);
  }
}

function shown(ms: number): string {
  return new Date(ms).toISOString();
}

function problemsOf(request: ClusterChangeRequest, result: TogetherResult, context: TogetherContext, alias: (cluster: string) => string): TogetherVerdict['problems'] {
  const out: { problem: Problem; override: ForceOverride; peer?: string }[] = [];
  // The request's own peers: a failout's, or those of the failout an extend or a ramp action keeps
  // (by the name the routing model knows them by, and the name the request gave).
  const named = request.action === 'failout' ? request.peers.map((p) => p.cluster) : (context.clusterAfter?.redirects ?? []).map((r) => r.peer);
  const requestName = new Map(named.map((p) => [alias(p), p]));
  for (const s of result.strandings) {
    const when = s.at <= context.now ? 'now' : `at ${shown(s.at)}`;
    if (s.cluster === request.cluster) {
      const message = `cluster: ${JSON.stringify(request.cluster)} would have no eligible peer for ${s.buckets}% of its traffic ${when} (peers ${s.peers.map((p) => JSON.stringify(p)).join(', ')} failed out or without hosts then) (force overrides)`;
      out.push({ problem: { reason: 'peerFailedOut', message }, override: 'peerState' });
    } else {
      const what = s.drill === undefined ? 'failout' : `drill run ${JSON.stringify(s.drill.name)}`;
      const message = `strands the ${what} of ${JSON.stringify(s.cluster)}: ${s.buckets}% of its traffic would have no eligible peer ${when} and go back to it (force overrides)`;
      out.push({ problem: { reason: 'strandsFailout', message }, override: 'stranding' });
    }
  }
  for (const o of result.overloads) {
    const from = [...o.from.keys()].map((c) => JSON.stringify(c)).join(', ');
    const peer = requestName.get(o.cluster);
    if (peer !== undefined) {
      // The request's own peer, routed as clients route (a co-peer failed out then, or for some
      // buckets, sends it more than its weight): the capacity guard's, unless its projection already says so.
      const message = `peer ${JSON.stringify(peer)} would carry ${round(o.after)}× its load per host ${o.at <= context.now ? 'now' : `at ${shown(o.at)}`} (as clients route it, with the traffic of ${from}), above maxPeerLoadFactor ${context.maxPeerLoadFactor} (force overrides)`;
      out.push({ problem: { reason: 'insufficientPeerCapacity', message }, override: 'capacity', peer });
      continue;
    }
    const message = `would push ${JSON.stringify(o.cluster)} to ${round(o.after)}× its load per host (from ${round(o.before)}×) ${o.at <= context.now ? 'now' : `at ${shown(o.at)}`}, above maxPeerLoadFactor ${context.maxPeerLoadFactor}, with the traffic of ${from} (force overrides)`;
    out.push({ problem: { reason: 'strandsFailout', message }, override: 'stranding' });
  }
  return out;
}

/**
 * Per peer of a failout: the largest load other failouts send it while the request's whole range is
 * out (from its last ramp step's start to its end; a window of another failout starting later
 * included), and what of it flows already now. The capacity guard adds the whole moved share to it,
 * so it is paired only with the instants when the whole share moves: a ramp's earlier steps are
 * judged at their own starts, with the buckets they move, by the routing model (`judgeTogether`'s
 * overloads of the request's own peers), and a failout open only while they run is not counted
 * against the last step (issue 21: "judged at the moments its steps start, against the other
 * failouts open then").
 */
function otherLoadsOf(request: ClusterChangeRequest, result: TogetherResult, hosts: ReadonlyMap<string, number>, now: number, alias: (cluster: string) => string): Map<string, Pick<CapacityPeer, 'otherLoad' | 'otherLoadNow'>> {
  const out = new Map<string, Pick<CapacityPeer, 'otherLoad' | 'otherLoadNow'>>();
  if (request.action !== 'failout') return out;
  const starts = (request.ramp ?? [{ offlineAt: request.offlineAt }]).map((s) => s.offlineAt);
  const from = Math.max(now, ...starts);
  // The state at `from` is judged even when no window starts or ends exactly then.
  const at = [from, ...result.instants.filter((t) => t > from && t < request.onlineAt)];
  for (const peer of request.peers) {
    const cluster = alias(peer.cluster);
    const others = (t: number): number => {
      const load = result.loadAfter(cluster, t);
      let sum = load.own - (hosts.get(cluster) ?? 0);
      for (const [source, v] of load.received) if (source !== request.cluster) sum += v;
      return sum;
    };
    const otherLoad = Math.max(...at.map(others));
    const otherLoadNow = result.instants.includes(now) ? others(now) : 0;
    if (otherLoad !== 0 || otherLoadNow !== 0) out.set(peer.cluster, { otherLoad, otherLoadNow });
  }
  return out;
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

/** The share of buckets a failout request moves (its range over {@link BUCKETS}). */
export function movedFractionOf(range: { readonly from: number; readonly to: number }): number {
  return (range.to - range.from + 1) / BUCKETS;
}
