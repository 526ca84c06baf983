/**
 * `failout/requests`: what producers of change requests share with the worker, and nothing else.
 * The version 1 schema with its guard rails, the rejection reasons, and the request-record path and
 * codec (to read a request's outcome from ZooKeeper). It needs only zod at run time: the Lambda
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
  parseChangeRequest,
  DEFAULT_REQUEST_LIMITS,
} from './schema';
export type { ChangeRequest, ChangeRequestInput, FailoutChangeRequest, RestoreChangeRequest, ParseOptions, ParseResult } from './schema';
export { REJECTION_REASONS } from './rejection';
export type { Problem, Rejection, RejectionReason } from './rejection';
export { parseDuration, formatDuration } from './duration';
export { nameProblem, isValidName, MAX_NAME_LENGTH } from './names';
export { DEFAULT_REQUESTS_PATH, requestRecordPath, encodeRequestRecord, decodeRequestRecord } from './request-record';
export type { RequestRecord, RequestStatus } from './request-record';
export { RequestError, TransientRequestError, isRequestError } from './errors';
export type { RequestErrorKind, RequestErrorOptions, TransientReason } from './errors';
