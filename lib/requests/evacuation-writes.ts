import { clusterPath, isMalformed, parseClusterProperties, serializeClusterProperties, type ClusterProperties, type FailoutProperties } from '../d2/data';
import { resolveAcl, type AclSource, type MultiOp, type ZkReader } from '../zk';
import type { EvacuateChangeRequest, RestoreFabricChangeRequest } from './evacuate-schema';
import { judgeEvacuation, type EvacuationJudgeOptions } from './evacuation-judge';
import { decodeEvacuationNode, encodeEvacuationNode, evacuationPath, isEvacuationOpen, type EvacuationNode } from './evacuation-node';
import { carriesEvacuation, evacuatedFailout, restoredFailout } from './evacuation-plan';

export { restoredFailout } from './evacuation-plan';
import { encodeFailoutView, failoutText, readFailoutView, withViewEntry, type FailoutView } from './failout-view';
import { forEachLimit } from '../concurrency';
import type { Rejection } from './rejection';
import type { EvacuationWrite, ForceOverride } from './request-record';

/**
 * How an evacuation is written (issue 23, ARCHITECTURE "Fabrics and evacuation"):
 * - **One multi** when it fits {@link EvacuationWriteOptions.maxMultiBytes}: every member cluster's
 *   `setData` at the version judged, the view of open failouts, the fabric's evacuation node and the
 *   request record. Clients never see half an evacuation, and a redelivery finds the record.
 * - **An ordered plan** when it does not (ZooKeeper refuses a request larger than `jute.maxbuffer`,
 *   1 MB by default): first the evacuation node with the plan (status `applying`), then the clusters
 *   in steps of at most `maxMultiBytes`, each step one multi with the view and the node's progress
 *   (`written`), the last with status `applied` and the record. A worker that dies between steps
 *   leaves the message unacknowledged; the redelivery finds the node `applying` with its own request
 *   id and continues: a cluster that already carries the evacuation is not written again.
 * A `restoreFabric` is written the same way (its node change first when in steps): each cluster of
 * the evacuation still carrying it ends its windows at now plus (S−1−k) × `restoreGap` for stage k,
 * the last stage first; windows not started yet are removed.
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
  /** Refused: record this rejection (the verdict rests on reads only). */
  | { readonly kind: 'reject'; readonly rejection: Rejection }
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
}

function setOf(path: string, version: number, props: ClusterProperties, failout: FailoutProperties | null): MultiOp {
  return { op: 'set', path, data: Buffer.from(serializeClusterProperties({ ...props, failoutProperties: failout }), 'utf8'), version };
}

/** Writes evacuations and their restores (the module doc). */
export class EvacuationWrites {
  private readonly maxMultiBytes: number;

  constructor(private readonly options: EvacuationWriteOptions) {
    this.maxMultiBytes = options.maxMultiBytes ?? DEFAULT_MAX_MULTI_BYTES;
  }

  /** One attempt at an `evacuate`: continue its plan (a redelivery after a crash), or judge and write it. */
  async evacuate(request: EvacuateChangeRequest, now: number): Promise<EvacuationResult> {
    const { session, evacuationsPath } = this.options;
    const path = evacuationPath(evacuationsPath, request.fabric);
    const stored = await session.read(path);
    if (stored.exists) {
      const node = safeDecode(stored.data);
      if (node !== undefined && node.requestId === request.requestId && node.status === 'applying') return this.continuePlan(node, stored.stat.version, request, now);
      // Its plan was ended (restored, or stopped by an alarm) before a redelivery got here: never again.
      if (node !== undefined && node.requestId === request.requestId && (node.status === 'restored' || node.status === 'stopped')) {
        const write = { mode: node.mode, clusters: node.written, stages: node.plan.stages.length, multiBytes: 0 };
        return resultOf(await this.options.run([{ op: 'check', path, version: stored.stat.version }], { write, version: stored.stat.version, unchanged: true }));
      }
    }
    const judgement = await judgeEvacuation(session, this.options.d2BasePath, request, now, this.options.judge);
    if (judgement.verdict === 'reject') return { kind: 'reject', rejection: judgement.rejection };
    const { plan, props, members } = judgement;
    const writes: ClusterWrite[] = plan.clusters.map((c) => {
      const read = members.get(c.cluster)!;
      const failout = props.get(c.cluster)!;
      return { cluster: c.cluster, op: setOf(read.path, read.version, read.props, failout), failout };
    });
    const node: EvacuationNode = {
      version: 1,
      fabric: request.fabric,
      requestId: request.requestId,
      status: 'applied',
      mode: 'multi',
      createdAt: now,
      ...(request.requestedBy === undefined ? {} : { requestedBy: request.requestedBy }),
      ...(request.reason === undefined ? {} : { reason: request.reason }),
      plan: { ...plan, receivers: mostLoaded(plan.receivers) },
      written: writes.length,
    };
    const nodeOp = (n: EvacuationNode): MultiOp =>
      judgement.evacuationVersion === undefined ? { op: 'create', path, data: encodeEvacuationNode(n), acl: resolveAcl(this.options.acl, path) } : { op: 'set', path, data: encodeEvacuationNode(n), version: judgement.evacuationVersion };
    const all = [...writes.map((w) => w.op), viewOpOf(judgement.view.path, judgement.view.version, judgement.view.after, this.options.acl), nodeOp(node)];
    const multiBytes = bytesOf(all);
    const nextVersion = judgement.evacuationVersion === undefined ? 0 : judgement.evacuationVersion + 1;
    const forced = judgement.forced === undefined ? {} : { forced: judgement.forced };
    if (multiBytes <= this.maxMultiBytes) {
      const write = { mode: 'multi' as const, clusters: writes.length, stages: plan.stages.length, multiBytes };
      return resultOf(await this.options.run(all, { write, version: nextVersion, ...forced }));
    }
    // Too large for one multi: the plan first, then the clusters in steps (the writes as judged).
    const first: EvacuationNode = { ...node, status: 'applying', mode: 'plan', written: 0 };
    const created = await this.options.run([nodeOp(first)], undefined);
    if (created !== 'ok') return resultOf(created);
    return this.writePlan(first, nextVersion, writes, now, { multiBytes, ...forced });
  }

  /** The clusters of an `applying` plan that do not carry the evacuation yet (a redelivery after a crash), read again and written in steps. */
  private async continuePlan(node: EvacuationNode, nodeVersion: number, request: EvacuateChangeRequest, now: number): Promise<EvacuationResult> {
    const { plan } = node;
    const pending = new Map<string, ClusterWrite>();
    await forEachLimit(plan.clusters, READ_CONCURRENCY, async (c) => {
      const read = await this.readCluster(c.cluster);
      if (read === undefined || carriesEvacuation(read.props.failoutProperties, plan.fabric, plan.requestId, now)) return;
      const failout = evacuatedFailout(request, c, plan.stages[c.stage]!, plan.stopAlarms, read.props.failoutProperties);
      pending.set(c.cluster, { cluster: c.cluster, op: setOf(read.path, read.version, read.props, failout), failout });
    });
    const ordered = plan.clusters.flatMap((c) => (pending.has(c.cluster) ? [pending.get(c.cluster)!] : []));
    return this.writePlan(node, nodeVersion, ordered, now, undefined);
  }

  /**
   * Writes a plan's clusters in steps; each step checks the evacuation node's version (the plan did not
   * change), the last one marks it applied and creates the record. The node is rewritten only once: at
   * 1,000 clusters it is a few hundred KB, which would leave little room for clusters in every step.
   */
  private async writePlan(node: EvacuationNode, nodeVersion: number, writes: readonly ClusterWrite[], now: number, judged: { multiBytes: number; forced?: readonly ForceOverride[] } | undefined): Promise<EvacuationResult> {
    const { plan } = node;
    const path = evacuationPath(this.options.evacuationsPath, plan.fabric);
    const applied = encodeEvacuationNode({ ...node, status: 'applied', written: plan.clusters.length });
    return this.inSteps(
      writes,
      now,
      applied.length,
      (_chunk, last) => (last ? { op: 'set', path, data: applied, version: nodeVersion } : { op: 'check', path, version: nodeVersion }),
      (steps) => ({
        write: { mode: 'plan', clusters: plan.clusters.length, stages: plan.stages.length, multiBytes: judged?.multiBytes ?? 0, steps },
        version: nodeVersion + 1,
        ...(judged?.forced === undefined ? {} : { forced: judged.forced }),
      }),
    );
  }

  /** One attempt at a `restoreFabric` (the module doc). */
  async restore(request: RestoreFabricChangeRequest, now: number): Promise<EvacuationResult> {
    const { session, evacuationsPath } = this.options;
    const path = evacuationPath(evacuationsPath, request.fabric);
    const stored = await session.read(path);
    const node = stored.exists ? safeDecode(stored.data) : undefined;
    const nothing = async (): Promise<EvacuationResult> => {
      const write = { mode: 'multi' as const, clusters: 0, stages: 0, multiBytes: 0 };
      const check: MultiOp[] = stored.exists ? [{ op: 'check', path, version: stored.stat.version }] : [];
      return resultOf(await this.options.run(check, { write, version: stored.exists ? stored.stat.version : null, unchanged: true }));
    };
    if (!stored.exists || node === undefined) return nothing();
    // Continuing a restore written in steps (its node change went first): the same request id.
    const continuing = (node.status === 'restored' || node.status === 'stopped') && node.endedByRequest === request.requestId;
    if (!continuing && !isEvacuationOpen(node, now)) return nothing();
    // A guard's restore ends the evacuation only while it names the alarm (as a cluster's restore does).
    if (!continuing && request.stoppedByAlarm !== undefined && !node.plan.stopAlarms.includes(request.stoppedByAlarm)) return nothing();
    const { plan } = node;
    const count = plan.stages.length;
    const gap = restoreGapOf(plan);
    const found = new Map<string, ClusterWrite>();
    await forEachLimit(plan.clusters, READ_CONCURRENCY, async (c) => {
      const read = await this.readCluster(c.cluster);
      if (read === undefined || !carriesEvacuation(read.props.failoutProperties, plan.fabric, plan.requestId, now)) return;
      const failout = restoredFailout(read.props.failoutProperties!, plan.fabric, plan.requestId, now + (count - 1 - c.stage) * gap, now);
      if (failout !== 'unchanged') found.set(c.cluster, { cluster: c.cluster, op: setOf(read.path, read.version, read.props, failout), failout });
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
    let after: Map<string, FailoutProperties> = new Map(view.view);
    for (const w of writes) after = withViewEntry(after, w.cluster, w.failout, now);
    const nodeOp: MultiOp = continuing ? { op: 'check', path, version: stored.stat.version } : { op: 'set', path, data: encodeEvacuationNode(ended), version: stored.stat.version };
    const all = [...writes.map((w) => w.op), viewOpOf(this.options.judge.viewPath, view.version, after, this.options.acl), nodeOp];
    const multiBytes = bytesOf(all);
    const version = continuing ? stored.stat.version : stored.stat.version + 1;
    if (multiBytes <= this.maxMultiBytes) {
      return resultOf(await this.options.run(all, { write: { mode: 'multi', clusters: writes.length, stages: count, multiBytes }, version }));
    }
    // In steps: the node first (the evacuation is over for every reader from here), then the clusters.
    if (!continuing) {
      const first = await this.options.run([nodeOp], undefined);
      if (first !== 'ok') return resultOf(first);
    }
    const check: MultiOp = { op: 'check', path, version };
    return this.inSteps(
      writes,
      now,
      200,
      () => check,
      (steps) => ({ write: { mode: 'plan', clusters: writes.length, stages: count, multiBytes, steps }, version }),
    );
  }

  /**
   * Writes `writes` in order, as many per multi as fit the budget beside the view (read afresh for
   * every step) and the step's node op (`nodeOp`, asked once per step); the last step carries the record.
   */
  private async inSteps(writes: readonly ClusterWrite[], now: number, nodeBytes: number, nodeOp: (chunk: readonly ClusterWrite[], last: boolean) => MultiOp, final: (steps: number) => FinalStep): Promise<EvacuationResult> {
    let at = 0;
    for (let steps = 1; ; steps++) {
      const view = await readFailoutView(this.options.session, this.options.judge.viewPath, this.options.d2BasePath, now);
      // Room for the view as it is, what each cluster adds to it, and the node op.
      let room = this.maxMultiBytes - encodeFailoutView(view.view).length - nodeBytes - 1024;
      const chunk: ClusterWrite[] = [];
      while (at < writes.length) {
        const w = writes[at]!;
        const size = bytesOf([w.op]) + (w.failout === null ? 0 : Buffer.byteLength(failoutText(w.failout)) + Buffer.byteLength(w.cluster) + 4);
        if (chunk.length > 0 && size > room) break;
        room -= size;
        chunk.push(w);
        at++;
      }
      const last = at >= writes.length;
      let after: Map<string, FailoutProperties> = new Map(view.view);
      for (const w of chunk) after = withViewEntry(after, w.cluster, w.failout, now);
      const ops = [...chunk.map((w) => w.op), viewOpOf(this.options.judge.viewPath, view.version, after, this.options.acl), nodeOp(chunk, last)];
      const outcome = await this.options.run(ops, last ? final(steps) : undefined);
      if (outcome !== 'ok' || last) return resultOf(outcome);
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
function restoreGapOf(plan: EvacuationNode['plan']): number {
  const [a, b] = plan.stages;
  return a !== undefined && b !== undefined ? Math.max(0, a.onlineAt - b.onlineAt) : 0;
}

/** The view op at the version read (a create when there was no node). */
function viewOpOf(path: string, version: number | undefined, view: FailoutView, acl: AclSource): MultiOp {
  const data = encodeFailoutView(view);
  return version === undefined ? { op: 'create', path, data, acl: resolveAcl(acl, path) } : { op: 'set', path, data, version };
}

function safeDecode(data: Buffer): EvacuationNode | undefined {
  try {
    return decodeEvacuationNode(data);
  } catch {
    return undefined;
  }
}

