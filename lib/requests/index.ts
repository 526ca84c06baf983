/**
 * lib/requests: failout change requests. The version 1 schema with guard rails, the pure
 * `applyRequest`, request records, the exactly-once ZooKeeper writer, the environment configuration
 * and the logger port. No Lambda runtime: the `failout-requests` handler factory (middy, Powertools)
 * is the sub-module `lib/requests/lambda`.
 */
// The schema-only part (what producers share; the package's `failout/requests` subpath).
export * from './schema-entry';
export { applyRequest, namesStopAlarm } from './apply-request';
// Drills as the worker keeps them (the node codec; the runner and the CLI read it).
export { DEFAULT_DRILLS_PATH, MAX_DRILL_NODE_BYTES, MAX_DRILL_RUNS, drillPath, decodeDrillNode, encodeDrillNode, runStatusAt, runningRun } from './drill-node';
export { checkPutDrill } from './drill-checks';
export type { DrillCheckPaths } from './drill-checks';
export type { DrillDefinition, DrillNode, DrillRun, DrillRunStatus } from './drill-node';
export { changeRequestMessage } from './request-message';
export { FORCE_OVERRIDES } from './request-record';
export type { ForceOverride } from './request-record';
export type { ApplyContext, ApplyResult, PeerState } from './apply-request';
export { readPeerStates } from './peer-states';
// The view of every open failout (issue 21): what the worker judges each request against.
export { DEFAULT_VIEW_PATH, decodeFailoutView, encodeFailoutView, hasOpenWindow, readFailoutView, rebuildFailoutView, viewDrift, viewPathFor, withViewEntry } from './failout-view';
export type { FailoutView, StoredFailoutView, ViewDrift } from './failout-view';
export { judgeRequest } from './judge-request';
// Alarms that can act (issue 21): the worker's and the CLI's one check of the alarms a request names.
export { alarmsNamedBy, checkRequestAlarms, readRequestAlarms } from './alarm-check';
export type { AlarmCheck, AlarmDuty, NamedAlarm } from './alarm-check';
export type { Judgement, JudgeOptions } from './judge-request';
export { DEFAULT_MAX_PEER_LOAD_FACTOR, projectPeerLoad } from './capacity';
export type { CapacityBasis, CapacityInput, CapacityPeer, CapacityProjection, PeerProjection, RequestRates } from './capacity';
export { RequestWriter, DEFAULT_RETRY_BUDGET } from './request-writer';
export { RecordSweeper } from './record-sweeper';
export type { RecordSweeperOptions, SweepResult } from './record-sweeper';
export type { Outcome, RequestMeta, RequestWriterOptions, RetryBudget } from './request-writer';
export { loadRequestsConfig, resolveDigestCredential } from './config';
export type { RequestsConfig, SecretReader } from './config';
export { resolveWriterAcl } from './writer-access';
export { createRequestWriter, requestWriterSource } from './writer-source';
export { lazySource } from './lazy-source';
export type { RequestWriterSourceOptions } from './writer-source';
export type { WriterAccessOptions } from './writer-access';
export { assertIsError } from './errors';
export { silentRequestLogger, pinoRequestLogger } from './logger';
export type { RequestLogger } from './logger';
