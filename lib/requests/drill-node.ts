import { z } from 'zod';
import { RequestError } from './errors';
import { nameProblem } from './names';
import { cutText } from './rejection';
import { SKIP_REASONS, type BucketRange, type DrillPeer, type DrillSettings, type FabricDrillSettings, type SkipReason } from './drill-schema';

/**
 * A drill in ZooKeeper: ONE node `/failout/drills/<name>` holding its definition and its latest runs
 * (newest first, at most {@link MAX_DRILL_RUNS}). One node, not a child per run, because every change
 * to it is a compare-and-set of that one node inside the worker's multi (with the cluster write and
 * the request record): a run's start, its end and its record are one atomic step, the bound on runs
 * is kept by the same write, and readers (`failout drill list|history`, the runner) read one node.
 * Only the request worker writes it.
 */

/** Default parent of the drills (the ACL policy's `drillsPath`). */
export const DEFAULT_DRILLS_PATH = '/failout/drills';

/** Runs kept per drill; an older one is dropped when a new one is recorded. */
export const MAX_DRILL_RUNS = 20;

/**
 * A drill node is always smaller than this (64 KiB), whatever its run count or the length of its texts:
 * runs beyond {@link MAX_DRILL_RUNS} are dropped, and when 20 runs with the longest details and peers
 * would still pass it, older ones go too. ZooKeeper refuses a node over its 1 MB `jute.maxbuffer`, and
 * every write of the worker that touches the node (an operator's restore during a run included) would
 * fail with it.
 */
export const MAX_DRILL_NODE_BYTES = 64 * 1024;

/** Longest `detail` kept on a run, in characters. */
export const MAX_RUN_DETAIL_CHARS = 512;

/**
 * What became of a run (ARC's practice-run outcomes, plus ours):
 * - `running`: it moves traffic now;
 * - `passed`: its window ended and no outcome or blocking alarm was in ALARM during it (ARC "succeeded");
 * - `failed`: its outcome alarm was in ALARM during it (ARC "failed");
 * - `interrupted`: a blocking alarm was in ALARM during it (a deploy, say): no verdict on the peers (ARC "interrupted");
 * - `replaced`: an operator's failout or restore took over the cluster (operator precedence);
 * - `skipped`: it was due but not started.
 *
 * A run stored `running` whose window has ended reads as `passed` ({@link runStatusAt}), and is stored
 * so by the next write that touches the node ({@link encodeDrillNode}).
 */
export type DrillRunStatus = 'running' | 'passed' | 'failed' | 'interrupted' | 'replaced' | 'skipped';

/** The statuses, for the node's schema. */
const RUN_STATUSES = ['running', 'passed', 'failed', 'interrupted', 'replaced', 'skipped'] as const satisfies readonly DrillRunStatus[];

/** What every drill's definition holds, whatever its target. */
interface DrillDefinitionBase {
  /** The drill's name (its node's name). */
  readonly name: string;
  /** Epoch ms the definition was applied (a `rate(...)` counts from here). */
  readonly definedAt: number;
  /** Who defined it, when the request said. */
  readonly definedBy?: string;
  /** The `putDrill` request that wrote this definition. */
  readonly requestId: string;
}

/** A cluster's drill: each run fails the cluster out to its peers. */
export interface ClusterDrillDefinition extends DrillDefinitionBase, DrillSettings {
  /** The cluster each run fails out. */
  readonly cluster: string;
  readonly fabric?: undefined;
  readonly evacuation?: undefined;
}

/** A fabric's drill, a drain test (issue 23): each run evacuates the fabric. */
export interface FabricDrillDefinition extends DrillDefinitionBase, FabricDrillSettings {
  /** The fabric each run evacuates. */
  readonly fabric: string;
  readonly cluster?: undefined;
  readonly peers?: undefined;
  readonly buckets?: undefined;
}

/**
 * A drill's definition, as `putDrill` gave it (normalised): one drill model whose target is a cluster
 * (with peers and buckets) or a fabric (with an evacuation's options). `fabric` tells them apart.
 */
export type DrillDefinition = ClusterDrillDefinition | FabricDrillDefinition;

/** One run of a drill: started (then running, passed, failed, interrupted or replaced) or skipped. */
export interface DrillRun {
  /** The request id of the run's failout or skip (`drill-<name>-<scheduledAt ms>` from the runner). */
  readonly runId: string;
  /** As stored; a stored `running` run whose window ended reads as `passed` ({@link runStatusAt}). */
  readonly status: DrillRunStatus;
  /** When the worker recorded the start or the skip (epoch ms). */
  readonly at: number;
  /** When the run was due, when known. */
  readonly scheduledAt?: number;
  /** Started runs: the window end the failout got. */
  readonly endsAt?: number;
  /** Started runs: the buckets moved. */
  readonly buckets?: BucketRange;
  /** Started runs of a cluster's drill: the peers the traffic went to. */
  readonly peers?: readonly DrillPeer[];
  /** Started runs of a drain test: how many clusters of the fabric its evacuation moved. */
  readonly clusters?: number;
  /** Skipped runs: why. */
  readonly skipReason?: SkipReason;
  /** What exactly (the alarm, the date, the rejection message). */
  readonly detail?: string;
  /** Ended runs (`failed`, `interrupted`, `replaced`): when its traffic came back (the window's end for a verdict that came after it). */
  readonly endedAt?: number;
  /** Ended runs: the request that ended it, or that brought the verdict. */
  readonly endedBy?: string;
  /** `failed` and `interrupted` runs: the alarm whose ALARM state decided it. */
  readonly stoppedByAlarm?: string;
  /** `failed` and `interrupted` runs: when that alarm was seen in ALARM (the state change, or the runner's evaluation), when known. */
  readonly alarmAt?: number;
  /**
   * Started runs: the outcome alarm the run started under (the definition's then). A run is judged by
   * its own alarms ({@link runAlarms}), so a drill put again with other alarms while it runs neither
   * loses its verdict nor turns a failure into an interruption. Absent on runs recorded before it was kept.
   */
  readonly outcomeAlarm?: string;
  /** Started runs: the blocking alarms the run started under (see {@link DrillRun.outcomeAlarm}). */
  readonly blockingAlarms?: readonly string[];
}

/** The node's document. */
export interface DrillNode {
  /** Format version; always 1. */
  readonly version: 1;
  /** What `putDrill` defined. */
  readonly definition: DrillDefinition;
  /** Newest first, at most {@link MAX_DRILL_RUNS}. */
  readonly runs: readonly DrillRun[];
}

const peer = z.object({ cluster: z.string(), weight: z.number().int().positive() });
const range = z.object({ from: z.number().int().min(0).max(99), to: z.number().int().min(0).max(99) });
const stage = z.union([
  z.object({ tier: z.string(), gateAlarms: z.array(z.string()) }),
  z.object({ clusters: z.array(z.string()), gateAlarms: z.array(z.string()) }),
]);
/** A drain test's evacuation options as stored (evacuate-schema.ts `EvacuationOptions`). */
const evacuation = z.object({
  targets: z.array(z.object({ fabric: z.string(), weight: z.number().int().positive() })).optional(),
  stages: z.array(stage).optional(),
  holdMs: z.number().int().min(0),
  restoreGapMs: z.number().int().min(0),
  ramp: z.array(z.object({ percent: z.number().int(), duration: z.string().optional() })).optional(),
  exclude: z.array(z.string()),
});
/** Exactly one target: a cluster with its peers and buckets, or a fabric with its evacuation. */
function oneTarget(d: { cluster?: string; peers?: unknown; buckets?: unknown; fabric?: string; evacuation?: unknown }): boolean {
  const cluster = d.cluster !== undefined && d.peers !== undefined && d.buckets !== undefined;
  const fabric = d.fabric !== undefined && d.evacuation !== undefined;
  return cluster ? d.fabric === undefined && d.evacuation === undefined : fabric && d.cluster === undefined && d.peers === undefined && d.buckets === undefined;
}

const definitionSchema = z
  .object({
    name: z.string(),
    // A cluster's drill: cluster, peers, buckets; a drain test: fabric, evacuation.
    cluster: z.string().optional(),
    peers: z.array(peer).optional(),
    buckets: range.optional(),
    fabric: z.string().optional(),
    evacuation: evacuation.optional(),
    durationMs: z.number().int().positive(),
    every: z.string(),
    outcomeAlarm: z.string(),
    blockingAlarms: z.array(z.string()),
    blockedDates: z.array(z.string()),
    blockedWindows: z.array(z.string()),
    definedAt: z.number(),
    definedBy: z.string().optional(),
    requestId: z.string(),
  })
  .refine(oneTarget, { message: 'a drill names a cluster (with peers and buckets) or a fabric (with evacuation), not both' });

const nodeSchema = z.object({
  version: z.literal(1),
  definition: definitionSchema,
  runs: z.array(
    z.object({
      runId: z.string(),
      status: z.enum(RUN_STATUSES),
      at: z.number(),
      scheduledAt: z.number().optional(),
      endsAt: z.number().optional(),
      buckets: range.optional(),
      peers: z.array(peer).optional(),
      clusters: z.number().int().min(0).optional(),
      skipReason: z.enum(SKIP_REASONS).optional(),
      detail: z.string().optional(),
      endedAt: z.number().optional(),
      endedBy: z.string().optional(),
      stoppedByAlarm: z.string().optional(),
      alarmAt: z.number().optional(),
      outcomeAlarm: z.string().optional(),
      blockingAlarms: z.array(z.string()).optional(),
    }),
  ),
});

/** `<base>/<name>`. @throws RequestError `invalidArgument` for a name that is no znode name. */
export function drillPath(base: string = DEFAULT_DRILLS_PATH, name: string): string {
  const problem = nameProblem(name, 'drill');
  if (problem) throw new RequestError('invalidArgument', problem.message);
  return `${base.replace(/\/+$/, '')}/${name}`;
}

/**
 * The node as stored at `now` (compact JSON, always under {@link MAX_DRILL_NODE_BYTES}): runs newest
 * first, each resolved to its status at `now` first (a stored `running` run whose window ended is
 * stored `passed`), then cut to {@link MAX_DRILL_RUNS}; a run really running at `now` is kept whatever
 * its age (a minutely drill's skips must not push out the run whose end the worker still has to record).
 * Details are cut to `MAX_RUN_DETAIL_CHARS` (512). Should that still pass the byte bound (20 runs of
 * the longest texts), the oldest runs not running go until it fits.
 */
export function encodeDrillNode(node: DrillNode, now: number): Buffer {
  const resolved = node.runs.map((r) => resolveRun(r, now));
  const runs = resolved.filter((r, i) => i < MAX_DRILL_RUNS || r.status === 'running');
  let data = encodeWith(node, runs);
  while (data.length >= MAX_DRILL_NODE_BYTES) {
    // The newest run stays (the one this write records), and any run still moving traffic.
    const oldest = runs.findLastIndex((r, i) => i > 0 && r.status !== 'running');
    if (oldest < 0) break;
    runs.splice(oldest, 1);
    data = encodeWith(node, runs);
  }
  return data;
}

function encodeWith(node: DrillNode, runs: readonly DrillRun[]): Buffer {
  const cut = runs.map((r) => (r.detail === undefined ? r : { ...r, detail: cutText(r.detail, MAX_RUN_DETAIL_CHARS) }));
  return Buffer.from(JSON.stringify({ ...node, runs: cut }), 'utf8');
}

/** `run` with its status at `now` stored: a `running` run whose window ended becomes `passed`; any other is unchanged. */
export function resolveRun(run: DrillRun, now: number): DrillRun {
  const status = runStatusAt(run, now);
  return status === run.status ? run : { ...run, status };
}

/** Reads a stored drill node. @throws RequestError `corruptRecord` naming every problem. */
export function decodeDrillNode(data: Buffer | string): DrillNode {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  const known = decoded.get(text);
  if (known !== undefined) return known;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RequestError('corruptRecord', 'drill node is not JSON', { cause: e });
  }
  const parsed = nodeSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(node)'}: ${i.message}`).join('; ');
    throw new RequestError('corruptRecord', `drill node is malformed: ${problems}`);
  }
  const node = deepFreeze(parsed.data) as DrillNode;
  decoded.set(text, node);
  if (decoded.size > DECODED_KEPT) decoded.delete(decoded.keys().next().value!);
  return node;
}

/**
 * Nodes decoded lately, by their text: one request reads a drill node up to four times (its checks,
 * its yield, its write), each a schema check of up to 64 KiB. Frozen, as they are shared.
 */
const decoded = new Map<string, DrillNode>();
const DECODED_KEPT = 32;

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}

/** A run's status at `now`: a `running` run whose window has ended `passed` (it was never stopped). */
export function runStatusAt(run: DrillRun, now: number): DrillRunStatus {
  return run.status === 'running' && run.endsAt !== undefined && run.endsAt <= now ? 'passed' : run.status;
}

/**
 * The alarms `run` is judged by: those it started under, or (a run recorded before they were kept)
 * the definition's.
 */
export function runAlarms(run: DrillRun, definition: Pick<DrillDefinition, 'outcomeAlarm' | 'blockingAlarms'>): { readonly outcomeAlarm: string; readonly blockingAlarms: readonly string[] } {
  return run.outcomeAlarm === undefined ? definition : { outcomeAlarm: run.outcomeAlarm, blockingAlarms: run.blockingAlarms ?? [] };
}

/** The alarms to record on a run starting now: the definition's. */
export function startedUnder(definition: Pick<DrillDefinition, 'outcomeAlarm' | 'blockingAlarms'>): Pick<DrillRun, 'outcomeAlarm' | 'blockingAlarms'> {
  return { outcomeAlarm: definition.outcomeAlarm, blockingAlarms: [...definition.blockingAlarms] };
}

/** The run moving traffic at `now`, if any. */
export function runningRun(node: DrillNode, now: number): DrillRun | undefined {
  return node.runs.find((r) => runStatusAt(r, now) === 'running');
}

/**
 * The run that says where a drill stands at `now`: the run moving traffic, else the newest run (none:
 * undefined). Not simply the newest: a due time or a run-now during a run is recorded as a newer
 * `skipped` run (`drillRunning`), and the run still moving traffic must not read as skipped.
 */
export function currentRun(node: DrillNode, now: number): DrillRun | undefined {
  return runningRun(node, now) ?? node.runs[0];
}
