import { parseClusterProperties } from '../d2/data';
import { resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import { drillPath, decodeDrillNode, encodeDrillNode, runningRun, type DrillNode, type DrillRun } from './drill-node';
import { activeDrillWindow, isDrillAction } from './drill-rules';
import type { DrillChangeRequest, PutDrillChangeRequest, SkipReason } from './drill-schema';
import type { Judgement } from './judge-request';
import { readPeerStates } from './peer-states';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ChangeRequest, FailoutChangeRequest } from './schema';

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
 *   active: the run becomes `replaced` (an operator's failout or restore), `failed` (a guard's restore,
 *   `stoppedByAlarm`), or gets the new end (`extend`).
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

/** The drill node at `path`, with its version; undefined when there is none. A node that does not decode counts as none: a drill action may rewrite it. */
async function readDrill(session: ZkReader, path: string): Promise<{ node: DrillNode | undefined; version: number | undefined }> {
  const found = await session.read(path);
  if (!found.exists) return { node: undefined, version: undefined };
  try {
    return { node: decodeDrillNode(found.data), version: found.stat.version };
  } catch {
    return { node: undefined, version: found.stat.version };
  }
}

function reject(problem: Problem, requestId: string): DrillEffects {
  return { ops: [], rejection: rejectionOf([problem], requestId) };
}

function setNode(path: string, node: DrillNode, version: number): MultiOp {
  return { op: 'set', path, data: encodeDrillNode(node), version };
}

/** The drill effects of `request`, given the judgement of its cluster write. */
export async function drillEffectsOf(context: DrillWriteContext, request: ChangeRequest, judgement: Judgement): Promise<DrillEffects> {
  if (isDrillAction(request)) return judgement.verdict === 'reject' ? NONE : drillActionEffects(context, request);
  if (request.action === 'failout' && request.drill !== undefined) return drillFailoutEffects(context, request, judgement);
  if (judgement.verdict === 'reject' || judgement.unchanged) return NONE;
  return endingEffects(context, request, judgement.beforeText);
}

/**
 * A drill's failout before judging: `unknownDrill` unless the drill exists for the request's cluster
 * (then no run can be recorded: there is no drill to record it in).
 */
export async function drillFailoutPrecheck(context: DrillWriteContext, request: FailoutChangeRequest): Promise<Rejection | undefined> {
  if (request.drill === undefined) return undefined;
  const { node } = await readDrill(context.session, drillPath(context.drillsPath, request.drill));
  if (node === undefined || node.definition.cluster !== request.cluster) {
    return rejectionOf([{ reason: 'unknownDrill', message: `drill: ${JSON.stringify(request.drill)} is not a drill of cluster ${JSON.stringify(request.cluster)}` }], request.requestId);
  }
  return undefined;
}

async function drillActionEffects(context: DrillWriteContext, request: DrillChangeRequest): Promise<DrillEffects> {
  const path = drillPath(context.drillsPath, request.drill);
  const { node, version } = await readDrill(context.session, path);
  const foreign = node !== undefined && node.definition.cluster !== request.cluster;
  if (request.action === 'putDrill') {
    if (foreign) return reject({ reason: 'badDrill', message: `drill: ${JSON.stringify(request.drill)} is a drill of cluster ${JSON.stringify(node.definition.cluster)}; delete it there first, or choose another name` }, request.requestId);
    const peers = await readPeerStates(context.session, context.d2BasePath, request.peers.map((p) => p.cluster));
    const unknown = request.peers.findIndex((p) => !peers.get(p.cluster)?.exists);
    if (unknown >= 0) return reject({ reason: 'unknownPeer', message: `peers[${unknown}].cluster: ${JSON.stringify(request.peers[unknown]!.cluster)} has no cluster node` }, request.requestId);
    const next: DrillNode = { version: 1, definition: definitionOf(request, context.now), runs: node?.runs ?? [] };
    if (version === undefined) return { ops: [{ op: 'create', path, data: encodeDrillNode(next), acl: resolveAcl(context.acl, path) }] };
    return { ops: [setNode(path, next, version)] };
  }
  if (node === undefined || version === undefined || foreign) {
    return reject({ reason: 'unknownDrill', message: `drill: ${JSON.stringify(request.drill)} is not a drill of cluster ${JSON.stringify(request.cluster)}` }, request.requestId);
  }
  if (request.action === 'deleteDrill') {
    const running = runningRun(node, context.now);
    if (running) return reject({ reason: 'drillRunning', message: `drill: ${JSON.stringify(request.drill)} has a run moving traffic (${running.runId}); restore the cluster or wait until ${new Date(running.endsAt ?? context.now).toISOString()}` }, request.requestId);
    return { ops: [{ op: 'remove', path, version }] };
  }
  const run: DrillRun = {
    runId: request.requestId,
    status: 'skipped',
    at: context.now,
    skipReason: request.skipReason,
    ...(request.scheduledAt === undefined ? {} : { scheduledAt: request.scheduledAt }),
    ...(request.detail === undefined ? {} : { detail: request.detail }),
  };
  return { ops: [setNode(path, withRun(node, run), version)] };
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
    return { ops: [setNode(path, withRun(node, run), version)] };
  }
  const run: DrillRun = {
    runId: request.requestId,
    status: 'running',
    at: context.now,
    endsAt: request.onlineAt,
    buckets: request.buckets,
    peers: request.peers,
  };
  return { ops: [setNode(path, withRun(node, run), version)] };
}

async function endingEffects(context: DrillWriteContext, request: Exclude<ChangeRequest, DrillChangeRequest>, beforeText: string): Promise<DrillEffects> {
  let active;
  try {
    active = activeDrillWindow(parseClusterProperties(Buffer.from(beforeText, 'utf8')).failoutProperties, context.now);
  } catch {
    return NONE;
  }
  if (active === undefined || active.runId === undefined) return NONE;
  let path: string;
  try {
    path = drillPath(context.drillsPath, active.drill);
  } catch {
    return NONE;
  }
  const { node, version } = await readDrill(context.session, path);
  const run = node?.runs.find((r) => r.runId === active.runId && r.status === 'running');
  if (node === undefined || version === undefined || run === undefined) return NONE;
  let ended: DrillRun;
  if (request.action === 'extend') ended = { ...run, endsAt: request.onlineAt };
  else if (request.action === 'restore' && request.stoppedByAlarm !== undefined) {
    ended = { ...run, status: 'failed', endedAt: context.now, endedBy: request.requestId, stoppedByAlarm: request.stoppedByAlarm };
  } else ended = { ...run, status: 'replaced', endedAt: context.now, endedBy: request.requestId };
  return { ops: [setNode(path, { ...node, runs: node.runs.map((r) => (r === run ? ended : r)) }, version)] };
}

function withRun(node: DrillNode, run: DrillRun): DrillNode {
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
