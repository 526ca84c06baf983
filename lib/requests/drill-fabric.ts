import { resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import { drillTargetText, isDrillOf, putFabricDrillProblem, readDrillNode } from './drill-checks';
import { drillPath, encodeDrillNode, runAlarms, runningRun, startedUnder, type DrillNode, type DrillRun, type FabricDrillDefinition } from './drill-node';
import { verdictStatus } from './drill-rules';
import type { FabricDrillChangeRequest, PutFabricDrillChangeRequest, SkipReason } from './drill-schema';
import { judgeRun, replaceRun, setNode, skippedRun, withRun, type AlarmVerdict, type DrillEffects } from './drill-writes';
import type { EvacuateChangeRequest } from './evacuate-schema';
import { rejectionOf, type Problem, type Rejection } from './rejection';

/**
 * Drain tests in their drill nodes (issue 23, item 5): a drill of a fabric keeps the same node as a
 * cluster's drill (`/failout/drills/<name>`: definition and latest runs), and its runs take the same
 * outcomes, but a run is an `evacuate` carrying `drill: <name>`, so the node changes ride in the
 * evacuation's multis (evacuation-writes.ts) instead of a cluster's:
 * - `putDrill`/`deleteDrill`/`skipDrill` naming a fabric: {@link fabricDrillEffectsOf};
 * - a run's `evacuate`: `unknownDrill` unless the drill is this fabric's ({@link drainTestPrecheck});
 *   applied, a `running` run ending at the evacuation's end; refused, a `skipped` run with the reason
 *   ({@link drainTestStartOps});
 * - the end of its evacuation before its time ({@link drainTestEndOps}): a `restoreFabric` with
 *   `stoppedByAlarm` makes the run `failed` (the outcome alarm) or `interrupted` (any other of its
 *   alarms); an operator's `evacuate` or `restoreFabric` makes it `replaced`;
 * - a `restoreFabric` carrying a verdict (`stoppedByAlarm`, `alarmAt`, `drill`) that finds the
 *   evacuation over: the run whose window held `alarmAt` takes it ({@link drainTestVerdictOps}), as
 *   drill-writes.ts does for a cluster's late restore.
 * Every function reads the node and returns at most one set of it, behind its version.
 */

/** Where drills (and fabrics, for a definition's checks) live, the ACL of created nodes, and the time. */
export interface DrainTestContext {
  readonly session: ZkReader;
  readonly d2BasePath: string;
  readonly drillsPath: string;
  readonly fabricsPath?: string | undefined;
  /** The maximum window a drain test's runs must return within (`MAX_FAILOUT_WINDOW`); default 72 h, as the parse's. */
  readonly maxWindowMs?: number | undefined;
  readonly acl: AclSource;
  readonly now: number;
}

function reject(problem: Problem, requestId: string): DrillEffects {
  return { ops: [], rejection: rejectionOf([problem], requestId) };
}

function unknownDrill(drill: string, fabric: string, node: DrillNode | undefined): Problem {
  const other = node === undefined ? '' : ` (it is a drill of ${drillTargetText(node.definition)})`;
  return { reason: 'unknownDrill', message: `drill: ${JSON.stringify(drill)} is not a drill of fabric ${JSON.stringify(fabric)}${other}` };
}

/** What a drain test's own action does to its node (the module doc). */
export async function fabricDrillEffectsOf(context: DrainTestContext, request: FabricDrillChangeRequest): Promise<DrillEffects> {
  const path = drillPath(context.drillsPath, request.drill);
  const { node, version } = await readDrillNode(context.session, path);
  if (request.action === 'putDrill') {
    const problem = await putFabricDrillProblem(context.session, context, request, node);
    if (problem) return reject(problem, request.requestId);
    const next: DrillNode = { version: 1, definition: fabricDefinitionOf(request, context.now), runs: node?.runs ?? [] };
    if (version === undefined) return { ops: [{ op: 'create', path, data: encodeDrillNode(next, context.now), acl: resolveAcl(context.acl, path) }] };
    return { ops: [setNode(path, next, version, context.now)] };
  }
  if (node === undefined || version === undefined || !isDrillOf(node.definition, request)) return reject(unknownDrill(request.drill, request.fabric, node), request.requestId);
  if (request.action === 'deleteDrill') {
    const running = runningRun(node, context.now);
    if (running) {
      const until = new Date(running.endsAt ?? context.now).toISOString();
      return reject({ reason: 'drillRunning', message: `drill: ${JSON.stringify(request.drill)} has a run evacuating its fabric (${running.runId}); restore the fabric (failout restore --fabric ${request.fabric}) or wait until ${until}` }, request.requestId);
    }
    return { ops: [{ op: 'remove', path, version }] };
  }
  return { ops: [setNode(path, withRun(node, skippedRun(request, context.now)), version, context.now)] };
}

/** A run's `evacuate` before judging: `unknownDrill` unless its drill is a drain test of the request's fabric. */
export async function drainTestPrecheck(context: Pick<DrainTestContext, 'session' | 'drillsPath'>, request: EvacuateChangeRequest): Promise<Rejection | undefined> {
  if (request.drill === undefined) return undefined;
  const { node } = await readDrillNode(context.session, drillPath(context.drillsPath, request.drill));
  if (node !== undefined && isDrillOf(node.definition, request)) return undefined;
  return rejectionOf([unknownDrill(request.drill, request.fabric, node)], request.requestId);
}

/** What came of a run's `evacuate`: started (its end and how many clusters it moves), or refused. */
export type DrainTestStart = { readonly endsAt: number; readonly clusters: number } | { readonly rejection: Rejection };

/**
 * The drill node's op for a run's `evacuate` (none for an operator's): a `running` run, or a `skipped`
 * one saying why (`operatorFailoutActive` and `drillRunning` as such, any other refusal `rejected`).
 * A node gone since the precheck: a check that fails the multi, so the next attempt finds it gone.
 */
export async function drainTestStartOps(context: Pick<DrainTestContext, 'session' | 'drillsPath' | 'now'>, request: EvacuateChangeRequest, start: DrainTestStart): Promise<MultiOp[]> {
  if (request.drill === undefined) return [];
  const path = drillPath(context.drillsPath, request.drill);
  const { node, version } = await readDrillNode(context.session, path);
  if (node === undefined || version === undefined) return [{ op: 'check', path, version: 0 }];
  let run: DrillRun;
  if ('rejection' in start) {
    const reason = start.rejection.reason;
    const skipReason: SkipReason = reason === 'operatorFailoutActive' || reason === 'drillRunning' ? reason : 'rejected';
    run = { runId: request.requestId, status: 'skipped', at: context.now, skipReason, detail: `${reason}: ${start.rejection.message}` };
  } else {
    run = { runId: request.requestId, status: 'running', at: context.now, endsAt: start.endsAt, clusters: start.clusters, ...startedUnder(node.definition) };
  }
  return [setNode(path, withRun(node, run), version, context.now)];
}

/** How a drain test's evacuation ended before its time: by whose request, and the alarm when one stopped it. */
export interface DrainTestEnd {
  readonly requestId: string;
  readonly stoppedByAlarm?: string | undefined;
  readonly alarmAt?: number | undefined;
  /** Why, when an operator's request on another fabric ended it. */
  readonly detail?: string | undefined;
}

/**
 * The drill node's op when run `runId` of drain test `drill` ends before its time (the module doc),
 * with `verdict` (a restore's alarm) given to the run whose time held it when that is another, ended
 * run; none when nothing changes (the node is gone, or a redelivered request ended the run already).
 */
export async function drainTestEndOps(context: Pick<DrainTestContext, 'session' | 'drillsPath' | 'now'>, drill: string, runId: string, end: DrainTestEnd, verdict?: AlarmVerdict): Promise<MultiOp[]> {
  const found = await readRun(context, drill, runId);
  if (found === undefined) return [];
  const { run, path, version } = found;
  let node = found.node;
  if (run.status === 'running') {
    let ended: DrillRun;
    if (end.stoppedByAlarm !== undefined) {
      const alarmAt = end.alarmAt ?? context.now;
      // An ALARM seen before the run began (an event delivered late) stops it, but is no verdict on it.
      const status = alarmAt < run.at ? 'interrupted' : verdictStatus(runAlarms(run, node.definition), end.stoppedByAlarm);
      ended = { ...run, status, endedAt: context.now, endedBy: end.requestId, stoppedByAlarm: end.stoppedByAlarm, alarmAt };
    } else {
      ended = { ...run, status: 'replaced', endedAt: context.now, endedBy: end.requestId, ...(end.detail === undefined ? {} : { detail: end.detail }) };
    }
    node = replaceRun(node, run, ended);
  }
  if (verdict !== undefined && (verdict.drill === undefined || verdict.drill === drill)) node = judgeRun(node, verdict, end.requestId, context.now);
  return node === found.node ? [] : [setNode(path, node, version, context.now)];
}

/**
 * The drill node's op for a verdict that reaches a drain test after its evacuation ended (the module
 * doc): the run whose time moving traffic held `verdict.at` becomes `failed` or `interrupted`; none
 * when no run of a drain test of `fabric` takes it.
 */
export async function drainTestVerdictOps(context: Pick<DrainTestContext, 'session' | 'drillsPath' | 'now'>, fabric: string, verdict: AlarmVerdict, requestId: string): Promise<MultiOp[]> {
  if (verdict.drill === undefined) return [];
  let path: string;
  try {
    path = drillPath(context.drillsPath, verdict.drill);
  } catch {
    return [];
  }
  const { node, version } = await readDrillNode(context.session, path);
  if (node === undefined || version === undefined || !isDrillOf(node.definition, { fabric })) return [];
  const judged = judgeRun(node, verdict, requestId, context.now);
  return judged === node ? [] : [setNode(path, judged, version, context.now)];
}

async function readRun(context: Pick<DrainTestContext, 'session' | 'drillsPath'>, drill: string, runId: string): Promise<{ node: DrillNode; run: DrillRun; path: string; version: number } | undefined> {
  let path: string;
  try {
    path = drillPath(context.drillsPath, drill);
  } catch {
    return undefined;
  }
  const { node, version } = await readDrillNode(context.session, path);
  const run = node?.runs.find((r) => r.runId === runId);
  return node === undefined || version === undefined || run === undefined ? undefined : { node, run, path, version };
}

function fabricDefinitionOf(request: PutFabricDrillChangeRequest, now: number): FabricDrillDefinition {
  return {
    name: request.drill,
    fabric: request.fabric,
    evacuation: request.evacuation,
    durationMs: request.durationMs,
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
