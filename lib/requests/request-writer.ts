import { DEFAULT_BASE_PATH } from '../d2/data';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import type { AclSource, ZkReader, ZkWriter } from '../zk';
import type { AlarmReader } from '../alarms';
import { WorkerAlarmCheck } from './alarm-check';
import type { AttemptContext } from './attempt-context';
import { clusterAttempt } from './cluster-attempt';
import { DEFAULT_RETRY_BUDGET, retryOnConflict, type RetryBudget, type RetryContext } from './conflict-retry';
import { DEFAULT_DRILLS_PATH } from './drill-node';
import { isFabricDrillRequest } from './drill-schema';
import { readRecord } from './duplicate-records';
import { RequestError } from './errors';
import { isEvacuationRequest } from './evacuate-schema';
import { evacuationAttempt } from './evacuation-attempt';
import { DEFAULT_EVACUATIONS_PATH } from './evacuation-node';
import { fabricAttempt } from './fabric-attempt';
import { fabricDrillAttempt } from './fabric-drill-attempt';
import { isFabricRequest } from './fabric-schema';
import { viewPathFor } from './failout-view';
import { HostCountCache } from './host-count-cache';
import type { JudgeOptions } from './judge-request';
import { silentRequestLogger, type RequestLogger } from './logger';
import { RecordCommit } from './record-commit';
import { hintsOf, type RequestMeta } from './record-hints';
import type { RecordRetention } from './record-retention';
import { RecordSweeper, type SweepResult } from './record-sweeper';
import { DEFAULT_REQUESTS_PATH, type RequestRecord } from './request-record';
import type { Outcome } from './request-outcome';
import { DEFAULT_REQUEST_LIMITS, parseRequest, type ParseOptions } from './schema';
import { classifySessionError } from './session-errors';

// Names that moved out of this file in the split stay importable from here, where the worker's
// callers and tests take them (lambda/handler.ts, test/helpers).
export { DEFAULT_RETRY_BUDGET, type RetryBudget } from './conflict-retry';
export type { RequestMeta } from './record-hints';
export type { Outcome } from './request-outcome';

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

/**
 * Applies change requests to ZooKeeper exactly once (ARCHITECTURE.md "Change request"):
 * parse → read the cluster → guard rails → `applyRequest` → ONE multi of version check + cluster
 * `setData` + create of `/failout/requests/<requestId>`. A version conflict re-reads and retries with
 * jittered backoff within the {@link RetryBudget}; an existing record makes the request a `duplicate`
 * (the record is read and returned; one that cannot be read is still a duplicate, its outcome saying
 * why in `unreadableRecord`: it exists only if the request was handled). Permanent rejections are recorded as well (with a version check
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
  private readonly limits: Omit<ParseOptions, 'now'>;
  private readonly requestsPath: string;
  private readonly clock: () => number;
  private readonly context: AttemptContext;
  private readonly retry: RetryContext;
  private readonly sweeper: RecordSweeper | undefined;

  constructor(options: RequestWriterOptions) {
    if (!options.session) throw new RequestError('invalidArgument', 'RequestWriter needs a session');
    if (!options.recordAcl) throw new RequestError('invalidArgument', 'RequestWriter needs a recordAcl: records are never created without an ACL');
    const session = options.session;
    const d2BasePath = options.d2BasePath ?? DEFAULT_BASE_PATH;
    const requestsPath = options.requestsPath ?? DEFAULT_REQUESTS_PATH;
    const drillsPath = options.drillsPath ?? DEFAULT_DRILLS_PATH;
    const fabricsPath = options.fabricsPath ?? DEFAULT_FABRICS_PATH;
    const evacuationsPath = options.evacuationsPath ?? DEFAULT_EVACUATIONS_PATH;
    const recordAcl = options.recordAcl;
    // The view of open failouts sits beside the records unless the deployment says otherwise.
    const judgeOptions: JudgeOptions = { viewPath: viewPathFor(requestsPath), hostCache: new HostCountCache(), ...options.judge };
    const log = options.logger ?? silentRequestLogger;
    const clock = options.clock ?? Date.now;
    this.session = session;
    this.limits = options.limits ?? {};
    this.requestsPath = requestsPath;
    this.clock = clock;
    this.context = {
      session,
      d2BasePath,
      requestsPath,
      drillsPath,
      fabricsPath,
      maxWindowMs: this.limits.maxWindowMs ?? DEFAULT_REQUEST_LIMITS.maxWindowMs,
      recordAcl,
      judgeOptions,
      evacuations: {
        session,
        d2BasePath,
        evacuationsPath,
        judge: { maxPeerLoadFactor: options.judge?.maxPeerLoadFactor, viewPath: options.judge?.viewPath ?? viewPathFor(requestsPath), fabricsPath, evacuationsPath },
        acl: recordAcl,
        drillsPath,
        ...(options.maxMultiBytes === undefined ? {} : { maxMultiBytes: options.maxMultiBytes }),
      },
      alarmCheck: new WorkerAlarmCheck(options.alarms, log),
      records: new RecordCommit({ session, requestsPath, acl: recordAcl, viewPath: judgeOptions.viewPath, log, clock }),
      log,
      clock,
    };
    this.retry = {
      budget: { ...DEFAULT_RETRY_BUDGET, ...options.retryBudget },
      log,
      clock,
      random: options.random ?? Math.random,
      sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
    };
    this.sweeper =
      options.retention === false ? undefined : new RecordSweeper({ ...options.retention, session, acl: recordAcl, requestsPath, clock, logger: log });
  }

  /** Processes one message body. Resolves when the message may be acknowledged; see the class doc for what throws. */
  async process(body: string, meta: RequestMeta): Promise<Outcome> {
    const { context, retry } = this;
    try {
      const parsed = parseRequest(body, { ...this.limits, now: this.clock() });
      if (parsed.ok) {
        const request = parsed.request;
        if (isFabricRequest(request)) return await retryOnConflict(retry, { requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => fabricAttempt(context, request, meta));
        if (isEvacuationRequest(request)) return await retryOnConflict(retry, { requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => evacuationAttempt(context, request, meta));
        if (isFabricDrillRequest(request)) return await retryOnConflict(retry, { requestId: request.requestId, cluster: `fabric ${request.fabric}` }, () => fabricDrillAttempt(context, request, meta));
        return await retryOnConflict(retry, request, () => clusterAttempt(context, request, meta));
      }
      const hints = hintsOf(body);
      const subject = { requestId: parsed.rejection.requestId ?? meta.messageId, cluster: hints.cluster ?? '(unknown)' };
      return await retryOnConflict(retry, subject, () => context.records.reject(parsed.rejection, hints, meta, undefined));
    } catch (e) {
      throw classifySessionError(e);
    }
  }

  /** The record of a request id (or message id), or undefined when there is none. */
  async readRecord(id: string): Promise<RequestRecord | undefined> {
    return readRecord({ session: this.session, requestsPath: this.requestsPath }, id);
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
      throw classifySessionError(e);
    }
  }
}
