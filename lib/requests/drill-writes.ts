import { parseClusterProperties, type FailoutProperties } from '../d2/data';
import { isZkError, resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import { drillTargetText, isDrillOf, putDrillProblem, readDrillNode } from './drill-checks';
import { drillPath, encodeDrillNode, runAlarms, runningRun, startedUnder, type DrillNode, type DrillRun } from './drill-node';
import { activeDrillWindow, isDrillAction, runTakesVerdict, verdictStatus } from './drill-rules';
import type { DrillChangeRequest, PutDrillChangeRequest, SkipReason } from './drill-schema';
import type { Judgement } from './judge-request';
import { isAdjustRequest } from './adjust-schema';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ChangeRequest, ClusterChangeRequest, FailoutChangeRequest, RestoreChangeRequest } from './schema';

/**
 * What a request does to drills, beside (or instead of) its cluster write: the writer appends
 * {@link DrillEffects.ops} to its one multi (cluster check/set + request record), so a run's start, its
 * end and its record are one atomic step; a {@link DrillEffects.rejection} replaces the verdict.
 *
 * - `putDrill`: creates or rewrites the definition (runs kept); refused for an unknown peer, or a
 *   drill of that name on another cluster.
 * - `deleteDrill`: removes the drill and its runs; refused while a run moves traffic.
 * - `skipDrill`: records a skipped run and why.
 * - a drill's `failout`: refused (`unknownDrill`) unless the drill exists for this cluster; applied,
 *   it records a `running` run; rejected (an operator's failout, a running drill, anything else), it
 *   records a `skipped` run with the reason.
 * - any other `failout`, `restore` or `extend` that writes the cluster while a drill's window is
 *   active: the run becomes `replaced` (an operator's failout or restore), `failed` or `interrupted`
 *   (a restore with `stoppedByAlarm`: the drill's outcome alarm, or a blocking one), or gets the new
 *   end (`extend`).
 * - `rampHold`, `rampResume`, `rampAdvance` and `amend` keep the failout: a drill's run goes on.
 * - a restore of a cluster whose `failoutProperties` do not read (`unreadableFailout`): the drill
 *   window cannot be read, so every run of the cluster's drills still running ends (`replaced`, or the
 *   verdict of the restore's alarm when it is one of the run's).
 * - a restore with `stoppedByAlarm` and `alarmAt` (the guard's, the runner's), applied or finding
 *   nothing to remove: the run whose window held `alarmAt` gets its verdict even when its window
 *   ended before the restore arrived (a `passed` run becomes `failed` or `interrupted`; the first
 *   alarm seen in a run decides it). This is how a late verdict reaches the drill node.
 */
export interface DrillEffects {
  /** Ops for the drill node, after the cluster's and before the record's. */
  readonly ops: readonly MultiOp[];
  /** Set when the drill rules refuse the request. */
  readonly rejection?: Rejection;
}

/** Where drills live and the ACLs of created nodes. */
export interface DrillWriteContext {
  readonly session: ZkReader;
  readonly d2BasePath: string;
  readonly drillsPath: string;
  readonly acl: AclSource;
  readonly now: number;
}

const NONE: DrillEffects = { ops: [] };

/** The drill node at `path`, with its version (drill-checks.ts: the CLI reads it the same way). */
const readDrill = readDrillNode;

function reject(problem: Problem, requestId: string): DrillEffects {
  return { ops: [], rejection: rejectionOf([problem], requestId) };
}

/** The set of a drill node as stored at `now` (runs resolved, bounded: encodeDrillNode). */
export function setNode(path: string, node: DrillNode, version: number, now: number): MultiOp {
  return { op: 'set', path, data: encodeDrillNode(node, now), version };
}

/** The drill effects of `request`, given the judgement of its cluster write. */
export async function drillEffectsOf(context: DrillWriteContext, request: ChangeRequest, judgement: Judgement): Promise<DrillEffects> {
  if (isDrillAction(request)) return judgement.verdict === 'reject' ? NONE : drillActionEffects(context, request);
  if (request.action === 'failout' && request.drill !== undefined) return drillFailoutEffects(context, request, judgement);
  // Adjusting a ramp or its stop alarms (issue 24) keeps the failout, a drill's run with it.
  if (judgement.verdict === 'reject' || isAdjustRequest(request)) return NONE;
  if (judgement.unreadableFailout !== undefined) return unreadableEndingEffects(context, request);
  return endingEffects(context, request, judgement.beforeText, judgement.unchanged !== true);
}

/**
 * A drill's failout before judging: `unknownDrill` unless the drill exists for the request's cluster
 * (then no run can be recorded: there is no drill to record it in).
 */
export async function drillFailoutPrecheck(context: DrillWriteContext, request: FailoutChangeRequest): Promise<Rejection | undefined> {
  if (request.drill === undefined) return undefined;
  const { node } = await readDrill(context.session, drillPath(context.drillsPath, request.drill));
  if (node === undefined || !isDrillOf(node.definition, request)) {
    return rejectionOf([{ reason: 'unknownDrill', message: `drill: ${JSON.stringify(request.drill)} is not a drill of cluster ${JSON.stringify(request.cluster)}${node === undefined ? '' : ` (it is a drill of ${drillTargetText(node.definition)})`}` }], request.requestId);
  }
  return undefined;
}

async function drillActionEffects(context: DrillWriteContext, request: DrillChangeRequest): Promise<DrillEffects> {
  const path = drillPath(context.drillsPath, request.drill);
  const { node, version } = await readDrill(context.session, path);
  const foreign = node !== undefined && !isDrillOf(node.definition, request);
  if (request.action === 'putDrill') {
    const problem = await putDrillProblem(context.session, context.d2BasePath, request, node);
    if (problem) return reject(problem, request.requestId);
    const next: DrillNode = { version: 1, definition: definitionOf(request, context.now), runs: node?.runs ?? [] };
    if (version === undefined) return { ops: [{ op: 'create', path, data: encodeDrillNode(next, context.now), acl: resolveAcl(context.acl, path) }] };
    return { ops: [setNode(path, next, version, context.now)] };
  }
  if (node === undefined || version === undefined || foreign) {
    return reject({ reason: 'unknownDrill', message: `drill: ${JSON.stringify(request.drill)} is not a drill of cluster ${JSON.stringify(request.cluster)}` }, request.requestId);
  }
  if (request.action === 'deleteDrill') {
    const running = runningRun(node, context.now);
    if (running) return reject({ reason: 'drillRunning', message: `drill: ${JSON.stringify(request.drill)} has a run moving traffic (${running.runId}); restore the cluster or wait until ${new Date(running.endsAt ?? context.now).toISOString()}` }, request.requestId);
    return { ops: [{ op: 'remove', path, version }] };
  }
  return { ops: [setNode(path, withRun(node, skippedRun(request, context.now)), version, context.now)] };
}

async function drillFailoutEffects(context: DrillWriteContext, request: FailoutChangeRequest, judgement: Judgement): Promise<DrillEffects> {
  const path = drillPath(context.drillsPath, request.drill!);
  const { node, version } = await readDrill(context.session, path);
  // Checked before judging (drillFailoutPrecheck); gone since, the next attempt finds it gone.
  if (node === undefined || version === undefined) return { ops: [{ op: 'check', path, version: 0 }] };
  if (judgement.verdict === 'reject') {
    const reason = judgement.rejection.reason;
    const skipReason: SkipReason = reason === 'operatorFailoutActive' || reason === 'drillRunning' ? reason : 'rejected';
    const run: DrillRun = { runId: request.requestId, status: 'skipped', at: context.now, skipReason, detail: `${reason}: ${judgement.rejection.message}` };
    return { ops: [setNode(path, withRun(node, run), version, context.now)] };
  }
  const run: DrillRun = {
    runId: request.requestId,
    status: 'running',
    at: context.now,
    endsAt: request.onlineAt,
    buckets: request.buckets,
    peers: request.peers,
    ...startedUnder(node.definition),
  };
  return { ops: [setNode(path, withRun(node, run), version, context.now)] };
}

/**
 * What a cluster write (or a restore that found nothing to remove) does to this cluster's drill runs:
 * when it `changed` the cluster, the run whose window is active ends (or gets the extend's end); a
 * restore carrying an alarm's verdict (`stoppedByAlarm` + `alarmAt`) judges the run whose window held
 * `alarmAt`, found by the request's `drill` or else by the drill window the cluster held then.
 * At most one set per drill node, each behind its version.
 */
async function endingEffects(context: DrillWriteContext, request: ClusterChangeRequest, beforeText: string, changed: boolean): Promise<DrillEffects> {
  const verdict = alarmVerdictOf(request);
  if (!changed && verdict === undefined) return NONE;
  let before: FailoutProperties | null;
  try {
    before = parseClusterProperties(Buffer.from(beforeText, 'utf8')).failoutProperties;
  } catch {
    return NONE;
  }
  const edits = new DrillEdits(context, request.cluster);
  const active = changed ? activeDrillWindow(before, context.now) : undefined;
  if (active?.runId !== undefined) await edits.change(active.drill, (node) => endActiveRun(node, active.runId!, request, context.now));
  const judged = verdict === undefined ? undefined : (verdict.drill ?? activeDrillWindow(before, verdict.at)?.drill);
  if (verdict !== undefined && judged !== undefined) await edits.change(judged, (node) => judgeRun(node, verdict, request.requestId, context.now));
  return { ops: edits.ops() };
}

/**
 * What a restore of a cluster whose `failoutProperties` do not read does to its drill runs. The drill
 * window that names the run cannot be read, but the restore removes whatever failout the cluster had,
 * so no run of the cluster's drills moves traffic after it: every run of them still `running` ends
 * here, as {@link endActiveRun} ends the run an operator's restore finds (the verdict of a stopping
 * restore's alarm when that alarm is one the run is judged by), else `replaced`, saying why. A
 * verdict naming its drill also judges that drill's run whose window already ended, as usual. Finding
 * the runs reads every drill node once: a rare write (another tool broke the document), so no index.
 */
async function unreadableEndingEffects(context: DrillWriteContext, request: ClusterChangeRequest): Promise<DrillEffects> {
  if (request.action !== 'restore') return NONE;
  const edits = new DrillEdits(context, request.cluster);
  for (const name of await drillNames(context)) await edits.change(name, (node) => endRunningRun(node, request, context.now));
  const verdict = alarmVerdictOf(request);
  if (verdict?.drill !== undefined) await edits.change(verdict.drill, (node) => judgeRun(node, verdict, request.requestId, context.now));
  return { ops: edits.ops() };
}

/** The drills' names (their nodes under `drillsPath`); none when the parent does not exist yet. */
async function drillNames(context: DrillWriteContext): Promise<readonly string[]> {
  try {
    return (await context.session.children(context.drillsPath)).children;
  } catch (e) {
    if (isZkError(e, 'noNode')) return [];
    throw e;
  }
}

/** The run of `node` running at `now` ended by `restore` of an unreadable failout; `node` itself when none runs. */
function endRunningRun(node: DrillNode, restore: RestoreChangeRequest, now: number): DrillNode {
  const run = runningRun(node, now);
  if (run === undefined) return node;
  const alarms = runAlarms(run, node.definition);
  const alarm = restore.stoppedByAlarm;
  if (alarm !== undefined && (alarm === alarms.outcomeAlarm || alarms.blockingAlarms.includes(alarm))) return endActiveRun(node, run.runId, restore, now);
  return replaceRun(node, run, { ...run, status: 'replaced', endedAt: now, endedBy: restore.requestId, detail: UNREADABLE_DETAIL });
}

/** Why a run ended by the restore of an unreadable failout was `replaced` (the restore's record holds the codec's error). */
const UNREADABLE_DETAIL = "the cluster's failoutProperties could not be read (written by another tool); a restore removed them";

/** An alarm's verdict a restore carries (the guard's, the runner's): which alarm, when seen, and the drill when named. */
export interface AlarmVerdict {
  readonly alarm: string;
  readonly at: number;
  readonly drill: string | undefined;
}

function alarmVerdictOf(request: ClusterChangeRequest): AlarmVerdict | undefined {
  if (request.action !== 'restore' || request.stoppedByAlarm === undefined || request.alarmAt === undefined) return undefined;
  return { alarm: request.stoppedByAlarm, at: request.alarmAt, drill: request.drill };
}

/** Changes to drill nodes of one cluster within one request: each node read once, set once. */
class DrillEdits {
  private readonly nodes = new Map<string, { readonly read: DrillNode; node: DrillNode; readonly version: number }>();

  constructor(
    private readonly context: DrillWriteContext,
    private readonly cluster: string,
  ) {}

  /** Applies `edit` to the drill `name` of this cluster; nothing when there is no such drill (or the name is no node name). */
  async change(name: string, edit: (node: DrillNode) => DrillNode): Promise<void> {
    let path: string;
    try {
      path = drillPath(this.context.drillsPath, name);
    } catch {
      return;
    }
    let entry = this.nodes.get(path);
    if (entry === undefined) {
      const { node, version } = await readDrill(this.context.session, path);
      if (node === undefined || version === undefined || !isDrillOf(node.definition, { cluster: this.cluster })) return;
      entry = { read: node, node, version };
      this.nodes.set(path, entry);
    }
    entry.node = edit(entry.node);
  }

  /** A set for every node an edit changed. */
  ops(): MultiOp[] {
    return [...this.nodes].filter(([, e]) => e.node !== e.read).map(([path, e]) => setNode(path, e.node, e.version, this.context.now));
  }
}

/** The active run `runId` ended by `request` (or moved by an extend); `node` itself when it is not running. */
function endActiveRun(node: DrillNode, runId: string, request: ClusterChangeRequest, now: number): DrillNode {
  const run = node.runs.find((r) => r.runId === runId && r.status === 'running');
  if (run === undefined) return node;
  let ended: DrillRun;
  if (request.action === 'extend') ended = { ...run, endsAt: request.onlineAt };
  else if (request.action === 'restore' && request.stoppedByAlarm !== undefined) {
    const alarmAt = request.alarmAt ?? now;
    // An ALARM seen before the run began (an event delivered late) stops it, but is no verdict on it.
    const status = alarmAt < run.at ? 'interrupted' : verdictStatus(runAlarms(run, node.definition), request.stoppedByAlarm);
    ended = { ...run, status, endedAt: now, endedBy: request.requestId, stoppedByAlarm: request.stoppedByAlarm, alarmAt };
  } else ended = { ...run, status: 'replaced', endedAt: now, endedBy: request.requestId };
  return replaceRun(node, run, ended);
}

/**
 * The verdict of an alarm seen in ALARM at `verdict.at` on the run it was seen in; `node` itself when
 * no run takes it, or the alarm is none of that run's (those it started under: `runAlarms`).
 */
export function judgeRun(node: DrillNode, verdict: AlarmVerdict, requestId: string, now: number): DrillNode {
  const run = node.runs.find((r) => runTakesVerdict(r, verdict.at, now));
  if (run === undefined) return node;
  const alarms = runAlarms(run, node.definition);
  if (verdict.alarm !== alarms.outcomeAlarm && !alarms.blockingAlarms.includes(verdict.alarm)) return node;
  const status = verdictStatus(alarms, verdict.alarm);
  // A run that passed ended with its window; one already judged keeps when and by whom it was ended.
  return replaceRun(node, run, { ...run, status, stoppedByAlarm: verdict.alarm, alarmAt: verdict.at, endedAt: run.endedAt ?? run.endsAt ?? now, endedBy: run.endedBy ?? requestId });
}

/** `node` with `run` replaced by `next`. */
export function replaceRun(node: DrillNode, run: DrillRun, next: DrillRun): DrillNode {
  return { ...node, runs: node.runs.map((r) => (r === run ? next : r)) };
}

/** The run a `skipDrill` records: skipped, with why and when it was due. */
export function skippedRun(request: { readonly requestId: string; readonly skipReason: SkipReason; readonly scheduledAt?: number; readonly detail?: string }, now: number): DrillRun {
  return {
    runId: request.requestId,
    status: 'skipped',
    at: now,
    skipReason: request.skipReason,
    ...(request.scheduledAt === undefined ? {} : { scheduledAt: request.scheduledAt }),
    ...(request.detail === undefined ? {} : { detail: request.detail }),
  };
}

/** `node` with `run` as its newest (a run of the same id replaced); runs are resolved and bounded when stored (encodeDrillNode). */
export function withRun(node: DrillNode, run: DrillRun): DrillNode {
  return { ...node, runs: [run, ...node.runs.filter((r) => r.runId !== run.runId)] };
}

function definitionOf(request: PutDrillChangeRequest, now: number): DrillNode['definition'] {
  return {
    name: request.drill,
    cluster: request.cluster,
    peers: request.peers,
    durationMs: request.durationMs,
    buckets: request.buckets,
    every: request.every,
    outcomeAlarm: request.outcomeAlarm,
    blockingAlarms: request.blockingAlarms,
    blockedDates: request.blockedDates,
    blockedWindows: request.blockedWindows,
    definedAt: now,
    ...(request.requestedBy === undefined ? {} : { definedBy: request.requestedBy }),
    requestId: request.requestId,
  };
}
