import { ALL_BUCKETS, BUCKETS, isBucketConfigActiveAt, redirectWeight, type FailoutProperties } from '../d2/data';
import type { FailoutView } from './failout-view';

/**
 * Open failouts judged together (issue 21): where every request bucket of every failed-out cluster
 * goes at one instant, as D2 clients route it (ARCHITECTURE "Failout properties"): a bucket of a
 * failed-out cluster X goes to X's peers that are not X, have eligible hosts, and are not failed out
 * for that bucket themselves, by their redirect weights; with no such peer it stays at X (clients fail
 * open). Traffic moves one hop only: a peer never forwards what it receives.
 *
 * Load is in host units (one host of a cluster carries one unit; each bucket is 1 % of a cluster's
 * load), the capacity guard's host-count basis (capacity.ts). Pure: the caller reads the view and the
 * host counts, this judges them.
 *
 * State changes only when a window starts or ends, so judging at now and at every later start or end
 * of a window involved covers a ramp's steps and a future window "at the moments its steps start".
 */

/** What the request changes, and what it is judged against. */
export interface TogetherInput {
  /** Every open failout before the request. */
  readonly before: FailoutView;
  /** Every open failout after it (the request applied, drills that gave way removed). */
  readonly after: FailoutView;
  /** Clusters whose failout the request changes (its cluster; clusters whose drill gave way). */
  readonly changed: ReadonlySet<string>;
  /** Eligible hosts of every cluster {@link involvedClusters} names (absent: none). */
  readonly hosts: ReadonlyMap<string, number>;
  /** Epoch ms of the judgement. */
  readonly now: number;
  /** Largest load factor a receiving cluster may reach. */
  readonly maxPeerLoadFactor: number;
}

/** Buckets of another failout (or of the request's own, at a later step) left with no eligible peer. */
export interface Stranding {
  /** The failed-out cluster whose traffic would go back home. */
  readonly cluster: string;
  /** The first instant judged at which it happens (epoch ms). */
  readonly at: number;
  /** How many buckets (percent of its traffic) newly stranded then. */
  readonly buckets: number;
  /** Its peers (all failed out, without hosts, or itself). */
  readonly peers: readonly string[];
  /** When every open window of that failout is a drill's: the drill and its run (request) id. */
  readonly drill?: { readonly name: string; readonly runId: string | undefined };
}

/** A receiving cluster the request pushes over the limit. */
export interface Overload {
  readonly cluster: string;
  readonly at: number;
  /** Load factor before and after the request, at `at`. */
  readonly before: number;
  readonly after: number;
  /** What it receives after the request at `at`, by sending cluster (host units). */
  readonly from: ReadonlyMap<string, number>;
}

/** A cluster's load at one instant (host units). */
export interface ClusterLoad {
  /** Its own traffic that stays home (not failed out, or stranded). */
  readonly own: number;
  /** What it receives, by sending cluster. */
  readonly received: ReadonlyMap<string, number>;
}

/** The verdict of {@link judgeTogether}. */
export interface TogetherResult {
  readonly strandings: readonly Stranding[];
  readonly overloads: readonly Overload[];
  /** The instants judged, ascending (now first). */
  readonly instants: readonly number[];
  /** A cluster's load after the request at an instant judged. */
  loadAfter(cluster: string, at: number): ClusterLoad;
}

/** The clusters a judgement reads host counts of, and the failouts it routes. */
export interface Involvement {
  /** Failed-out clusters whose routing (or whose receivers' load) the request can change. */
  readonly sources: ReadonlySet<string>;
  /** Clusters whose load the request can change. */
  readonly receivers: ReadonlySet<string>;
  /** Every cluster whose eligible hosts the judgement needs. */
  readonly hostsNeeded: ReadonlySet<string>;
}

function peersOf(props: FailoutProperties | undefined): string[] {
  return props === undefined ? [] : props.redirects.map((r) => r.peer);
}

/**
 * Which failouts a change of `changed` can touch: those of the changed clusters and those sending to
 * them (their routing changes), the clusters receiving from either (their load changes), and every
 * failout sending to those receivers (it adds to their load). A bounded set: a judgement reads the
 * host counts of these, not of every cluster with a failout.
 */
export function involvedClusters(before: FailoutView, after: FailoutView, changed: ReadonlySet<string>): Involvement {
  const names = new Set([...before.keys(), ...after.keys()]);
  const peers = (c: string): string[] => [...peersOf(before.get(c)), ...peersOf(after.get(c))];
  const direct = [...names].filter((c) => changed.has(c) || peers(c).some((p) => changed.has(p)));
  const receivers = new Set<string>([...changed, ...direct.flatMap(peers)]);
  const sources = new Set<string>(direct);
  for (const c of names) if (receivers.has(c) || peers(c).some((p) => receivers.has(p))) sources.add(c);
  const hostsNeeded = new Set<string>([...sources, ...receivers, ...[...sources].flatMap(peers)]);
  return { sources, receivers, hostsNeeded };
}

interface Routing {
  /** Stranded buckets per source (only sources with any). */
  readonly stranded: Map<string, Set<number>>;
  /** Failed-out buckets per source at this instant. */
  readonly out: Map<string, number>;
  /** Received buckets per receiver, by source (a bucket split among peers counts by weight share). */
  readonly received: Map<string, Map<string, number>>;
}

/** The buckets of `props` failed out at `at`, as a bitmap (the codec's `isBucketFailedOutAt` for every bucket at once). */
function failedBuckets(props: FailoutProperties | undefined, at: number): Uint8Array | undefined {
  if (props === undefined) return undefined;
  let out: Uint8Array | undefined;
  for (const b of props.buckets) {
    if (!isBucketConfigActiveAt(b, at)) continue;
    out ??= new Uint8Array(BUCKETS);
    const range = b.bucketOfflineRange ?? ALL_BUCKETS;
    out.fill(1, Math.max(0, range.from), Math.min(BUCKETS - 1, range.to) + 1);
  }
  return out;
}

/** Where every bucket of `sources` goes at `at` in `state` (the module doc's rule). */
function routeAt(state: FailoutView, sources: ReadonlySet<string>, hosts: ReadonlyMap<string, number>, at: number): Routing {
  const stranded = new Map<string, Set<number>>();
  const out = new Map<string, number>();
  const received = new Map<string, Map<string, number>>();
  const bitmaps = new Map<string, Uint8Array | undefined>();
  const failed = (cluster: string): Uint8Array | undefined => {
    if (!bitmaps.has(cluster)) bitmaps.set(cluster, failedBuckets(state.get(cluster), at));
    return bitmaps.get(cluster);
  };
  for (const source of sources) {
    const props = state.get(source);
    const mine = failed(source);
    if (props === undefined || mine === undefined) continue;
    // Peers that could take traffic at all (not the source, with hosts), with their bitmaps.
    const candidates = props.redirects.filter((r) => r.peer !== source && (hosts.get(r.peer) ?? 0) > 0).map((r) => ({ peer: r.peer, weight: redirectWeight(r), failed: failed(r.peer) }));
    for (let b = 0; b < BUCKETS; b++) {
      if (mine[b] === 0) continue;
      out.set(source, (out.get(source) ?? 0) + 1);
      let total = 0;
      for (const c of candidates) if (c.failed === undefined || c.failed[b] === 0) total += c.weight;
      if (total === 0) {
        let set = stranded.get(source);
        if (set === undefined) stranded.set(source, (set = new Set()));
        set.add(b);
        continue;
      }
      for (const c of candidates) {
        if (c.failed !== undefined && c.failed[b] !== 0) continue;
        let from = received.get(c.peer);
        if (from === undefined) received.set(c.peer, (from = new Map()));
        // In buckets (exact for equal weights), turned into host units once, in loadOf.
        from.set(source, (from.get(source) ?? 0) + c.weight / total);
      }
    }
  }
  return { stranded, out, received };
}

function loadOf(routing: Routing, cluster: string, hosts: ReadonlyMap<string, number>): ClusterLoad {
  const own = hosts.get(cluster) ?? 0;
  const away = (routing.out.get(cluster) ?? 0) - (routing.stranded.get(cluster)?.size ?? 0);
  const received = new Map<string, number>();
  for (const [source, buckets] of routing.received.get(cluster) ?? []) received.set(source, ((hosts.get(source) ?? 0) * buckets) / BUCKETS);
  return { own: (own * (BUCKETS - away)) / BUCKETS, received };
}

function factorOf(load: ClusterLoad, hosts: number): number {
  let total = load.own;
  for (const v of load.received.values()) total += v;
  return total / hosts;
}

/**
 * The instants to judge: now, and every later start or end of a window of the sources or of their
 * peers. Routing changes at either: a source's peer failing out for a bucket sends that bucket to the
 * source's other peers (one of them a receiver of the request), though no window of a source or a
 * receiver starts then.
 */
function instantsOf(input: TogetherInput, sources: ReadonlySet<string>): number[] {
  const times = new Set<number>([input.now]);
  const routed = new Set<string>(sources);
  for (const view of [input.before, input.after]) for (const s of sources) for (const peer of peersOf(view.get(s))) routed.add(peer);
  for (const view of [input.before, input.after]) {
    for (const s of routed) {
      for (const b of view.get(s)?.buckets ?? []) {
        if (b.offlineAt !== undefined && b.offlineAt > input.now) times.add(b.offlineAt);
        if (b.onlineAt !== undefined && b.onlineAt > input.now) times.add(b.onlineAt);
      }
    }
  }
  return [...times].sort((a, b) => a - b);
}

function drillOf(props: FailoutProperties | undefined, now: number): Stranding['drill'] {
  const open = (props?.buckets ?? []).filter((b) => b.onlineAt === undefined || b.onlineAt > now);
  const first = open[0];
  if (first?.drill === undefined || open.some((b) => b.drill !== first.drill)) return undefined;
  return { name: first.drill, runId: first.requestId };
}

/**
 * Judges the request's change (before → after) at every instant that matters: which failouts it
 * strands (buckets with no eligible peer that had one, or that were not failed out, before) and which
 * receiving clusters it pushes above the limit (above it after, and higher than before: a forced
 * overload already there does not block an unrelated request). Pure.
 */
export function judgeTogether(input: TogetherInput): TogetherResult {
  const { sources, receivers } = involvedClusters(input.before, input.after, input.changed);
  const instants = instantsOf(input, sources);
  const strandings = new Map<string, Stranding>();
  const overloads = new Map<string, Overload>();
  const after = new Map<number, Routing>();
  for (const at of instants) {
    const was = routeAt(input.before, sources, input.hosts, at);
    const now = routeAt(input.after, sources, input.hosts, at);
    after.set(at, now);
    for (const [cluster, buckets] of now.stranded) {
      const before = was.stranded.get(cluster);
      const fresh = [...buckets].filter((b) => !before?.has(b)).length;
      if (fresh === 0 || strandings.has(cluster)) continue;
      const drill = drillOf(input.after.get(cluster), input.now);
      strandings.set(cluster, { cluster, at, buckets: fresh, peers: peersOf(input.after.get(cluster)), ...(drill ? { drill } : {}) });
    }
    for (const cluster of receivers) {
      const hosts = input.hosts.get(cluster) ?? 0;
      if (hosts <= 0 || overloads.has(cluster)) continue;
      const load = loadOf(now, cluster, input.hosts);
      const factor = factorOf(load, hosts);
      const previous = factorOf(loadOf(was, cluster, input.hosts), hosts);
      if (factor > input.maxPeerLoadFactor + 1e-9 && factor > previous + 1e-9) overloads.set(cluster, { cluster, at, before: previous, after: factor, from: load.received });
    }
  }
  return {
    strandings: [...strandings.values()],
    overloads: [...overloads.values()],
    instants,
    loadAfter: (cluster, at) => loadOf(after.get(at) ?? routeAt(input.after, sources, input.hosts, at), cluster, input.hosts),
  };
}
