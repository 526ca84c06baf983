import { z } from 'zod';
import { blockedDateProblem, MAX_BLOCKED_ENTRIES, parseBlockedWindow, parseSchedule } from '../schedule';
import { formatDuration, parseDuration } from './duration';
import { evacuationStageSchema, evacuationTargetSchema, parseEvacuationOptions, type EvacuationOptions } from './evacuate-schema';
import { nameProblem, requestIdProblem } from './names';
import { rampProblems, rampSchema } from './ramp';
import { rejectionOf, type Problem } from './rejection';
import { bucketsSchema, commonFields, freeText, peerSchema, requestBaseOf, type ChangeRequestBase, type ParseOutcome } from './request-fields';
import { alarmNameProblem, MAX_STOP_ALARMS } from './stop-alarms';

/**
 * Drill actions (issue 16, "Drills"): a drill is a scheduled practice failout of one cluster, as ARC
 * practice runs are. Its definition and its runs live in ZooKeeper under `/failout/drills/<name>`, and
 * change only through the request queue, like every other change: `putDrill` (define or redefine),
 * `deleteDrill`, `skipDrill` (the runner records a run it did not start, and why). The run itself is a
 * `failout` request carrying `drill: <name>`. MessageGroupId = the drill's cluster, so a drill's
 * requests apply in order with every other request for that cluster.
 *
 * A drill may target a fabric instead (issue 23, "drain tests"): `fabric` in place of `cluster` and
 * `peers`, with the options of an `evacuate` (`targets`, `stages`, `hold`, `restoreGap`, `ramp`,
 * `exclude`); each run is then an `evacuate` carrying `drill: <name>`. Its requests name no cluster:
 * their FIFO group is the fabric actions' one (request-message.ts `messageGroupOf`), so its runs,
 * skips and definition apply in order with every evacuation. Schedule, blocked dates and windows,
 * outcome and blocking alarms, outcomes and history are the same as a cluster drill's.
 */

/** The drill actions. */
export const DRILL_ACTIONS = ['putDrill', 'deleteDrill', 'skipDrill'] as const;

/** Why a run was skipped (`skipDrill`'s `skipReason`, and the worker's own verdicts). */
export const SKIP_REASONS = [
  /** A blocking alarm was in ALARM at the scheduled time. */
  'blockingAlarm',
  /** The outcome alarm was already in ALARM: the drill would be stopped at once and prove nothing. */
  'outcomeAlarm',
  /** The scheduled time fell on a blocked date (UTC). */
  'blockedDate',
  /** The run's window would overlap a blocked window. */
  'blockedWindow',
  /** The cluster was failed out by an operator (an operator's failout takes precedence, as in ARC). */
  'operatorFailoutActive',
  /** Another run of a drill was still moving this cluster's traffic. */
  'drillRunning',
  /** The worker rejected the run's failout for another reason (the run's `why` says which). */
  'rejected',
] as const;

/** One of {@link SKIP_REASONS}. */
export type SkipReason = (typeof SKIP_REASONS)[number];

/** Most blocking alarms: with the outcome alarm they are the run's `stopAlarms`, at most 5 in all. */
export const MAX_BLOCKING_ALARMS = MAX_STOP_ALARMS - 1;

const drillName = z.string();

const { cluster: _cluster, ...fieldsBesideCluster } = commonFields;

/** The fields of every drill action: a request's, with the drill's target: a cluster, or a fabric (a drain test). */
const drillFields = {
  ...fieldsBesideCluster,
  /** The drill's cluster: the SQS MessageGroupId; a valid name. Give this or `fabric`. */
  cluster: z.string().optional(),
  /** A drain test's fabric (issue 23): every run evacuates it. Give this or `cluster`. */
  fabric: z.string().optional(),
};

/** `action: putDrill`: defines (or redefines) a drill; its runs so far are kept. */
export const putDrillRequestSchema = z.strictObject({
  ...drillFields,
  /** Defines or redefines a drill. */
  action: z.literal('putDrill'),
  /** The drill's name: a valid name (it names `/failout/drills/<name>`). */
  drill: drillName,
  /** Where a cluster's drill sends the traffic; as a failout's `peers`. Required with `cluster`, refused with `fabric`. */
  peers: z.array(peerSchema).min(1).optional(),
  /** How long each run moves the traffic, ISO-8601 (`PT30M`); at most the maximum window. */
  duration: z.string(),
  /** Which buckets each run moves; default all (0–99). */
  buckets: bucketsSchema.optional(),
  /** When runs are due: EventBridge `cron(...)` (6 fields, UTC) or `rate(...)`. */
  every: z.string(),
  /** The alarm that ends a run when it goes to ALARM (a run is `passed` when it never does). */
  outcomeAlarm: z.string(),
  /** Alarms that keep a run from starting while in ALARM; they stop a running one too. At most 4. */
  blockingAlarms: z.array(z.string()).optional(),
  /** UTC dates `YYYY-MM-DD` on which no run starts; at most 15. */
  blockedDates: z.array(z.string()).optional(),
  /** Weekly UTC windows `Mon:09:00-Mon:10:00` that no run may overlap; at most 15. */
  blockedWindows: z.array(z.string()).optional(),
  /** A drain test: target fabrics and weights, as `evacuate`'s (absent: every other fabric, by capacity). */
  targets: z.array(evacuationTargetSchema).min(1).optional(),
  /** A drain test: stages in order, as `evacuate`'s. */
  stages: z.array(evacuationStageSchema).min(1).optional(),
  /** A drain test: time between a stage being fully out and the next stage's start (default 5 minutes). */
  hold: z.string().optional(),
  /** A drain test: spacing of the return between stages, last stage first (default 30 seconds). */
  restoreGap: z.string().optional(),
  /** A drain test: each cluster's ramp from its stage's start, as `evacuate`'s. */
  ramp: rampSchema.optional(),
  /** A drain test: services left in place. */
  exclude: z.array(z.string()).optional(),
});

/** `action: deleteDrill`: removes a drill and its runs (refused while a run moves traffic). */
export const deleteDrillRequestSchema = z.strictObject({
  ...drillFields,
  /** Removes a drill and its runs. */
  action: z.literal('deleteDrill'),
  /** The drill's name. */
  drill: drillName,
});

/** `action: skipDrill`: records a run that was due but not started, and why. */
export const skipDrillRequestSchema = z.strictObject({
  ...drillFields,
  /** Records a run that was due but not started. */
  action: z.literal('skipDrill'),
  /** The drill's name. */
  drill: drillName,
  /** Why it was skipped. */
  skipReason: z.enum(SKIP_REASONS),
  /** When the run was due (epoch ms). */
  scheduledAt: z.number().int().min(0).optional(),
  /** What exactly blocked it (`alarm X is in ALARM`), shown in `failout drill history`. */
  detail: freeText(512).optional(),
});

/** A peer of a drill's runs. */
export interface DrillPeer {
  /** The peer cluster. */
  readonly cluster: string;
  /** Relative share of the moved traffic. */
  readonly weight: number;
}

/** An inclusive range of the 100 traffic buckets. */
export interface BucketRange {
  /** First bucket, 0–99. */
  readonly from: number;
  /** Last bucket (inclusive), 0–99. */
  readonly to: number;
}

/** When a drill runs and what judges it: every drill has these, whatever its target. */
export interface DrillSchedule {
  /** Run length in ms. */
  readonly durationMs: number;
  /** `cron(...)` or `rate(...)`, UTC, as given (checked by lib/schedule). */
  readonly every: string;
  /** The alarm that judges a run (it stops the run when it fires). */
  readonly outcomeAlarm: string;
  /** Alarms that keep a run from starting while in ALARM (and stop a running one); empty when none. */
  readonly blockingAlarms: readonly string[];
  /** UTC dates `YYYY-MM-DD` with no run; empty when none. */
  readonly blockedDates: readonly string[];
  /** Weekly UTC windows `Mon:09:00-Mon:10:00` no run may overlap; empty when none. */
  readonly blockedWindows: readonly string[];
}

/** What a cluster's drill runs and when: a normalised `putDrill` and the drill's stored definition both carry it. */
export interface DrillSettings extends DrillSchedule {
  /** Where each run sends the traffic, weights defaulted to 1. */
  readonly peers: readonly DrillPeer[];
  /** The buckets each run moves; default 0–99. */
  readonly buckets: BucketRange;
}

/** How a drain test's runs evacuate its fabric: an `evacuate`'s options (targets, stages, hold, restore gap, ramp, exclude). */
export type FabricDrillOptions = EvacuationOptions;

/** What a drain test runs and when. */
export interface FabricDrillSettings extends DrillSchedule {
  /** How each run evacuates the fabric. */
  readonly evacuation: FabricDrillOptions;
}

/** A normalised `putDrill`. */
export interface PutDrillChangeRequest extends ChangeRequestBase, DrillSettings {
  /** Defines or redefines a drill. */
  readonly action: 'putDrill';
  /** The drill's name. */
  readonly drill: string;
}

/** Fields of every normalised drain test action: a fabric in place of a cluster. */
export interface FabricDrillRequestBase {
  readonly version: 1;
  readonly requestId: string;
  /** The drain test's fabric. */
  readonly fabric: string;
  /** The drill's name. */
  readonly drill: string;
  readonly requestedBy?: string;
  readonly reason?: string;
  readonly force: boolean;
}

/** A normalised `putDrill` of a fabric (a drain test). */
export interface PutFabricDrillChangeRequest extends FabricDrillRequestBase, FabricDrillSettings {
  readonly action: 'putDrill';
}

/** A normalised `deleteDrill` of a fabric's drill. */
export interface DeleteFabricDrillChangeRequest extends FabricDrillRequestBase {
  readonly action: 'deleteDrill';
}

/** A normalised `skipDrill` of a fabric's drill. */
export interface SkipFabricDrillChangeRequest extends FabricDrillRequestBase {
  readonly action: 'skipDrill';
  readonly skipReason: SkipReason;
  readonly scheduledAt?: number;
  readonly detail?: string;
}

/** A normalised drain test action: it names a fabric, never a cluster. */
export type FabricDrillChangeRequest = PutFabricDrillChangeRequest | DeleteFabricDrillChangeRequest | SkipFabricDrillChangeRequest;

/** True for a normalised drain test action (a drill action naming a fabric). */
export function isFabricDrillRequest(request: { readonly action: string }): request is FabricDrillChangeRequest {
  return (DRILL_ACTIONS as readonly string[]).includes(request.action) && typeof (request as { fabric?: unknown }).fabric === 'string';
}

/** A normalised `deleteDrill`. */
export interface DeleteDrillChangeRequest extends ChangeRequestBase {
  /** Removes a drill and its runs. */
  readonly action: 'deleteDrill';
  /** The drill's name. */
  readonly drill: string;
}

/** A normalised `skipDrill`. */
export interface SkipDrillChangeRequest extends ChangeRequestBase {
  /** Records a run that was due but not started. */
  readonly action: 'skipDrill';
  /** The drill's name. */
  readonly drill: string;
  /** Why it was not started. */
  readonly skipReason: SkipReason;
  /** When it was due (epoch ms), when the sender said. */
  readonly scheduledAt?: number;
  /** What exactly blocked it. */
  readonly detail?: string;
}

/** A normalised drill action. */
export type DrillChangeRequest = PutDrillChangeRequest | DeleteDrillChangeRequest | SkipDrillChangeRequest;

type PutInput = z.output<typeof putDrillRequestSchema>;
type DeleteInput = z.output<typeof deleteDrillRequestSchema>;
type SkipInput = z.output<typeof skipDrillRequestSchema>;

/** A drill action as the wire schema read it. */
export type DrillInput = PutInput | DeleteInput | SkipInput;

/** True for the drill actions' inputs. */
export function isDrillInput(input: { readonly action: string }): input is DrillInput {
  return (DRILL_ACTIONS as readonly string[]).includes(input.action);
}

/** The problem with a drill name, or undefined (the name grammar: it becomes one znode name). */
export function drillNameProblem(name: string, field = 'drill'): Problem | undefined {
  return nameProblem(name, field);
}

/**
 * Checks and normalises a drill action that passed the wire schema: names, and for `putDrill` the
 * schedule, alarms, blocked dates and windows and the run length. Every problem is named
 * (`badName`, `badStopAlarm`, `badDrill`, `windowTooLong`, `peerIsCluster`, `duplicatePeer`, `tooManyPeers`;
 * a drain test's options as `evacuate`'s: `badTargets`, `badStages`, `badRamp`). A drill names a
 * cluster (with `peers`) or a fabric (with the evacuation options), never both (`badSchema`).
 */
export function parseDrillRequest(input: DrillInput, limits: DrillLimits): ParseOutcome<DrillChangeRequest | FabricDrillChangeRequest> {
  if (input.fabric !== undefined || input.cluster === undefined) return parseFabricDrillRequest(input, limits);
  const problems: Problem[] = [];
  for (const p of [requestIdProblem(input.requestId, 'requestId'), nameProblem(input.cluster, 'cluster'), drillNameProblem(input.drill)]) if (p) problems.push(p);
  const base = requestBaseOf({ ...input, cluster: input.cluster });
  const reject = (): ParseOutcome<DrillChangeRequest> => ({ ok: false, rejection: rejectionOf(problems, usableId(input.requestId)) });
  if (input.action === 'deleteDrill') return problems.length > 0 ? reject() : { ok: true, request: { ...base, action: 'deleteDrill', drill: input.drill } };
  if (input.action === 'skipDrill') {
    if (problems.length > 0) return reject();
    return { ok: true, request: { ...base, action: 'skipDrill', drill: input.drill, ...skipFields(input) } };
  }
  if (input.peers === undefined) problems.push({ reason: 'badSchema', message: "peers: required for a cluster's drill (where each run sends the traffic)" });
  const fabricOnly = DRAIN_TEST_FIELDS.filter((field) => input[field] !== undefined);
  if (fabricOnly.length > 0) problems.push({ reason: 'badSchema', message: `${fabricOnly.join(', ')}: only for a drill of a fabric (a drain test), not of a cluster` });
  problems.push(...putDrillProblems(input, limits));
  if (problems.length > 0 || input.peers === undefined) return reject();
  return {
    ok: true,
    request: {
      ...base,
      action: 'putDrill',
      drill: input.drill,
      peers: input.peers.map((p) => ({ cluster: p.cluster, weight: p.weight ?? 1 })),
      buckets: input.buckets ?? { from: 0, to: 99 },
      ...scheduleOf(input),
    },
  };
}

/** The guard rails a drill is checked against (the parse's limits), and the time of parsing when known. */
export interface DrillLimits {
  readonly maxWindowMs: number;
  readonly maxPeers: number;
  readonly now?: number;
}

/** The fields only a drain test has. */
const DRAIN_TEST_FIELDS = ['targets', 'stages', 'hold', 'restoreGap', 'ramp', 'exclude'] as const;

/** The request id of a rejection, when it is usable as a record name. */
function usableId(requestId: string): string | undefined {
  return requestId && requestIdProblem(requestId, 'requestId') === undefined ? requestId : undefined;
}

function skipFields(input: SkipInput): Pick<SkipDrillChangeRequest, 'skipReason' | 'scheduledAt' | 'detail'> {
  return { skipReason: input.skipReason, ...(input.scheduledAt === undefined ? {} : { scheduledAt: input.scheduledAt }), ...(input.detail === undefined ? {} : { detail: input.detail }) };
}

function scheduleOf(input: PutInput): DrillSchedule {
  return {
    durationMs: parseDuration(input.duration)!,
    every: input.every,
    outcomeAlarm: input.outcomeAlarm,
    blockingAlarms: input.blockingAlarms ?? [],
    blockedDates: input.blockedDates ?? [],
    blockedWindows: input.blockedWindows ?? [],
  };
}

/** {@link parseDrillRequest} of a drill naming a fabric (or naming neither: refused). */
function parseFabricDrillRequest(input: DrillInput, limits: DrillLimits): ParseOutcome<FabricDrillChangeRequest> {
  const problems: Problem[] = [];
  const reject = (): ParseOutcome<FabricDrillChangeRequest> => ({ ok: false, rejection: rejectionOf(problems, usableId(input.requestId)) });
  if (input.fabric === undefined) {
    problems.push({ reason: 'badSchema', message: "cluster or fabric: a drill names its cluster, or its fabric (a drain test)" });
    return reject();
  }
  if (input.cluster !== undefined) problems.push({ reason: 'badSchema', message: 'cluster and fabric: a drill names one of them, not both' });
  for (const p of [requestIdProblem(input.requestId, 'requestId'), nameProblem(input.fabric, 'fabric'), drillNameProblem(input.drill)]) if (p) problems.push(p);
  const fabric = input.fabric;
  const base: Omit<FabricDrillRequestBase, 'drill'> = {
    version: 1,
    requestId: input.requestId,
    fabric,
    ...(input.requestedBy === undefined ? {} : { requestedBy: input.requestedBy }),
    ...(input.reason === undefined ? {} : { reason: input.reason }),
    force: input.force ?? false,
  };
  if (input.action === 'deleteDrill') return problems.length > 0 ? reject() : { ok: true, request: { ...base, action: 'deleteDrill', drill: input.drill } };
  if (input.action === 'skipDrill') return problems.length > 0 ? reject() : { ok: true, request: { ...base, action: 'skipDrill', drill: input.drill, ...skipFields(input) } };
  const clusterOnly = (['peers', 'buckets'] as const).filter((field) => input[field] !== undefined);
  if (clusterOnly.length > 0) problems.push({ reason: 'badSchema', message: `${clusterOnly.join(', ')}: only for a drill of a cluster; a drain test moves every cluster of its fabric (targets, exclude)` });
  const evacuation = parseEvacuationOptions({ ...input, fabric }, problems);
  problems.push(...putDrillProblems(input, limits));
  // The ramp against a run's window (a run starting now): every run is as long as the drill says.
  const ms = parseDuration(input.duration);
  const start = limits.now ?? 0;
  if (input.ramp !== undefined && ms !== undefined && ms > 0) problems.push(...rampProblems(input.ramp, { from: 0, to: 99 }, start, start + ms));
  if (problems.length > 0) return reject();
  return { ok: true, request: { ...base, action: 'putDrill', drill: input.drill, evacuation, ...scheduleOf(input) } };
}

function putDrillProblems(input: PutInput, limits: DrillLimits): Problem[] {
  const problems: Problem[] = [];
  const bad = (message: string) => problems.push({ reason: 'badDrill', message });
  const seen = new Set<string>();
  const peers = input.peers ?? [];
  peers.forEach((peer, i) => {
    const name = nameProblem(peer.cluster, `peers[${i}].cluster`);
    if (name) problems.push(name);
    else if (peer.cluster === input.cluster) problems.push({ reason: 'peerIsCluster', message: `peers[${i}].cluster: ${JSON.stringify(peer.cluster)} is the drill's cluster` });
    else if (seen.has(peer.cluster)) problems.push({ reason: 'duplicatePeer', message: `peers[${i}].cluster: ${JSON.stringify(peer.cluster)} is listed twice` });
    seen.add(peer.cluster);
  });
  if (peers.length > limits.maxPeers) problems.push({ reason: 'tooManyPeers', message: `peers: ${peers.length} given; at most ${limits.maxPeers} are accepted` });
  const ms = parseDuration(input.duration);
  if (ms === undefined || ms <= 0) bad(`duration: ${JSON.stringify(input.duration.slice(0, 32))} is not a positive duration (example: PT30M)`);
  else if (ms > limits.maxWindowMs) problems.push({ reason: 'windowTooLong', message: `duration: ${input.duration} is longer than the maximum window ${formatDuration(limits.maxWindowMs)}` });
  const schedule = parseSchedule(input.every);
  if (!schedule.ok) bad(`every: ${schedule.message}`);
  const outcome = alarmNameProblem(input.outcomeAlarm, 'outcomeAlarm');
  if (outcome) problems.push(outcome);
  const blocking = input.blockingAlarms ?? [];
  if (blocking.length > MAX_BLOCKING_ALARMS) bad(`blockingAlarms: ${blocking.length} given; at most ${MAX_BLOCKING_ALARMS} (with the outcome alarm they stop a run, at most ${MAX_STOP_ALARMS} in all)`);
  const alarms = new Set([input.outcomeAlarm]);
  blocking.forEach((name, i) => {
    const problem = alarmNameProblem(name, `blockingAlarms[${i}]`);
    if (problem) problems.push(problem);
    else if (alarms.has(name)) bad(`blockingAlarms[${i}]: ${JSON.stringify(name.slice(0, 64))} is listed twice (or is the outcome alarm)`);
    alarms.add(name);
  });
  const dates = input.blockedDates ?? [];
  if (dates.length > MAX_BLOCKED_ENTRIES) bad(`blockedDates: ${dates.length} given; at most ${MAX_BLOCKED_ENTRIES}`);
  dates.forEach((date, i) => {
    const problem = blockedDateProblem(date);
    if (problem) bad(`blockedDates[${i}]: ${problem}`);
  });
  const windows = input.blockedWindows ?? [];
  if (windows.length > MAX_BLOCKED_ENTRIES) bad(`blockedWindows: ${windows.length} given; at most ${MAX_BLOCKED_ENTRIES}`);
  windows.forEach((text, i) => {
    const window = parseBlockedWindow(text);
    if (typeof window === 'string') bad(`blockedWindows[${i}]: ${window}`);
  });
  return problems;
}
