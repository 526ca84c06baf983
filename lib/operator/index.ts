/**
 * lib/operator: the one request path of every operator client (the `failout` CLI, the console).
 * Text inputs (durations, times, peers, shares, ramps) are parsed into request bodies with errors that
 * name the field; bodies are checked with the worker's own schema (`validateLocally`), judged against
 * ZooKeeper as the worker would (`dryRun`), sent through the one encoder (`sendChangeRequest`) and
 * followed to their outcome (`waitForOutcome`); status, records, drills and request rates are read
 * the same way for all. Clients keep only their own surface: commander and printing (lib/cli), fastify
 * and the page (lib/console). Fabrics (lib/fabrics derived over the live tree, with hosts and failout
 * state per cluster) are read here too (`readFabrics`), and a fabric's evacuation (issue 23) takes the
 * same walk under one name, `evacuation` (bodies, local check, the judged plan and its text, status).
 */
export { OperatorError, inputError, isOperatorError, type OperatorEnv } from './errors';
export { DEFAULT_CONSOLE_PORT, resolveSettings, type ConnectionFlags, type ConsoleStartOptions, type OperatorSettings } from './settings';
export { OperatorConnections } from './connections';
export { defaultRequester } from './requester';
export { parseDuration } from './inputs';
export { buildFailoutBody, buildRestoreBody, type OutOptions, type SendableBody } from './request-bodies';
export { buildDeleteDrillBody, buildPutDrillBody, type DrillPutOptions, type PutDrillBody } from './drill-bodies';
export { buildDeleteFabricBody, buildPutFabricBody } from './fabric-bodies';
export { formatLocalRejection, validateLocally } from './local-check';
export { dryRun, formatProjections, projectionJson } from './dry-run';
export { judgementFingerprint } from './judgement-fingerprint';
export { notesBeforeSend } from './send-notes';
export { checkNamedAlarms, resolveAlarmSource, type AlarmSourceFlags, type OperatorAlarmSource } from './alarm-source';
export { sendChangeRequest, waitForOutcome } from './send';
export { lookUpRecord, waitForRequestRecord } from './records';
export { describeCluster, type ClusterStatus, type WindowStatus } from './cluster-status';
export { drillsBase, withDrills } from './drill-status';
export { formatClusterStatus, formatForced, formatPruned, formatRecord, STATE_LABEL } from './format';
export { measureRequestRates, type RateFlags } from './request-rates';
export { createOperatorRequests } from './operator-requests';
export type { ActionFields, CheckResult, OperatorAction, OperatorRequests, PreparedBody, QueueProbe } from './requests-port';
export { readFabrics, type FabricsView } from './fabric-status';
// Fabric evacuation (issue 23): bodies, the local check, the judged plan and its text, status; one namespace.
export * as evacuation from './evacuation';
// Adjusting a running failout (issue 24): the bodies of extend, ramp hold/resume/advance and amend; one namespace.
export * as adjust from './adjust';
