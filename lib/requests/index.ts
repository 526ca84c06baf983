/**
 * lib/requests: failout change requests. The version 1 schema with guard rails, the pure
 * `applyRequest`, request records, the exactly-once ZooKeeper writer, the view of open failouts, the
 * drills as the worker keeps them, the role → path ACL table of the ZooKeeper layout, and the one
 * encoder every sender uses. No Lambda runtime: the `failout-requests` handler factory (middy,
 * Powertools) is the sub-module `lib/requests/lambda`; producers that need only the schema take
 * `lib/requests/schema-entry` (the package's `failout/requests`).
 *
 * This face exports what other modules use; tests reach the inner files directly.
 */
// The request and its schema, as senders check it.
export { parseChangeRequest, parseDuration } from './schema-entry';
export type { ChangeRequest, ChangeRequestInput, ParseOptions, Rejection, SkipReason } from './schema-entry';
// The one encoder every sender uses (the operator path, the guard, the drill runner).
export { encodeChangeRequest } from './request-message';
export { newRequestId, isValidRequestId, requestIdTime } from './schema-entry';
export { namesStopAlarm } from './apply-request';
export { ALARM_BEFORE_WINDOW_MARGIN_MS, windowMadeAfterAlarm } from './stop-alarms';
// Judging a request as the worker would (dry runs, the console's Check).
export { judgeRequest } from './judge-request';
export { DEFAULT_MAX_PEER_LOAD_FACTOR, projectPeerLoad } from './capacity';
export type { CapacityProjection, RequestRates } from './capacity';
export type { ForceOverride } from './request-record';
export { alarmsNamedBy, readRequestAlarms } from './alarm-check';
// Request records.
export { DEFAULT_REQUESTS_PATH, requestRecordPath, decodeRequestRecord, encodeRequestRecord, lookUpRequestRecord, isRequestError } from './schema-entry';
export type { PruneMark, RecordLookup, RequestRecord } from './schema-entry';
// The view of every open failout (issue 21): what the worker judges each request against.
export { decodeFailoutView, encodeFailoutView, readFailoutView, rebuildFailoutView, viewDrift, viewPathFor } from './failout-view';
export type { ViewDrift } from './failout-view';
// Drills as the worker keeps them: the sub-face lib/requests/drills.
// Access control: the role → path table is the sub-face lib/requests/acl.
// Fabric evacuation (issue 23): the plan as the worker judges it, and the evacuation nodes.
export { judgeEvacuation, readFabricList, restoreOfUnknownFabric } from './evacuation-judge';
export { DEFAULT_EVACUATIONS_PATH, drainTestEndedByRestore, isEvacuationOpen, readEvacuations, readStoredEvacuations, stageBackAt } from './evacuation-node';
export { openEvacuationWindow } from './evacuation-plan';
export type { EvacuationNode, EvacuationPlan, StoredEvacuation } from './evacuation-node';
export type { EvacuateChangeRequest, RestoreFabricChangeRequest } from './evacuate-schema';
export type { FabricDrillChangeRequest } from './drill-schema';
// Fabric maps (issue 23): the worker's own check of a map change, for a client to refuse before sending.
export { judgeFabricChange } from './fabric-writes';
// The worker itself, for its Lambda (functions/) and the benchmarks.
export { RequestWriter } from './request-writer';
export { requestWriterSource } from './writer-source';
// The worker's configuration from its environment (the CDK app checks the environment it gives at synth).
export { loadRequestsConfig } from './config';
export { lazySource } from './lazy-source';
export type { RequestLogger } from './logger';
