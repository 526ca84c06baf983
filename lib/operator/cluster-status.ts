import {
  assertIsError,
  BUCKETS,
  effectiveBucket,
  isBucketConfigActiveAt,
  parseClusterProperties,
  redirectWeight,
  type FailoutBucketConfig,
  type FailoutProperties,
} from '../d2/data';
import type { DrillRunStatus } from '../requests/drills';
import { isZkError } from '../zk';
import { NO_READ_PERMISSION } from '../text';

/**
 * What `failout status` says about one cluster:
 * - `failed-out`: a window is active now;
 * - `scheduled`: a window starts later, none is active;
 * - `ended`: windows exist but all have ended (scheduled ends need no write, so this is normal);
 * - `serving`: no failout at all;
 * - `malformed`: the cluster node does not parse, a malformed failout included (clients ignore the whole
 *   document and keep the last good state).
 */
export type ClusterFailoutState = 'failed-out' | 'scheduled' | 'ended' | 'serving' | 'malformed';

/** One offline window, with times as ISO strings for display and JSON. */
export interface WindowStatus {
  readonly offlineAt: string;
  readonly onlineAt: string | null;
  readonly active: boolean;
  readonly buckets: { readonly from: number; readonly to: number };
  /** Percentage of traffic the range moves (buckets / 100). */
  readonly sharePct: number;
  readonly requestId: string | null;
  readonly requestedBy: string | null;
  readonly reason: string | null;
  /** Present when the request that wrote the window was forced: what `force` overrode (issue 21 audit). */
  readonly forced?: readonly string[];
}

/**
 * Where a ramp stands (a failout whose windows start at different times, ARCHITECTURE "Failout
 * properties"): its steps are the distinct starts, and the share is what the active windows move now.
 */
export interface RampStatus {
  /** Steps started so far (0: the ramp has not started; `steps`: the last step is on). */
  readonly step: number;
  /** Number of steps: distinct window starts. */
  readonly steps: number;
  /** Percentage of traffic moved now. */
  readonly sharePct: number;
  /** When the next step starts, or null after the last one. */
  readonly nextAt: string | null;
  /** Percentage of traffic moved once the next step starts, or null after the last one. */
  readonly nextSharePct: number | null;
  /**
   * Every scheduled step as the operator typed it: when it starts (ISO) and the cumulative share it
   * moves from then (20 → 60 → 100, not the increments 20/40/40). Held steps are in `held`.
   */
  readonly scheduled: readonly { readonly at: string; readonly sharePct: number }[];
  /** Present while the ramp is held (issue 24, `failout ramp hold`): since when, by whom, and the shares its held steps would move. */
  readonly held?: HeldRampStatus;
}

/** A held ramp: its steps not started are off the schedule until `failout ramp resume` (or advance). */
export interface HeldRampStatus {
  /** When it was held (ISO). */
  readonly since: string;
  /** Cumulative percentage of traffic moved once each held step starts, in order. */
  readonly heldSharePcts: readonly number[];
  readonly requestId: string | null;
  readonly requestedBy: string | null;
  readonly reason: string | null;
}

/** One drill of a cluster as `failout status` shows it: whether a run moves traffic now, and the last outcome. */
export interface DrillStatus {
  readonly name: string;
  /** A run of it moves the cluster's traffic now. */
  readonly running: boolean;
  /**
   * The outcome at the time of reading (`passed` derived) of the run moving traffic, else of the newest
   * run (a skip recorded during a run does not hide it); null before the first run.
   */
  readonly lastOutcome: DrillRunStatus | null;
  /** When that run was recorded. */
  readonly lastAt: string | null;
  /** That run's id. */
  readonly lastRunId: string | null;
}

/** The status of one cluster. */
export interface ClusterStatus {
  readonly cluster: string;
  readonly state: ClusterFailoutState;
  readonly peers: readonly { readonly cluster: string; readonly weight: number }[];
  readonly windows: readonly WindowStatus[];
  /** Present while a ramp's window has not ended: its current step and the next. */
  readonly ramp?: RampStatus;
  /** Alarms that stop the failout (named by windows that have not ended), in the order first named; absent when none. */
  readonly stopAlarms?: readonly string[];
  /** Present when a window that has not ended was written by a forced request: what `force` overrode. */
  readonly forced?: readonly string[];
  /** For `malformed`: what is wrong. */
  readonly problem?: string;
  /** The cluster's drills (`failout status` adds them; absent when it has none): a running one, each one's last outcome. */
  readonly drills?: readonly DrillStatus[];
}

/**
 * Describes a cluster from the text of its `/d2/clusters/<cluster>` node at time `now`. The node is read
 * with the cluster codec, as clients read it; missing, `null` or `{}` failout properties mean no failout.
 * Given the error of a read that failed for a lasting reason instead (ZooKeeper `noAuth`: this session
 * may not read the node), the cluster is `malformed` with a problem saying so, as the D2 client counts
 * such a node: one node no listing can read must not fail the listing of every other cluster.
 */
export function describeCluster(cluster: string, nodeText: string | Error, now: number): ClusterStatus {
  if (nodeText instanceof Error) return { cluster, state: 'malformed', peers: [], windows: [], problem: unreadableProblem(nodeText) };
  let props: FailoutProperties | null;
  try {
    props = parseClusterProperties(nodeText).failoutProperties;
  } catch (err) {
    assertIsError(err);
    return { cluster, state: 'malformed', peers: [], windows: [], problem: err.message };
  }
  return describeFailout(cluster, props, now);
}

/** Why a node (a cluster's, a fabric map) could not be read, in an operator's words. */
export function unreadableProblem(err: Error): string {
  if (isZkError(err, 'noAuth')) return NO_READ_PERMISSION;
  return `the node cannot be read: ${err.message}`;
}

/** Describes a cluster's typed failout properties (null: none) at time `now`. */
export function describeFailout(cluster: string, props: FailoutProperties | null, now: number): ClusterStatus {
  if (props === null) return { cluster, state: 'serving', peers: [], windows: [] };
  const windows = props.buckets.map((b): WindowStatus => {
    const w = effectiveBucket(b);
    return {
      offlineAt: new Date(w.offlineAt).toISOString(),
      onlineAt: w.onlineAt === undefined ? null : new Date(w.onlineAt).toISOString(),
      active: isBucketConfigActiveAt(b, now),
      buckets: { from: w.range.from, to: w.range.to },
      sharePct: Math.round(((w.range.to - w.range.from + 1) / BUCKETS) * 100),
      requestId: b.requestId ?? null,
      requestedBy: b.requestedBy ?? null,
      reason: b.reason ?? null,
      ...(b.forced === undefined ? {} : { forced: [...b.forced] }),
    };
  });
  const state: ClusterFailoutState = windows.some((w) => w.active)
    ? 'failed-out'
    : props.buckets.some((b) => effectiveBucket(b).offlineAt > now)
      ? 'scheduled'
      : windows.length > 0
        ? 'ended'
        : 'serving';
  const ramp = state === 'ended' ? undefined : rampStatus(props, now);
  const open = props.buckets.filter((b) => b.onlineAt === undefined || b.onlineAt > now);
  const stopAlarms = [...new Set(open.flatMap((b) => b.stopAlarms ?? []))];
  const forcedWindows = open.filter((b) => b.forced !== undefined);
  const forced = [...new Set(forcedWindows.flatMap((b) => b.forced ?? []))];
  return {
    cluster,
    state,
    peers: props.redirects.map((r) => ({ cluster: r.peer, weight: redirectWeight(r) })),
    windows,
    ...(ramp === undefined ? {} : { ramp }),
    ...(stopAlarms.length === 0 ? {} : { stopAlarms }),
    ...(forcedWindows.length === 0 ? {} : { forced }),
  };
}

/** The ramp of `props` at `now`, or undefined when all its windows start at once (no ramp) and none is held. */
function rampStatus(props: FailoutProperties, now: number): RampStatus | undefined {
  const startsOf = (buckets: readonly FailoutBucketConfig[]): number[] => [...new Set(buckets.map((b) => effectiveBucket(b).offlineAt))].sort((a, b) => a - b);
  const starts = startsOf(props.buckets);
  const hold = props.rampHold !== undefined && props.rampHold.buckets.length > 0 ? props.rampHold : undefined;
  const heldStarts = hold === undefined ? [] : startsOf(hold.buckets);
  if (starts.length + heldStarts.length < 2) return undefined;
  const step = starts.filter((at) => at <= now).length;
  const next = starts[step];
  const status: RampStatus = {
    step,
    steps: starts.length + heldStarts.length,
    sharePct: sharePctAt(props, now),
    nextAt: next === undefined ? null : new Date(next).toISOString(),
    nextSharePct: next === undefined ? null : sharePctAt(props, next),
    scheduled: starts.map((at) => ({ at: new Date(at).toISOString(), sharePct: sharePctAt(props, at) })),
  };
  if (hold === undefined) return status;
  // Each held step adds its buckets to what moves now (and to the held steps before it).
  const moved = new Set<number>();
  for (let bucket = 0; bucket < BUCKETS; bucket++) if (props.buckets.some((b) => isBucketConfigActiveAt(b, now) && covers(b, bucket))) moved.add(bucket);
  const heldSharePcts = heldStarts.map((at) => {
    for (const b of hold.buckets) if (effectiveBucket(b).offlineAt === at) for (let bucket = effectiveBucket(b).range.from; bucket <= effectiveBucket(b).range.to; bucket++) moved.add(bucket);
    return Math.round((moved.size / BUCKETS) * 100);
  });
  const held: HeldRampStatus = { since: new Date(hold.heldAt).toISOString(), heldSharePcts, requestId: hold.requestId ?? null, requestedBy: hold.requestedBy ?? null, reason: hold.reason ?? null };
  return { ...status, held };
}

function covers(b: FailoutBucketConfig, bucket: number): boolean {
  const range = effectiveBucket(b).range;
  return bucket >= range.from && bucket <= range.to;
}

/** Percentage of the buckets some window active at `at` moves (windows may overlap: each bucket counts once). */
function sharePctAt(props: FailoutProperties, at: number): number {
  let moved = 0;
  for (let bucket = 0; bucket < BUCKETS; bucket++) {
    if (props.buckets.some((b) => isBucketConfigActiveAt(b, at) && bucket >= effectiveBucket(b).range.from && bucket <= effectiveBucket(b).range.to)) moved++;
  }
  return Math.round((moved / BUCKETS) * 100);
}
