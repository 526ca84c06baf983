import { clusterPath, isMalformed, parseClusterProperties, serializeClusterProperties, type ClusterProperties, type FailoutProperties } from '../d2/data';
import { resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import type { EvacuateChangeRequest, RestoreFabricChangeRequest } from './evacuate-schema';
import { activeDrillWindow } from './drill-rules';
import { drainTestEndOps, drainTestStartOps, drainTestVerdictOps } from './drill-fabric';
import { DEFAULT_DRILLS_PATH } from './drill-node';
import { yieldedDrillOps } from './drill-yield';
import { judgeEvacuation, restoreOfUnknownFabric, type EvacuationJudgeOptions, type EvacuationYield } from './evacuation-judge';
import { drainTestEndedByRestore, encodeEvacuationNode, evacuationPath, isEndingFor, readStoredEvacuation, readStoredEvacuations, stageBackAt, type EvacuationNode } from './evacuation-node';
import { carriesEvacuation, evacuatedFailout, openEvacuationWindow, restoredFailout, withForced } from './evacuation-plan';
import { windowMadeAfterAlarm } from './stop-alarms';

export { restoredFailout } from './evacuation-plan';
import { encodeFailoutView, failoutText, readFailoutView, withViewEntries, type FailoutView } from './failout-view';
import { forEachLimit } from '../concurrency';
import { rejectionOf, type Rejection } from './rejection';
import type { EvacuationWrite, ForceOverride } from './request-record';

/**
 * How an evacuation is written (issue 23, ARCHITECTURE "Fabrics and evacuation"):
 * - **One multi** when it fits {@link EvacuationWriteOptions.maxMultiBytes}: every member cluster's
 *   `setData` at the version judged, the view of open failouts, the fabric's evacuation node and the
 *   request record. Clients never see half an evacuation, and a redelivery finds the record.
 * - **An ordered plan** when it does not (ZooKeeper refuses a request larger than `jute.maxbuffer`,
 *   1 MB by default): first the evacuation node with the plan (status `applying`), then the clusters
 *   in steps of at most `maxMultiBytes`, each step one multi with the view and the node's progress
 *   (`written`: how many of the plan's clusters, in stage order, the steps so far wrote), the last with
 *   status `applied` and the record. A worker that dies between steps leaves the message
 *   unacknowledged; the redelivery finds the node `applying` with its own request id and continues
 *   from `written`: a cluster a step wrote is never written again, so a cluster request applied in
 *   between (an operator's restore or failout of a cluster the plan moved already: its own FIFO group)
 *   stands, and a cluster that already carries the evacuation is not written again either.
 * A `restoreFabric` is written the same way (its node change first when in steps): each cluster of
 * the evacuation still carrying it ends its windows at now plus (S−1−k) × `restoreGap` for stage k,
 * the last stage first; windows not started yet are removed.
 *
 * Drain tests (a drill of a fabric, issue 23): a run's `evacuate` records its run (`running`, or
 * `skipped` when refused) in the drill node within the same multi as its record (drill-fabric.ts).
 * An operator's `evacuate` while a drain test's evacuation is open ends it: the drain test's clusters
 * come home now (their windows end), its node says `restored` by the operator's request and its run
 * `replaced`, in the same multi as the operator's evacuation; when both do not fit one multi, the
 * drain test is ended first (in steps, without a record) and the evacuation judged again. An
 * operator's `restoreFabric` ends the drain test's evacuation whatever fabric it names (an operator's
 * action on fabrics always takes precedence); a guard's ends it with the run's verdict (`failed` by
 * the outcome alarm, `interrupted` by another of its alarms), or brings a verdict late.
 */

/** Default byte budget of one multi: below ZooKeeper's default `jute.maxbuffer` (1,048,575 bytes) with room for the request's framing. */
export const DEFAULT_MAX_MULTI_BYTES = 900 * 1024;

/** What the evacuation writes need from the request writer. */
export interface EvacuationWriteOptions {
  readonly session: ZkReader;
  readonly d2BasePath: string;
  readonly evacuationsPath: string;
  readonly judge: EvacuationJudgeOptions & { readonly viewPath: string };
  readonly acl: AclSource;
  /** Byte budget of one multi (paths and data); default {@link DEFAULT_MAX_MULTI_BYTES}. */
  readonly maxMultiBytes?: number;
  /** Parent of the drills (a drain test's runs are recorded there); default `/failout/drills`. */
  readonly drillsPath?: string;
  /**
   * Runs one multi. With `final`, the writer adds the request record's create (built from `final`) as
   * its last op and keeps the outcome (`done`). `conflict`: a cluster's or the node's version moved;
   * `viewConflict`: only the view did (another cluster's writer made progress).
   */
  readonly run: (ops: MultiOp[], final: FinalStep | undefined) => Promise<StepOutcome>;
}

/** What the record of the last step says (the writer adds the rest). */
export interface FinalStep {
  readonly write: EvacuationWrite;
  /** The evacuation node's version after the step (null: no node). */
  readonly version: number | null;
  readonly forced?: readonly ForceOverride[];
  /** A restore with nothing to end. */
  readonly unchanged?: true;
}

/** What came of one multi. */
export type StepOutcome = 'ok' | 'done' | 'conflict' | 'viewConflict';

/** The result of one evacuation attempt for the writer. */
export type EvacuationResult =
  /** Refused: record this rejection (the verdict rests on reads only), with `ops` (a drain test's skipped run) in the same multi. */
  | { readonly kind: 'reject'; readonly rejection: Rejection; readonly ops?: readonly MultiOp[] }
  /** A version moved under a step: judge (or continue) again. */
  | { readonly kind: 'conflict' | 'viewConflict' }
  /** The last step (with the record) was written: the writer has the outcome. */
  | { readonly kind: 'done' };

/** The bytes of a set or create op: what the multi sends of it, near enough. */
function bytesOf(ops: readonly MultiOp[]): number {
  let n = 0;
  for (const op of ops) n += Buffer.byteLength(op.path) + 16 + ('data' in op && op.data !== undefined ? op.data.length : 0);
  return n;
}

/** One cluster's new node: the set op at the version read. */
interface ClusterWrite {
  readonly cluster: string;
  readonly op: MultiOp;
  readonly failout: FailoutProperties | null;
  /** Its index among the plan's clusters in stage order (a plan's member; none for a receiver's drill giving way). */
  readonly planIndex?: number;
  /**
   * Ops that go in the same multi as this cluster's write: the drill node of a cluster drill run its
   * write ends (`replaced`), so that a plan cut short by a crash never leaves a run `running` whose
   * windows are gone, nor one `replaced` whose windows are still there.
   */
  readonly withOps?: readonly MultiOp[];
}

/** The ops of writes, each cluster's set followed by the ops that go with it. */
function opsOf(writes: readonly ClusterWrite[]): MultiOp[] {
  return writes.flatMap((w) => [w.op, ...(w.withOps ?? [])]);
}

function setOf(path: string, version: number, props: ClusterProperties, failout: FailoutProperties | null): MultiOp {
  return { op: 'set', path, data: Buffer.from(serializeClusterProperties({ ...props, failoutProperties: failout }), 'utf8'), version };
}

/** Writes evacuations and their restores (the module doc). */
export class EvacuationWrites {
  private readonly maxMultiBytes: number;
  private readonly drillsPath: string;

  constructor(private readonly options: EvacuationWriteOptions) {
    this.maxMultiBytes = options.maxMultiBytes ?? DEFAULT_MAX_MULTI_BYTES;
    this.drillsPath = options.drillsPath ?? DEFAULT_DRILLS_PATH;
  }

  /** What the drill-node functions need (drill-fabric.ts). */
  private drills(now: number): { session: ZkReader; drillsPath: string; now: number } {
    return { session: this.options.session, drillsPath: this.drillsPath, now };
  }

  /** One attempt at an `evacuate`: continue its plan (a redelivery after a crash), or judge and write it. */
  async evacuate(request: EvacuateChangeRequest, now: number): Promise<EvacuationResult> {
    const { session, evacuationsPath } = this.options;
    const stored = await readStoredEvacuation(session, evacuationsPath, request.fabric);
    const ownNode = stored?.node;
    if (stored !== undefined && ownNode !== undefined) {
      if (ownNode.requestId === request.requestId && ownNode.status === 'applying') return this.continuePlan(ownNode, stored.version, request, now);
      // Its plan was ended (restored, or stopped by an alarm) before a redelivery got here: never again.
      if (ownNode.requestId === request.requestId && (ownNode.status === 'restored' || ownNode.status === 'stopped')) {
        const write = { mode: ownNode.mode, clusters: ownNode.written, stages: ownNode.plan.stages.length, multiBytes: 0 };
        return resultOf(await this.options.run([{ op: 'check', path: stored.path, version: stored.version }], { write, version: stored.version, unchanged: true }));
      }
    }
    const path = evacuationPath(evacuationsPath, request.fabric);
    const judgement = await judgeEvacuation(session, this.options.d2BasePath, request, now, this.options.judge);
    if (judgement.verdict === 'reject') return { kind: 'reject', rejection: judgement.rejection, ops: await drainTestStartOps(this.drills(now), request, { rejection: judgement.rejection }) };
    const { plan, props, members } = judgement;
    // In stage order, the first stage first: if the plan is written in steps, the first stage moves first.
    const writes: ClusterWrite[] = await Promise.all(
      inStageOrder(plan.clusters).map(async (c, planIndex) => {
        const read = members.get(c.cluster)!;
        const failout = props.get(c.cluster)!;
        return { cluster: c.cluster, op: setOf(read.path, read.version, read.props, failout), failout, planIndex, withOps: await this.memberDrillReplaced(request, read.props.failoutProperties, now) };
      }),
    );
    const node: EvacuationNode = {
      version: 1,
      fabric: request.fabric,
      requestId: request.requestId,
      status: 'applied',
      mode: 'multi',
      createdAt: now,
      ...(request.requestedBy === undefined ? {} : { requestedBy: request.requestedBy }),
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      ...(judgement.forced === undefined ? {} : { forced: [...judgement.forced] }),
      plan: { ...plan, receivers: mostLoaded(plan.receivers) },
      written: writes.length,
    };
    const nodeOp = (n: EvacuationNode): MultiOp =>
      judgement.evacuationVersion === undefined ? { op: 'create', path, data: encodeEvacuationNode(n), acl: resolveAcl(this.options.acl, path) } : { op: 'set', path, data: encodeEvacuationNode(n), version: judgement.evacuationVersion };
    // Cluster drill runs in an operator's evacuation's way (on receiving clusters, or stranded or crowding
    // one over the limit) give way: their clusters come home first.
    const targetYields = judgement.targetYields ?? [];
    const targetWrites: ClusterWrite[] = await Promise.all(
      targetYields.map(async (y) => ({
        cluster: y.cluster,
        op: { op: 'set' as const, path: y.path, data: Buffer.from(y.afterText, 'utf8'), version: y.version },
        failout: y.failoutProperties,
        withOps: await yieldedDrillOps(this.options.session, this.drillsPath, [y], request.requestId, now),
      })),
    );
    // A drain test's run starts (its drill node, with the record). Cluster drill runs on members and
    // receivers give way to an operator's evacuation: each with its cluster's write (`withOps`).
    const drillOps = await drainTestStartOps(this.drills(now), request, { endsAt: plan.onlineAt, clusters: plan.clusters.length });
    const yielded = judgement.yielded === undefined ? undefined : await this.yieldOf(judgement.yielded, request, now);
    const memberNames = new Set(plan.clusters.map((c) => c.cluster));
    const yieldWrites = (yielded?.writes ?? []).filter((w) => !memberNames.has(w.cluster));
    // The same fabric's drain test: the new node replaces its node (at the version judged).
    const yieldNode = yielded === undefined || judgement.yielded!.stored.fabric === request.fabric ? [] : [yielded.nodeOp];
    const all = [...opsOf(targetWrites), ...opsOf(writes), ...yieldWrites.map((w) => w.op), viewOpOf(judgement.view.path, judgement.view.version, judgement.view.after, this.options.acl), nodeOp(node), ...yieldNode, ...drillOps, ...(yielded?.drillOps ?? [])];
    const multiBytes = bytesOf(all);
    const nextVersion = judgement.evacuationVersion === undefined ? 0 : judgement.evacuationVersion + 1;
    const forced = judgement.forced === undefined ? {} : { forced: judgement.forced };
    if (multiBytes <= this.maxMultiBytes) {
      const write = { mode: 'multi' as const, clusters: writes.length, stages: plan.stages.length, multiBytes };
      return resultOf(await this.options.run(all, { write, version: nextVersion, ...forced }));
    }
    if (yielded !== undefined) {
      // Too large with the drain test's end: end the drain test first (in steps, no record), then judge again.
      const ended = await this.inSteps(yielded.writes, now, yielded.nodeBytes, (_chunk, last) => (last ? yielded.nodeOp : yielded.check), undefined, yielded.drillOps);
      return ended === 'ok' ? this.evacuate(request, now) : resultOf(ended);
    }
    // Too large for one multi: the plan first, then the clusters in steps (the writes as judged).
    const first: EvacuationNode = { ...node, status: 'applying', mode: 'plan', written: 0 };
    const created = await this.options.run([nodeOp(first)], undefined);
    if (created !== 'ok') return resultOf(created);
    return this.writePlan(first, nextVersion, [...targetWrites, ...writes], now, { multiBytes, ...forced }, drillOps);
  }

  /**
   * The end of a drain test's evacuation that gives way to an operator's `evacuate`: each of its
   * clusters' write (windows ending now), its node `restored` by the request (and a check of it for
   * the steps before the last), the run `replaced`.
   */
  private async yieldOf(yielded: EvacuationYield, request: EvacuateChangeRequest, now: number): Promise<{ writes: ClusterWrite[]; nodeOp: MultiOp; check: MultiOp; nodeBytes: number; drillOps: MultiOp[] }> {
    const { stored } = yielded;
    const { plan } = stored.node;
    const writes = [...yielded.clusters].map(([cluster, read]) => ({ cluster, op: setOf(read.path, read.version, read.props, read.failout), failout: read.failout }));
    const ended: EvacuationNode = {
      ...stored.node,
      status: 'restored',
      endedAt: now,
      ...(request.requestedBy === undefined ? {} : { endedBy: request.requestedBy }),
      endedByRequest: request.requestId,
    };
    const data = encodeEvacuationNode(ended);
    const detail = `gave way to request ${request.requestId}, an operator's evacuation of fabric ${request.fabric}`;
    const drillOps = plan.drill === undefined ? [] : await drainTestEndOps(this.drills(now), plan.drill, plan.requestId, { requestId: request.requestId, detail });
    return { writes, nodeOp: { op: 'set', path: stored.path, data, version: stored.version }, check: { op: 'check', path: stored.path, version: stored.version }, nodeBytes: data.length, drillOps };
  }

  /** The drill node op of a cluster drill run moving a member's traffic now, which an operator's evacuation replaces (its node says `replaced`). */
  private async memberDrillReplaced(request: EvacuateChangeRequest, failout: FailoutProperties | null, now: number): Promise<MultiOp[]> {
    if (request.drill !== undefined) return [];
    const active = activeDrillWindow(failout, now);
    if (active === undefined || active.runId === undefined || active.bucket.evacuation !== undefined) return [];
    return yieldedDrillOps(this.options.session, this.drillsPath, [{ drill: active.drill, runId: active.runId }], request.requestId, now);
  }

  /**
   * The clusters of an `applying` plan that its steps have not written yet (a redelivery after a
   * crash: those from the node's `written` on, in stage order), read again and written in steps, each
   * unless it carries the evacuation already. The clusters the steps wrote are left as they are now:
   * a cluster request applied since (an operator's restore or failout) is never undone.
   */
  private async continuePlan(node: EvacuationNode, nodeVersion: number, request: EvacuateChangeRequest, now: number): Promise<EvacuationResult> {
    const { plan } = node;
    const pending = new Map<string, ClusterWrite>();
    const staged = inStageOrder(plan.clusters);
    await forEachLimit(staged.map((c, planIndex) => ({ c, planIndex })).slice(node.written), READ_CONCURRENCY, async ({ c, planIndex }) => {
      const read = await this.readCluster(c.cluster);
      if (read === undefined || carriesEvacuation(read.props.failoutProperties, plan.fabric, plan.requestId, now)) return;
      const failout = withForced(evacuatedFailout(request, c, plan.stages[c.stage]!, plan.stopAlarms, read.props.failoutProperties), node.forced);
      const withOps = await this.memberDrillReplaced(request, read.props.failoutProperties, now);
      pending.set(c.cluster, { cluster: c.cluster, op: setOf(read.path, read.version, read.props, failout), failout, planIndex, withOps });
    });
    const ordered = staged.flatMap((c) => (pending.has(c.cluster) ? [pending.get(c.cluster)!] : []));
    const drillOps = await drainTestStartOps(this.drills(now), request, { endsAt: plan.onlineAt, clusters: plan.clusters.length });
    // The record of a forced evacuation says what force overrode, as the first attempt's would have.
    return this.writePlan(node, nodeVersion, ordered, now, node.forced === undefined ? undefined : { multiBytes: 0, forced: node.forced }, drillOps);
  }

  /**
   * Writes a plan's clusters in steps; each step sets the evacuation node at the version it left (the
   * plan did not change) with its progress (`written`, so that a redelivery after a crash continues
   * where the steps stopped), the last one marks it applied and creates the record. Every step has room
   * for the whole node (the budget of {@link inSteps}), so its progress costs no step.
   */
  private async writePlan(node: EvacuationNode, nodeVersion: number, writes: readonly ClusterWrite[], now: number, judged: { multiBytes: number; forced?: readonly ForceOverride[] } | undefined, lastOps: readonly MultiOp[]): Promise<EvacuationResult> {
    const { plan } = node;
    const path = evacuationPath(this.options.evacuationsPath, plan.fabric);
    const applied = encodeEvacuationNode({ ...node, status: 'applied', written: plan.clusters.length });
    let version = nodeVersion;
    let written = node.written;
    const outcome = await this.inSteps(
      writes,
      now,
      // The node as `applying` with any count of clusters written is at most a few bytes longer than as `applied`.
      applied.length + 16,
      (chunk, last) => {
        for (const w of chunk) if (w.planIndex !== undefined) written = Math.max(written, w.planIndex + 1);
        const data = last ? applied : encodeEvacuationNode({ ...node, status: 'applying', written });
        return { op: 'set', path, data, version: version++ };
      },
      (steps) => ({
        write: { mode: 'plan', clusters: plan.clusters.length, stages: plan.stages.length, multiBytes: judged?.multiBytes ?? 0, steps },
        version: nodeVersion + steps,
        ...(judged?.forced === undefined ? {} : { forced: judged.forced }),
      }),
      lastOps,
    );
    return resultOf(outcome);
  }

  /**
   * One attempt at a `restoreFabric` (the module doc): the fabric's open evacuation, or for an
   * operator's restore with none open there, a drain test's open on another fabric.
   */
  async restore(request: RestoreFabricChangeRequest, now: number): Promise<EvacuationResult> {
    const { session } = this.options;
    const own = await this.readEvacuation(request.fabric);
    // A node that does not decode may still stand for traffic moved: a restore brings home whatever
    // carries the fabric's evacuation (a guard's, what names its alarm) and removes the node (a new
    // evacuation is refused while it stands).
    if (own.version !== undefined && own.node === undefined) return this.restoreUnreadable(request, own.path, own.version, now);
    const target = await this.restoreTarget(request, own, now);
    const verdict = request.stoppedByAlarm !== undefined && request.alarmAt !== undefined ? { alarm: request.stoppedByAlarm, at: request.alarmAt, drill: request.drill } : undefined;
    if (target === undefined) {
      // Windows of the fabric's evacuation that outlive it (an operator's `failout extend` of a member)
      // or name an alarm only some members have (`failout amend`): home now, the node as it is.
      const carrying = await this.restoreCarrying(request, own, now, verdict);
      if (carrying !== undefined) return carrying;
      // An operator's restore of a name that is no fabric and was never evacuated: a typo, said as such
      // (a known fabric with nothing open stays an applied no-op, so a restore can always be repeated).
      if (own.version === undefined && request.stoppedByAlarm === undefined) {
        const unknown = await restoreOfUnknownFabric(this.options.session, this.options.d2BasePath, request.fabric, this.options.judge.fabricsPath);
        if (unknown !== undefined) return { kind: 'reject', rejection: rejectionOf([unknown], request.requestId) };
      }
      const write = { mode: 'multi' as const, clusters: 0, stages: 0, multiBytes: 0 };
      const check: MultiOp[] = own.version === undefined ? [] : [{ op: 'check', path: own.path, version: own.version }];
      // A verdict that comes after the drain test's evacuation ended still judges its run.
      const drillOps = verdict === undefined ? [] : await drainTestVerdictOps(this.drills(now), request.fabric, verdict, request.requestId);
      return resultOf(await this.options.run([...check, ...drillOps], { write, version: own.version ?? null, unchanged: true }));
    }
    const { path, version: read, node, continuing } = target;
    const { plan } = node;
    const count = plan.stages.length;
    const found = new Map<string, ClusterWrite>();
    await forEachLimit(plan.clusters, READ_CONCURRENCY, async (c) => {
      const cluster = await this.readCluster(c.cluster);
      if (cluster === undefined || !carriesEvacuation(cluster.props.failoutProperties, plan.fabric, plan.requestId, now)) return;
      const failout = restoredFailout(cluster.props.failoutProperties!, plan.fabric, plan.requestId, stageBackAt(plan, c.stage, now), now);
      if (failout !== 'unchanged') found.set(c.cluster, { cluster: c.cluster, op: setOf(cluster.path, cluster.version, cluster.props, failout), failout });
    });
    // In the plan's order, last stage first: if the restore is written in steps, the last stage returns first.
    const writes = [...plan.clusters].sort((a, b) => b.stage - a.stage).flatMap((c) => (found.has(c.cluster) ? [found.get(c.cluster)!] : []));
    const ended: EvacuationNode = continuing
      ? node
      : {
          ...node,
          status: request.stoppedByAlarm === undefined ? 'restored' : 'stopped',
          endedAt: now,
          ...(request.requestedBy === undefined ? {} : { endedBy: request.requestedBy }),
          endedByRequest: request.requestId,
          ...(request.stoppedByAlarm === undefined ? {} : { stoppedByAlarm: request.stoppedByAlarm }),
        };
    const view = await readFailoutView(session, this.options.judge.viewPath, this.options.d2BasePath, now);
    const after = withViewEntries(view.view, writes.map((w) => [w.cluster, w.failout] as const), now);
    const nodeOp: MultiOp = continuing ? { op: 'check', path, version: read } : { op: 'set', path, data: encodeEvacuationNode(ended), version: read };
    // A drain test's run ends with it: its verdict (a guard's or the runner's restore) or `replaced` (an operator's).
    const detail = plan.fabric === request.fabric ? undefined : `ended by request ${request.requestId}, an operator's restore of fabric ${request.fabric}`;
    const drillOps = plan.drill === undefined ? [] : await drainTestEndOps(this.drills(now), plan.drill, plan.requestId, { requestId: request.requestId, stoppedByAlarm: request.stoppedByAlarm, alarmAt: request.alarmAt, detail }, verdict);
    const all = [...writes.map((w) => w.op), viewOpOf(this.options.judge.viewPath, view.version, after, this.options.acl), nodeOp, ...drillOps];
    const multiBytes = bytesOf(all);
    const version = continuing ? read : read + 1;
    if (multiBytes <= this.maxMultiBytes) {
      return resultOf(await this.options.run(all, { write: { mode: 'multi', clusters: writes.length, stages: count, multiBytes }, version }));
    }
    // In steps: the node first (the evacuation is over for every reader from here), then the clusters.
    if (!continuing) {
      const first = await this.options.run([nodeOp], undefined);
      if (first !== 'ok') return resultOf(first);
    }
    const check: MultiOp = { op: 'check', path, version };
    const outcome = await this.inSteps(
      writes,
      now,
      200,
      () => check,
      (steps) => ({ write: { mode: 'plan', clusters: writes.length, stages: count, multiBytes, steps }, version }),
      drillOps,
    );
    return resultOf(outcome);
  }

  /**
   * The evacuation a `restoreFabric` ends: the fabric's own while open (or ended by this request: a
   * restore written in steps, continued); for an operator's, with none open there, a drain test's open
   * on another fabric (an operator's action on fabrics takes precedence). Undefined: nothing to end,
   * or a guard's restore naming an alarm the evacuation does not name (as a cluster's restore).
   */
  private async restoreTarget(request: RestoreFabricChangeRequest, own: { path: string; version: number | undefined; node: EvacuationNode | undefined }, now: number): Promise<{ path: string; version: number; node: EvacuationNode; continuing: boolean } | undefined> {
    let target = own;
    if (request.stoppedByAlarm === undefined && !isEndingFor(own.node, now, request.requestId)) {
      const other = drainTestEndedByRestore(await readStoredEvacuations(this.options.session, this.options.evacuationsPath), request.fabric, now, request.requestId);
      if (other !== undefined) target = { path: other.path, version: other.version, node: other.node };
    }
    const { path, version, node } = target;
    if (version === undefined || !isEndingFor(node, now, request.requestId)) return undefined;
    // Ended by this very request already: a restore written in steps, continued.
    const continuing = (node.status === 'restored' || node.status === 'stopped') && node.endedByRequest === request.requestId;
    if (!continuing && request.stoppedByAlarm !== undefined && !node.plan.stopAlarms.includes(request.stoppedByAlarm)) return undefined;
    // An evacuation made (and judged) after the alarm changed state is not that change's to stop (a guard's restore redriven late).
    if (!continuing && request.stoppedByAlarm !== undefined && windowMadeAfterAlarm({ requestId: node.requestId }, request.alarmAt, node.createdAt)) return undefined;
    return { path, version, node, continuing };
  }

  /**
   * {@link restore} when the fabric's evacuation is not open (its stages all ended) or is open but
   * does not name the guard's alarm: the clusters that still carry a window of an evacuation of the
   * fabric that has not ended (naming the guard's alarm, for a guard's restore) come home now. Such
   * windows outlive their evacuation when an operator extended a member (`failout extend`), and name an
   * alarm of their own when an operator added it to a member (`failout amend`): an alarm stops the
   * windows that asked to be stopped by it, and `restore --fabric` brings every cluster of the fabric
   * home. The node is checked, not changed (an open evacuation goes on for its other clusters).
   * Undefined when no cluster carries such a window.
   */
  private async restoreCarrying(request: RestoreFabricChangeRequest, own: { path: string; version: number | undefined }, now: number, verdict: { alarm: string; at: number; drill: string | undefined } | undefined): Promise<EvacuationResult | undefined> {
    const version = own.version;
    if (version === undefined) return undefined;
    const writes = await this.carryingWrites(request, now);
    if (writes.length === 0) return undefined;
    const check: MultiOp = { op: 'check', path: own.path, version };
    const drillOps = verdict === undefined ? [] : await drainTestVerdictOps(this.drills(now), request.fabric, verdict, request.requestId);
    const outcome = await this.inSteps(
      writes,
      now,
      200,
      () => check,
      (steps) => ({ write: { mode: steps > 1 ? 'plan' : 'multi', clusters: writes.length, stages: 1, multiBytes: bytesOf(writes.map((w) => w.op)), ...(steps > 1 ? { steps } : {}) }, version }),
      drillOps,
    );
    return resultOf(outcome);
  }

  /**
   * Each cluster the view says carries a window of an evacuation of `request.fabric` that has not
   * ended (naming the guard's alarm, for a guard's restore), read again, with its windows of that
   * evacuation ending now: what {@link restoreCarrying} and {@link restoreUnreadable} write.
   */
  private async carryingWrites(request: RestoreFabricChangeRequest, now: number): Promise<ClusterWrite[]> {
    const carried = (props: FailoutProperties): { readonly requestId: string } | undefined => {
      const window = openEvacuationWindow(props, request.fabric, now, request.stoppedByAlarm);
      // A guard's restore stops only windows that existed when its alarm changed state.
      return window === undefined || (request.stoppedByAlarm !== undefined && windowMadeAfterAlarm(window, request.alarmAt, now)) ? undefined : window;
    };
    const view = await readFailoutView(this.options.session, this.options.judge.viewPath, this.options.d2BasePath, now);
    const writes: ClusterWrite[] = [];
    for (const [cluster, props] of view.view) {
      if (carried(props) === undefined) continue;
      // The cluster node is the truth: the window is read there again.
      const read = await this.readCluster(cluster);
      const bucket = read?.props.failoutProperties ? carried(read.props.failoutProperties) : undefined;
      if (read === undefined || bucket === undefined) continue;
      const failout = restoredFailout(read.props.failoutProperties!, request.fabric, bucket.requestId, now, now);
      if (failout !== 'unchanged') writes.push({ cluster, op: setOf(read.path, read.version, read.props, failout), failout });
    }
    return writes;
  }

  /** {@link restore} of a fabric whose evacuation node does not decode: every cluster the view says carries its evacuation (naming the guard's alarm, for a guard's restore), home now; the node removed. */
  private async restoreUnreadable(request: RestoreFabricChangeRequest, path: string, version: number, now: number): Promise<EvacuationResult> {
    const writes = await this.carryingWrites(request, now);
    // A guard's restore that found nothing naming its alarm changes nothing, the node included.
    if (writes.length === 0 && request.stoppedByAlarm !== undefined) {
      return resultOf(await this.options.run([{ op: 'check', path, version }], { write: { mode: 'multi', clusters: 0, stages: 0, multiBytes: 0 }, version, unchanged: true }));
    }
    const outcome = await this.inSteps(
      writes,
      now,
      200,
      (_chunk, last) => (last ? { op: 'remove', path, version } : { op: 'check', path, version }),
      (steps) => ({ write: { mode: steps > 1 ? 'plan' : 'multi', clusters: writes.length, stages: 1, multiBytes: bytesOf(writes.map((w) => w.op)), ...(steps > 1 ? { steps } : {}) }, version: null }),
    );
    return resultOf(outcome);
  }

  /** The evacuation node of `fabric`: its path, version (undefined: none) and content (undefined: none, or it does not decode). */
  private async readEvacuation(fabric: string): Promise<{ path: string; version: number | undefined; node: EvacuationNode | undefined }> {
    const stored = await readStoredEvacuation(this.options.session, this.options.evacuationsPath, fabric);
    return stored === undefined ? { path: evacuationPath(this.options.evacuationsPath, fabric), version: undefined, node: undefined } : { path: stored.path, version: stored.version, node: stored.node };
  }

  /**
   * Writes `writes` in order, as many per multi as fit the budget beside the view (read afresh for
   * every step) and the step's node op (`nodeOp`, asked once per step); the last step carries
   * `lastOps` (the drill node's) and the record (`final`; none: a step like the others).
   * Resolves with the first outcome that is not `ok`, or the last step's.
   */
  private async inSteps(writes: readonly ClusterWrite[], now: number, nodeBytes: number, nodeOp: (chunk: readonly ClusterWrite[], last: boolean) => MultiOp, final: ((steps: number) => FinalStep) | undefined, lastOps: readonly MultiOp[] = []): Promise<StepOutcome> {
    let at = 0;
    for (let steps = 1; ; steps++) {
      const view = await readFailoutView(this.options.session, this.options.judge.viewPath, this.options.d2BasePath, now);
      // Room for the view as it is, what each cluster adds to it, and the node op.
      let room = this.maxMultiBytes - encodeFailoutView(view.view).length - nodeBytes - 1024;
      const chunk: ClusterWrite[] = [];
      while (at < writes.length) {
        const w = writes[at]!;
        const size = bytesOf([w.op, ...(w.withOps ?? [])]) + (w.failout === null ? 0 : Buffer.byteLength(failoutText(w.failout)) + Buffer.byteLength(w.cluster) + 4);
        if (chunk.length > 0 && size > room) break;
        room -= size;
        chunk.push(w);
        at++;
      }
      const last = at >= writes.length;
      const after = withViewEntries(view.view, chunk.map((w) => [w.cluster, w.failout] as const), now);
      const ops = [...opsOf(chunk), viewOpOf(this.options.judge.viewPath, view.version, after, this.options.acl), nodeOp(chunk, last), ...(last ? lastOps : [])];
      const outcome = await this.options.run(ops, last ? final?.(steps) : undefined);
      if (outcome !== 'ok' || last) return outcome;
    }
  }

  private async readCluster(cluster: string): Promise<{ path: string; version: number; props: ClusterProperties } | undefined> {
    const path = clusterPath(this.options.d2BasePath, cluster);
    const node = await this.options.session.read(path);
    if (!node.exists) return undefined;
    try {
      return { path, version: node.stat.version, props: parseClusterProperties(node.data) };
    } catch (e) {
      // A cluster made unreadable since the plan: it steers no traffic (readers ignore it); leave it.
      if (isMalformed(e)) return undefined;
      throw e;
    }
  }
}

/** The plan's clusters by stage, the first stage first (in the plan's order within a stage). */
function inStageOrder<T extends { readonly stage: number }>(clusters: readonly T[]): T[] {
  return [...clusters].sort((a, b) => a.stage - b.stage);
}

/** Cluster nodes read at the same time when a plan is continued or restored. */
const READ_CONCURRENCY = 64;

/** Receiving clusters the evacuation node keeps: the most loaded (the dry run and the record of the judgement show them all). */
const KEPT_RECEIVERS = 50;

function mostLoaded(receivers: EvacuationNode['plan']['receivers']): EvacuationNode['plan']['receivers'] {
  if (receivers.length <= KEPT_RECEIVERS) return receivers;
  return [...receivers].sort((a, b) => b.factorAfter - a.factorAfter || (a.cluster < b.cluster ? -1 : 1)).slice(0, KEPT_RECEIVERS);
}

function resultOf(outcome: StepOutcome): EvacuationResult {
  if (outcome === 'conflict' || outcome === 'viewConflict') return { kind: outcome };
  return { kind: 'done' };
}

/** The restore gap a plan was made with: the spacing of its stages' returns (0 for one stage). */

/** The view op at the version read (a create when there was no node). */
function viewOpOf(path: string, version: number | undefined, view: FailoutView, acl: AclSource): MultiOp {
  const data = encodeFailoutView(view);
  return version === undefined ? { op: 'create', path, data, acl: resolveAcl(acl, path) } : { op: 'set', path, data, version };
}

