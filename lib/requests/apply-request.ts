import { ALL_BUCKETS, DEFAULT_PARTITION, isBucketConfigActiveAt, type ClusterProperties, type FailoutBucketConfig, type FailoutProperties } from '../d2/data';
import { drillPrecedenceProblems, isDrillAction } from './drill-rules';
import { hasOpenWindow } from './failout-view';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ChangeRequest, ExtendChangeRequest, FailoutChangeRequest, RestoreChangeRequest } from './schema';
import { isAdjustRequest } from './adjust-schema';
import { windowMadeAfterAlarm } from './stop-alarms';
import { applyAdjust, shownTime, withHeldEnd } from './ramp-control';

/** What the writer knows of a peer cluster at the time of application. */
export interface PeerState {
  /** The peer has a cluster node. */
  readonly exists: boolean;
  /** Hosts of the peer a D2 client would send to (`countEligibleHosts`: announced, weight above zero, not banned). */
  readonly hostCount: number;
  /** The peer's own failout properties; null when it has none or its cluster document is unreadable. */
  readonly failoutProperties: FailoutProperties | null;
  /**
   * For a `$` symlink peer (`$FooClusterMaster`), the cluster its links end at: the state above is
   * that cluster's, as D2 clients read the `$` name. Absent for a plain name or a link that ends nowhere.
   */
  readonly resolved?: string;
}

/** The state `applyRequest` judges against. */
export interface ApplyContext {
  /** Epoch ms of application. */
  readonly now: number;
  /** The state of a peer; called for every peer of a failout. */
  readonly peers: (cluster: string) => PeerState;
  /**
   * When the cluster node was last written (epoch ms, ZooKeeper's `mtime`; default `now`): how far a
   * window's request id time is trusted when a guard's restore asks whether the window is older than
   * the alarm's change (`windowMadeAfterAlarm`).
   */
  readonly writtenAt?: number;
}

/** The result of {@link applyRequest}; `unchanged` marks a request with nothing to write (a restore of a serving cluster). */
export type ApplyResult =
  | { readonly ok: true; readonly props: ClusterProperties; readonly unchanged?: true }
  | { readonly ok: false; readonly rejection: Rejection };

/**
 * The new cluster properties for a request, or why it cannot be applied. Pure: the same inputs give
 * the same answer, and nothing but `failoutProperties` changes (every other key, known or unknown,
 * is carried over by reference).
 *
 * - `restore` removes `failoutProperties`; of a cluster that is serving (none, or only windows that
 *   ended) it is `unchanged` (recorded, not written: a write would only bump the node's version and
 *   wake every watcher; the ended windows go with the next real write). A guard's restore
 *   (`stoppedByAlarm`) removes it only while a window that has not ended names that alarm in
 *   `stopAlarms`, or while the drill window it names (`drill`) that was active at `alarmAt` has not
 *   ended (a drill's run is stopped by its own alarms even when an `amend` took one off its stop
 *   alarms); otherwise it is `unchanged` too: the failout the alarm was meant to stop is gone,
 *   and the one in its place (an operator's, made after the alarm fired) did not ask to be stopped.
 * - `extend` moves the end (`onlineAt`) of every window that has not ended (and of a held ramp's
 *   steps) to the new end and drops the windows that ended; `notFailedOut` when no window is active or scheduled, `badWindow` when the new end is
 *   not after the start of every window it moves.
 * - `failout` replaces them with one redirect entry per peer and one bucket entry carrying the window,
 *   the request id, who and why, and the stop alarms (a ramp: one bucket entry per step, each with its own `offlineAt`). Unknown keys inside the old `failoutProperties` are kept; its entries
 *   (and their unknown keys) are replaced. The result is the typed model: the cluster codec's writer
 *   checks it with the reader's own rules, so what the worker writes every reader accepts.
 * - `rampHold`, `rampResume`, `rampAdvance` and `amend` adjust the open failout (ramp-control.ts).
 * - A drill's failout (`drill`) yields to an operator's failout window that has not ended
 *   (`operatorFailoutActive`) and to another drill's active run (`drillRunning`); its bucket configs carry
 *   `drill`. A drill action (`putDrill`, `deleteDrill`, `skipDrill`) leaves the cluster `unchanged`: the
 *   writer changes the drill's node (drill-writes.ts).
 * - Checks at application time: the window has not ended; every peer exists (`unknownPeer`); unless
 *   `force`, no peer is failed out for a bucket the request moves (`peerFailedOut`: a peer failed out
 *   only for other buckets takes all of them, as clients skip a peer per bucket) and some peer has
 *   hosts (`noPeerWithHosts`).
 *   `force` overrides only these two peer-state checks: a peer that does not exist is always a typo.
 */
export function applyRequest(clusterProps: ClusterProperties, request: ChangeRequest, context: ApplyContext): ApplyResult {
  // A drill action changes its drill's node, never the cluster (the writer handles it: drill-writes.ts).
  if (isDrillAction(request)) return { ok: true, props: clusterProps, unchanged: true };
  if (request.action === 'restore') {
    // Serving already (no failout, or only windows that ended): nothing to write, and no watcher woken.
    if (!hasOpenWindow(clusterProps.failoutProperties, context.now)) return { ok: true, props: clusterProps, unchanged: true };
    if (request.stoppedByAlarm !== undefined) {
      // Only windows that existed when the alarm changed state are its to stop: a restore that reaches
      // the worker late (a DLQ redrive) must not end a failout made, and judged, after the change.
      const props = clusterProps.failoutProperties;
      const older = { ...props, buckets: props.buckets.filter((b) => !windowMadeAfterAlarm(b, request.alarmAt, context.writtenAt ?? context.now)) };
      if (!namesStopAlarm(older, request.stoppedByAlarm, context.now) && !stopsDrillRun(props, request, context.now)) return { ok: true, props: clusterProps, unchanged: true };
    }
    return { ok: true, props: { ...clusterProps, failoutProperties: null } };
  }
  if (request.action === 'extend') return extend(clusterProps, request, context.now);
  if (isAdjustRequest(request)) return applyAdjust(clusterProps, request, context.now);
  // A drill yields to an operator's failout and to a running drill: the clearer reason, so first.
  const problems = [...drillPrecedenceProblems(clusterProps.failoutProperties, request, context.now), ...windowProblems(request, context.now), ...peerProblems(request, context)];
  if (problems.length > 0) return { ok: false, rejection: rejectionOf(problems, request.requestId) };
  const failoutProperties = failoutPropertiesOf(request, clusterProps.failoutProperties);
  return { ok: true, props: { ...clusterProps, failoutProperties } };
}

/**
 * True when `request` stops a drill's run by its verdict (`drill`, `stoppedByAlarm`, `alarmAt`: the
 * guard's or the runner's) and a window of that drill that has not ended at `now` was active at
 * `alarmAt`: the run the alarm was seen in still moves traffic, whatever its stop alarms say now (an
 * `amend` may have removed the alarm from them; the drill still judges its run by it).
 */
function stopsDrillRun(props: FailoutProperties | null, request: Pick<RestoreChangeRequest, 'drill' | 'alarmAt'>, now: number): boolean {
  const { drill, alarmAt } = request;
  if (props === null || drill === undefined || alarmAt === undefined) return false;
  return props.buckets.some((b) => b.drill === drill && isBucketConfigActiveAt(b, alarmAt) && (b.onlineAt === undefined || b.onlineAt > now));
}

/** True when a window of `props` that has not ended at `now` (active or scheduled) names `alarm` in `stopAlarms`. */
export function namesStopAlarm(props: FailoutProperties, alarm: string, now: number): boolean {
  return props.buckets.some((b) => (b.onlineAt === undefined || b.onlineAt > now) && (b.stopAlarms ?? []).includes(alarm));
}

function extend(clusterProps: ClusterProperties, request: ExtendChangeRequest, now: number): ApplyResult {
  const props = clusterProps.failoutProperties;
  // Windows not ended yet (active or scheduled): the failout the operator sees in `failout status`.
  const open = props === null ? [] : props.buckets.filter((b) => b.onlineAt === undefined || b.onlineAt > now);
  const problems: Problem[] = [];
  if (props === null || open.length === 0) {
    problems.push({ reason: 'notFailedOut', message: `cluster: ${JSON.stringify(request.cluster)} has no active or scheduled failout to extend` });
  } else if (request.onlineAt <= now) {
    problems.push({ reason: 'badWindow', message: `onlineAt: ${shownTime(request.onlineAt)} passed before the request could be applied` });
  } else {
    const lastStart = Math.max(...open.map((b) => b.offlineAt ?? 0));
    if (request.onlineAt <= lastStart) {
      problems.push({ reason: 'badWindow', message: `onlineAt: ${shownTime(request.onlineAt)} is not after ${shownTime(lastStart)}, when a window of the failout starts` });
    }
  }
  if (props === null || problems.length > 0) return { ok: false, rejection: rejectionOf(problems, request.requestId) };
  // Ended windows are pruned by this write (a no-op restore left them: issue 21).
  const buckets = open.map((b) => ({ ...b, onlineAt: request.onlineAt }));
  return { ok: true, props: { ...clusterProps, failoutProperties: withHeldEnd({ ...props, buckets }, request.onlineAt) } };
}

function windowProblems(request: FailoutChangeRequest, now: number): Problem[] {
  if (request.onlineAt > now) return [];
  // Never `toISOString()` on a value no Date holds (NaN): judging must not throw (issue 14).
  const shown = Number.isFinite(request.onlineAt) ? new Date(request.onlineAt).toISOString() : String(request.onlineAt);
  return [{ reason: 'badWindow', message: `onlineAt: ${shown} passed before the request could be applied` }];
}

function peerProblems(request: FailoutChangeRequest, context: ApplyContext): Problem[] {
  const problems: Problem[] = [];
  let hosts = 0;
  request.peers.forEach((peer, i) => {
    const state = context.peers(peer.cluster);
    const field = `peers[${i}].cluster`;
    if (!state.exists) {
      problems.push({ reason: 'unknownPeer', message: `${field}: ${JSON.stringify(peer.cluster)} has no cluster node` });
      return;
    }
    hosts += state.hostCount;
    const shared = request.force ? [] : sharedFailedOutBuckets(state.failoutProperties, request.buckets, context.now);
    if (shared.length > 0) {
      const ranges = shared.map((r) => `${r.from}–${r.to}`).join(', ');
      problems.push({ reason: 'peerFailedOut', message: `${field}: ${JSON.stringify(peer.cluster)} is failed out itself for buckets ${ranges}, which this failout moves (force overrides)` });
    }
  });
  if (!request.force && hosts === 0 && !problems.some((p) => p.reason === 'unknownPeer')) {
    problems.push({ reason: 'noPeerWithHosts', message: 'peers: none has an announced host (force overrides)' });
  }
  // unknownPeer first: it is not overridable, so it is the one to fix first.
  return problems.sort((a, b) => rank(a) - rank(b));
}

/**
 * The buckets (merged ranges, ascending) that `peer` is failed out for at `now` and that `moved` (the
 * request's buckets, every ramp step's within them) covers too: the requests the failout would send
 * to a peer that sends them away itself. Clients skip a peer only for the buckets it is failed out
 * for (the redirect strategy: no chained redirects), so a peer failed out only for other buckets takes
 * every request this failout moves, and is no reason to refuse it.
 */
function sharedFailedOutBuckets(peer: FailoutProperties | null, moved: { readonly from: number; readonly to: number }, now: number): { from: number; to: number }[] {
  if (peer === null) return [];
  const shared = peer.buckets
    .filter((b) => isBucketConfigActiveAt(b, now))
    .map((b) => b.bucketOfflineRange ?? ALL_BUCKETS)
    .map((r) => ({ from: Math.max(r.from, moved.from), to: Math.min(r.to, moved.to) }))
    .filter((r) => r.from <= r.to)
    .sort((a, b) => a.from - b.from);
  const merged: { from: number; to: number }[] = [];
  for (const r of shared) {
    const last = merged.at(-1);
    if (last !== undefined && r.from <= last.to + 1) last.to = Math.max(last.to, r.to);
    else merged.push({ ...r });
  }
  return merged;
}

function rank(problem: Problem): number {
  return problem.reason === 'unknownPeer' ? 0 : 1;
}

function failoutPropertiesOf(request: FailoutChangeRequest, previous: FailoutProperties | null): FailoutProperties {
  // A ramp is one bucket entry per step (disjoint ranges, staggered starts, one end): clients already
  // evaluate each entry on its own clock, so the ramp advances with no further write.
  const stages = request.ramp ?? [{ offlineAt: request.offlineAt, buckets: request.buckets }];
  const buckets = stages.map((stage): FailoutBucketConfig => {
    const bucket: FailoutBucketConfig = {
      partition: DEFAULT_PARTITION,
      bucketOfflineRange: { from: stage.buckets.from, to: stage.buckets.to },
      offlineAt: stage.offlineAt,
      onlineAt: request.onlineAt,
      requestId: request.requestId,
    };
    if (request.requestedBy !== undefined) bucket.requestedBy = request.requestedBy;
    if (request.reason !== undefined) bucket.reason = request.reason;
    if (request.stopAlarms !== undefined) bucket.stopAlarms = [...request.stopAlarms];
    if (request.drill !== undefined) bucket.drill = request.drill;
    return bucket;
  });
  const next: FailoutProperties = {
    redirects: request.peers.map((p) => ({ peer: p.cluster, weight: p.weight })),
    ignoredRedirectEntries: 0,
    buckets,
  };
  if (previous?.extra !== undefined) next.extra = previous.extra;
  return next;
}
