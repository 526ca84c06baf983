/**
 * The drill runner (issue 16, "Drills"): on each tick (EventBridge every minute in AWS, a timer in the
 * local stack), for every drill whose schedule came due and was not yet handled, decide (drill-decision.ts)
 * and send ONE request to the queue: the drill's `failout` (with `drill` and `stopAlarms` = outcome
 * alarm + blocking alarms, so the guard ends it when one fires) or a `skipDrill` saying why.
 *
 * Exactly once per scheduled time: the request id is the run id `drill-<name>-<scheduledAt ms>`, the
 * same for every tick and every runner, and the skip and the failout share it. SQS FIFO drops a
 * resend within 5 minutes and the worker's record makes any later one a `duplicate`, so two ticks, two
 * runners, or a tick that decides "skip" and a later one that decides "start" still give one outcome.
 * A tick also looks for the run in the drill's node and for the request record, to send nothing at all
 * for a time already handled.
 *
 * Missed times: a time more than `graceMs` (default 10 minutes) old is ignored, not caught up. A
 * runner that was down for a day must not start yesterday's drill now, outside the window its owners
 * chose and the blocked windows were checked against.
 *
 * Runs in progress (issue 21): every tick also evaluates the alarms of each run moving traffic. When
 * one is in ALARM it sends a `restore` with `stoppedByAlarm`, `alarmAt` (this evaluation's time) and
 * `drill`, under one id per run (`<runId>-stop`): it stops the run if the guard has not (an event lost
 * or late), and it carries the verdict, so the worker records the run `failed` (the outcome alarm;
 * checked first) or `interrupted` (a blocking alarm) even when the restore reaches it after the
 * window ended. A run is thus judged on every evaluation during it, not on when its end is written.
 *
 * Drain tests (a drill of a fabric, issue 23): the run is an `evacuate` of the fabric with the
 * drill's evacuation options, `drill` and `stopAlarms` = outcome alarm + blocking alarms; it is
 * decided over the fabric's clusters and the open evacuations (drill-decision.ts), and stopped with a
 * `restoreFabric` carrying the verdict (`stoppedByAlarm`, `alarmAt`, `drill`), under the same ids.
 */
import { createHash } from 'node:crypto';
import { clusterPath, parseClusterProperties, type FailoutProperties } from '../d2/data';
import { DEFAULT_FABRICS_PATH } from '../fabrics';
import { encodeChangeRequest, DEFAULT_EVACUATIONS_PATH, DEFAULT_REQUESTS_PATH, isEvacuationOpen, isValidRequestId, readEvacuations, readFabricList, requestRecordPath, type ChangeRequestInput, type RequestLogger, type SkipReason } from '../requests';
import { decodeDrillNode, runningRun, runAlarms, DEFAULT_DRILLS_PATH, drillPath, type DrillDefinition, type DrillNode, type DrillRun } from '../requests/drills';
import { isZkError, type ZkSession } from '../zk';
import type { AlarmStates } from './alarm-states';
import { decideRun, type RunFacts } from './drill-decision';
import { lastDueAt, parseSchedule } from '../schedule';
import type { MessageSender } from './stop-guard';

/** Who the runner's requests are requested by. */
export const DRILL_REQUESTER = 'failout-drills';

/** Default: a scheduled time older than this is ignored (see the module doc). */
export const DEFAULT_DRILL_GRACE_MS = 10 * 60_000;

/** The ZooKeeper reads the runner makes (no credentials: drills, records and clusters are world-readable). */
export type DrillZkReader = Pick<ZkSession, 'children' | 'read'>;

/** Options of {@link DrillRunner}. */
export interface DrillRunnerOptions {
  readonly zk: DrillZkReader;
  readonly d2BasePath?: string;
  readonly requestsPath?: string;
  readonly drillsPath?: string;
  /** Parent of the fabric maps (a drain test's fabric); default `/failout/fabrics`. */
  readonly fabricsPath?: string;
  /** Parent of the evacuation nodes (a drain test does not start while one is open); default `/failout/evacuations`. */
  readonly evacuationsPath?: string;
  /** The request queue's URL. */
  readonly queueUrl: string;
  readonly send: MessageSender;
  readonly alarms: AlarmStates;
  readonly logger: RequestLogger;
  /** Epoch ms. Default `Date.now`. */
  readonly clock?: () => number;
  /** Default {@link DEFAULT_DRILL_GRACE_MS}. */
  readonly graceMs?: number;
}

/** What the runner did about one drill. */
export type DrillTickResult =
  /** Nothing due within the grace period. */
  | { readonly drill: string; readonly outcome: 'notDue' }
  /** The due time was handled already (its run recorded, or its request recorded). */
  | { readonly drill: string; readonly outcome: 'handled'; readonly runId: string }
  /** The drill's failout was sent. */
  | { readonly drill: string; readonly outcome: 'started'; readonly runId: string; readonly scheduledAt: number }
  /** A run in progress had one of its alarms in ALARM: its stopping restore (with the verdict) was sent. */
  | { readonly drill: string; readonly outcome: 'stopped'; readonly runId: string; readonly alarm: string; readonly requestId: string }
  /** A `skipDrill` was sent. */
  | { readonly drill: string; readonly outcome: 'skipped'; readonly runId: string; readonly scheduledAt: number; readonly skipReason: SkipReason; readonly detail: string }
  /** The drill could not be judged this tick (a node that does not decode, alarms unreadable, a send that failed); the next tick tries again. */
  | { readonly drill: string; readonly outcome: 'error'; readonly error: string };

/**
 * The run id (and request id) of a drill's run due at `scheduledAt`: `drill-<name>-<ms>`; for a name
 * too long for that to be a valid id, a hash of the name stands in for it.
 */
export function drillRunId(name: string, scheduledAt: number): string {
  const plain = `drill-${name}-${scheduledAt}`;
  if (isValidRequestId(plain)) return plain;
  return `drill-${createHash('sha256').update(name).digest('hex').slice(0, 32)}-${scheduledAt}`;
}

/** The request id of the runner's restore that stops run `runId` (one per run, whichever alarm and tick). */
export function drillStopRequestId(runId: string): string {
  const plain = `${runId}-stop`;
  return isValidRequestId(plain) ? plain : `drill-stop-${createHash('sha256').update(runId).digest('hex').slice(0, 48)}`;
}

/** ISO-8601 `PT…S` of whole or fractional seconds. */
function isoSeconds(ms: number): string {
  return `PT${ms / 1000}S`;
}

/**
 * Runs drills. Stateless between ticks: every tick reads ZooKeeper afresh, so a runner that was down,
 * or two at once, decide the same.
 */
export class DrillRunner {
  private readonly d2BasePath: string;
  private readonly requestsPath: string;
  private readonly drillsPath: string;
  private readonly fabricsPath: string;
  private readonly evacuationsPath: string;
  private readonly clock: () => number;
  private readonly graceMs: number;

  constructor(private readonly options: DrillRunnerOptions) {
    if (!options.queueUrl) throw new Error('DrillRunner needs a queueUrl');
    this.d2BasePath = options.d2BasePath ?? '/d2';
    this.requestsPath = options.requestsPath ?? DEFAULT_REQUESTS_PATH;
    this.drillsPath = options.drillsPath ?? DEFAULT_DRILLS_PATH;
    this.fabricsPath = options.fabricsPath ?? DEFAULT_FABRICS_PATH;
    this.evacuationsPath = options.evacuationsPath ?? DEFAULT_EVACUATIONS_PATH;
    this.clock = options.clock ?? Date.now;
    this.graceMs = options.graceMs ?? DEFAULT_DRILL_GRACE_MS;
  }

  /** One tick over every drill. A drill that fails is reported and does not stop the others. */
  async tick(): Promise<DrillTickResult[]> {
    const names = await this.drillNames();
    const now = this.clock();
    const results = await Promise.all(names.map((name) => this.guarded(name, () => this.tickOne(name, now))));
    return results.sort((a, b) => a.drill.localeCompare(b.drill));
  }

  /**
   * Runs `name` now, whatever its schedule (`failout drill run-now`), with the same checks; the run id
   * is `drill-<name>-<now>`. @throws Error when there is no such drill.
   */
  async runNow(name: string): Promise<DrillTickResult> {
    const now = this.clock();
    const node = await this.readDrill(name);
    if (node === undefined) throw new Error(`no drill named ${JSON.stringify(name)} under ${this.drillsPath}`);
    return this.guarded(name, () => this.runAt(node.definition, now, now));
  }

  private async guarded(name: string, step: () => Promise<DrillTickResult>): Promise<DrillTickResult> {
    try {
      return await step();
    } catch (err) {
      if (isZkError(err) && err.transient) throw err;
      const error = err instanceof Error ? err.message : String(err);
      this.options.logger.warn('drill not judged this tick', { drill: name, error });
      return { drill: name, outcome: 'error', error };
    }
  }

  private async drillNames(): Promise<string[]> {
    try {
      return [...(await this.options.zk.children(this.drillsPath)).children];
    } catch (err) {
      if (isZkError(err, 'noNode')) return [];
      throw err;
    }
  }

  private async readDrill(name: string): Promise<DrillNode | undefined> {
    const found = await this.options.zk.read(drillPath(this.drillsPath, name));
    return found.exists ? decodeDrillNode(found.data) : undefined;
  }

  private async tickOne(name: string, now: number): Promise<DrillTickResult> {
    const node = await this.readDrill(name);
    if (node === undefined) return { drill: name, outcome: 'notDue' };
    const running = runningRun(node, now);
    const stopped = running === undefined ? undefined : await this.stopIfAlarmed(node.definition, running, now);
    // A due time meets this run's failout still in place; the next tick (within the grace) judges it.
    if (stopped !== undefined) return stopped;
    const schedule = parseSchedule(node.definition.every);
    if (!schedule.ok) throw new Error(`schedule ${JSON.stringify(node.definition.every)}: ${schedule.message}`);
    // Not before the definition either: redefining a drill must not fire the time it just passed.
    const notBefore = Math.max(now - this.graceMs, node.definition.definedAt);
    const due = lastDueAt(schedule.schedule, now, { notBefore, anchor: node.definition.definedAt });
    if (due === undefined) return { drill: name, outcome: 'notDue' };
    const runId = drillRunId(name, due);
    if (node.runs.some((r) => r.runId === runId) || (await this.recorded(runId))) return { drill: name, outcome: 'handled', runId };
    return this.runAt(node.definition, due, now);
  }

  /**
   * Evaluates the alarms of `run` (moving traffic now): those it started under, whatever the drill
   * was put again with since; one in ALARM: sends the stopping restore.
   */
  private async stopIfAlarmed(drill: DrillDefinition, run: DrillRun, now: number): Promise<DrillTickResult | undefined> {
    const alarms = runAlarms(run, drill);
    // The outcome alarm first: when both fire, the run failed (the operator looks at it either way).
    const names = [alarms.outcomeAlarm, ...alarms.blockingAlarms];
    const states = await this.options.alarms.states(names);
    const alarm = names.find((n) => states.get(n) === 'ALARM');
    if (alarm === undefined) return undefined;
    const requestId = drillStopRequestId(run.runId);
    const stop = { version: 1 as const, requestId, requestedBy: DRILL_REQUESTER, reason: `drill ${drill.name}: alarm ${alarm} in ALARM during run ${run.runId}`, stoppedByAlarm: alarm, alarmAt: now, drill: drill.name };
    // A drain test's whole evacuation ends, last stage first: the fabric's restore.
    await this.sendChecked(drill.fabric === undefined ? { ...stop, action: 'restore', cluster: drill.cluster } : { ...stop, action: 'restoreFabric', fabric: drill.fabric }, now);
    this.options.logger.info('drill run stopped: alarm in ALARM', { drill: drill.name, ...targetOf(drill), runId: run.runId, alarmName: alarm, requestId });
    return { drill: drill.name, outcome: 'stopped', runId: run.runId, alarm, requestId };
  }

  private async recorded(requestId: string): Promise<boolean> {
    return (await this.options.zk.read(requestRecordPath(this.requestsPath, requestId))).exists;
  }

  private async runAt(drill: DrillDefinition, scheduledAt: number, now: number): Promise<DrillTickResult> {
    const runId = drillRunId(drill.name, scheduledAt);
    const alarms = await this.options.alarms.states([drill.outcomeAlarm, ...drill.blockingAlarms]);
    const decision = decideRun(drill, { scheduledAt, alarms, now, ...(await this.targetFacts(drill, now)) });
    const scheduled = new Date(scheduledAt).toISOString();
    if (!decision.start) {
      await this.sendChecked({
        version: 1,
        requestId: runId,
        action: 'skipDrill',
        ...targetOf(drill),
        drill: drill.name,
        skipReason: decision.skipReason,
        scheduledAt,
        detail: decision.detail,
        requestedBy: DRILL_REQUESTER,
      }, now);
      this.options.logger.info('drill run skipped', { drill: drill.name, ...targetOf(drill), runId, scheduledAt: scheduled, skipReason: decision.skipReason, detail: decision.detail });
      return { drill: drill.name, outcome: 'skipped', runId, scheduledAt, skipReason: decision.skipReason, detail: decision.detail };
    }
    // The window the decision checked (blocked dates and windows: from now for the run's length), as
    // instants: a message the worker gets late (its group held up, a DLQ redrive) moves traffic only
    // within it, and one that comes after it ended starts nothing (the worker records the run skipped).
    const window = { offlineAt: new Date(now).toISOString(), onlineAt: new Date(now + drill.durationMs).toISOString() };
    const run = { version: 1 as const, requestId: runId, ...window, requestedBy: DRILL_REQUESTER, reason: `drill ${drill.name} (due ${scheduled})`, drill: drill.name, stopAlarms: [drill.outcomeAlarm, ...drill.blockingAlarms] };
    if (drill.fabric === undefined) {
      await this.sendChecked({ ...run, action: 'failout', cluster: drill.cluster, peers: drill.peers.map((p) => ({ cluster: p.cluster, weight: p.weight })), buckets: drill.buckets }, now);
    } else {
      await this.sendChecked({ ...run, action: 'evacuate', fabric: drill.fabric, ...evacuationFields(drill.evacuation) }, now);
    }
    this.options.logger.info('drill run started', { drill: drill.name, ...targetOf(drill), runId, scheduledAt: scheduled });
    return { drill: drill.name, outcome: 'started', runId, scheduledAt };
  }

  /** What a run is decided on besides the alarms: the cluster's failout, or the fabric's clusters' and the open evacuations. */
  private async targetFacts(drill: DrillDefinition, now: number): Promise<Pick<RunFacts, 'failout' | 'members' | 'evacuations'>> {
    if (drill.fabric === undefined) return { failout: await this.clusterFailout(drill.cluster) };
    const fabrics = await readFabricList(this.options.zk, this.d2BasePath, this.fabricsPath);
    const clusters = fabrics.find((f) => f.name === drill.fabric)?.clusters.map((m) => m.cluster) ?? [];
    const failouts = await Promise.all(clusters.map(async (c) => [c, await this.clusterFailout(c)] as const));
    const evacuations = (await readEvacuations(this.options.zk, this.evacuationsPath)).filter((e) => isEvacuationOpen(e, now)).map((e) => ({ fabric: e.fabric, requestId: e.requestId, drill: e.plan.drill }));
    return { members: new Map(failouts), evacuations };
  }

  /** Through the one encoder (the worker's own rules first): a request it can only reject is never sent. */
  private async sendChecked(body: ChangeRequestInput, now: number): Promise<void> {
    const encoded = encodeChangeRequest(this.options.queueUrl, body, { now });
    if (!encoded.ok) throw new Error(`the worker would reject the drill's ${body.action} (${encoded.rejection.reason}): ${encoded.rejection.message}`);
    await this.options.send(encoded.message);
  }

  private async clusterFailout(cluster: string): Promise<FailoutProperties | null> {
    const node = await this.options.zk.read(clusterPath(this.d2BasePath, cluster));
    if (!node.exists) return null;
    try {
      return parseClusterProperties(node.data.toString('utf8')).failoutProperties;
    } catch {
      // Unreadable: the worker judges again (and rejects what it cannot read); nothing to add here.
      return null;
    }
  }
}

/** The target fields of a drill's requests (and its log lines): its cluster, or its fabric. */
function targetOf(drill: DrillDefinition): { cluster: string } | { fabric: string } {
  return drill.fabric === undefined ? { cluster: drill.cluster } : { fabric: drill.fabric };
}

/** A drain test's evacuation options as `evacuate` takes them (evacuate-schema.ts). */
function evacuationFields(options: Extract<DrillDefinition, { fabric: string }>['evacuation']): Omit<Extract<ChangeRequestInput, { action: 'evacuate' }>, 'version' | 'requestId' | 'action' | 'fabric'> {
  return {
    ...(options.targets === undefined ? {} : { targets: options.targets.map((t) => ({ fabric: t.fabric, weight: t.weight })) }),
    ...(options.stages === undefined ? {} : { stages: options.stages.map((s) => ('tier' in s ? { tier: s.tier, gateAlarms: [...s.gateAlarms] } : { clusters: [...s.clusters], gateAlarms: [...s.gateAlarms] })) }),
    hold: isoSeconds(options.holdMs),
    restoreGap: isoSeconds(options.restoreGapMs),
    ...(options.ramp === undefined ? {} : { ramp: options.ramp.map((step) => ({ ...step })) }),
    ...(options.exclude.length === 0 ? {} : { exclude: [...options.exclude] }),
  };
}
