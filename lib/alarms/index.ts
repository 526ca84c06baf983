/**
 * lib/alarms: the states of named CloudWatch alarms, for every part that checks them (the request
 * worker and the CLI before a failout, the drill runner before a run, the console's cards). A low
 * module: it imports no other failout module, so lib/requests and lib/safety both build on it.
 *
 * The face loads no AWS SDK: `HttpAlarmStates` uses the global `fetch`. CloudWatch `DescribeAlarms`
 * is the sub-face `lib/alarms/cloudwatch`.
 */
export { ALARM_STATE_VALUES, isAlarmState, readingsOf, statesOf } from './alarm-states';
export type { AlarmReader, AlarmReading, AlarmSource, AlarmState, AlarmStates } from './alarm-states';
export { AlarmStatesError } from './errors';
export type { AlarmStatesErrorKind } from './errors';
export { HttpAlarmStates } from './http-alarm-states';
