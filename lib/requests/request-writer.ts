import { DEFAULT_BASE_PATH } from '../d2/data';
import { isZkError, resolveAcl, type AclSource, type MultiOp, type ZkReader, type ZkWriter } from '../zk';
import { assertIsError, RequestError, TransientRequestError } from './errors';
import { silentRequestLogger, type RequestLogger } from './logger';
import { isValidName } from './names';
import { judgeRequest, type JudgeOptions } from './judge-request';
import { rebaseView, type ViewRebase, type ViewWrite } from './judge-together';
import { yieldedDrillOps } from './drill-yield';
import { decodeFailoutView, encodeFailoutView, viewPathFor, type FailoutView } from './failout-view';
import { HostCountCache } from './host-count-cache';
import { WorkerAlarmCheck } from './alarm-check';
import type { AlarmReader } from '../alarms';
import type { RecordRetention } from './record-retention';
import { RecordSweeper, type SweepResult } from './record-sweeper';
import { cutText, type Rejection, type RejectionReason } from './rejection';
import { decodeRequestRecord, DEFAULT_REQUESTS_PATH, encodeRequestRecord, MAX_RECORDED_REQUEST_REASON, requestRecordPath, RECORD_ACTIONS, type RecordAction, type RequestRecord, type RequestStatus } from './request-record';
import { DEFAULT_DRILLS_PATH } from './drill-node';
import { isDrillAction } from './drill-rules';
import { drillEffectsOf, drillFailoutPrecheck } from './drill-writes';
import { isFabricDrillRequest, type FabricDrillChangeRequest } from './drill-schema';
import { drainTestPrecheck, drainTestStartOps, fabricDrillEffectsOf } from './drill-fabric';
import { parseRequest, type ChangeRequest, type ParseOptions } from './schema';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { isFabricRequest, type FabricChangeRequest } from './fabric-schema';
import { fabricEffectsOf } from './fabric-writes';
import { isEvacuationRequest, type EvacuationChangeRequest } from './evacuate-schema';
import { DEFAULT_EVACUATIONS_PATH } from './evacuation-node';
import { EvacuationWrites, type FinalStep, type StepOutcome } from './evacuation-writes';

/** How hard the writer tries when other writers change the cluster between its read and its write. */
export interface RetryBudget {
  /**
   * Attempts lost to changes of the cluster (or its drill) before giving up, the first included.
   * Default 10. Losing to a writer of another cluster on the view of open failouts counts only
   * against {@link maxElapsedMs}: that writer made progress, and the two take turns.
   */
  readonly maxAttempts: number;
  /** Time from the first attempt after which no new attempt starts. Default 5 s. */
  readonly maxElapsedMs: number;
  /** Backoff cap of the first retry; doubles per retry ("full jitter": uniform in [0, cap]). Default 10 ms. */
  readonly baseDelayMs: number;
  /** Largest backoff cap. Default 250 ms. */
  readonly maxDelayMs: number;
}

/** Defaults of {@link RetryBudget}. */
export const DEFAULT_RETRY_BUDGET: RetryBudget = Object.freeze({ maxAttempts: 10, maxElapsedMs: 5000, baseDelayMs: 10, maxDelayMs: 250 });

/** Options of {@link RequestWriter}. Fixed after construction. */
export interface RequestWriterOptions {
  /** A started session holding the writer's digest credential (reads, multi and ensurePath are all it needs). */
  readonly session: ZkReader & ZkWriter;
  /** D2 base path. Default `/d2`. */
  readonly d2BasePath?: string;
  /** Parent of the request records. Default `/failout/requests`. */
  readonly requestsPath?: string;
  /** Parent of the drills (definitions and runs). Default `/failout/drills`. */
  readonly drillsPath?: string;
  /** Parent of the fabric maps (issue 23, `putFabric`/`deleteFabric`). Default `/failout/fabrics`. */
  readonly fabricsPath?: string;
  /** Parent of the evacuation nodes (issue 23, `evacuate`/`restoreFabric`). Default `/failout/evacuations`. */
  readonly evacuationsPath?: string;
  /**
   * Byte budget of one multi for an evacuation: larger ones are written as an ordered plan (issue 23,
   * evacuation-writes.ts). Default 900 KiB, below ZooKeeper's default `jute.maxbuffer` of 1 MB.
   */
  readonly maxMultiBytes?: number;
  /** Guard-rail limits (max window, body size, peers). */
  readonly limits?: Omit<ParseOptions, 'now'>;
  /** The judge's deployment settings (`maxPeerLoadFactor`, default 2.0; `viewPath`, default beside the records), as the CLI reads them too. */
  readonly judge?: JudgeOptions;
  readonly retryBudget?: Partial<RetryBudget>;
  /**
   * Required, no default: the ACL of created records and of the records' parent (and its parents)
   * when the writer creates them; the policy (`policyAcl`, see `resolveWriterAcl`) gives each its own.
   */
  readonly recordAcl: AclSource;
  readonly logger?: RequestLogger;
  /** Epoch ms. Default `Date.now`. */
  readonly clock?: () => number;
  /** In [0, 1). Default `Math.random`. */
  readonly random?: () => number;
  readonly sleep?: (ms: number) => Promise<void>;
  /**
   * Retention of the request records: the writer prunes older ones in {@link RequestWriter.sweepIfDue}
   * (the Lambda handler calls it after each batch). Default 30 days, swept at most hourly; `false`:
   * never prune (another process does).
   */
  readonly retention?: Partial<RecordRetention> | false;
  /**
   * Where the alarms a request names are read (issue 21, `alarm-check.ts`): a stop alarm in ALARM is
   * refused (`stopAlarmFiring`), an alarm the source does not know (`unknownAlarm`). Unset: alarms are
   * not checked. A source that cannot be read blocks nothing: the record says `alarmsUnchecked`.
   */
  readonly alarms?: AlarmReader;
}

/** Where a request came from. */
export interface RequestMeta {
  /** The SQS message id: the record's name when the request has no usable id. */
  readonly messageId: string;
}

/** What became of one request; the message can be acknowledged. */
export interface Outcome {
  readonly status: RequestStatus;
  /** For `rejected` (and a duplicate of a rejected request): why. */
  readonly reason?: RejectionReason;
  /** The record's name: the request id, or the SQS message id. */
  readonly requestId: string;
  readonly cluster: string | null;
  /** The record as stored (for `duplicate`: the first delivery's record). */
  readonly record: RequestRecord;
  /** Attempts made (more than 1 after CAS conflicts). */
  readonly attempts: number;
}

/**
 * `conflict`: the cluster (or a drill) changed under the attempt; `viewConflict`: only the view of
 * open failouts did, because a writer of another cluster involved in the verdict got there first.
 */
type Attempt = Omit<Outcome, 'attempts'> | 'conflict' | 'viewConflict';

/**
 * Applies change requests to ZooKeeper exactly once (ARCHITECTURE.md "Change request"):
 * parse → read the cluster → guard rails → `applyRequest` → ONE multi of version check + cluster
 * `setData` + create of `/failout/requests/<requestId>`. A version conflict re-reads and retries with
 * jittered backoff within the {@link RetryBudget}; an existing record makes the request a `duplicate`
 * (the record is read and returned). Permanent rejections are recorded as well (with a version check
 * when the cluster exists, so the verdict was reached on the current state) and returned.
 *
 * @throws TransientRequestError on connection loss, session expiry or closure, and a spent retry
 *   budget; RequestError `notAuthorized` when ZooKeeper refuses the write. Either way the message must
 *   not be acknowledged.
 *
 * Concurrency: stateless between calls; any number of `process` calls may run at once, in one writer
 * or in many processes (the version check serialises them per cluster).
 */
export class RequestWriter {
  private readonly session: ZkReader & ZkWriter;
  private readonly d2BasePath: string;
  private readonly requestsPath: string;
  private readonly drillsPath: string;
  private readonly fabricsPath: string;
  private readonly evacuations: Omit<ConstructorParameters<typeof EvacuationWrites>[0], 'run'>;
  private readonly limits: Omit<ParseOptions, 'now'>;
  private readonly judgeOptions: JudgeOptions;
  private readonly budget: RetryBudget;
  private readonly recordAcl: AclSource;
  private readonly log: RequestLogger;
  private readonly clock: () => number;
  private readonly random: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly sweeper: RecordSweeper | undefined;
  private readonly alarmCheck: WorkerAlarmCheck;

  constructor(options: RequestWriterOptions) {
    if (!options.session) throw new RequestError('invalidArgument', 'RequestWriter needs a session');
    if (!options.recordAcl) throw new RequestError('invalidArgument', 'RequestWriter needs a recordAcl: records are never created without an ACL');
    this.session = options.session;
    this.d2BasePath = options.d2BasePath ?? DEFAULT_BASE_PATH;
    this.requestsPath = options.requestsPath ?? DEFAULT_REQUESTS_PATH;
    this.drillsPath = options.drillsPath ?? DEFAULT_DRILLS_PATH;
    this.fabricsPath = options.fabricsPath ?? DEFAULT_FABRICS_PATH;
    this.limits = options.limits ?? {};
    this.evacuations = {
      session: options.session,
      d2BasePath: this.d2BasePath,
      evacuationsPath: options.evacuationsPath ?? DEFAULT_EVACUATIONS_PATH,
      judge: { maxPeerLoadFactor: options.judge?.maxPeerLoadFactor, viewPath: options.judge?.viewPath ?? viewPathFor(this.requestsPath), fabricsPath: this.fabricsPath, evacuationsPath: options.evacuationsPath ?? DEFAULT_EVACUATIONS_PATH },
      acl: options.recordAcl,
      drillsPath: this.drillsPath,
      ...(options.maxMultiBytes === undefined ? {} : { maxMultiBytes: options.maxMultiBytes }),
    };
    // The view of open failouts sits beside the records unless the deployment says otherwise.
    this.judgeOptions = { viewPath: viewPathFor(this.requestsPath), hostCache: new HostCountCache(), ...options.judge };
    this.budget = { ...DEFAULT_RETRY_BUDGET, ...options.retryBudget };
    this.recordAcl = options.recordAcl;
    this.log = options.logger ?? silentRequestLogger;
    this.clock = options.clock ?? Date.now;
    this.random = options.random ?? Math.random;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.alarmCheck = new WorkerAlarmCheck(options.alarms, this.log);
    this.sweeper =
      options.retention === false
        ? undefined
        : new RecordSweeper({ ...options.retention, session: this.session, acl: this.recordAcl, requestsPath: this.requestsPath, clock: this.clock, logger: this.log });
  }

  /** Processes one message body. Resolves when the message may be acknowledged; see the class doc for what throws. */
  async process(body: string, meta: RequestMeta): Promise<Outcome> {
    try {
      const parsed = parseRequest(body, { ...this.limits, now: this.clock() });
      if (parsed.ok) {
        const request = parsed.request;
        if (isFabricRequest(request)) return await this.retrying({ requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => this.fabricAttempt(request, meta));
        if (isEvacuationRequest(request)) return await this.retrying({ requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => this.evacuationAttempt(request, meta));
        if (isFabricDrillRequest(request)) return await this.retrying({ requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => this.fabricDrillAttempt(request, meta));
        return await this.retrying(request, () => this.attempt(request, meta));
      }
      const hints = hintsOf(body);
      const subject = { requestId: parsed.rejection.requestId ?? meta.messageId, cluster: hints.cluster ?? '(unknown)' };
      return await this.retrying(subject, () => this.recordRejection(parsed.rejection, hints, meta, undefined));
    } catch (e) {
      throw this.classify(e);
    }
  }

  /** The record of a request id (or message id), or undefined when there is none. */
  async readRecord(id: string): Promise<RequestRecord | undefined> {
    try {
      const node = await this.session.read(requestRecordPath(this.requestsPath, id));
      return node.exists ? decodeRequestRecord(node.data) : undefined;
    } catch (e) {
      throw this.classify(e);
    }
  }

  /**
   * Prunes records older than the retention when no sweep ran within its interval (any worker's);
   * undefined when it did not sweep or retention is off. Errors are the session's, classified as
   * {@link RequestWriter.process} classifies them; a caller that only tidies up may ignore them.
   */
  async sweepIfDue(): Promise<SweepResult | undefined> {
    try {
      return await this.sweeper?.sweepIfDue();
    } catch (e) {
      throw this.classify(e);
    }
  }

  /** Runs `step` until it is not a `conflict`, within the retry budget, with jittered backoff. */
  private async retrying(request: { requestId: string; cluster: string }, step: () => Promise<Attempt>): Promise<Outcome> {
    const started = this.clock();
    let conflicts = 0;
    for (let attempt = 1; ; attempt++) {
      const result = await step();
      if (result !== 'conflict' && result !== 'viewConflict') return { ...result, attempts: attempt };
      // A view conflict means another cluster's writer made progress (ZooKeeper applied its multi): the
      // writers of related clusters take turns. Only time bounds those, with a short jitter, so a burst
      // of requests to one peer is not turned into retries past the budget and SQS redeliveries.
      if (result === 'conflict') conflicts++;
      const elapsed = this.clock() - started;
      if (conflicts >= this.budget.maxAttempts || elapsed >= this.budget.maxElapsedMs) {
        this.log.warn('retry budget spent on version conflicts', { requestId: request.requestId, cluster: request.cluster, attempts: attempt, elapsedMs: elapsed });
        throw new TransientRequestError('retryBudgetSpent', `cluster ${request.cluster} kept changing: ${attempt} attempts in ${elapsed} ms`, {
          requestId: request.requestId,
          cluster: request.cluster,
        });
      }
      const cap = result === 'viewConflict' ? this.budget.baseDelayMs : Math.min(this.budget.maxDelayMs, this.budget.baseDelayMs * 2 ** (conflicts - 1));
      this.log.debug('version conflict; retrying', { requestId: request.requestId, cluster: request.cluster, attempt, on: result === 'viewConflict' ? 'view' : 'cluster' });
      await this.sleep(Math.floor(this.random() * cap));
    }
  }

  /** One read-decide-write round; `conflict` when the cluster changed under it. */
  private async attempt(request: ChangeRequest, meta: RequestMeta): Promise<Attempt> {
    const now = this.clock();
    const hints = {
      cluster: request.cluster,
      action: request.action,
      requestedBy: request.requestedBy,
      stoppedByAlarm: request.action === 'restore' ? request.stoppedByAlarm : undefined,
      requestReason: request.reason === undefined ? undefined : cutText(request.reason, MAX_RECORDED_REQUEST_REASON),
    };
    // Drills (drill-writes.ts): their node changes ride in the same multi as the cluster's and the record's.
    const drills = { session: this.session, d2BasePath: this.d2BasePath, drillsPath: this.drillsPath, acl: this.recordAcl, now };
    if (request.action === 'failout') {
      const unknownDrill = await drillFailoutPrecheck(drills, request);
      if (unknownDrill) return this.recordRejection(unknownDrill, hints, meta, undefined);
    }
    const alarms = await this.alarmCheck.verdict(request, drills);
    if (alarms.rejection) return this.recordRejection(alarms.rejection, hints, meta, undefined, alarms.ops);
    const judgement = await judgeRequest(this.session, this.d2BasePath, request, now, this.judgeOptions);
    const effects = await drillEffectsOf(drills, request, judgement);
    if (judgement.verdict === 'reject') {
      const guard = judgement.version === undefined ? undefined : { path: judgement.path, version: judgement.version };
      // A verdict reached on the view (stranding, capacity) holds only while the view does.
      const check = judgement.viewCheck;
      const viewCheck: MultiOp[] = check === undefined ? [] : [{ op: 'check', path: check.path, version: check.version }];
      const rebase = check?.rebase === undefined ? undefined : { path: check.path, rebase: check.rebase, op: (version: number): MultiOp => ({ op: 'check', path: check.path, version }) };
      return this.recordRejection(judgement.rejection, hints, meta, guard, [...viewCheck, ...effects.ops], rebase);
    }
    const { path, version } = judgement;
    if (effects.rejection) return this.recordRejection(effects.rejection, hints, meta, { path, version });
    if (judgement.unchanged) {
      // Nothing to change: recorded (behind a check of the version judged) so it stays exactly once and
      // `--wait` finds it, but not written, which would bump the version and wake every watcher.
      // A drill action changes its drill, never the cluster: not "unchanged" (that says a restore found nothing to do).
      const unchanged = isDrillAction(request) ? {} : { unchanged: true as const };
      const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: version, ...unchanged, ...alarms.recordFields };
      return this.commit([{ op: 'check', path, version }, ...effects.ops], record);
    }
    const record: RequestRecord = {
      ...recordBase(request.requestId, hints, meta, now),
      status: 'applied',
      clusterVersion: version + 1,
      ...alarms.recordFields,
      ...(judgement.forced === undefined ? {} : { forced: judgement.forced }),
    };
    const data = Buffer.from(judgement.afterText, 'utf8');
    // Judged together (issue 21): drills that give way lose their windows, and the view of open
    // failouts changes, in the same multi as the cluster: a writer of another cluster that judged
    // against the old view fails its view check and judges again.
    const yielded = judgement.yielded ?? [];
    const yieldedOps: MultiOp[] = yielded.map((y) => ({ op: 'set', path: y.path, data: Buffer.from(y.afterText, 'utf8'), version: y.version }));
    const yieldedDrills = yielded.length === 0 ? [] : await yieldedDrillOps(this.session, this.drillsPath, yielded, request.requestId, now);
    const view = judgement.view;
    const rebase = view?.rebase === undefined ? undefined : { path: view.path, rebase: view.rebase, op: (version: number, next: FailoutView): MultiOp => ({ op: 'set', path: view.path, data: encodeFailoutView(next), version }) };
    return this.commit([{ op: 'check', path, version }, { op: 'set', path, data, version }, ...yieldedOps, ...this.viewOps(view), ...effects.ops, ...yieldedDrills], record, rebase);
  }

  /**
   * One round of a fabric map change (fabric-writes.ts): no cluster is read or judged; the map's write
   * (or the refusal) and the record are one multi, so the request applies exactly once.
   */
  private async fabricAttempt(request: FabricChangeRequest, meta: RequestMeta): Promise<Attempt> {
    const now = this.clock();
    const hints = fabricHints(request);
    const effects = await fabricEffectsOf({ session: this.session, fabricsPath: this.fabricsPath, acl: this.recordAcl }, request);
    if (effects.rejection) return this.recordRejection(effects.rejection, hints, meta, undefined, effects.ops);
    const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: effects.version, ...(effects.unchanged ? { unchanged: true as const } : {}) };
    return this.commit([...effects.ops], record);
  }

  /**
   * One round of a drain test's drill action (`putDrill`, `deleteDrill`, `skipDrill` naming a fabric,
   * drill-fabric.ts): no cluster is judged; the drill node's change (or the refusal) and the record are
   * one multi. A definition's outcome and blocking alarms must exist, as a cluster drill's must.
   */
  private async fabricDrillAttempt(request: FabricDrillChangeRequest, meta: RequestMeta): Promise<Attempt> {
    const now = this.clock();
    const hints = fabricHints(request);
    let alarmFields: { alarmsUnchecked?: true } = {};
    if (request.action === 'putDrill') {
      const alarms = await this.alarmCheck.evacuationVerdict(request);
      if (alarms.rejection) return this.recordRejection(alarms.rejection, hints, meta, undefined);
      alarmFields = alarms.recordFields;
    }
    const context = { session: this.session, d2BasePath: this.d2BasePath, drillsPath: this.drillsPath, fabricsPath: this.fabricsPath, acl: this.recordAcl, now };
    const effects = await fabricDrillEffectsOf(context, request);
    if (effects.rejection) return this.recordRejection(effects.rejection, hints, meta, undefined);
    const record: RequestRecord = { ...recordBase(request.requestId, hints, meta, now), status: 'applied', clusterVersion: null, ...alarmFields };
    return this.commit([...effects.ops], record);
  }

  /**
   * One round of an `evacuate` or `restoreFabric` (evacuation-writes.ts): judged as one plan and
   * written in one multi with the record, or as an ordered plan whose last step creates the record.
   * A record already there makes it a duplicate before anything is judged.
   */
  private async evacuationAttempt(request: EvacuationChangeRequest, meta: RequestMeta): Promise<Attempt> {
    const now = this.clock();
    const hints = fabricHints(request, request.action === 'restoreFabric' ? request.stoppedByAlarm : undefined);
    const existing = await this.session.read(requestRecordPath(this.requestsPath, request.requestId));
    if (existing.exists) return this.duplicate(request.requestId);
    let alarmFields: { alarmsUnchecked?: true } = {};
    if (request.action === 'evacuate') {
      // A drain test's run (drill-fabric.ts): its drill must be this fabric's; refused, it is recorded skipped.
      const unknownDrill = await drainTestPrecheck({ session: this.session, drillsPath: this.drillsPath }, request);
      if (unknownDrill) return this.recordRejection(unknownDrill, hints, meta, undefined);
      const alarms = await this.alarmCheck.evacuationVerdict(request);
      if (alarms.rejection) {
        const skipped = await drainTestStartOps({ session: this.session, drillsPath: this.drillsPath, now }, request, { rejection: alarms.rejection });
        return this.recordRejection(alarms.rejection, hints, meta, undefined, skipped);
      }
      alarmFields = alarms.recordFields;
    }
    let outcome: Attempt | undefined;
    const run = async (ops: MultiOp[], final: FinalStep | undefined): Promise<StepOutcome> => {
      if (final === undefined) return this.step(ops);
      const record: RequestRecord = {
        ...recordBase(request.requestId, hints, meta, now),
        status: 'applied',
        clusterVersion: final.version,
        evacuation: final.write,
        ...(final.unchanged ? { unchanged: true as const } : {}),
        ...(final.forced === undefined ? {} : { forced: final.forced }),
        ...alarmFields,
      };
      const attempt = await this.commit(ops, record);
      if (attempt === 'conflict' || attempt === 'viewConflict') return attempt;
      outcome = attempt;
      return 'done';
    };
    const writes = new EvacuationWrites({ ...this.evacuations, run });
    const result = request.action === 'evacuate' ? await writes.evacuate(request, now) : await writes.restore(request, now);
    if (result.kind === 'reject') return this.recordRejection(result.rejection, hints, meta, undefined, result.ops ?? []);
    const done = outcome as Exclude<Attempt, string> | undefined;
    if (result.kind !== 'done' || done === undefined) return result.kind === 'viewConflict' ? 'viewConflict' : 'conflict';
    this.log.info(request.action === 'evacuate' ? 'fabric evacuated' : 'fabric restored', { requestId: request.requestId, fabric: request.fabric, status: done.status, evacuation: done.record.evacuation });
    return done;
  }

  /** One step of an evacuation written as a plan (no record): `conflict` when a version moved, `viewConflict` when only the view did. */
  private async step(ops: MultiOp[]): Promise<StepOutcome> {
    const viewIndex = ops.findIndex((op) => op.path === this.judgeOptions.viewPath);
    for (let parents = false; ; parents = true) {
      try {
        await this.session.multi(ops);
        return 'ok';
      } catch (e) {
        if (!isZkError(e, 'badVersion', 'noNode', 'nodeExists')) throw e;
        const failed = e.opIndex === undefined ? undefined : ops[e.opIndex];
        // The evacuations' parent on a fresh ensemble: created once, then the step again.
        if (!parents && isZkError(e, 'noNode') && failed?.op === 'create') {
          await this.session.ensurePath(failed.path.slice(0, failed.path.lastIndexOf('/')), this.recordAcl);
          continue;
        }
        return e.opIndex !== undefined && e.opIndex === viewIndex ? 'viewConflict' : 'conflict';
      }
    }
  }

  /** The view's write: a set at the version read, or a create when there was no node. */
  private viewOps(view: ViewWrite | undefined): MultiOp[] {
    if (view === undefined) return [];
    if (view.version === undefined) return [{ op: 'create', path: view.path, data: view.data, acl: resolveAcl(this.recordAcl, view.path) }];
    return [{ op: 'set', path: view.path, data: view.data, version: view.version }];
  }

  /** Records a rejection (behind a version check of the cluster judged, when there is one). */
  private recordRejection(rejection: Rejection, hints: Hints, meta: RequestMeta, guard: { path: string; version: number } | undefined, extra: readonly MultiOp[] = [], rebase?: ViewOpRebase): Promise<Attempt> {
    const id = rejection.requestId ?? meta.messageId;
    const record: RequestRecord = {
      ...recordBase(id, hints, meta, this.clock()),
      status: 'rejected',
      reason: rejection.reason,
      message: rejection.message,
      clusterVersion: guard?.version ?? null,
    };
    this.log.debug('request rejected', { requestId: id, cluster: hints.cluster, reason: rejection.reason, problems: rejection.message });
    return this.commit([...(guard ? [{ op: 'check' as const, path: guard.path, version: guard.version }] : []), ...extra], record, rebase);
  }

  /**
   * Runs `ops` plus the record's create as one multi. A missing parent of a created node (the records'
   * or the drills') is created once; a version conflict or a vanished node is `conflict`; an existing
   * record is a `duplicate`.
   */
  private async commit(ops: MultiOp[], record: RequestRecord, view?: ViewOpRebase): Promise<Attempt> {
    const recordPath = requestRecordPath(this.requestsPath, record.requestId);
    const all: MultiOp[] = [...ops, { op: 'create', path: recordPath, data: encodeRequestRecord(record), acl: resolveAcl(this.recordAcl, recordPath) }];
    const createIndex = all.length - 1;
    const viewPath = this.judgeOptions.viewPath;
    const viewIndex = all.findIndex((op) => op.path === viewPath);
    const parentsCreated = new Set<string>();
    for (let rebases = 0; ; ) {
      try {
        await this.session.multi(all);
        return outcomeOf(record, record.status);
      } catch (e) {
        // Only the view moved (another cluster's writer): keep the verdict when that change cannot touch it.
        if (view !== undefined && viewIndex >= 0 && rebases < MAX_VIEW_REBASES && isZkError(e, 'badVersion', 'nodeExists') && e.opIndex === viewIndex) {
          const op = await this.rebasedViewOp(view);
          if (op === undefined) return 'viewConflict';
          all[viewIndex] = op;
          rebases++;
          continue;
        }
        const failed = isZkError(e, 'noNode') && e.opIndex !== undefined ? all[e.opIndex] : undefined;
        if (failed?.op === 'create' && !parentsCreated.has(failed.path)) {
          // Every created node's parent at once (the record's and the view's, on a fresh ensemble): one retry, not one per parent.
          for (const op of all) {
            if (op.op !== 'create' || parentsCreated.has(op.path)) continue;
            parentsCreated.add(op.path);
            await this.session.ensurePath(op.path.slice(0, op.path.lastIndexOf('/')), this.recordAcl);
          }
          continue;
        }
        if (isZkError(e, 'badVersion', 'noNode', 'nodeExists') && viewIndex >= 0 && e.opIndex === viewIndex) return 'viewConflict';
        if (isZkError(e, 'badVersion', 'noNode') && e.opIndex !== createIndex) return 'conflict';
        if (isZkError(e, 'nodeExists') && e.opIndex === createIndex) return this.duplicate(record.requestId);
        // A drill created by another writer between the read and this multi: decide again.
        if (isZkError(e, 'nodeExists')) return 'conflict';
        throw e;
      }
    }
  }

  /** The view op again at the view's current version, or undefined when the change since may touch the verdict (judge again). */
  private async rebasedViewOp(view: ViewOpRebase): Promise<MultiOp | undefined> {
    const node = await this.session.read(view.path);
    if (!node.exists || node.data.length === 0) return undefined;
    let current: FailoutView;
    try {
      current = decodeFailoutView(node.data);
    } catch {
      return undefined;
    }
    const next = rebaseView(view.rebase, current);
    return next === undefined ? undefined : view.op(node.stat.version, next);
  }

  private async duplicate(id: string): Promise<Attempt> {
    const existing = await this.readRecord(id);
    // Deleted between our create and this read (an operator cleaning up): decide again.
    if (!existing) return 'conflict';
    return outcomeOf(existing, 'duplicate');
  }

  /** Maps what the session threw to this module's errors. */
  private classify(e: unknown): Error {
    assertIsError(e);
    if (e instanceof RequestError) return e;
    if (isZkError(e, 'connectionLoss', 'sessionExpired', 'timeout')) {
      return new TransientRequestError(e.kind as 'connectionLoss' | 'sessionExpired' | 'timeout', `ZooKeeper ${e.kind}: ${e.message}`, { cause: e });
    }
    if (isZkError(e, 'closed')) return new TransientRequestError('sessionClosed', `ZooKeeper session closed: ${e.message}`, { cause: e });
    if (isZkError(e, 'noAuth')) return new RequestError('notAuthorized', `ZooKeeper refused the write (NO_AUTH): check the writer's digest credential`, { cause: e });
    return e;
  }
}

/** Most rebases of one commit onto a view other writers keep changing, before judging again. */
const MAX_VIEW_REBASES = 20;

/** How {@link RequestWriter} rebases its view op (a set, or a rejection's check) onto a view that moved. */
interface ViewOpRebase {
  readonly path: string;
  readonly rebase: ViewRebase;
  readonly op: (version: number, next: FailoutView) => MultiOp;
}

/** What the record says of a request, as far as it is known. */
interface Hints {
  readonly cluster: string | null;
  /** A fabric action's fabric. */
  readonly fabric?: string | undefined;
  readonly action: RecordAction | null;
  readonly requestedBy?: string | undefined;
  /** A guard's restore: the alarm that caused it. */
  readonly stoppedByAlarm?: string | undefined;
  /** The request's own reason, cut to the record's bound. */
  readonly requestReason?: string | undefined;
}

/** What the record says of a request naming a fabric, not a cluster (a map change, a drain test's drill action, an evacuation). */
function fabricHints(request: { readonly fabric: string; readonly action: RecordAction; readonly requestedBy?: string; readonly reason?: string }, stoppedByAlarm?: string): Hints {
  return {
    cluster: null,
    fabric: request.fabric,
    action: request.action,
    requestedBy: request.requestedBy,
    stoppedByAlarm,
    requestReason: request.reason === undefined ? undefined : cutText(request.reason, MAX_RECORDED_REQUEST_REASON),
  };
}

function recordBase(requestId: string, hints: Hints, meta: RequestMeta, now: number): Omit<RequestRecord, 'status' | 'clusterVersion'> {
  return {
    requestId,
    cluster: hints.cluster,
    ...(hints.fabric === undefined ? {} : { fabric: hints.fabric }),
    action: hints.action,
    appliedAt: now,
    messageId: meta.messageId,
    ...(hints.requestedBy === undefined ? {} : { requestedBy: hints.requestedBy }),
    ...(hints.stoppedByAlarm === undefined ? {} : { stoppedByAlarm: hints.stoppedByAlarm }),
    ...(hints.requestReason === undefined ? {} : { requestReason: hints.requestReason }),
  };
}

function outcomeOf(record: RequestRecord, status: RequestStatus): Omit<Outcome, 'attempts'> {
  return {
    status,
    ...(record.reason === undefined ? {} : { reason: record.reason }),
    requestId: record.requestId,
    cluster: record.cluster,
    record,
  };
}

/** Cluster and action of a body that failed validation, when it names them plainly. */
function hintsOf(body: string): Hints {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return { cluster: null, action: null };
  }
  if (typeof json !== 'object' || json === null) return { cluster: null, action: null };
  const { cluster, action } = json as { cluster?: unknown; action?: unknown };
  return {
    cluster: typeof cluster === 'string' && isValidName(cluster) ? cluster : null,
    action: typeof action === 'string' && (RECORD_ACTIONS as readonly string[]).includes(action) ? (action as RecordAction) : null,
  };
}
