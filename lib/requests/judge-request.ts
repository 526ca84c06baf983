import { BUCKETS, clusterPath, isBucketFailedOutAt, parseClusterProperties, parseClusterPropertiesWithoutFailout, serializeClusterProperties, type ClusterProperties, type FailoutBucketConfig, type FailoutProperties } from '../d2/data';
import { isZkError, type ZkReader } from '../zk';
import { applyRequest, type PeerState } from './apply-request';
import { DEFAULT_MAX_PEER_LOAD_FACTOR, projectPeerLoad, type CapacityProjection } from './capacity';
import { isDrillAction } from './drill-rules';
import { assertIsError } from './errors';
import { DEFAULT_VIEW_PATH, encodeFailoutView, readFailoutView, withViewEntry } from './failout-view';
import { judgeWithView, movedFractionOf, readYield, type ViewRebase, type ViewWrite, type YieldedDrill } from './judge-together';
import type { HostCountCache } from './host-count-cache';
import { countEligibleHosts, readPeerStates } from './peer-states';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ForceOverride } from './request-record';
import type { ChangeRequest, ClusterChangeRequest } from './schema';

/**
 * What a request would do to the live state right now:
 * - `apply`: the cluster node at `version` (its text and properties), the properties to write, and
 *   their text as the cluster codec writes it (checked by the codec: what every reader accepts);
 * - `reject`: the rejection, and the cluster node's version when there is one (the writer records the
 *   rejection behind a check of that version, so the verdict is tied to the state it was reached on).
 */
export type Judgement =
  | {
      readonly verdict: 'apply';
      readonly path: string;
      readonly version: number;
      readonly beforeText: string;
      readonly after: ClusterProperties;
      /** `after` as the cluster codec writes it: the data of the cluster node's `setData`. */
      readonly afterText: string;
      /** A failout's capacity projection per peer (shown by `--dry-run`; within the limit, or `force`). */
      readonly capacity?: CapacityProjection;
      /** Nothing to write (a restore of a serving cluster): the writer records the request without a `setData`. */
      readonly unchanged?: true;
      /** The view of open failouts as the request leaves it (absent for drill actions and no-ops). */
      readonly view?: ViewWrite;
      /** Drill runs that give way to this operator's request (their clusters are rewritten in the same multi). */
      readonly yielded?: readonly YieldedDrill[];
      /** Present when the request had `force`: what it overrode (issue 21 audit). */
      readonly forced?: readonly ForceOverride[];
      /**
       * A restore of a cluster whose `failoutProperties` do not read (another tool wrote them): why they
       * do not (the codec's error). The restore writes the document without them, every other member kept.
       */
      readonly unreadableFailout?: string;
    }
  | {
      readonly verdict: 'reject';
      readonly path: string;
      readonly version: number | undefined;
      readonly rejection: Rejection;
      /** For `insufficientPeerCapacity`: the projection that refused it (shown by `--dry-run`). */
      readonly capacity?: CapacityProjection;
      /** When the verdict rests on the view: its path and version (the writer records behind a check of it), and what it rests on (to rebase the check). */
      readonly viewCheck?: { readonly path: string; readonly version: number; readonly rebase?: ViewRebase };
    };

/** Deployment settings of the judge, the same for the worker and the CLI. */
export interface JudgeOptions {
  /** Largest load factor a failout may give a peer (`MAX_PEER_LOAD_FACTOR`); default {@link DEFAULT_MAX_PEER_LOAD_FACTOR}. */
  readonly maxPeerLoadFactor?: number;
  /** The view of open failouts (`viewPathFor(requestsPath)`); default `/failout/view`. */
  readonly viewPath?: string;
  /** Host counts of the other failouts' clusters kept briefly (the writer's); absent: read every time (the CLI, the console). */
  readonly hostCache?: HostCountCache;
}

const NO_PEER: PeerState = { exists: false, hostCount: 0, failoutProperties: null };

/**
 * Judges a parsed request against ZooKeeper as the worker does before writing: read the cluster
 * (unknown → `unknownCluster`, unreadable → `malformedCluster`, except for a restore when only its
 * `failoutProperties` do not read: it removes them, `unreadableFailout` saying why), the view of every open failout
 * (failout-view.ts) and the peers' states; an operator's failout makes a peer's drill run give way;
 * `applyRequest`; then, for a failout or an extend, the judgement against every other open failout at
 * every instant its windows and theirs start or end (judge-together.ts: `strandsFailout`, and the
 * request's own later steps `peerFailedOut`) and the capacity guard with what the others already send
 * each peer (`insufficientPeerCapacity`, capacity.ts). `force` overrides the peer-state checks, the
 * capacity guard and stranding, and the judgement says which it overrode. Writes nothing; shared by
 * the request writer, the CLI (checks before sending, `--dry-run`) and the console, so they cannot drift.
 *
 * Never throws for the request's sake (issue 14): whatever cannot be judged or written (a window the
 * codec refuses, a name no path can hold) is an `unjudgeable` rejection, recorded and acknowledged
 * like any other, instead of an error that SQS would retry into the DLQ while the rest of the
 * cluster's FIFO group waits. Only ZooKeeper's own errors propagate (the writer classifies them).
 */
export async function judgeRequest(session: ZkReader, d2BasePath: string, request: ChangeRequest, now: number, options: JudgeOptions = {}): Promise<Judgement> {
  let path = `${d2BasePath}/clusters/${request.cluster}`;
  let version: number | undefined;
  try {
    path = clusterPath(d2BasePath, request.cluster);
    const node = await session.read(path);
    if (!node.exists) {
      const rejection = rejectionOf([{ reason: 'unknownCluster', message: `cluster: ${JSON.stringify(request.cluster)} has no node at ${path}` }], request.requestId);
      return { verdict: 'reject', path, version: undefined, rejection };
    }
    version = node.stat.version;
    let props: ClusterProperties;
    let unreadableFailout: string | undefined;
    try {
      props = parseClusterProperties(node.data);
    } catch (e) {
      assertIsError(e);
      const salvaged = request.action === 'restore' ? withoutFailout(node.data) : undefined;
      if (salvaged === undefined) return { verdict: 'reject', path, version, rejection: rejectionOf([{ reason: 'malformedCluster', message: `${path}: ${e.message}` }], request.requestId) };
      props = salvaged;
      unreadableFailout = e.message;
    }
    const beforeText = node.data.toString('utf8');
    // A drill action changes its drill's node, never the cluster: nothing to judge against the others.
    if (isDrillAction(request)) return { verdict: 'apply', path, version, beforeText, after: props, afterText: serializeClusterProperties(props), unchanged: true };
    return await judgeClusterChange({ session, d2BasePath, request, now, options, path, version, props, beforeText, unreadableFailout, writtenAt: node.stat.mtime });
  } catch (e) {
    assertIsError(e);
    if (isZkError(e)) throw e;
    const rejection = rejectionOf([{ reason: 'unjudgeable', message: `could not be judged: ${e.message}` }], request.requestId);
    return { verdict: 'reject', path, version, rejection };
  }
}

/**
 * The cluster document without its `failoutProperties` (the cluster codec reading every other member),
 * or undefined when it does not read even so (no JSON, another member invalid: nothing safe to write).
 * Only a restore gets this far: what it writes is exactly that, and D2 clients holding the last good
 * failout (they refuse the unreadable one) then read a cluster with none.
 */
function withoutFailout(data: Buffer): ClusterProperties | undefined {
  try {
    return parseClusterPropertiesWithoutFailout(data);
  } catch {
    return undefined;
  }
}

interface ClusterJudgeContext {
  readonly session: ZkReader;
  readonly d2BasePath: string;
  readonly request: ClusterChangeRequest;
  readonly now: number;
  readonly options: JudgeOptions;
  readonly path: string;
  readonly version: number;
  readonly props: ClusterProperties;
  readonly beforeText: string;
  /** A restore of a document whose `failoutProperties` do not read (`props` has none): why. */
  readonly unreadableFailout?: string | undefined;
  /** The cluster node's last write (ZooKeeper's `mtime`). */
  readonly writtenAt: number;
}

async function judgeClusterChange(c: ClusterJudgeContext): Promise<Judgement> {
  const { session, d2BasePath, request, now, path, version, props } = c;
  const maxPeerLoadFactor = c.options.maxPeerLoadFactor ?? DEFAULT_MAX_PEER_LOAD_FACTOR;
  const viewPath = c.options.viewPath ?? DEFAULT_VIEW_PATH;
  // An operator's failout takes precedence over a drill run on a peer (ARC): the run gives way.
  const operatorFailout = request.action === 'failout' && request.drill === undefined;
  // Everything the verdict reads, at once: the round trips, not the CPU, are a judgement's cost, and
  // the time from reading the view to writing it is the window in which another writer can get first.
  const [peers, yieldedOrNot, stored, clusterHosts] = await Promise.all([
    request.action === 'failout' ? readPeerStates(session, d2BasePath, request.peers.map((p) => p.cluster)) : new Map<string, PeerState>(),
    operatorFailout ? Promise.all(request.peers.map((p) => readYield(session, d2BasePath, p.cluster, now))) : Promise.resolve([] as (YieldedDrill | undefined)[]),
    readFailoutView(session, viewPath, d2BasePath, now),
    countEligibleHosts(session, d2BasePath, request.cluster, props),
  ]);
  // One per cluster: a `$` peer and the cluster it links to are one run.
  const yielded = yieldedOrNot.filter((y, i): y is YieldedDrill => y !== undefined && yieldedOrNot.findIndex((o) => o?.cluster === y.cluster) === i);
  const peerState = (cluster: string): PeerState => {
    const state = peers.get(cluster) ?? NO_PEER;
    const y = yielded.find((d) => d.cluster === (state.resolved ?? cluster));
    return y === undefined ? state : { ...state, failoutProperties: y.failoutProperties };
  };
  // A restore of an unreadable failout: there is always one to remove (D2 clients may hold the last good one).
  const result = c.unreadableFailout === undefined ? applyRequest(props, request, { now, peers: peerState, writtenAt: c.writtenAt }) : { ok: true as const, props };
  if (!result.ok) return { verdict: 'reject', path, version, rejection: result.rejection };
  // What the codec refuses to write is `unjudgeable` (judgeRequest's catch) before anything is judged on it.
  serializeClusterProperties(result.props);
  const overrides = new Set<ForceOverride>();
  if (request.force && request.action === 'failout') {
    const strict = applyRequest(props, { ...request, force: false }, { now, peers: peerState });
    if (!strict.ok) overrides.add('peerState');
  }
  if (result.unchanged) return { verdict: 'apply', path, version, beforeText: c.beforeText, after: result.props, afterText: serializeClusterProperties(result.props), unchanged: true };
  const together = await judgeWithView({
    session,
    d2BasePath,
    viewPath,
    request,
    now,
    maxPeerLoadFactor,
    stored,
    clusterBefore: props.failoutProperties,
    clusterAfter: result.props.failoutProperties,
    peers,
    clusterHosts,
    yielded,
    hostCache: c.options.hostCache,
  });
  const viewCheck =
    stored.version === undefined
      ? {}
      : { viewCheck: { path: viewPath, version: stored.version, ...(stored.rebuilt === undefined ? { rebase: { base: stored.view, entries: new Map(), involved: together.involved, now } } : {}) } };
  let capacity: CapacityProjection | undefined;
  if (request.action === 'failout') {
    capacity = projectPeerLoad({
      cluster: request.cluster,
      clusterHosts,
      movedFraction: movedFractionOf(request.buckets),
      peers: request.peers.map((p) => ({ cluster: p.cluster, weight: p.weight, hosts: (peers.get(p.cluster) ?? NO_PEER).hostCount, ...together.otherLoads.get(p.cluster) })),
      maxPeerLoadFactor,
      clusterAwayNow: awayAt(props.failoutProperties, now),
    });
    if (capacity.problems.length > 0) overrides.add('capacity');
  }
  const problems: Problem[] = [];
  const overPeers = new Set((capacity?.peers ?? []).filter((p) => p.over).map((p) => p.cluster));
  for (const { problem, override, peer } of together.problems) {
    // A peer the capacity projection already names: one problem, with the projection's numbers.
    if (peer !== undefined && overPeers.has(peer)) continue;
    problems.push(problem);
    overrides.add(override);
  }
  problems.push(...(capacity?.problems ?? []));
  if (!request.force && problems.length > 0) {
    const rejected = { verdict: 'reject' as const, path, version, rejection: rejectionOf(problems, request.requestId), ...viewCheck };
    return capacity === undefined ? rejected : { ...rejected, capacity };
  }
  const forced = request.force ? [...overrides].sort() : undefined;
  const after = forced === undefined ? result.props : { ...result.props, failoutProperties: withForced(props.failoutProperties, result.props.failoutProperties, request, forced) };
  const applied = {
    verdict: 'apply' as const,
    path,
    version,
    beforeText: c.beforeText,
    after,
    afterText: serializeClusterProperties(after),
    view: {
      path: viewPath,
      version: stored.version,
      data: encodeFailoutView(withViewEntry(together.after, request.cluster, after.failoutProperties, now)),
      // A view rebuilt from the clusters (missing, unreadable) is not rebased: its writer judges again.
      ...(stored.rebuilt === undefined ? { rebase: { base: stored.view, entries: new Map([...together.entries, [request.cluster, after.failoutProperties]]), involved: together.involved, now } } : {}),
    },
    yielded: together.yielded,
    ...(forced === undefined ? {} : { forced }),
    ...(c.unreadableFailout === undefined ? {} : { unreadableFailout: c.unreadableFailout }),
  };
  return capacity === undefined ? applied : { ...applied, capacity };
}

/** The share of the buckets (0–1) `props` fails out at `now`: the cluster's traffic that is elsewhere then. */
function awayAt(props: FailoutProperties | null, now: number): number {
  if (props === null) return 0;
  let away = 0;
  for (let bucket = 0; bucket < BUCKETS; bucket++) if (isBucketFailedOutAt(props, bucket, now)) away++;
  return away / BUCKETS;
}

/**
 * The windows the request wrote marked with what its `force` overrode (an audit trail on the failout
 * itself). A failout's windows are its own (`forced: []` too: force was given). An extend, ramp step
 * or amend rewrites another request's windows: those it changed carry what this force overrode beside
 * what an earlier force did, and only when it overrode something, so a force that was not needed
 * leaves the failout as the operator who wrote it left it.
 */
function withForced(before: FailoutProperties | null, props: FailoutProperties | null, request: ClusterChangeRequest, forced: readonly ForceOverride[]): FailoutProperties | null {
  if (props === null) return null;
  if (request.action === 'failout') return { ...props, buckets: props.buckets.map((b) => (b.requestId === request.requestId ? { ...b, forced: [...forced] } : b)) };
  if (forced.length === 0) return props;
  const untouched = new Set([...(before?.buckets ?? []), ...(before?.rampHold?.buckets ?? [])].map((b) => JSON.stringify(b)));
  const stamp = (b: FailoutBucketConfig): FailoutBucketConfig => (untouched.has(JSON.stringify(b)) ? b : { ...b, forced: [...new Set([...(b.forced ?? []), ...forced])].sort() });
  return { ...props, buckets: props.buckets.map(stamp), ...(props.rampHold === undefined ? {} : { rampHold: { ...props.rampHold, buckets: props.rampHold.buckets.map(stamp) } }) };
}
