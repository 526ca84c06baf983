/**
 * `failout/requests`: what producers of change requests share with the worker, and nothing else.
 * The version 1 schema with its guard rails, the rejection reasons, the request-record path and
 * codec (to read a request's outcome from ZooKeeper, and to tell a pruned record from an absent one),
 * and request ids that carry their time (UUIDv7). It needs only zod at run time: the Lambda
 * handler factory (middy, Powertools) lives in `lib/requests/lambda` and the ZooKeeper writer in
 * `lib/requests`, neither of which is part of the package's public subpaths.
 *
 * @example
 * ```ts
 * import { parseChangeRequest } from 'failout/requests';
 *
 * const result = parseChangeRequest(
 *   { version: 1, requestId: 'req-1', action: 'failout', cluster: 'greetings-lor1', peers: [{ cluster: 'greetings-lva1', weight: 2 }], duration: 'PT30M' },
 *   { now: Date.now() },
 * );
 * if (!result.ok) console.error(result.rejection.reason, result.rejection.message);
 * ```
 *
 * @packageDocumentation
 * @module failout/requests
 */
export {
  changeRequestSchema,
  failoutRequestSchema,
  restoreRequestSchema,
  extendRequestSchema,
  parseChangeRequest,
  DEFAULT_REQUEST_LIMITS,
  EARLIEST_INSTANT,
  LATEST_INSTANT,
} from './schema';
export type { AmendChangeRequest, ChangeRequest, ChangeRequestInput, ClusterChangeRequest, ExtendChangeRequest, FailoutChangeRequest, RampChangeRequest, RestoreChangeRequest, ParseOptions, ParseResult } from './schema';
export type { ParseOutcome } from './request-fields';
export { DRILL_ACTIONS, SKIP_REASONS, MAX_BLOCKING_ALARMS } from './drill-schema';
export type { DrillChangeRequest, DrillPeer, DrillSettings, BucketRange, PutDrillChangeRequest, DeleteDrillChangeRequest, SkipDrillChangeRequest, SkipReason } from './drill-schema';
export { REJECTION_REASONS, MAX_REJECTION_MESSAGE_BYTES } from './rejection';
export type { Problem, Rejection, RejectionReason } from './rejection';
export { parseDuration, formatDuration } from './duration';
export { MAX_RAMP_STEPS } from './ramp';
export { MAX_STOP_ALARMS, MAX_ALARM_NAME_LENGTH, alarmNameProblem } from './stop-alarms';
export type { RampStage } from './ramp';
export { nameProblem, isValidName, requestIdProblem, isValidRequestId, MAX_NAME_LENGTH } from './names';
export { DEFAULT_REQUESTS_PATH, MAX_RECORD_BYTES, requestRecordPath, encodeRequestRecord, decodeRequestRecord } from './request-record';
export type { RequestRecord, RequestStatus } from './request-record';
export { newRequestId, requestIdTime } from './request-id';
export { DEFAULT_RECORD_RETENTION, PRUNE_MARK_NODE, decodePruneMark, encodePruneMark, lookUpRequestRecord, pruneMarkPath, readPruneMark } from './record-retention';
export type { PruneMark, RecordLookup, RecordRetention } from './record-retention';
export { RequestError, TransientRequestError, isRequestError } from './errors';
export type { RequestErrorKind, RequestErrorOptions, TransientReason } from './errors';
