/**
 * Alarm states moved to lib/alarms (issue 21: the request worker checks alarms too, and lib/safety
 * sits above lib/requests). Re-exported here so the runner, the console and the CLI keep their imports.
 */
export { AlarmStatesError, HttpAlarmStates } from '../alarms';
export type { AlarmReader, AlarmReading, AlarmSource, AlarmState, AlarmStates } from '../alarms';
export { CloudWatchAlarmStates, alarmStatesFromEnv } from '../alarms/cloudwatch';
