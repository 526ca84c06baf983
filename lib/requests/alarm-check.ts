import { AlarmStatesError, type AlarmReader, type AlarmReading } from '../alarms';
import type { MultiOp } from '../zk';
import { drillEffectsOf, type DrillWriteContext } from './drill-writes';
import { assertIsError } from './errors';
import type { RequestLogger } from './logger';
import { rejectionOf, type Problem, type Rejection } from './rejection';
import type { ChangeRequest } from './schema';
import type { EvacuateChangeRequest } from './evacuate-schema';
import type { FabricDrillChangeRequest, PutFabricDrillChangeRequest } from './drill-schema';

/** A request whose alarms are checked: a cluster's or drill's, an evacuation (its stop and gate alarms), or a drain test's action. */
export type AlarmNamingRequest = ChangeRequest | EvacuateChangeRequest | FabricDrillChangeRequest;

/**
 * Alarms that can act (issue 21): the alarms a request names are read from the alarm source before
 * the request is judged, by the worker and by the CLI alike (one rule, {@link checkRequestAlarms}).
 *
 * - A failout's `stopAlarms` (a drill's run names its outcome and blocking alarms there): a name in
 *   ALARM is refused (`stopAlarmFiring`): EventBridge delivers only changes of state, so an alarm that
 *   fires already could never stop the failout. A name the source does not know is refused
 *   (`unknownAlarm`): a typo that would never fire.
 * - A `putDrill`'s outcome and blocking alarms must exist (`unknownAlarm`): a drill whose outcome
 *   alarm does not exist can never fail. Their state does not matter: a firing alarm only makes the
 *   runner skip runs while it fires.
 * - An `amend`'s `addStopAlarms` are checked as a failout's `stopAlarms` (its removed names are not).
 * - Restores, extends, ramp actions and the other drill actions name no alarm: never checked, never delayed (an
 *   incident is no time to wait on CloudWatch for a restore).
 *
 * A source that cannot be read blocks nothing: the request is judged and applied as if it named no
 * alarm, the writer logs a warning and the record says `alarmsUnchecked` (the Lambda counts it).
 */

/** Why the source is asked about an alarm. */
export type AlarmDuty =
  /** It must exist and must not be in ALARM: it is to stop the failout when it fires. */
  | 'stop'
  /** It must exist (a drill's definition: its runs stop on it later). */
  | 'exist';

/** One alarm a request names: the name, the field that names it, and what it must satisfy. */
export interface NamedAlarm {
  readonly name: string;
  /** The field, as rejection messages name it: `stopAlarms[1]`, `outcomeAlarm`, `blockingAlarms[0]`. */
  readonly field: string;
  readonly duty: AlarmDuty;
}

/** The alarms `request` names, in field order (none for a restore, an extend, `deleteDrill`, `skipDrill`). */
export function alarmsNamedBy(request: AlarmNamingRequest): NamedAlarm[] {
  if (request.action === 'evacuate') {
    const gates = (request.stages ?? []).flatMap((stage, i) => stage.gateAlarms.map((name, j) => ({ name, field: `stages[${i}].gateAlarms[${j}]`, duty: 'stop' as const })));
    return [...request.stopAlarms.map((name, i) => ({ name, field: `stopAlarms[${i}]`, duty: 'stop' as const })), ...gates];
  }
  if (request.action === 'failout') return (request.stopAlarms ?? []).map((name, i) => ({ name, field: `stopAlarms[${i}]`, duty: 'stop' }));
  // An amend's added names are checked as a failout's `stopAlarms` are; removed names are not read.
  if (request.action === 'amend') return request.addStopAlarms.map((name, i) => ({ name, field: `addStopAlarms[${i}]`, duty: 'stop' }));
  if (request.action === 'putDrill') {
    return [{ name: request.outcomeAlarm, field: 'outcomeAlarm', duty: 'exist' }, ...request.blockingAlarms.map((name, i) => ({ name, field: `blockingAlarms[${i}]`, duty: 'exist' as const }))];
  }
  return [];
}

/**
 * Every problem of the alarms `request` names, given the source's readings (a name missing from
 * `readings` counts as unknown). Pure: the worker, the CLI's check before sending and `--dry-run`
 * share it.
 */
export function checkRequestAlarms(request: AlarmNamingRequest, readings: ReadonlyMap<string, AlarmReading>): Problem[] {
  const problems: Problem[] = [];
  for (const alarm of alarmsNamedBy(request)) {
    const reading = readings.get(alarm.name) ?? 'unknown';
    const name = JSON.stringify(alarm.name.length > 64 ? `${alarm.name.slice(0, 64)}…` : alarm.name);
    if (reading === 'unknown') {
      problems.push({ reason: 'unknownAlarm', message: `${alarm.field}: the alarm source has no alarm ${name}; a name it does not know can never fire (check the spelling, account and region)` });
    } else if (alarm.duty === 'stop' && reading === 'ALARM') {
      problems.push({ reason: 'stopAlarmFiring', message: `${alarm.field}: ${name} is in ALARM already; only a change of state stops a failout, so it could never stop this one (wait until it is OK, or leave it out)` });
    }
  }
  return problems;
}

/** What came of reading and checking a request's alarms. */
export type AlarmCheck =
  /** The request names no alarm, or there is no alarm source: nothing was read. */
  | { readonly status: 'notChecked' }
  /** Read and checked: no `rejection` when every alarm passed, else the problems folded as the worker records them. */
  | { readonly status: 'checked'; readonly problems: readonly Problem[]; readonly rejection: Rejection | undefined }
  /** The source could not be read: nothing was checked. */
  | { readonly status: 'unreadable'; readonly names: readonly string[]; readonly error: AlarmStatesError };

/**
 * Reads the alarms `request` names from `source` and checks them. Never throws for the source's
 * sake: an unreadable source is `unreadable` (the caller decides; neither the worker nor the CLI
 * blocks a request on it).
 */
export async function readRequestAlarms(source: AlarmReader | undefined, request: AlarmNamingRequest): Promise<AlarmCheck> {
  const names = [...new Set(alarmsNamedBy(request).map((a) => a.name))];
  if (source === undefined || names.length === 0) return { status: 'notChecked' };
  try {
    const problems = checkRequestAlarms(request, await source.read(names));
    return { status: 'checked', problems, rejection: problems.length === 0 ? undefined : rejectionOf(problems, request.requestId) };
  } catch (err) {
    assertIsError(err);
    const error = err instanceof AlarmStatesError ? err : new AlarmStatesError(`the alarm source failed: ${err.message}`, { cause: err });
    return { status: 'unreadable', names, error };
  }
}

/** The worker's verdict on a request's alarms, as the writer uses it. */
export interface WorkerAlarmVerdict {
  /** Set when an alarm is firing or unknown: record this rejection instead of judging. */
  readonly rejection?: Rejection;
  /** With `rejection`: the drill node's ops (a drill's run refused is recorded skipped, in the same multi). */
  readonly ops: readonly MultiOp[];
  /** What an applied record carries: `{ alarmsUnchecked: true }` when the source could not be read, else nothing. */
  readonly recordFields: { readonly alarmsUnchecked?: true };
}

/**
 * The request worker's alarm check (RequestWriter, before judging): reads and checks the request's
 * alarms; a problem becomes a rejection (with the drill node's `skipped` run for a drill's failout);
 * an unreadable source is logged as a warning and noted on the record. Stateless.
 */
export class WorkerAlarmCheck {
  constructor(
    private readonly source: AlarmReader | undefined,
    private readonly log: RequestLogger,
  ) {}

  /** The verdict on the alarms of a request that names a fabric: an evacuation's stop and gate alarms, a drain test's outcome and blocking alarms. */
  async evacuationVerdict(request: EvacuateChangeRequest | PutFabricDrillChangeRequest): Promise<Omit<WorkerAlarmVerdict, 'ops'>> {
    const check = await readRequestAlarms(this.source, request);
    if (check.status === 'unreadable') {
      this.warnUnreadable(request, `fabric ${request.fabric}`, check);
      return { recordFields: { alarmsUnchecked: true } };
    }
    if (check.status === 'notChecked' || check.rejection === undefined) return { recordFields: {} };
    return { rejection: check.rejection, recordFields: {} };
  }

  private warnUnreadable(request: AlarmNamingRequest, subject: string, check: Extract<AlarmCheck, { status: 'unreadable' }>): void {
    this.log.warn('alarms not checked: the alarm source could not be read; the request is judged without them', {
      requestId: request.requestId,
      cluster: subject,
      action: request.action,
      alarms: check.names,
      alarmSourceError: check.error.message,
      alarmSourceErrorKind: check.error.kind,
    });
  }

  /** The verdict on `request`'s alarms; `drills` gives the drill node's context for a refused run. */
  async verdict(request: ChangeRequest, drills: DrillWriteContext): Promise<WorkerAlarmVerdict> {
    const check = await readRequestAlarms(this.source, request);
    if (check.status === 'unreadable') {
      this.warnUnreadable(request, request.cluster, check);
      return { ops: [], recordFields: { alarmsUnchecked: true } };
    }
    if (check.status === 'notChecked' || check.rejection === undefined) return { ops: [], recordFields: {} };
    const rejection = check.rejection;
    // A drill's run refused here is recorded `skipped` on its drill, as any rejection of a run is.
    const path = `${drills.d2BasePath}/clusters/${request.cluster}`;
    const effects = await drillEffectsOf(drills, request, { verdict: 'reject', path, version: undefined, rejection });
    return { rejection, ops: effects.ops, recordFields: {} };
  }
}
