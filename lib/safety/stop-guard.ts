/**
 * The stop-conditions guard (issue 16, "Stop conditions"): a CloudWatch alarm went to ALARM; every
 * failout that names it in `stopAlarms` must end. The guard reads every cluster under the D2 base
 * (read-only: cluster nodes are world-readable, the guard holds no ZooKeeper credential), finds those
 * whose failout has a window that has not ended naming the alarm, and sends one `restore` per cluster
 * to the request queue, so the restore goes through the same worker, checks and records as an
 * operator's (AWS FIS "stop conditions", here for one cluster of one service).
 *
 * Exactly once, end to end: the restore's request id is derived from the cluster, the alarm and the
 * event (id and time of the change), so a redelivered or retried event sends the same id; SQS FIFO
 * drops it within 5 minutes and the worker's record makes it a `duplicate` after that. The worker
 * itself removes the failout only while a window naming the alarm is still open (lib/requests
 * `applyRequest`), so a restore that arrives after the operator replaced the failout changes nothing.
 *
 * Drill runs (issue 21): a run's outcome is decided by its alarms during the run, not by when the
 * guard or the worker get to it. So the guard also stops a drill window that was open when the alarm
 * changed state (`changedAt`), though it has ended since (an event retried, a guard that was down),
 * and every restore carries `alarmAt` (when the state changed) and, for a drill window, `drill`: the
 * worker records the run whose window held `alarmAt` as `failed` (its outcome alarm) or `interrupted`
 * (a blocking alarm), even when the restore reaches it after the window ended.
 *
 * Evacuations (issue 23): the clusters of one evacuation end together, with ONE `restoreFabric` for
 * its fabric. A drain test's (a drill of a fabric) carries `drill` as a cluster drill's restore does,
 * and is sent too when its windows were open at `alarmAt` but have ended since: the worker gives the
 * run its verdict late.
 *
 * An alarm change older than a window does not stop it (lib/requests `windowMadeAfterAlarm`): a retried or
 * redelivered event from before the failout existed would otherwise end a failout that was judged,
 * and accepted, after that change (the worker refuses a stop alarm already in ALARM).
 */
import { createHash } from 'node:crypto';
import type { SendMessageCommandInput } from '@aws-sdk/client-sqs';
import { clusterPath, isBucketConfigActiveAt, isSymlinkName, parseClusterProperties, type FailoutProperties } from '../d2/data';
import { encodeChangeRequest, namesStopAlarm, newRequestId, windowMadeAfterAlarm, type RequestLogger } from '../requests';
import { decodeDrillNode, DEFAULT_DRILLS_PATH, drillPath, runAlarms, runTakesVerdict } from '../requests/drills';
import { isZkError, type ZkSession } from '../zk';
import { NO_READ_PERMISSION } from '../text';
import { parseAlarmEvent, type AlarmStateChange } from './alarm-event';
import { SafetyError } from './errors';

/** The margin the guard (and the worker) give a requester's clock (lib/requests `windowMadeAfterAlarm`). */
export { ALARM_BEFORE_WINDOW_MARGIN_MS } from '../requests';

/** Who the guard's restores are requested by (recorded with the request). */
export const GUARD_REQUESTER = 'failout-guard';

/**
 * The counters the guard reports (Powertools metrics in the Lambda); what an operator alarms on:
 * - `MalformedEvents` > 0: the rule delivers something the guard cannot read (a misconfigured rule);
 * - `ClustersUnreadable` > 0: a cluster's document does not parse, so a failout in it cannot be stopped;
 * - `RestoreSendFailures` > 0: a restore did not reach the queue (the invocation fails and is retried,
 *   then goes to the rule's DLQ);
 * - `RestoresSent`: failouts stopped by alarms (expected to be rare).
 */
export type GuardCounter = 'AlarmEvents' | 'MalformedEvents' | 'IgnoredTransitions' | 'RestoresSent' | 'ClustersUnreadable' | 'RestoreSendFailures' | 'ClustersRead';

/** The ZooKeeper reads the guard makes. */
export type GuardZkReader = Pick<ZkSession, 'children' | 'read'>;

/** Puts one message on the request queue; resolves with the SQS message id when known. */
export type MessageSender = (message: SendMessageCommandInput) => Promise<{ readonly messageId?: string }>;

/** Options of {@link StopGuard}. */
export interface StopGuardOptions {
  /** A started session (no credentials needed). */
  readonly zk: GuardZkReader;
  /** The D2 base path (default `/d2`). */
  readonly d2BasePath?: string;
  /**
   * Parent of the drill nodes (default `/failout/drills`): a run whose window a restore already removed
   * from its cluster still takes the verdict of an alarm seen earlier in it.
   */
  readonly drillsPath?: string;
  /** The request queue's URL. */
  readonly queueUrl: string;
  /** Sends to the queue (an SQS client's `send` in the Lambda). */
  readonly send: MessageSender;
  readonly logger: RequestLogger;
  /** Adds to a counter. Default: nothing. */
  readonly count?: (counter: GuardCounter, value: number) => void;
  /** Epoch ms, to tell open windows from ended ones. Default `Date.now`. */
  readonly clock?: () => number;
}

/** One restore the guard sent. */
export interface SentRestore {
  readonly cluster: string;
  readonly requestId: string;
  readonly messageId?: string;
}

/** What {@link StopGuard.handle} did with one event. */
export type GuardResult =
  /** Not an alarm state change event: logged and counted; retrying would not help. */
  | { readonly outcome: 'malformed'; readonly error: SafetyError }
  /** A transition to OK or INSUFFICIENT_DATA: nothing to stop. */
  | { readonly outcome: 'ignored'; readonly alarmName: string; readonly state: string }
  /** An ALARM: the failouts naming it were found and one restore per cluster was sent. */
  | {
      readonly outcome: 'handled';
      readonly alarmName: string;
      /** Clusters read. */
      readonly clusters: number;
      readonly restores: readonly SentRestore[];
      /** Clusters whose document could not be read, and why. */
      readonly unreadable: readonly { readonly cluster: string; readonly problem: string }[];
    };

/** What {@link handleAlarmEvent} needs: the guard (made on demand), and where to log and count. */
export interface AlarmEventDeps {
  /** The guard; called only for an ALARM transition, so a malformed event or an OK needs no ZooKeeper. */
  readonly guard: () => Promise<StopGuard>;
  readonly logger: RequestLogger;
  readonly count?: (counter: GuardCounter, value: number) => void;
}

/**
 * One alarm event, end to end. Resolves for a malformed event (logged at error and counted, never
 * retried: it would not read better next time), for a non-ALARM transition (nothing to stop) and for a
 * handled ALARM.
 * @throws as {@link StopGuard.stopFor}, and whatever making the guard throws (ZooKeeper out of reach):
 *   the invocation fails and EventBridge retries it.
 */
export async function handleAlarmEvent(input: unknown, deps: AlarmEventDeps): Promise<GuardResult> {
  const count = deps.count ?? (() => undefined);
  const parsed = parseAlarmEvent(input);
  if (!parsed.ok) {
    count('MalformedEvents', 1);
    deps.logger.error('alarm event rejected: malformed', { error: parsed.error.message });
    return { outcome: 'malformed', error: parsed.error };
  }
  const event = parsed.event;
  count('AlarmEvents', 1);
  if (event.state !== 'ALARM') {
    count('IgnoredTransitions', 1);
    deps.logger.info('alarm transition ignored: not ALARM', { alarmName: event.alarmName, state: event.state, eventId: event.id });
    return { outcome: 'ignored', alarmName: event.alarmName, state: event.state };
  }
  return (await deps.guard()).stopFor(event);
}

/**
 * The deterministic id of the guard's restore of `cluster` for one alarm state change: a UUIDv7 whose
 * time is the change's (so `failout request` can tell a pruned record), the rest a hash of cluster,
 * alarm, event id and time. The same event gives the same id on every delivery.
 */
export function guardRequestId(cluster: string, event: Pick<AlarmStateChange, 'alarmName' | 'id' | 'changedAt'>): string {
  const digest = createHash('sha256').update(JSON.stringify(['failout-guard/v1', cluster, event.alarmName, event.id, event.changedAt ?? ''])).digest();
  const at = event.changedAt === undefined ? NaN : Date.parse(event.changedAt);
  return newRequestId(Number.isFinite(at) && at >= 0 ? at : 0, () => digest.subarray(0, 16));
}

/**
 * Stop conditions, alarm event by alarm event. Stateless between events: every event reads ZooKeeper
 * afresh, so a guard that was down, or runs twice at once, decides the same.
 */
export class StopGuard {
  private readonly d2BasePath: string;
  private readonly drillsPath: string;
  private readonly count: (counter: GuardCounter, value: number) => void;
  private readonly clock: () => number;

  constructor(private readonly options: StopGuardOptions) {
    if (!options.queueUrl) throw new Error('StopGuard needs a queueUrl');
    this.d2BasePath = options.d2BasePath ?? '/d2';
    this.drillsPath = options.drillsPath ?? DEFAULT_DRILLS_PATH;
    this.count = options.count ?? (() => undefined);
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Handles one event (an object or JSON text): {@link handleAlarmEvent} with this guard.
   * @throws as {@link StopGuard.stopFor}.
   */
  handle(input: unknown): Promise<GuardResult> {
    return handleAlarmEvent(input, { guard: async () => this, logger: this.options.logger, count: this.count });
  }

  /**
   * Stops every failout naming the alarm of an ALARM transition: one restore per cluster.
   * @throws ZkError when ZooKeeper cannot be read; SafetyError `restoreNotSent` when a restore could not be sent
   *   (those sent before are not undone: the retry sends the same ids and they are deduplicated).
   */
  stopFor(event: AlarmStateChange): Promise<GuardResult> {
    return this.stop(event);
  }

  private async stop(event: AlarmStateChange): Promise<GuardResult> {
    const now = this.clock();
    const alarmAt = alarmTimeOf(event);
    const { matches, unreadable, clusters } = await this.findFailouts(event.alarmName, now, alarmAt);
    this.count('ClustersRead', clusters);
    const restores: SentRestore[] = [];
    const failed: { cluster: string; error: unknown }[] = [];
    // An evacuation's clusters end together: one restoreFabric per fabric (the worker restores every
    // cluster of it, last stage first), not one restore per cluster; a drain test's names its drill.
    const fabrics = new Map<string, string | undefined>();
    for (const m of matches) if (m.evacuation !== undefined) fabrics.set(m.evacuation, fabrics.get(m.evacuation) ?? m.drill);
    const single = matches.filter((m) => m.evacuation === undefined);
    // One send per cluster or fabric, in parallel: they are independent FIFO groups.
    await Promise.all([
      ...single.map(async ({ cluster, drill }) => {
        try {
          restores.push(await this.sendRestore(cluster, drill, event, now, alarmAt));
        } catch (error) {
          failed.push({ cluster, error });
        }
      }),
      ...[...fabrics].map(async ([fabric, drill]) => {
        try {
          restores.push(await this.sendFabricRestore(fabric, drill, event, now, alarmAt));
        } catch (error) {
          failed.push({ cluster: `fabric ${fabric}`, error });
        }
      }),
    ]);
    this.count('RestoresSent', restores.length);
    for (const r of restores) {
      this.options.logger.info('stop alarm fired: restore sent', { alarmName: event.alarmName, cluster: r.cluster, requestId: r.requestId, messageId: r.messageId, eventId: event.id });
    }
    if (matches.length === 0) this.options.logger.info('stop alarm fired: no active failout names it', { alarmName: event.alarmName, clusters, eventId: event.id });
    if (failed.length > 0) {
      this.count('RestoreSendFailures', failed.length);
      const names = failed.map((f) => f.cluster);
      const first = failed[0]!.error;
      this.options.logger.error('stop alarm fired: restore not sent; the event will be retried', { alarmName: event.alarmName, clusters: names, error: first instanceof Error ? first.message : String(first) });
      throw new SafetyError('restoreNotSent', `could not send the restore of ${names.join(', ')} for alarm ${event.alarmName}: ${first instanceof Error ? first.message : String(first)}`, { clusters: names, cause: first });
    }
    return { outcome: 'handled', alarmName: event.alarmName, clusters, restores: restores.sort((a, b) => a.cluster.localeCompare(b.cluster)), unreadable };
  }

  /**
   * The clusters whose failout has an open window naming `alarm`, or a drill window naming it that was
   * active at `alarmAt` (with that drill); unreadable ones logged and counted.
   */
  private async findFailouts(alarm: string, now: number, alarmAt: number | undefined): Promise<{ matches: StopMatch[]; unreadable: { cluster: string; problem: string }[]; clusters: number }> {
    let names: string[];
    try {
      names = (await this.options.zk.children(clusterPath(this.d2BasePath))).children;
    } catch (err) {
      if (isZkError(err, 'noNode')) return { matches: [], unreadable: [], clusters: 0 };
      throw err;
    }
    // A D2 symlink (`$FooClusterMaster`) holds the path of a cluster, not a cluster document: that
    // cluster's failout is read under its own name, so the link is neither a cluster nor unreadable.
    names = names.filter((name) => !isSymlinkName(name));
    const matches: StopMatch[] = [];
    const unreadable: { cluster: string; problem: string }[] = [];
    await Promise.all(
      names.map(async (cluster) => {
        const node = await this.readCluster(cluster);
        if (node === 'noAuth') {
          // One node the guard may not read must not keep it from stopping every other failout.
          const problem = NO_READ_PERMISSION;
          unreadable.push({ cluster, problem });
          this.options.logger.warn('cluster unreadable; a failout in it cannot be stopped', { cluster, alarmName: alarm, problem });
          return;
        }
        // Removed between the listing and the read: nothing to stop.
        if (!node.exists) return;
        try {
          const read = parseClusterProperties(node.data.toString('utf8')).failoutProperties;
          // Windows made after the change are not the alarm's to stop (a retried or redelivered old event).
          const props = read === null ? null : { ...read, buckets: read.buckets.filter((b) => !windowMadeAfterAlarm(b, alarmAt, node.stat.mtime)) };
          const drill = drillWindowNaming(props, alarm, now, alarmAt);
          if (props !== null && (namesStopAlarm(props, alarm, now) || drill !== undefined)) matches.push({ cluster, drill, evacuation: evacuationNaming(props, alarm, now, alarmAt) });
        } catch (err) {
          const problem = err instanceof Error ? err.message : String(err);
          unreadable.push({ cluster, problem });
          this.options.logger.warn('cluster unreadable; a failout in it cannot be stopped', { cluster, alarmName: alarm, problem });
        }
      }),
    );
    if (unreadable.length > 0) this.count('ClustersUnreadable', unreadable.length);
    for (const late of await this.runsTakingVerdict(alarm, now, alarmAt)) {
      const i = matches.findIndex((m) => m.cluster === late.cluster);
      if (i < 0) matches.push(late);
      else if (matches[i]!.drill === undefined && matches[i]!.evacuation === undefined) matches[i] = { ...matches[i]!, drill: late.drill };
    }
    return { matches: matches.sort((a, b) => a.cluster.localeCompare(b.cluster)), unreadable, clusters: names.length };
  }

  /** A cluster node as read, or `noAuth` when the guard may not read it; other ZooKeeper errors are thrown (the event is retried). */
  private async readCluster(cluster: string): Promise<Awaited<ReturnType<GuardZkReader['read']>> | 'noAuth'> {
    try {
      return await this.options.zk.read(clusterPath(this.d2BasePath, cluster));
    } catch (err) {
      if (isZkError(err, 'noAuth')) return 'noAuth';
      throw err;
    }
  }

  /**
   * The cluster drills whose run, by its node, takes the verdict of `alarm` seen at `alarmAt` (the
   * alarm is one of the run's, `alarmAt` lies in its time moving traffic, and it has no verdict from an
   * earlier alarm): its restore carries the drill and `alarmAt`, and the worker records the verdict.
   * The windows in the cluster node cannot tell it when a restore already removed them: a blocking
   * alarm's stop, handled before the outcome alarm's event from earlier in the run (the first alarm
   * seen in a run decides it). An unreadable drill node is logged and left out.
   */
  private async runsTakingVerdict(alarm: string, now: number, alarmAt: number | undefined): Promise<StopMatch[]> {
    if (alarmAt === undefined) return [];
    let names: readonly string[];
    try {
      names = (await this.options.zk.children(this.drillsPath)).children;
    } catch (err) {
      if (isZkError(err, 'noNode')) return [];
      throw err;
    }
    const found = await Promise.all(
      names.map(async (name): Promise<StopMatch | undefined> => {
        try {
          const node = await this.options.zk.read(drillPath(this.drillsPath, name));
          if (!node.exists) return undefined;
          const drill = decodeDrillNode(node.data);
          const d = drill.definition;
          // A drain test's verdict travels with its fabric's restore (its windows name the evacuation).
          if (d.fabric !== undefined) return undefined;
          const run = drill.runs.find((r) => runTakesVerdict(r, alarmAt, now));
          if (run === undefined) return undefined;
          const alarms = runAlarms(run, d);
          return alarm === alarms.outcomeAlarm || alarms.blockingAlarms.includes(alarm) ? { cluster: d.cluster, drill: d.name, evacuation: undefined } : undefined;
        } catch (err) {
          // A drill node the guard may not read (noAuth) is as unreadable as one that does not decode.
          if (isZkError(err) && !isZkError(err, 'noAuth')) throw err;
          this.options.logger.warn('drill unreadable; a late verdict on its runs cannot be sent', { drill: name, alarmName: alarm, problem: err instanceof Error ? err.message : String(err) });
          return undefined;
        }
      }),
    );
    return found.filter((m): m is StopMatch => m !== undefined);
  }

  private async sendFabricRestore(fabric: string, drill: string | undefined, event: AlarmStateChange, now: number, alarmAt: number | undefined): Promise<SentRestore> {
    const body = {
      version: 1 as const,
      requestId: guardRequestId(`fabric/${fabric}`, event),
      action: 'restoreFabric' as const,
      fabric,
      requestedBy: GUARD_REQUESTER,
      reason: `stopped by alarm ${event.alarmName}`,
      stoppedByAlarm: event.alarmName,
      ...(alarmAt === undefined ? {} : { alarmAt }),
      ...(drill === undefined ? {} : { drill }),
    };
    const encoded = encodeChangeRequest(this.options.queueUrl, body, { now });
    if (!encoded.ok) throw new Error(`the fabric restore would be rejected (${encoded.rejection.reason}): ${encoded.rejection.message}`);
    const sent = await this.options.send(encoded.message);
    return { cluster: `fabric ${fabric}`, requestId: body.requestId, ...(sent.messageId === undefined ? {} : { messageId: sent.messageId }) };
  }

  private async sendRestore(cluster: string, drill: string | undefined, event: AlarmStateChange, now: number, alarmAt: number | undefined): Promise<SentRestore> {
    const body = {
      version: 1 as const,
      requestId: guardRequestId(cluster, event),
      action: 'restore' as const,
      cluster,
      requestedBy: GUARD_REQUESTER,
      reason: `stopped by alarm ${event.alarmName}`,
      stoppedByAlarm: event.alarmName,
      ...(alarmAt === undefined ? {} : { alarmAt }),
      ...(drill === undefined ? {} : { drill }),
    };
    // The one encoder (the worker's own rules first): a request it could only reject is never sent.
    const encoded = encodeChangeRequest(this.options.queueUrl, body, { now });
    if (!encoded.ok) throw new Error(`the restore would be rejected (${encoded.rejection.reason}): ${encoded.rejection.message}`);
    const sent = await this.options.send(encoded.message);
    return { cluster, requestId: body.requestId, ...(sent.messageId === undefined ? {} : { messageId: sent.messageId }) };
  }
}

/** A cluster the guard restores, and the drill whose window named the alarm, if one did. */
interface StopMatch {
  readonly cluster: string;
  readonly drill: string | undefined;
  /** The fabric whose evacuation wrote the window naming the alarm, if one did. */
  readonly evacuation: string | undefined;
}

/**
 * The fabric of an evacuation window naming `alarm` that has not ended at `now`, or of a drain test's
 * window that was active when the alarm changed state (`alarmAt`): its run takes the verdict late.
 */
function evacuationNaming(props: FailoutProperties, alarm: string, now: number, alarmAt: number | undefined): string | undefined {
  const open = (b: FailoutProperties['buckets'][number]): boolean => b.onlineAt === undefined || b.onlineAt > now || (b.drill !== undefined && alarmAt !== undefined && isBucketConfigActiveAt(b, alarmAt));
  return props.buckets.find((b) => b.evacuation !== undefined && (b.stopAlarms ?? []).includes(alarm) && open(b))?.evacuation;
}

/** When the alarm changed state (epoch ms), when the event says in a form that parses. */
function alarmTimeOf(event: AlarmStateChange): number | undefined {
  const at = event.changedAt === undefined ? NaN : Date.parse(event.changedAt);
  return Number.isFinite(at) && at >= 0 ? at : undefined;
}

/** The drill of a drill window naming `alarm` that is active now, or was when the alarm changed state. */
function drillWindowNaming(props: FailoutProperties | null, alarm: string, now: number, alarmAt: number | undefined): string | undefined {
  const window = props?.buckets.find((b) => b.drill !== undefined && (b.stopAlarms ?? []).includes(alarm) && (isBucketConfigActiveAt(b, now) || (alarmAt !== undefined && isBucketConfigActiveAt(b, alarmAt))));
  return window?.drill;
}
