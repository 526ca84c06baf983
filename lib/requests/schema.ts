import { z } from 'zod';
import { durationSchema, EARLIEST_INSTANT, instantSchema, LATEST_INSTANT, normaliseWindow } from './window';
import { isValidRequestId, nameProblem, requestIdProblem } from './names';
import { rampProblems, rampSchema, rampStages, type RampStage } from './ramp';
import { rejectionOf, type Problem } from './rejection';
import { bucketsSchema, commonFields, peerSchema, requestBaseOf, type ChangeRequestBase, type ParseOutcome } from './request-fields';

export type { ChangeRequestBase } from './request-fields';
import { deleteDrillRequestSchema, drillNameProblem, isDrillInput, isFabricDrillRequest, parseDrillRequest, putDrillRequestSchema, skipDrillRequestSchema, type DrillChangeRequest, type FabricDrillChangeRequest } from './drill-schema';
import { alarmNameProblem, stopAlarmProblems, stopAlarmsSchema } from './stop-alarms';
import { deleteFabricRequestSchema, isFabricInput, isFabricRequest, parseFabricRequest, putFabricRequestSchema, type FabricChangeRequest } from './fabric-schema';
import { amendRequestSchema, isAdjustInput, parseAdjustRequest, rampAdvanceRequestSchema, rampHoldRequestSchema, rampResumeRequestSchema, type AmendChangeRequest, type RampChangeRequest } from './adjust-schema';
import { evacuateRequestSchema, isEvacuationInput, isEvacuationRequest, parseEvacuationRequest, restoreFabricRequestSchema, type EvacuationChangeRequest } from './evacuate-schema';

export { REJECTION_REASONS, type Rejection, type RejectionReason } from './rejection';
export { EARLIEST_INSTANT, LATEST_INSTANT } from './window';

/**
 * The change request, version 1 (ARCHITECTURE.md "Change request"): the SQS FIFO message body, with
 * MessageGroupId = cluster (a fabric action's: `FABRIC_MESSAGE_GROUP`, request-message.ts
 * `messageGroupOf`) and MessageDeduplicationId = requestId.
 */

const common = commonFields;

/** `action: failout`: replaces the cluster's failout. */
export const failoutRequestSchema = z.strictObject({
  ...common,
  /** Replaces the cluster's failout. */
  action: z.literal('failout'),
  /** Where the traffic goes: at least one peer, at most `maxPeers` (default 10). */
  peers: z.array(peerSchema).min(1),
  /** When the failout starts (ISO-8601 with a zone, or epoch ms; from 1970 to 9999). Default: the time of parsing. */
  offlineAt: instantSchema.optional(),
  /** When the failout ends (ISO-8601 with a zone, or epoch ms; from 1970 to 9999). Give this or `duration`, not both. */
  onlineAt: instantSchema.optional(),
  /** Window length from `offlineAt`, e.g. `PT2H` (no years or months; ending by 9999). Give this or `onlineAt`, not both. */
  duration: durationSchema.optional(),
  /** Inclusive range of the 100 traffic buckets to redirect. Default: 0–99 (all traffic). */
  buckets: bucketsSchema.optional(),
  /**
   * Moves the traffic in steps: cumulative percentages of `buckets`, increasing to 100, each but the
   * last holding for a `duration` (e.g. `[{"percent": 10, "duration": "PT5M"}, {"percent": 100}]`);
   * at most 10 steps, all before the window ends. Default: everything at `offlineAt`.
   */
  ramp: rampSchema.optional(),
  /**
   * CloudWatch alarm names that stop this failout: when one goes to ALARM, the guard restores the
   * cluster. 1–255 characters each, no control characters, at most 5, each once (`badStopAlarm`).
   */
  stopAlarms: stopAlarmsSchema.optional(),
  /** Set by the drill runner only: the drill this failout is a run of (written into every bucket config as `drill`). */
  drill: z.string().optional(),
});

/** `action: restore`: removes the cluster's failout. */
export const restoreRequestSchema = z.strictObject({
  ...common,
  /** Removes the cluster's failout. */
  action: z.literal('restore'),
  /**
   * Set by the guard (lib/safety): the stop alarm whose ALARM state caused this restore. Such a
   * restore removes the failout only while a window of it that has not ended names this alarm.
   */
  stoppedByAlarm: z.string().optional(),
  /** With `stoppedByAlarm`: when it was seen in ALARM (epoch ms); judges the drill run whose window held it, even after the window (drill-writes.ts). */
  alarmAt: z.number().int().min(EARLIEST_INSTANT).max(LATEST_INSTANT).optional(),
  /** With `stoppedByAlarm`: the drill whose run the alarm judges (its window may have ended and been pruned since). */
  drill: z.string().optional(),
});

/** `action: extend`: moves the end of the cluster's active failout (every window of it), nothing else. */
export const extendRequestSchema = z.strictObject({
  ...common,
  /** Moves the end of the active failout. */
  action: z.literal('extend'),
  /** The new end (ISO-8601 with a zone, or epoch ms). Give this or `duration`, not both. */
  onlineAt: instantSchema.optional(),
  /** The new end as a length from the time of application, e.g. `PT1H`. Give this or `onlineAt`, not both. */
  duration: durationSchema.optional(),
});

/** The wire schema of a change request (structure only; {@link parseChangeRequest} adds the guard rails). */
export const changeRequestSchema = z.discriminatedUnion('action', [
  failoutRequestSchema,
  restoreRequestSchema,
  extendRequestSchema,
  rampHoldRequestSchema,
  rampResumeRequestSchema,
  rampAdvanceRequestSchema,
  amendRequestSchema,
  putDrillRequestSchema,
  deleteDrillRequestSchema,
  skipDrillRequestSchema,
  putFabricRequestSchema,
  deleteFabricRequestSchema,
  evacuateRequestSchema,
  restoreFabricRequestSchema,
]);

/** A change request as sent (JSON). */
export type ChangeRequestInput = z.input<typeof changeRequestSchema>;

/** A normalised failout: epoch-ms window, weights and buckets defaulted. */
export interface FailoutChangeRequest extends ChangeRequestBase {
  /** Replaces the cluster's failout. */
  readonly action: 'failout';
  /** Where the traffic goes, in the order given. */
  readonly peers: readonly {
    /** The peer cluster. */
    readonly cluster: string;
    /** Relative share of the redirected traffic; default 1. */
    readonly weight: number;
  }[];
  /** Epoch ms; the time of parsing when the request gave none. */
  readonly offlineAt: number;
  /** Epoch ms; from `onlineAt`, or `offlineAt + duration`. */
  readonly onlineAt: number;
  /** Inclusive bucket range; default 0–99 (all traffic). */
  readonly buckets: {
    /** First bucket redirected, 0–99. */
    readonly from: number;
    /** Last bucket redirected (inclusive), 0–99. */
    readonly to: number;
  };
  /** The ramp's steps when the request gave one: disjoint bucket ranges covering `buckets`, staggered from `offlineAt`. */
  readonly ramp?: readonly RampStage[];
  /** Alarm names that stop the failout (absent when none were given); written into every bucket config. */
  readonly stopAlarms?: readonly string[];
  /** The drill this failout is a run of (set by the drill runner only). */
  readonly drill?: string;
}

/** A normalised restore. */
export interface RestoreChangeRequest extends ChangeRequestBase {
  /** Removes the cluster's failout. */
  readonly action: 'restore';
  /** The stop alarm whose ALARM state caused this restore (the guard's and the drill runner's restores only). */
  readonly stoppedByAlarm?: string;
  /** With `stoppedByAlarm`: when it was seen in ALARM (epoch ms), for the drill run's verdict. */
  readonly alarmAt?: number;
  /** With `stoppedByAlarm`: the drill whose run it judges. */
  readonly drill?: string;
}

/** A normalised extend: the new end as epoch ms. */
export interface ExtendChangeRequest extends ChangeRequestBase {
  /** Moves the end of the active failout. */
  readonly action: 'extend';
  /** Epoch ms: the new end, from `onlineAt` or the time of parsing plus `duration`. */
  readonly onlineAt: number;
}

/** A change request after {@link parseChangeRequest}: validated and normalised. */
export type ChangeRequest = ClusterChangeRequest | DrillChangeRequest;

/**
 * Any request {@link parseRequest} accepts: a {@link ChangeRequest} (it names a cluster: its
 * FIFO group and what the judge reads), or one that names a fabric (issue 23): a fabric map change
 * (fabric-schema.ts), an evacuation (evacuate-schema.ts) or a drain test's drill action (drill-schema.ts).
 */
export type ParsedRequest = ChangeRequest | FabricChangeRequest | EvacuationChangeRequest | FabricDrillChangeRequest;

/** The requests that change a cluster's failout (judged by `judgeRequest`); the drill actions change only a drill. */
export type ClusterChangeRequest = FailoutChangeRequest | RestoreChangeRequest | ExtendChangeRequest | RampChangeRequest | AmendChangeRequest;

export type { AmendChangeRequest, RampChangeRequest } from './adjust-schema';

/** Limits and the clock of {@link parseChangeRequest}. */
export interface ParseOptions {
  /** Epoch ms to judge windows against and to default `offlineAt` to. */
  readonly now: number;
  /** Longest allowed time from now to the window's end. Default 72 h. */
  readonly maxWindowMs?: number;
  /** Largest body in UTF-8 bytes. Default 16 KiB. */
  readonly maxBodyBytes?: number;
  /** Most peers in one request. Default 10. */
  readonly maxPeers?: number;
}

/** Defaults of {@link ParseOptions}. */
export const DEFAULT_REQUEST_LIMITS = Object.freeze({
  /** 72 h: the longest allowed time from now to the window's end. */
  maxWindowMs: 72 * 3600_000,
  /** 16 KiB: the largest body in UTF-8 bytes. */
  maxBodyBytes: 16 * 1024,
  /** The most peers in one request. */
  maxPeers: 10,
});

/** The result of {@link parseChangeRequest}. */
export type ParseResult = ParseOutcome<ChangeRequest>;

/** The result of {@link parseRequest}: any action, fabric map changes included. */
export type ParsedRequestResult = ParseOutcome<ParsedRequest>;

/**
 * Validates and normalises a change request: size, JSON, the version 1 schema (every problem named),
 * names, peers, and the window against `options.now`. State checks (does the cluster exist, are the
 * peers healthy) are `applyRequest`'s and the writer's.
 *
 * @param body - the SQS message body, or an already parsed value (the CLI's).
 */
export function parseChangeRequest(body: string | unknown, options: ParseOptions): ParseResult {
  const parsed = parseRequest(body, options);
  if (!parsed.ok || !(isFabricRequest(parsed.request) || isEvacuationRequest(parsed.request) || isFabricDrillRequest(parsed.request))) return parsed as ParseResult;
  // A fabric action names no cluster: a caller of this function would judge or group it by one.
  const problem: Problem = { reason: 'badSchema', message: `action: ${parsed.request.action} acts on a fabric, not a cluster (parseRequest accepts it)` };
  return reject([problem], parsed.request.requestId);
}

/**
 * {@link parseChangeRequest} for every action, the fabric map changes (fabric-schema.ts, issue 23)
 * included: what the worker and the one encoder (`encodeChangeRequest`) parse with. Same checks, same
 * rejections; a fabric request is normalised as a {@link FabricChangeRequest}.
 */
export function parseRequest(body: string | unknown, options: ParseOptions): ParsedRequestResult {
  const limits = {
    maxWindowMs: options.maxWindowMs ?? DEFAULT_REQUEST_LIMITS.maxWindowMs,
    maxBodyBytes: options.maxBodyBytes ?? DEFAULT_REQUEST_LIMITS.maxBodyBytes,
    maxPeers: options.maxPeers ?? DEFAULT_REQUEST_LIMITS.maxPeers,
  };
  const text = typeof body === 'string' ? body : JSON.stringify(body ?? null);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxBodyBytes) {
    // Recorded under the request id when the body has a usable one, so its sender (`--wait`) finds it.
    // Parsing at most an SQS message (1 MiB) costs little; the checks after it would cost more.
    const problem: Problem = { reason: 'oversize', message: `body is ${bytes} bytes; at most ${limits.maxBodyBytes} are accepted` };
    return reject([problem], readableRequestId(typeof body === 'string' ? parseOrUndefined(body) : body));
  }
  let json: unknown = body;
  if (typeof body === 'string') {
    try {
      json = JSON.parse(body);
    } catch (e) {
      return reject([{ reason: 'badJson', message: `body is not JSON: ${e instanceof Error ? e.message : String(e)}` }]);
    }
  }
  const requestId = readableRequestId(json);
  const parsed = changeRequestSchema.safeParse(json);
  if (!parsed.success) {
    return reject(parsed.error.issues.map((issue) => ({ reason: 'badSchema', message: `${formatPath(issue.path)}: ${issue.message}` })), requestId);
  }
  if (isDrillInput(parsed.data)) return parseDrillRequest(parsed.data, { ...limits, now: options.now });
  if (isFabricInput(parsed.data)) return parseFabricRequest(parsed.data);
  if (isEvacuationInput(parsed.data)) return parseEvacuationRequest(parsed.data, { now: options.now, maxWindowMs: limits.maxWindowMs });
  if (isAdjustInput(parsed.data)) {
    const adjust = parseAdjustRequest(parsed.data);
    return adjust.ok ? adjust : reject(adjust.problems, requestId);
  }
  const input = parsed.data;
  const problems = [...nameProblems(input), ...(input.action === 'failout' ? peerProblems(input, limits.maxPeers) : [])];
  if (input.action === 'failout' && input.stopAlarms !== undefined) problems.push(...stopAlarmProblems(input.stopAlarms));
  if (input.action === 'failout' && input.drill !== undefined) {
    const problem = drillNameProblem(input.drill);
    if (problem) problems.push(problem);
  }
  if (input.action === 'restore' && input.stoppedByAlarm !== undefined) {
    for (const p of [alarmNameProblem(input.stoppedByAlarm, 'stoppedByAlarm'), input.drill === undefined ? undefined : drillNameProblem(input.drill)]) if (p) problems.push(p);
  } else if (input.action === 'restore' && (input.alarmAt !== undefined || input.drill !== undefined)) {
    problems.push({ reason: 'badSchema', message: 'alarmAt and drill: only with stoppedByAlarm (they say when that alarm was seen, and which drill run it judges)' });
  }
  if (input.action === 'restore') {
    return problems.length > 0 ? reject(problems, requestId) : { ok: true, request: normaliseRestore(input) };
  }
  if (input.action === 'extend') {
    // The new end is judged as a failout's end starting now: after now, within the maximum window.
    const end = normaliseWindow({ ...input, offlineAt: undefined }, options.now, limits.maxWindowMs);
    problems.push(...end.problems);
    if (problems.length > 0 || end.onlineAt === undefined) return reject(problems, requestId);
    return { ok: true, request: { ...requestBaseOf(input), action: 'extend', onlineAt: end.onlineAt } };
  }
  const window = normaliseWindow(input, options.now, limits.maxWindowMs);
  problems.push(...window.problems);
  if (input.ramp !== undefined && window.offlineAt !== undefined && window.onlineAt !== undefined && window.problems.length === 0) {
    problems.push(...rampProblems(input.ramp, input.buckets ?? { from: 0, to: 99 }, window.offlineAt, window.onlineAt));
  }
  if (problems.length > 0 || window.offlineAt === undefined || window.onlineAt === undefined) return reject(problems, requestId);
  return { ok: true, request: normaliseFailout(input, window.offlineAt, window.onlineAt) };
}

function reject(problems: readonly Problem[], requestId?: string): ParseOutcome<never> {
  return { ok: false, rejection: rejectionOf(problems, requestId) };
}

function parseOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The request id of a body that failed later checks, when it is usable as a record name. */
function readableRequestId(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null) return undefined;
  const id = (json as { requestId?: unknown }).requestId;
  return typeof id === 'string' && isValidRequestId(id) ? id : undefined;
}

/** `peers[1].cluster`, or `(body)` for the root. */
function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(body)';
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i === 0 ? '' : '.'}${String(p)}`)).join('');
}

type FailoutInput = z.output<typeof failoutRequestSchema>;
type RestoreInput = z.output<typeof restoreRequestSchema>;
type ExtendInput = z.output<typeof extendRequestSchema>;

function nameProblems(input: FailoutInput | RestoreInput | ExtendInput): Problem[] {
  const problems = [requestIdProblem(input.requestId, 'requestId'), nameProblem(input.cluster, 'cluster')];
  if (input.action === 'failout') input.peers.forEach((p, i) => problems.push(nameProblem(p.cluster, `peers[${i}].cluster`)));
  return problems.filter((p): p is Problem => p !== undefined);
}

function peerProblems(input: FailoutInput, maxPeers: number): Problem[] {
  const problems: Problem[] = [];
  const seen = new Set<string>();
  input.peers.forEach((peer, i) => {
    if (peer.cluster === input.cluster) {
      problems.push({ reason: 'peerIsCluster', message: `peers[${i}].cluster: ${JSON.stringify(peer.cluster)} is the cluster being failed out` });
    } else if (seen.has(peer.cluster)) {
      problems.push({ reason: 'duplicatePeer', message: `peers[${i}].cluster: ${JSON.stringify(peer.cluster)} is listed twice` });
    }
    seen.add(peer.cluster);
  });
  if (input.peers.length > maxPeers) {
    problems.push({ reason: 'tooManyPeers', message: `peers: ${input.peers.length} given; at most ${maxPeers} are accepted` });
  }
  return problems;
}

function normaliseRestore(input: RestoreInput): RestoreChangeRequest {
  const { stoppedByAlarm, alarmAt, drill } = input;
  return { ...requestBaseOf(input), action: 'restore', ...(stoppedByAlarm === undefined ? {} : { stoppedByAlarm }), ...(alarmAt === undefined ? {} : { alarmAt }), ...(drill === undefined ? {} : { drill }) };
}

function normaliseFailout(input: FailoutInput, offlineAt: number, onlineAt: number): FailoutChangeRequest {
  const buckets = input.buckets ?? { from: 0, to: 99 };
  return {
    ...requestBaseOf(input),
    action: 'failout',
    peers: input.peers.map((p) => ({ cluster: p.cluster, weight: p.weight ?? 1 })),
    offlineAt,
    onlineAt,
    buckets,
    ...(input.ramp === undefined ? {} : { ramp: rampStages(input.ramp, buckets, offlineAt) }),
    ...(input.stopAlarms === undefined || input.stopAlarms.length === 0 ? {} : { stopAlarms: [...input.stopAlarms] }),
    ...(input.drill === undefined ? {} : { drill: input.drill }),
  };
}
