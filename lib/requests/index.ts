/**
 * lib/requests: failout change requests. The version 1 schema with guard rails, the pure
 * `applyRequest`, request records, the exactly-once ZooKeeper writer, the environment configuration
 * and the `failout-requests` Lambda handler factory.
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
export type { Rejection, RejectionReason } from './rejection';
export { parseDuration, formatDuration } from './duration';
export { nameProblem, isValidName, MAX_NAME_LENGTH } from './names';
export { applyRequest } from './apply-request';
export type { ApplyContext, ApplyResult, PeerState } from './apply-request';
export { readPeerStates } from './peer-states';
export { judgeRequest } from './judge-request';
export type { Judgement } from './judge-request';
export { DEFAULT_REQUESTS_PATH, requestRecordPath, encodeRequestRecord, decodeRequestRecord } from './request-record';
export type { RequestRecord, RequestStatus } from './request-record';
export { RequestWriter, DEFAULT_RETRY_BUDGET } from './request-writer';
export type { Outcome, RequestMeta, RequestWriterOptions, RetryBudget } from './request-writer';
export { loadRequestsConfig, resolveDigestCredential } from './config';
export type { RequestsConfig, SecretReader } from './config';
export { RequestError, TransientRequestError, isRequestError, assertIsError } from './errors';
export type { RequestErrorKind, RequestErrorOptions, TransientReason } from './errors';
export { silentRequestLogger, pinoRequestLogger } from './logger';
export type { RequestLogger } from './logger';
export { createHandler, createRecordHandler } from './lambda-handler';
export type { FailoutRequestsHandler, HandlerDeps, RequestProcessor } from './lambda-handler';
