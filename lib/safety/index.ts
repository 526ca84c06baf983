/**
 * lib/safety: safe failouts (issue 16) beyond what the request worker checks itself. Stop conditions
 * (an alarm in ALARM → `restore` requests for the failouts naming it) and drills, as pure rules plus
 * the pieces their Lambda handlers wire (the handler factories are the sub-face `lib/safety/lambda`,
 * so nothing here loads Powertools or middy).
 */
// Stop conditions: the alarm event codec and the guard.
// The one error class of lib/safety (kinds: malformedEvent, invalidConfig, restoreNotSent).
export { SafetyError, isSafetyError } from './errors';
export type { SafetyErrorKind, SafetyErrorOptions } from './errors';
export { ALARM_EVENT_DETAIL_TYPE, ALARM_EVENT_SOURCE, ALARM_STATES, alarmStateChangeEvent, parseAlarmEvent } from './alarm-event';
export type { AlarmEventInit, AlarmEventResult, AlarmStateChange, AlarmStateValue } from './alarm-event';
export { GUARD_REQUESTER, StopGuard, guardRequestId, handleAlarmEvent } from './stop-guard';
export type { AlarmEventDeps, GuardCounter, GuardResult, GuardZkReader, MessageSender, SentRestore, StopGuardOptions } from './stop-guard';
export { createStopGuard, loadGuardConfig, stopGuardSource } from './guard-source';
export type { GuardConfig, StopGuardSourceOptions } from './guard-source';
export type { ReadOnlySessionConfig } from './lambda-source';
// Drills: alarm states (the port, CloudWatch and HTTP), the run decision and the runner.
export { AlarmStatesError, CloudWatchAlarmStates, HttpAlarmStates, alarmStatesFromEnv } from './alarm-states';
export type { AlarmState, AlarmStates } from './alarm-states';
export { decideRun } from './drill-decision';
export type { RunDecision, RunFacts } from './drill-decision';
export { DEFAULT_DRILL_GRACE_MS, DRILL_REQUESTER, DrillRunner, drillRunId } from './drill-runner';
export type { DrillRunnerOptions, DrillTickResult, DrillZkReader } from './drill-runner';
export { createDrillRunner, drillRunnerSource, loadDrillRunnerConfig } from './drill-source';
export type { DrillRunnerConfig, DrillRunnerSourceOptions } from './drill-source';
